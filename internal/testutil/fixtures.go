package testutil

import (
	"fmt"
	"strings"
)

// ToolOutput is the i-th tool output of a test conversation: 600 lines of
// varied code, so condensing it is worth a reference. Each i gives other
// text.
func ToolOutput(i int) string {
	words := []string{"alpha", "beta", "gamma", "delta", "store", "cart", "item", "limit", "error", "value", "index", "buffer"}
	var sb strings.Builder
	for j := range 600 {
		k := i*7919 + j*31
		fmt.Fprintf(&sb, "func %s%d(%s int) %s { return %s[%d] + %d }\n", words[k%12], j, words[(k/3)%12], words[(k/5)%12], words[(k/7)%12], j, k%997)
	}
	return sb.String()
}
