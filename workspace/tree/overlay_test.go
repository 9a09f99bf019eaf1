package tree

import (
	"reflect"
	"testing"
)

// TestWithOverlayPaths: a new file only open in the editor joins the
// files, sorted and once; a secret file's or a state directory's buffer
// does not (OverlayKept); with nothing new the list is returned as is.
func TestWithOverlayPaths(t *testing.T) {
	files := []string{"a.go", "m/b.go"}
	for _, tc := range []struct {
		name    string
		overlay map[string]string
		want    []string
	}{
		{"none", nil, []string{"a.go", "m/b.go"}},
		{"edited file on disk", map[string]string{"a.go": "x"}, []string{"a.go", "m/b.go"}},
		{"new files", map[string]string{"m/a.go": "x", "0.go": "y"}, []string{"0.go", "a.go", "m/a.go", "m/b.go"}},
		{"secret and state dir", map[string]string{".env": "K=v", ".git/config": "x", ".ctxd/x.go": "x", "n.go": "x"}, []string{"a.go", "m/b.go", "n.go"}},
	} {
		got := WithOverlayPaths(files, tc.overlay)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	if !reflect.DeepEqual(files, []string{"a.go", "m/b.go"}) {
		t.Errorf("the files passed in changed: %v", files)
	}
}
