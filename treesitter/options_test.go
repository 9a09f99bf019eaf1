//go:build cgo && !notreesitter

package treesitter

import (
	"context"
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestOptions(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "golden", "server.go"))
	if err != nil {
		t.Fatal(err)
	}
	serveBody := "ln, err := net.Listen(\"tcp\", s.Addr)"
	newBody := "addr = defaultAddr"
	trackBody := "s.conns[c] = true"
	tests := []struct {
		name    string
		level   Level
		opts    Options
		want    []string // substrings that must be shown
		notWant []string // substrings that must be elided
	}{
		{"default bodies", Bodies, Options{}, nil, []string{serveBody, newBody, trackBody}},
		{"keep by name", Bodies, Options{KeepFuncs: []string{"Serve"}}, []string{serveBody}, []string{newBody}},
		{"keep by type and name", Signatures, Options{KeepFuncs: []string{"Server.Serve"}}, []string{serveBody}, []string{newBody}},
		{"keep a private method at signatures", Signatures, Options{KeepFuncs: []string{"track"}}, []string{trackBody, "func (s *Server) track"}, []string{serveBody}},
		{"keep the function at the cursor", Bodies, Options{KeepLines: []int{48}}, []string{serveBody}, []string{newBody}},
		{"keep the line of a stack trace", Signatures, Options{KeepLines: []int{35, 200}}, []string{newBody}, []string{serveBody}},
		{"high threshold keeps everything", Bodies, Options{BodyThreshold: 100}, []string{serveBody, newBody, trackBody}, nil},
		{"threshold 4 keeps 4-line bodies", Bodies, Options{BodyThreshold: 4}, []string{newBody, trackBody}, []string{serveBody}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := tt.opts
			opts.Timeout = slow
			v, err := Render(t.Context(), "go", src, tt.level, opts)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(v.Text, w) {
					t.Errorf("%s view lacks %q:\n%s", tt.level, w, v.Text)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(v.Text, w) {
					t.Errorf("%s view shows %q:\n%s", tt.level, w, v.Text)
				}
			}
		})
	}
}

// TestTimeout: a pathological input (random punctuation makes the Python
// parser's error recovery take about a minute for 2 MB) returns a typed
// timeout error in about the time allowed, never hangs.
func TestTimeout(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	src := make([]byte, 1<<20)
	for i := range src {
		src[i] = "(){}[]<>;:,.abc \n\"'/*#"[r.Intn(22)]
	}
	const limit = 200 * time.Millisecond
	start := time.Now()
	_, err := Views(t.Context(), "python", src, Options{Timeout: limit})
	took := time.Since(start)
	var te *TimeoutError
	if !errors.As(err, &te) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want a *TimeoutError wrapping context.DeadlineExceeded", err)
	}
	if took > limit+2*time.Second {
		t.Errorf("took %v with a %v limit", took, limit)
	}
	// A context deadline sooner than the option wins.
	ctx, cancel := context.WithTimeout(t.Context(), limit)
	defer cancel()
	start = time.Now()
	_, err = Symbols(ctx, "python", src)
	if !errors.As(err, &te) {
		t.Fatalf("Symbols with a context deadline: got %v, want a *TimeoutError", err)
	}
	if took := time.Since(start); took > limit+2*time.Second {
		t.Errorf("Symbols took %v with a %v deadline", took, limit)
	}
	// The pooled parser that timed out parses the next file normally.
	if _, err := Views(t.Context(), "python", []byte("def f():\n    return 1\n"), slowOpts); err != nil {
		t.Errorf("after a timeout: %v", err)
	}
}

func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := Views(ctx, "go", []byte("package a\n\nfunc F() {}\n"), Options{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

// TestConcurrent renders every golden input from many goroutines; with
// -race it checks the parser pool and the caches.
func TestConcurrent(t *testing.T) {
	inputs := goldenInputs(t)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, in := range inputs {
				// A distinct threshold per goroutine defeats the cache for
				// half the calls.
				opts := Options{BodyThreshold: 1 + (g+i)%2, Timeout: slow}
				if _, err := Views(context.Background(), in.lang, in.src, opts); err != nil {
					t.Errorf("%s: %v", in.path, err)
				}
			}
		}()
	}
	wg.Wait()
}

func TestCache(t *testing.T) {
	c := newLRU[string](100)
	k := func(s string) [32]byte { return cacheKey(s, "go", nil, Options{}) }
	c.put(k("a"), "A", 20)
	c.put(k("b"), "B", 20)
	if v, ok := c.get(k("a")); !ok || v != "A" {
		t.Fatalf("get a = %q, %v", v, ok)
	}
	for i := 0; i < 10; i++ {
		c.put(k(string(rune('c'+i))), "x", 20)
	}
	if c.len() > 5 {
		t.Errorf("cache holds %d entries of 20 bytes with a 100 byte bound", c.len())
	}
	if _, ok := c.get(k("b")); ok {
		t.Error("least recently used entry survived")
	}
	c.put(k("huge"), "H", 1000)
	if _, ok := c.get(k("huge")); ok {
		t.Error("an entry over a quarter of the bound was cached")
	}
	if cacheKey("v", "go", []byte("x"), Options{KeepLines: []int{1}}) == cacheKey("v", "go", []byte("x"), Options{}) {
		t.Error("options do not change the cache key")
	}
}

// cacheKey is keyOf of a source not yet summed (the tests' shorthand).
func cacheKey(what, lang string, src []byte, o Options) [32]byte {
	return keyOf(what, lang, sumOf(src), o)
}
