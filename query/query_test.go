package query

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRequestIdents(t *testing.T) {
	got := requestIdents("German customers see a wrong total. Make Amount print via parse_config and HTTPServer, sha256 and utf8Reader; Fix it. Extend res.links() and `render` here when verify is False or None")
	want := []string{"Amount", "parse_config", "HTTPServer", "sha256", "utf8Reader", "links", "render"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("requestIdents (-want +got):\n%s", d)
	}
}
