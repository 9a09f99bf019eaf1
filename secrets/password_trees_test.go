package secrets

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"
)

// TestPasswordFindingsOnTrees is a measurement over real trees, not a
// check: it lists what the password-assignment rule finds in every file
// of the comma-separated directories of $CTXD_SECRETS_TREES, so a change
// to the rule can be judged for false positives (go test -run
// PasswordFindingsOnTrees -v ./secrets).
func TestPasswordFindingsOnTrees(t *testing.T) {
	trees := testutil.Env(t, "CTXD_SECRETS_TREES", "no trees to measure")
	for _, root := range strings.Split(trees, ",") {
		n, files := 0, 0
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				if d != nil && d.IsDir() && d.Name() == ".git" {
					return filepath.SkipDir
				}
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil || len(b) > 1<<20 {
				return nil
			}
			files++
			for _, f := range passwordAssignments(string(b), map[finding]bool{}) {
				n++
				lines := strings.Split(string(b), "\n")
				t.Logf("%s:%d: %.120s", p, f.line, strings.TrimSpace(lines[f.line-1]))
			}
			return nil
		})
		t.Logf("%s: %d findings in %d files", root, n, files)
	}
}
