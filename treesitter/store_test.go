//go:build cgo && !notreesitter

package treesitter

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// resetCaches empties the process's caches, as a fresh process starts.
// Tests that call it must not run in parallel with others.
func resetCaches() {
	viewCache = newLRU[[]View](32 << 20)
	analysisCache = newLRU[*analysis](32 << 20)
	innerCache = newLRU[*[]Symbol](4 << 20)
}

// storeInputs are files in several languages, built here, beside the
// golden inputs: long bodies, docs, private members, a long data literal
// and a Python docstring, so every kind of entry is stored.
var storeInputs = []struct {
	name, lang, src string
}{
	{"go", "go", "package p\n\n// Server serves. It has a long doc.\n// Second line.\ntype Server struct {\n\tAddr string\n\tmu   int\n\tn    int\n}\n\n" +
		"// Serve runs the loop.\nfunc (s *Server) Serve() error {\n\tfor i := 0; i < 3; i++ {\n\t\ts.n++\n\t}\n\tif s.n > 2 {\n\t\treturn nil\n\t}\n\treturn nil\n}\n\n" +
		"var table = []int{\n" + strings.Repeat("\t1,\n", 40) + "}\n"},
	{"python", "python", "\"\"\"Module doc. More.\"\"\"\nimport os\n\n\nclass Session:\n    \"\"\"A session. It merges.\"\"\"\n\n    def merge(self, url):\n        \"\"\"Merge it.\"\"\"\n        env = os.environ\n        for k in env:\n            print(k)\n        return env\n\n    def _private(self):\n        x = 1\n        y = 2\n        z = 3\n        return x + y + z\n"},
	{"typescript", "typescript", "import { a } from './a';\n\n/** Store keeps items. */\nexport class Store {\n  private items: string[] = [];\n  private count = 0;\n  add(x: string): void {\n    this.items.push(x);\n    this.count++;\n    console.log(x);\n    console.log(a);\n  }\n}\n\nexport const f = (x: number) => {\n  const y = x * 2;\n  const z = y + 1;\n  return z * a;\n};\n"},
	{"rust", "rust", "//! Crate doc. More here.\nuse std::fmt;\n\n/// A point. With more.\npub struct Point { x: i32, y: i32 }\n\nimpl Point {\n    pub fn len(&self) -> i32 {\n        let a = self.x;\n        let b = self.y;\n        a * a + b * b\n    }\n    fn hidden(&self) -> i32 {\n        0\n    }\n}\n"},
	{"ruby", "ruby", "# Cart holds items.\nclass Cart\n  def add(item)\n    @items ||= []\n    @items << item\n    @items.size\n    log(item)\n  end\n\n  private\n\n  def log(x)\n    puts x\n  end\nend\n"},
	{"java", "java", "package a;\n\nimport java.util.List;\n\n/** Account. Holds money. */\npublic class Account {\n  private int balance;\n  private int other;\n  public void deposit(int n) {\n    balance += n;\n    other++;\n    System.out.println(n);\n    System.out.println(balance);\n  }\n}\n"},
	{"plugin", "javascript", func() string { s, _ := pluginSource(12); return s }()},
	{"empty", "go", ""},
	{"syntax error", "go", "package p\n\nfunc f( {\n\treturn\n}\n\nfunc g() int {\n\tx := 1\n\ty := 2\n\treturn x + y\n}\n"},
}

type storeCase struct {
	name, lang string
	src        []byte
}

func storeCases(t *testing.T) []storeCase {
	t.Helper()
	var out []storeCase
	for _, in := range storeInputs {
		out = append(out, storeCase{in.name, in.lang, []byte(in.src)})
	}
	for _, in := range goldenInputs(t) {
		out = append(out, storeCase{filepath.Base(in.path), in.lang, in.src})
	}
	return out
}

// allViews is every view a file has under the option sets the engine
// uses: the levels, and focus views keeping a function whole.
func allViews(t testing.TB, c storeCase, store *Store) string {
	t.Helper()
	var b strings.Builder
	for _, o := range []Options{{}, {KeepFuncs: []string{"Serve", "merge", "add", "len", "deposit"}, KeepLines: []int{3}}} {
		o.Store = store
		vs, err := Views(t.Context(), c.lang, c.src, o)
		fmt.Fprintf(&b, "views err=%v\n", err)
		for _, v := range vs {
			fmt.Fprintf(&b, "-- %s %v --\n%s\n", v.Level, v.Elided, v.Text)
		}
		fs, err := FocusViews(t.Context(), c.lang, c.src, o)
		fmt.Fprintf(&b, "focus err=%v\n", err)
		for _, v := range fs {
			fmt.Fprintf(&b, "-- %s %v --\n%s\n", v.Level, v.Elided, v.Text)
		}
	}
	return b.String()
}

// roundTrip encodes s and decodes it, as the next process reads it.
func roundTrip(t *testing.T, s *Store) *Store {
	t.Helper()
	s2, err := DecodeStore(s.AppendBinary(nil, 0))
	if err != nil {
		t.Fatal(err)
	}
	return s2
}

// TestStoreHit: views rendered from a stored analysis and stored verdicts
// are byte-identical to a fresh parse's, and the second process parses
// nothing (a parse would add to the store).
func TestStoreHit(t *testing.T) {
	for _, c := range storeCases(t) {
		t.Run(c.name, func(t *testing.T) {
			resetCaches()
			want := allViews(t, c, nil)

			resetCaches()
			s := NewStore()
			if got := allViews(t, c, s); got != want {
				t.Fatalf("first run with a store differs (-want +got):\n%s", cmp.Diff(want, got))
			}
			if st := s.Stats(); st.Analyses != 1 {
				t.Fatalf("store after the first run: %+v, want 1 analysis", st)
			}
			s2 := roundTrip(t, s)

			resetCaches()
			if got := allViews(t, c, s2); got != want {
				t.Errorf("views from the store differ from a parse's (-want +got):\n%s", cmp.Diff(want, got))
			}
			if st := s2.Stats(); st.Misses != 0 || s2.Dirty() {
				t.Errorf("the second run parsed: %+v, dirty %v", st, s2.Dirty())
			}
		})
	}
}

// TestStoreEdited: an edited file misses the store, is parsed, and its
// views are the edited file's.
func TestStoreEdited(t *testing.T) {
	c := storeCase{"go", "go", []byte(storeInputs[0].src)}
	resetCaches()
	s := NewStore()
	allViews(t, c, s)
	s2 := roundTrip(t, s)

	edited := storeCase{"go", "go", []byte(strings.Replace(string(c.src), "s.n++", "s.n += 2\n\t\ts.n--", 1))}
	resetCaches()
	want := allViews(t, edited, nil)
	resetCaches()
	if got := allViews(t, edited, s2); got != want {
		t.Errorf("edited file (-want +got):\n%s", cmp.Diff(want, got))
	}
	if st := s2.Stats(); st.Misses == 0 || !s2.Dirty() {
		t.Errorf("the edited file was not parsed: %+v", st)
	}
}

// TestStoreBadEntry: an entry that does not decode for its source (a
// store written by a buggy version under the same key) is dropped and
// the file parsed again; views stay right.
func TestStoreBadEntry(t *testing.T) {
	c := storeCase{"go", "go", []byte(storeInputs[0].src)}
	resetCaches()
	want := allViews(t, c, nil)
	key := cacheKey("analysis", c.lang, c.src, Options{})
	tests := []struct {
		name string
		data []byte
	}{
		{"garbage", []byte("not an analysis")},
		{"other language", encodeAnalysis(&analysis{lang: "python"})},
		{"truncated", func() []byte {
			resetCaches()
			s := NewStore()
			allViews(t, c, s)
			d, _ := s.analysisData(key)
			return d[:len(d)/2]
		}()},
		{"offset past the source", func() []byte {
			a := &analysis{lang: "go", bodies: []bodyEdit{{edit: edit{start: 5, end: len(c.src) + 10}}}}
			return encodeAnalysis(a)
		}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewStore()
			s.putAnalysis(key, tt.data)
			resetCaches()
			if got := allViews(t, c, s); got != want {
				t.Errorf("(-want +got):\n%s", cmp.Diff(want, got))
			}
			if d, _ := s.analysisData(key); string(d) == string(tt.data) {
				t.Error("the bad entry was kept")
			}
		})
	}
}

// TestDecodeStoreCorrupt: every truncation of a store's encoding, and
// a few bad bytes, fail to decode (or decode to fewer entries), never
// panic.
func TestDecodeStoreCorrupt(t *testing.T) {
	resetCaches()
	s := NewStore()
	for _, in := range storeInputs[:3] {
		allViews(t, storeCase{in.name, in.lang, []byte(in.src)}, s)
	}
	b := s.AppendBinary(nil, 0)
	if _, err := DecodeStore(b); err != nil {
		t.Fatal(err)
	}
	for n := range len(b) {
		if _, err := DecodeStore(b[:n]); !errors.Is(err, ErrStoreEncoding) {
			t.Fatalf("truncated to %d of %d bytes: err %v, want ErrStoreEncoding", n, len(b), err)
		}
	}
	if _, err := DecodeStore(append(b[:len(b):len(b)], 0)); !errors.Is(err, ErrStoreEncoding) {
		t.Errorf("trailing byte: err %v", err)
	}
}

// TestStoreBound: over maxBytes, the encoding keeps the entries used most
// recently (by this process first).
func TestStoreBound(t *testing.T) {
	resetCaches()
	s := NewStore()
	old := storeCase{"python", "python", []byte(storeInputs[1].src)}
	allViews(t, old, s)
	s2 := roundTrip(t, s)
	resetCaches()
	recent := storeCase{"go", "go", []byte(storeInputs[0].src)}
	allViews(t, recent, s2)
	full := s2.AppendBinary(nil, 0)
	recentKey := cacheKey("analysis", recent.lang, recent.src, Options{})
	d, _ := s2.analysisData(recentKey)
	bounded, err := DecodeStore(s2.AppendBinary(nil, len(d)+100))
	if err != nil {
		t.Fatal(err)
	}
	if len(full) <= len(d)+100 {
		t.Fatalf("test files too small: %d bytes in all", len(full))
	}
	st := bounded.Stats()
	if st.Analyses != 1 {
		t.Fatalf("bounded store has %d analyses, want 1", st.Analyses)
	}
	if _, ok := bounded.analysisData(recentKey); !ok {
		t.Error("the bounded store kept the older entry")
	}
}

// TestStoreVersion fails when what an analysis holds changes for the
// golden inputs while [StoreVersion] did not: a store written before the
// change would then be trusted. Bump StoreVersion and run with -update.
func TestStoreVersion(t *testing.T) {
	h := sha256.New()
	for _, c := range storeCases(t) {
		resetCaches()
		a, err := analyzeCached(context.Background(), c.lang, c.src, budget(t.Context(), c.lang, DefaultTimeout))
		if a == nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		fmt.Fprintf(h, "%s %d\n", c.name, len(c.src))
		h.Write(encodeAnalysis(a))
	}
	got := fmt.Sprintf("version %d analyses %x\n", StoreVersion, h.Sum(nil))
	path := filepath.Join("testdata", "store-version.golden")
	want, err := os.ReadFile(path)
	if err != nil && !*update {
		t.Fatal(err)
	}
	var wantVersion int
	var wantSum string
	fmt.Sscanf(string(want), "version %d analyses %s", &wantVersion, &wantSum)
	if string(want) == got {
		return
	}
	if wantVersion == StoreVersion {
		// Even with -update: the version must move with the analyses.
		t.Fatalf("the analyses changed: bump StoreVersion in store.go, then run go test ./treesitter -run TestStoreVersion -update\nwant %sgot  %s", want, got)
	}
	if !*update {
		t.Fatalf("StoreVersion changed: run go test ./treesitter -run TestStoreVersion -update\nwant %sgot  %s", want, got)
	}
	if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
		t.Fatal(err)
	}
}

// FuzzDecodeStore: arbitrary bytes never panic the store's decoder or the
// analysis decoder, and an analysis that decodes for some source renders
// every view of it without panicking and without passing the source's
// bounds.
//
//	go test -fuzz=FuzzDecodeStore ./treesitter
func FuzzDecodeStore(f *testing.F) {
	resetCaches()
	s := NewStore()
	for _, in := range storeInputs {
		c := storeCase{in.name, in.lang, []byte(in.src)}
		allViews(f, c, s)
		d, _ := s.analysisData(cacheKey("analysis", c.lang, c.src, Options{}))
		f.Add(d, c.lang, c.src)
	}
	f.Add(s.AppendBinary(nil, 0), "go", []byte(storeInputs[0].src))
	f.Fuzz(func(t *testing.T, data []byte, lang string, src []byte) {
		if st, err := DecodeStore(data); err == nil {
			st.AppendBinary(nil, 1<<10) // re-encoding a decoded store works
		}
		a, err := decodeAnalysis(data, lang, src)
		if err != nil {
			return
		}
		g, ok := grammarFor(lang)
		if !ok {
			t.Fatalf("decoded an analysis for %q, which has no grammar", lang)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
		defer cancel()
		left := budget(ctx, lang, 2*time.Second)
		for _, o := range []Options{{}, {KeepFuncs: []string{"f"}, KeepLines: []int{1, 3}}} {
			for _, level := range []Level{Bodies, Signatures} {
				es := a.plan(level, o, map[editKey]bool{})
				a.apply(es)
				a.render(ctx, g, level, o, left, nil)
			}
			focusViews(lang, src, a.lines, a.symbols, a.imports, o)
		}
		outlineText(a.symbols, a.hooks)
		a.err()
	})
}

// TestStoreMemoryBound: in memory, a store over its limit drops the
// entries of older processes first.
func TestStoreMemoryBound(t *testing.T) {
	defer func(n int) { storeMemMax = n }(storeMemMax)
	storeMemMax = 1 << 30
	resetCaches()
	s := NewStore()
	old := storeCase{"python", "python", []byte(storeInputs[1].src)}
	allViews(t, old, s)
	s2 := roundTrip(t, s)
	oldKey := cacheKey("analysis", old.lang, old.src, Options{})
	d, _ := s2.analysisData(oldKey)
	s2.mu.Lock()
	s2.analyses[oldKey] = storedAnalysis{gen: 1, data: d} // as if unused by this process
	s2.mu.Unlock()
	storeMemMax = s2.size + 100
	recentKey := [32]byte{1}
	s2.putAnalysis(recentKey, make([]byte, 150))
	if _, ok := s2.analyses[oldKey]; ok {
		t.Error("the older entry was kept over the limit")
	}
	if _, ok := s2.analyses[recentKey]; !ok {
		t.Error("the entry just put was dropped")
	}
	if s2.size > storeMemMax {
		t.Errorf("size %d over the limit %d", s2.size, storeMemMax)
	}
}
