package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxd/ctxd/internal/testutil"
)

// TestIsTerminal: files, buffers and the null device are no terminal, so
// `ctxd pack > pack.md` and `ctxd pack > /dev/null` write the pack (only a
// terminal is refused, with a hint).
func TestIsTerminal(t *testing.T) {
	file, err := os.Create(filepath.Join(t.TempDir(), "pack.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	tests := []struct {
		name string
		w    io.Writer
	}{
		{"buffer", &bytes.Buffer{}},
		{"file", file},
		{"null device", null},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if isTerminal(tt.w) {
				t.Errorf("%s is a terminal", tt.name)
			}
		})
	}
}

// TestProgress: on a terminal the stage line appears once the delay has
// passed and is erased at the end; elsewhere nothing is written.
func TestProgress(t *testing.T) {
	for _, terminal := range []bool{true, false} {
		var buf testutil.SyncBuffer
		p := newProgress(&buf, terminal, 0)
		p.stage("replaying commit 1/2 (0123456789ab)")
		if terminal {
			deadline := time.Now().Add(10 * time.Second)
			for !strings.Contains(buf.String(), "\r\033[Kctxd: replaying commit 1/2 (0123456789ab)…") {
				if time.Now().After(deadline) {
					t.Fatalf("no progress line on a terminal: %q", buf.String())
				}
				time.Sleep(10 * time.Millisecond)
			}
		}
		p.stop()
		switch got := buf.String(); {
		case terminal && !strings.HasSuffix(got, "…\r\033[K"):
			t.Errorf("progress line not erased at the end: %q", got)
		case !terminal && got != "":
			t.Errorf("progress written to a non-terminal: %q", got)
		}
	}
}
