package artifacts

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ctxd/ctxd"
)

// ParseLines reads a 1-based, inclusive line range as references name
// them: "a-b", "a-" (to the end, end 0) or "a" (one line). A malformed
// range wraps [ctxd.ErrInvalidParams]. The MCP rehydrate tool and the
// proxy's GET /ctxd/artifacts share it.
func ParseLines(s string) (start, end int, err error) {
	// A reference's hint names the range "a-b" as a placeholder: the
	// message says what stands for it ("want a-b" answered a copied hint).
	bad := fmt.Errorf("lines %q: want line numbers counting from 1, as 10-20, 10- (to the end) or 10 (a reference's a-b stands for them): %w", s, ctxd.ErrInvalidParams)
	a, b, isRange := strings.Cut(strings.TrimSpace(s), "-")
	if start, err = strconv.Atoi(a); err != nil || start < 1 {
		return 0, 0, bad
	}
	if !isRange {
		return start, start, nil
	}
	if b == "" {
		return start, 0, nil
	}
	if end, err = strconv.Atoi(b); err != nil {
		return 0, 0, bad
	}
	if end < start {
		return 0, 0, fmt.Errorf("lines %q: the range ends before it starts; want a-b with b >= a, as %d-%d: %w", s, end, start, ctxd.ErrInvalidParams)
	}
	return start, end, nil
}
