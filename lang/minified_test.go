package lang

import (
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"
)

func TestMinified(t *testing.T) {
	code := strings.Repeat("func F(x int) int {\n\treturn x * 2 // a comment of ordinary length\n}\n\n", 2000)
	tests := []struct {
		name string
		text string
		want bool
	}{
		{"empty", "", false},
		{"small one-liner", testutil.OneLineJS(8<<10, "zebrafish"), false},
		{"one 900 KB line", testutil.OneLineJS(900<<10, "zebrafish"), true},
		{"one 16 KiB line", testutil.OneLineJS(16<<10, "zebrafish"), true},
		{"ordinary code", code, false},
		{"code with one 8 KiB line", code + "var blob = \"" + strings.Repeat("A", 8<<10) + "\"\n", true},
		{"code with a line under 8 KiB", code + "var blob = \"" + strings.Repeat("A", 8<<10-20) + "\"\n", false},
		{"long lines on average", strings.Repeat(strings.Repeat("x", 1500)+"\n", 20), true},
		{"one-line JSON blob", `{"a":[` + strings.Repeat(`{"k":"v","n":1},`, 4000) + `{}]}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Minified([]byte(tt.text)); got != tt.want {
				t.Errorf("Minified(%d bytes) = %v, want %v", len(tt.text), got, tt.want)
			}
		})
	}
}
