package byteview

import (
	"bytes"
	"testing"
)

func TestViews(t *testing.T) {
	tests := []string{"", "a", "line one\nline two\n", string(make([]byte, 1<<20))}
	for _, s := range tests {
		if b := ReadOnly(s); !bytes.Equal(b, []byte(s)) || len(b) != len(s) {
			t.Errorf("ReadOnly(%d bytes) = %d bytes", len(s), len(b))
		}
		buf := []byte(s)
		if got := Owned(buf); got != s {
			t.Errorf("Owned(%d bytes) = %d bytes", len(s), len(got))
		}
	}
	// No copy: the string is the buffer.
	buf := []byte("shared")
	if s := Owned(buf); &ReadOnly(s)[0] != &buf[0] {
		t.Error("Owned copied its buffer")
	}
}

func TestCountLines(t *testing.T) {
	for _, tc := range []struct {
		text string
		want int
	}{{"", 0}, {"a", 1}, {"a\n", 1}, {"a\nb", 2}, {"\n", 1}, {"\n\n", 2}, {"a\n\nb\n", 3}} {
		if got, gotB := CountLines(tc.text), CountLines([]byte(tc.text)); got != tc.want || gotB != tc.want {
			t.Errorf("CountLines(%q) = %d (string), %d (bytes), want %d", tc.text, got, gotB, tc.want)
		}
	}
}

func TestDetached(t *testing.T) {
	buf := []byte("line one\nline two\n")
	src := Borrowed(buf)
	own := "line one" + string([]byte{})
	tests := []struct {
		name   string
		s      string
		copied bool
	}{
		{"the text itself", src, true},
		{"a substring", src[9:17], true},
		{"its own memory", own, false},
		{"empty", src[:0], false},
	}
	for _, tt := range tests {
		got := Detached(tt.s, src)
		if got != tt.s {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.s)
		}
		if copied := len(got) > 0 && &ReadOnly(got)[0] != &ReadOnly(tt.s)[0]; copied != tt.copied {
			t.Errorf("%s: copied %v, want %v", tt.name, copied, tt.copied)
		}
	}
	if Borrowed(nil) != "" || Borrowed(buf[:0]) != "" {
		t.Error("Borrowed of no bytes is not empty")
	}
}
