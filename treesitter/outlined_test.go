//go:build cgo && !notreesitter

package treesitter

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
)

// TestFocusOutlineKept: with Options.OutlineKept the focus views show a
// large function kept for a line outlined: the inner definition holding
// the cursor whole, every other one as its first and last lines around a
// "... (N lines)" line, its lines elided, and every other line of the
// view a whole line of the source. Without it (and from the same cache)
// the function is whole.
func TestFocusOutlineKept(t *testing.T) {
	gap := regexp.MustCompile(`^\s*\.\.\. \((\d+) lines\)$`)
	number := regexp.MustCompile(`^\d+: `)
	for _, tc := range []struct{ lang, top string }{
		{"javascript", "function createRenderer("},
		{"python", "def make_app("},
		{"go", "func Render("},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			src, at := innerSource(tc.lang, 12, 8)
			lines := strings.Split(src, "\n")
			top := 0
			for i, l := range lines {
				if strings.HasPrefix(l, tc.top) {
					top = i + 1
				}
			}
			cursor := at[4] + 2
			whole, err := FocusViews(t.Context(), tc.lang, []byte(src), Options{KeepLines: []int{top, cursor}})
			if err != nil || len(whole) == 0 {
				t.Fatalf("no focus views: %v", err)
			}
			vs, err := FocusViews(t.Context(), tc.lang, []byte(src), Options{KeepLines: []int{top, cursor}, OutlineKept: true})
			if err != nil || len(vs) == 0 {
				t.Fatalf("no outlined focus views: %v", err)
			}
			for _, v := range whole {
				if ctxd.InRanges(v.Elided, at[0]) {
					t.Fatalf("%s view without OutlineKept elides line %d: the function must be whole\n%s", v.Level, at[0], v.Text)
				}
			}
			for _, v := range vs {
				if len(v.Text) >= len(whole[0].Text) && v.Level == whole[0].Level {
					t.Errorf("%s view outlined is no smaller than whole (%d >= %d bytes)", v.Level, len(v.Text), len(whole[0].Text))
				}
				for l := at[4]; l < at[4]+8; l++ {
					if ctxd.InRanges(v.Elided, l) || !strings.Contains(v.Text, lines[l-1]) {
						t.Errorf("%s view hides line %d of the inner definition at the cursor\n%s", v.Level, l, v.Text)
					}
				}
				for k, a := range at {
					if k == 4 {
						continue
					}
					if !ctxd.InRanges(v.Elided, a) || !ctxd.InRanges(v.Elided, a+7) {
						t.Errorf("%s view shows lines %d-%d of inner definition %d, want them collapsed\n%s", v.Level, a, a+7, k, v.Text)
					}
					if !strings.Contains(v.Text, strings.TrimSpace(lines[a-2])) {
						t.Errorf("%s view hides the first line %d (%q) of inner definition %d\n%s", v.Level, a-1, lines[a-2], k, v.Text)
					}
				}
				gaps := 0
				for _, l := range strings.Split(strings.TrimSuffix(v.Text, "\n"), "\n") {
					if m := gap.FindStringSubmatch(l); m != nil {
						gaps++
						if m[1] != fmt.Sprint(8) && m[1] != fmt.Sprint(9) {
							t.Errorf("%s view: gap %q, want the 8 (9 with a return) body lines", v.Level, l)
						}
						continue
					}
					if l = number.ReplaceAllString(l, ""); strings.TrimSpace(l) != "" && !strings.Contains(src, l) {
						if v.Level == FocusOnly || !strings.Contains(l, ": ") {
							t.Errorf("%s view: line %q is no line of the source", v.Level, l)
						}
					}
				}
				if gaps < 11 {
					t.Errorf("%s view has %d gaps, want one for each of the 11 other inner definitions\n%s", v.Level, gaps, v.Text)
				}
			}
		})
	}
}
