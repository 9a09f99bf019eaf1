package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
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
