//go:build unix

package sessions

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOddCheckpointNames is failure 12 of issue 11: a symlink, a directory
// and a FIFO with checkpoint names are reported by List and Timeline (and
// never read: a FIFO would block).
func TestOddCheckpointNames(t *testing.T) {
	dir := t.TempDir()
	st, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := st.Save(ctx, crashCheckpoint("odd", 0)); err != nil {
		t.Fatal(err)
	}
	sd := filepath.Join(dir, "odd")
	if err := os.Symlink("/dev/zero", filepath.Join(sd, seqName(5))); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(sd, seqName(6)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(sd, seqName(7)), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := st.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tl, err := st.Timeline(ctx, "odd")
	if err != nil {
		t.Fatal(err)
	}
	for what, ps := range map[string][]Problem{"list": l.Problems, "timeline": tl.Problems} {
		var all strings.Builder
		for _, p := range ps {
			all.WriteString(p.Path + ": " + p.Reason + "\n")
		}
		for _, want := range []string{"000005.json: a checkpoint name that is a symbolic link", "000006.json: a checkpoint name that is a directory", "000007.json: a checkpoint name that is a FIFO"} {
			if !strings.Contains(all.String(), want) {
				t.Errorf("%s problems lack %q:\n%s", what, want, all.String())
			}
		}
	}
	if len(l.Sessions) != 1 || l.Sessions[0].LatestSeq != 1 {
		t.Errorf("sessions %+v", l.Sessions)
	}
}
