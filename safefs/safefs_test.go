//go:build unix

package safefs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	reg := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(reg, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.txt")
	if err := os.WriteFile(big, make([]byte, 5000), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	link := func(name, target string) string {
		p := filepath.Join(dir, name)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name    string
		path    string
		max     int64
		want    string
		wantErr error
	}{
		{"regular", reg, 100, "hello\n", nil},
		{"link to regular", link("l.txt", reg), 100, "hello\n", nil},
		{"over cap", big, 4096, "", ErrTooBig},
		{"dev zero", link("zero", "/dev/zero"), 1 << 20, "", ErrNotRegular},
		{"dev urandom", link("urandom", "/dev/urandom"), 1 << 20, "", ErrNotRegular},
		{"fifo", fifo, 100, "", ErrNotRegular},
		{"link to fifo", link("lfifo", fifo), 100, "", ErrNotRegular},
		{"directory", dir, 100, "", ErrNotRegular},
		{"missing", filepath.Join(dir, "nope"), 100, "", os.ErrNotExist},
		{"link loop", link("loop", filepath.Join(dir, "loop")), 100, "", syscall.ELOOP},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan struct{})
			var got []byte
			var err error
			go func() {
				defer close(done)
				got, err = ReadFile(context.Background(), tc.path, tc.max)
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatalf("ReadFile(%s) blocked", tc.path)
			}
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil || string(got) != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestReadFileCancelled(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a")
	if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ReadFile(ctx, p, 10); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// victimFile is a file holding "keep" that a link under test points to:
// a write through the link would change it.
func victimFile(t *testing.T) string {
	t.Helper()
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	return victim
}

// writeString is a write func that writes s.
func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

// TestWriteAtomic: a write replaces a link of its name instead of writing
// through it, refuses a directory that is a link, and names without a
// directory only.
func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	victim := victimFile(t)
	packs := filepath.Join(dir, "packs")
	if err := os.MkdirAll(packs, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(packs, "out.md")); err != nil {
		t.Fatal(err)
	}
	if err := WriteAtomic(packs, "out.md", writeString("pack")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Errorf("wrote through the link: victim holds %q", b)
	}
	if fi, err := os.Lstat(filepath.Join(packs, "out.md")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("out.md is not a regular file: %v %v", fi, err)
	}
	linked := filepath.Join(dir, "linked")
	if err := os.Symlink(t.TempDir(), linked); err != nil {
		t.Fatal(err)
	}
	if err := WriteAtomic(linked, "x", writeString("x")); !errors.Is(err, ErrLink) {
		t.Errorf("a linked directory: %v, want ErrLink", err)
	}
	for _, name := range []string{"", ".", "..", "a/b", "../x", "/etc/passwd"} {
		if err := WriteAtomic(packs, name, writeString("x")); err == nil {
			t.Errorf("name %q accepted", name)
		}
	}
	if err := WriteAtomic(packs, "fail", func(io.Writer) error { return errors.New("boom") }); err == nil {
		t.Error("a failed write reported no error")
	}
	ents, _ := os.ReadDir(packs)
	if len(ents) != 1 {
		t.Errorf("left behind: %v", ents)
	}
}

// TestWriteFile: a path the user named is written through a temporary
// file renamed over it; a link of that name (to a file, to a device) is
// refused and its target untouched; a replaced file keeps its mode; a
// failed write leaves the previous content and no temporary file.
func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	victim := victimFile(t)
	link := filepath.Join(dir, "out.md")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(link, writeString("pack")); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "(a symbolic link)") {
		t.Errorf("a link: %v, want ErrNotRegular (a symbolic link)", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Errorf("wrote through the link: victim holds %q", b)
	}
	if err := WriteFile(dir, writeString("x")); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "(a directory)") {
		t.Errorf("a directory: %v, want ErrNotRegular (a directory)", err)
	}
	// A missing directory is named, not the temporary file that could
	// not be created in it.
	missing := filepath.Join(dir, "nope", "out.md")
	if err := WriteFile(missing, writeString("x")); !errors.Is(err, fs.ErrNotExist) || err.Error() != "write "+missing+": create its directory first: "+filepath.Join(dir, "nope")+": file does not exist" {
		t.Errorf("a missing directory: %v", err)
	}
	plain := filepath.Join(dir, "plain.md")
	if err := WriteFile(plain, writeString("one")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(plain, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(plain, writeString("two")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(plain); string(b) != "two" {
		t.Errorf("plain.md holds %q, want two", b)
	}
	if fi, _ := os.Stat(plain); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want the replaced file's 0640", fi.Mode().Perm())
	}
	if err := WriteFile(plain, func(io.Writer) error { return errors.New("boom") }); err == nil {
		t.Error("a failed write reported no error")
	}
	if b, _ := os.ReadFile(plain); string(b) != "two" {
		t.Errorf("a failed write changed plain.md: %q", b)
	}
	// A relative path is beside the current directory.
	t.Chdir(dir)
	if err := WriteFile("rel.md", writeString("rel")); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if want := "out.md plain.md rel.md"; strings.Join(names, " ") != want {
		t.Errorf("dir holds %v, want %s", names, want)
	}
}

// TestWriteFileUmask: a new file's mode is 0666 less the umask, as
// os.Create gives it (a pack holds source: a umask of 077 keeps it
// private); a replaced file keeps its mode whatever the umask.
func TestWriteFileUmask(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		umask int
		want  os.FileMode
	}{{0o077, 0o600}, {0o022, 0o644}, {0o002, 0o664}} {
		old := syscall.Umask(tt.umask)
		p := filepath.Join(dir, fmt.Sprintf("new-%o.md", tt.umask))
		err := WriteFile(p, writeString("x"))
		syscall.Umask(old)
		if err != nil {
			t.Fatal(err)
		}
		if fi, _ := os.Stat(p); fi.Mode().Perm() != tt.want {
			t.Errorf("umask %04o: a new file's mode %v, want %v", tt.umask, fi.Mode().Perm(), tt.want)
		}
	}
	kept := filepath.Join(dir, "new-22.md") // 0644 from above
	old := syscall.Umask(0o077)
	err := WriteFile(kept, writeString("y"))
	syscall.Umask(old)
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(kept); fi.Mode().Perm() != 0o644 {
		t.Errorf("a replaced file's mode %v under umask 077, want its 0644", fi.Mode().Perm())
	}
}
