package tree

import (
	"bytes"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctxd/ctxd/internal/testutil"
	"github.com/ctxd/ctxd/lang"
	"github.com/ctxd/ctxd/query"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// rankQueryOf is the rank query of request s, as Index.Rank makes it.
func rankQueryOf(s string) RankQuery {
	q := query.Parse(s)
	return NewRankQuery(q, q.AboutTests)
}

func TestTerms(t *testing.T) {
	c := newTermCounter()
	ix := newTextIndex(map[string][]byte{
		"pkg/config/parser.go": []byte("func ParseConfig(r io.Reader) (*Config, error) // parses the HTTPServer settings"),
		"pkg/cache/lru.go":     []byte("type lruCache struct{} // caching of parsed entries"),
		"README.md":            []byte("Configuration is parsed at startup."),
	})
	tests := []struct {
		query string
		want  []string
	}{
		// Docs rank below code that shares the words (role priors).
		{"parsing configs", []string{"pkg/config/parser.go", "pkg/cache/lru.go", "README.md"}},
		{"http server", []string{"pkg/config/parser.go"}},
		{"ParseConfig", []string{"pkg/config/parser.go", "pkg/cache/lru.go", "README.md"}},
		{"cached", []string{"pkg/cache/lru.go"}},
		{"the a of", nil},
	}
	for _, tt := range tests {
		var got []string
		for _, h := range ix.Rank(query.Parse(tt.query), 0) {
			got = append(got, h.Path)
		}
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("Rank(%q) (-want +got):\n%s", tt.query, d)
		}
	}
	// Counting is the same with the table growing past its first size.
	c.reset()
	for i := range 10000 {
		c.add(uint32(i + 1))
		c.add(uint32(i + 1))
	}
	b := c.bag()
	if len(b.hash) != 10000 || b.n != 20000 || b.count(1) != 2 || b.count(10000) != 2 || b.count(10001) != 0 {
		t.Errorf("bag: %d terms, n=%d", len(b.hash), b.n)
	}
}

func TestStem(t *testing.T) {
	for in, want := range map[string]string{
		"parse": "pars", "parses": "pars", "parsed": "pars", "parsing": "pars", "parser": "parser",
		"caches": "cach", "cached": "cach", "caching": "cach", "entries": "entry", "class": "class",
		"status": "status", "go": "go", "files": "file", "file": "file", "handles": "handl",
	} {
		for _, w := range []string{in, strings.ToUpper(in)} {
			n, y := stemmed([]byte(w))
			got := strings.ToLower(w[:n])
			if y {
				got += "y"
			}
			if got != want {
				t.Errorf("stemmed(%q) = %q, want %q", w, got, want)
			}
		}
	}
}

func TestScanDefs(t *testing.T) {
	src := `package x
func (s *Server) Shutdown(ctx context.Context) error { return s.close() }
func NewServer() *Server { return nil }
type Options struct{}
var f = func(a int) {}
class Session:
    def merge_environment_settings(self): pass
res.send = function send(body) {}
export function* walkTree() {}
x = type(y)
res.cookie = function (name, value) {}
exports.parse	=	function(s) {}
App.prototype.listen = async function () {}
res.json == function () {}
obj.run(function () {})
handler = function () {}
`
	c, d := newTermCounter(), newTermCounter()
	var defs []string
	ids := newIdentCounter()
	scanDefs([]byte(src), ids, func(id []byte) { defs = append(defs, string(id)) })
	want := []string{"Shutdown", "NewServer", "Options", "Session", "merge_environment_settings", "send", "walkTree", "cookie", "parse"}
	if diff := cmp.Diff(want, defs); diff != "" {
		t.Errorf("defs (-want +got):\n%s", diff)
	}
	doc := newDoc(c, d, "x/server.go", []byte(src))
	if doc.role != lang.RoleCode || doc.defs.n == 0 || doc.content.n <= doc.defs.n {
		t.Errorf("doc: role %v, %d def terms, %d content terms", doc.role, doc.defs.n, doc.content.n)
	}
}

// TestRankDefinitionsAndRoles: the file that defines a named symbol
// outranks files that only use it, and a changelog or issue template
// repeating the request's words stays below the code.
func TestRankDefinitionsAndRoles(t *testing.T) {
	ix := newTextIndex(map[string][]byte{
		"session.py":                    []byte("class Session:\n    def merge_environment_settings(self, url):\n        return url\n"),
		"api.py":                        []byte("def get(url):\n    s = Session()\n    s.merge_environment_settings(url)\n    s.merge_environment_settings(url)\n    return s.merge_environment_settings(url)\n"),
		"HISTORY.md":                    []byte("- merge_environment_settings now honours proxies in Session\n- merge environment settings\n"),
		".github/ISSUE_TEMPLATE/bug.md": []byte("Session merge environment settings bug report\n"),
	})
	hits := ix.Rank(query.Parse("Session.merge_environment_settings ignores proxies"), 0)
	var got []string
	for _, h := range hits {
		got = append(got, h.Path)
	}
	want := []string{"session.py", "api.py", "HISTORY.md", ".github/ISSUE_TEMPLATE/bug.md"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rank (-want +got):\n%s", diff)
	}
	// Each hit says where its score came from.
	m := hits[0].Match
	if m.Definitions <= 0 || m.Role != "code" || m.Prior != 1 || math.Abs(m.Path+m.Content+m.Definitions-1) > 0.01 {
		t.Errorf("session.py match = %+v", m)
	}
	if m := hits[2].Match; m.Role != "changelog" || m.Prior >= 0.5 || m.Definitions != 0 {
		t.Errorf("HISTORY.md match = %+v", m)
	}
	// An explanation request lets docs rise, but not above the code.
	ix = newTextIndex(map[string][]byte{
		"router.go":      []byte("package r\n// Route matches a path.\nfunc Route(path string) {}\n"),
		"docs/router.md": []byte("# How routing works\nThe router matches each path against routes; routing is by path.\n"),
	})
	hits = ix.Rank(query.Parse("how does routing work"), 0)
	if len(hits) != 2 || hits[0].Path != "router.go" {
		t.Errorf("explain rank = %+v, want router.go first", hits)
	}
}

// go test -fuzz=FuzzScanDefs ./workspace/tree
func FuzzScanDefs(f *testing.F) {
	for _, s := range []string{"func (s *Server) Shutdown() {}", "class A:\n def b(self): pass", "function* g() {}", "func(", "func (", "def", "é def ü"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		idents := map[string]bool{}
		var defs []string
		ids := newIdentCounter()
		scanDefs([]byte(src), ids, func(id []byte) { defs = append(defs, string(id)) })
		for _, i := range ids.used {
			idents[string(ids.slots[i].id)] = true
		}
		for _, d := range defs {
			if !idents[d] {
				t.Fatalf("def %q is not an identifier of the text", d)
			}
		}
	})
}

// refDoc is newDoc as it was before identifiers were counted first: every
// occurrence split and counted on its own. newDoc must make the same bags.
func refDoc(rel string, b []byte) (content, defs terms) {
	c, d := newTermCounter(), newTermCounter()
	refScanDefs(b, func(id []byte) { refAddIdent(c, id) }, func(id []byte) { refAddIdent(d, id) })
	return c.bag(), d.bag()
}

// refAddIdent is addIdent as it was: each piece copied, lowercased,
// stemmed and hashed.
func refAddIdent(c *termCounter, id []byte) {
	if len(id) > 64 {
		id = id[:64]
	}
	lowerCopy := func(p []byte) []byte { // ASCII letters only, as indexing does
		w := append([]byte(nil), p...)
		for k := range w {
			if w[k] >= 'A' && w[k] <= 'Z' {
				w[k] += 'a' - 'A'
			}
		}
		return w
	}
	piece := func(p []byte) {
		if len(p) >= 2 {
			c.add(fnv32(refStem(lowerCopy(p))))
		}
	}
	pieces := 0
	start := -1
	for i := 0; i <= len(id); i++ {
		if i < len(id) && id[i] != '_' {
			if start < 0 {
				start = i
				continue
			}
			if query.CamelBreak(id, i) {
				piece(id[start:i])
				pieces++
				start = i
			}
			continue
		}
		if start >= 0 {
			piece(id[start:i])
			pieces++
			start = -1
		}
	}
	if pieces > 1 && len(id) >= 3 {
		c.add(fnv32(lowerCopy(id)))
	}
}

func refStem(w []byte) []byte {
	hasSuffix := func(w []byte, s string) bool { return bytes.HasSuffix(w, []byte(s)) }
	n := len(w)
	switch {
	case n > 4 && hasSuffix(w, "ies"):
		w = append(w[:n-3], 'y')
	case n > 4 && hasSuffix(w, "sses"):
		w = w[:n-2]
	case n > 3 && w[n-1] == 's' && w[n-2] != 's' && w[n-2] != 'u' && w[n-2] != 'i':
		w = w[:n-1]
	}
	n = len(w)
	switch {
	case n > 5 && hasSuffix(w, "ing"):
		w = w[:n-3]
	case n > 4 && hasSuffix(w, "ed"):
		w = w[:n-2]
	}
	n = len(w)
	if n > 4 && w[n-1] == 'e' {
		w = w[:n-1]
	}
	return w
}

// refScanDefs is scanDefs as it was, calling ident at every identifier.
func refScanDefs(b []byte, ident, def func(id []byte)) {
	var prev, assigned []byte
	prevEnd := 0
	prevDot := false // a '.' right before prev
	recv := 0
	for i := 0; i < len(b); {
		if !query.IsIdentByte(b[i]) {
			i++
			continue
		}
		j := i
		for j < len(b) && query.IsIdentByte(b[j]) {
			j++
		}
		id := b[i:j]
		if b[i] < '0' || b[i] > '9' {
			ident(id)
			gap := b[prevEnd:i]
			switch {
			case recv > 0:
				recv--
				if k := bytes.LastIndexByte(gap, ')'); k >= 0 {
					if blank(gap[k+1:]) {
						def(id)
					}
					recv = 0
				}
			case string(prev) == "func":
				if bytes.IndexByte(gap, '(') >= 0 {
					recv = 4
					break
				}
				if blank(gap) {
					def(id)
				}
			case refDefKeyword(prev) && (blank(gap) || string(prev) == "function" && blank(bytes.Trim(gap, "*"))):
				if string(prev) != "function" || !bytes.Equal(id, assigned) {
					def(id)
				}
			}
			assigned = nil
			if string(id) == "function" && prevDot && strings.TrimSpace(strings.Trim(string(gap), " \t")) == "=" && strings.Trim(string(gap), " \t") == "=" {
				def(prev)
				assigned = prev
			}
			prevDot = i > 0 && b[i-1] == '.'
			prev = id
			prevEnd = j
		}
		i = j
	}
}

func refDefKeyword(w []byte) bool {
	switch string(w) {
	case "def", "class", "type", "interface", "struct", "enum", "trait", "fn", "function",
		"module", "object", "record", "union", "impl", "protocol", "extension":
		return true
	}
	return false
}

func checkSameBags(t *testing.T, name string, c *termCounter, b []byte) {
	t.Helper()
	want, wantDefs := refDoc(name, b)
	doc := newDoc(c, c.defs(), name, b)
	if d := cmp.Diff(want, doc.content, cmp.AllowUnexported(terms{})); d != "" {
		t.Fatalf("%s: content bag differs (-want +got):\n%s", name, d)
	}
	if d := cmp.Diff(wantDefs, doc.defs, cmp.AllowUnexported(terms{})); d != "" {
		t.Fatalf("%s: definitions bag differs (-want +got):\n%s", name, d)
	}
}

func TestNewDocMatchesPerOccurrence(t *testing.T) {
	c := newTermCounter()
	long := strings.Repeat("aB", 100)
	tests := []struct{ name, src string }{
		{"empty", ""},
		{"go", "func (s *Server) Shutdown(ctx context.Context) error { return s.closeIdleConns() }\n"},
		{"repeats", strings.Repeat("err err ctx ParseConfig parse_config HTTPServer ", 50000)},
		{"long", long + " " + long + "x " + long},
		{"unicode", "é def ü naïveCase schön_Wert 日本語"},
		{"digits", "utf8Reader sha256 9abc a9 x_1_y __init__"},
	}
	// Many distinct identifiers grow the tables past their first size.
	var many strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&many, "ident%dX v%d ", i, i%7)
	}
	tests = append(tests, struct{ name, src string }{"many", many.String()})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkSameBags(t, tt.name, c, []byte(tt.src)) })
	}
	// And over real source, one counter reused as a worker does.
	if testing.Short() {
		return
	}
	root := filepath.Join(testutil.GOROOTSrc(t), "net", "http")
	files, _ := filepath.Glob(filepath.Join(root, "*.go"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		checkSameBags(t, p, c, b)
	}
}

// go test -fuzz=FuzzNewDoc ./workspace/tree
func FuzzNewDoc(f *testing.F) {
	for _, s := range []string{"func (s *Server) Shutdown() {}", "a a A_b aB ab", "é def ü", "function* walkTree() {}\nclass A:\n def b(self): pass", "func(a int) {}; type T struct{}",
		"res.cookie = function (n) {}; res.send = function send() {}; a.b\t=\tfunction c() {}; x.y == function () {}"} {
		f.Add(s)
	}
	c := newTermCounter()
	f.Fuzz(func(t *testing.T, src string) { checkSameBags(t, "x.go", c, []byte(src)) })
}

func TestSortWords(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var spare []uint64
	for _, n := range []int{0, 1, 255, 256, 257, 5000} {
		ws := make([]uint64, n)
		for i := range ws {
			ws[i] = uint64(rng.Uint32())<<16 | uint64(rng.Uint32()&0xffff)
		}
		want := slices.Clone(ws)
		slices.Sort(want)
		spare = sortWords(ws, spare)
		if !slices.Equal(ws, want) {
			t.Errorf("n=%d: not sorted", n)
		}
	}
}

// TestRankPathWords: a word in a file's path ranks it as far as the word
// is rare in the workspace, not only among paths: "request", the path of
// lib/request.js and a word of nearly every file, does not outrank the
// file about the router; a word only a few files use still ranks the file
// it names first.
func TestRankPathWords(t *testing.T) {
	files := map[string][]byte{
		"lib/request.js": []byte("var req = Object.create(http.IncomingMessage.prototype)\nreq.get = function header(name) { return this.headers[name] }\nreq.accepts = function () { return accepts(this) }\n"),
		"lib/layer.js":   []byte("// each layer of the router matches a path; handle dispatches the request\nfunction Layer(path, fn) { this.path = path; this.fn = fn }\nLayer.prototype.handle = function handle(req, res, next) { this.fn(req, res, next) }\n"),
		"lib/view.js":    []byte("function View(name) { this.name = name }\nView.prototype.render = function render(options, callback) { this.engine(this.path, options, callback) }\n"),
	}
	for i, name := range []string{"app", "response", "utils", "express", "json", "static", "query", "params", "cookies", "session"} {
		files[fmt.Sprintf("lib/%s.js", name)] = []byte(fmt.Sprintf("// %s: handles the request %d\nfunction %s(req, res) { return req.request }\n", name, i, name))
	}
	ix := newTextIndex(files)
	tests := []struct {
		name, request, first string
	}{
		{"common word in a path", "how does the router dispatch a request", "lib/layer.js"},
		{"rare word in a path", "where is a view rendered", "lib/view.js"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits := ix.Rank(query.Parse(tt.request), 0)
			if len(hits) == 0 || hits[0].Path != tt.first {
				t.Errorf("Rank(%q) = %+v, want %s first", tt.request, hits, tt.first)
			}
		})
	}
}

// TestPathTermsReusesDirectory: one counter's path terms, its directory's
// terms reused from the path before, equal a fresh counter's.
func TestPathTermsReusesDirectory(t *testing.T) {
	paths := []string{"", "a", "a.go", "x/a.go", "x/b.go", "x/b.go", "x/y/ServeHTTP_test.go", "x/b.go", "README",
		"net/http/httptest/server.go", "net/http/httptest/recorder.go", "net/http/server.go", "vendor/golang.org/x/net/http2/h2c/h2c.go",
		".github/workflows/ci.yml", "snake_case_dir/CamelFile.test.ts", "snake_case_dir/other.ts", "deep/" + strings.Repeat("verylongdirectoryname", 5) + "/f.go"}
	for p := range gatherSources(t) {
		paths = append(paths, p, "copy/"+p)
	}
	shared := newTermCounter()
	for _, p := range paths {
		got := shared.pathTerms(p)
		want := newTermCounter().pathTerms(p)
		if d := cmp.Diff(want, got, cmp.AllowUnexported(terms{}), cmpopts.EquateEmpty()); d != "" {
			t.Fatalf("pathTerms(%q) (-fresh +shared):\n%s", p, d)
		}
	}
}

// TestTermsOfAnyTableSize: a query's terms are the same from its small
// table as from a file's (the bag is sorted; the table grows).
func TestTermsOfAnyTableSize(t *testing.T) {
	var many []string
	for i := range 300 {
		many = append(many, fmt.Sprintf("handleRequest%dWith_%c", i, 'a'+i%26))
	}
	for _, words := range [][]string{nil, {"http"}, {"Redirect", "query", "string", "drops"}, many} {
		c := newTermCounter()
		for _, w := range words {
			c.addIdent([]byte(w))
		}
		want := c.bag().hash
		if got := TermsOf(words); !slices.Equal(got, want) {
			t.Errorf("%d words: %d terms, want %d", len(words), len(got), len(want))
		}
	}
}

// TestIdentCounterCounts: the counter's counts are a map's, for short
// identifiers (packed in a word: one to eight bytes, alike but in one
// byte, or a prefix of another) and long ones, past the table's growth.
func TestIdentCounterCounts(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const alphabet = "abAB_x0"
	var ids []string
	for range 20000 {
		n := 1 + rng.IntN(12)
		b := make([]byte, n)
		for k := range b {
			b[k] = alphabet[rng.IntN(len(alphabet))]
		}
		ids = append(ids, string(b))
	}
	want := map[string]int32{}
	ic := newIdentCounter()
	for _, id := range ids {
		want[id]++
		ic.add([]byte(id))
	}
	got := map[string]int32{}
	for _, i := range ic.used {
		s := ic.slots[i]
		if _, dup := got[string(s.id)]; dup {
			t.Fatalf("%q counted in two slots", s.id)
		}
		got[string(s.id)] = s.count
	}
	if !maps.Equal(got, want) {
		t.Errorf("%d distinct identifiers counted, want %d", len(got), len(want))
	}
}

// TestPackIdent: identifiers of one length up to 8 bytes have the same
// packed word exactly when they are the same (the counter's comparison).
func TestPackIdent(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	seen := map[[2]uint64]string{}
	for range 50000 {
		b := make([]byte, 1+rng.IntN(8))
		for k := range b {
			b[k] = "aAbB_z09"[rng.IntN(8)]
		}
		w, ok := packIdent(b)
		if !ok {
			t.Fatalf("%q not packed", b)
		}
		k := [2]uint64{uint64(len(b)), w}
		if other, dup := seen[k]; dup && other != string(b) {
			t.Fatalf("%q and %q pack alike", other, b)
		}
		seen[k] = string(b)
	}
	for _, long := range []string{"", "abcdefghi", "longerIdentifier"} {
		if _, ok := packIdent([]byte(long)); ok {
			t.Errorf("%q packed", long)
		}
	}
}
