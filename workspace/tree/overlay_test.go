package tree

import (
	"reflect"
	"testing"
)

// TestWithOverlayPaths: a new file only open in the editor joins the
// files, sorted and once; a secret file's or a state directory's buffer
// does not (OverlayKept), nor one under a state directory set inside the
// root; with nothing new the list is returned as is.
func TestWithOverlayPaths(t *testing.T) {
	files := []string{"a.go", "m/b.go"}
	for _, tc := range []struct {
		name     string
		overlay  map[string]string
		stateRel string
		want     []string
	}{
		{"none", nil, "", []string{"a.go", "m/b.go"}},
		{"edited file on disk", map[string]string{"a.go": "x"}, "", []string{"a.go", "m/b.go"}},
		{"new files", map[string]string{"m/a.go": "x", "0.go": "y"}, "", []string{"0.go", "a.go", "m/a.go", "m/b.go"}},
		{"secret and state dir", map[string]string{".env": "K=v", ".git/config": "x", ".ctxd/x.go": "x", "n.go": "x"}, "", []string{"a.go", "m/b.go", "n.go"}},
		{"state dir inside the root", map[string]string{"st/x.go": "x", "st/sessions/s1.json": "{}", "st": "x", "stx/y.go": "y"}, "st", []string{"a.go", "m/b.go", "stx/y.go"}},
	} {
		got := withOverlayPaths(files, tc.overlay, tc.stateRel)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	if !reflect.DeepEqual(files, []string{"a.go", "m/b.go"}) {
		t.Errorf("the files passed in changed: %v", files)
	}
}
