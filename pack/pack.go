// Package pack puts a whole repository (or a subtree) into one document,
// as Repomix does, with ctxd's ignore, secret and redaction rules (those of
// gathering and prompts: .gitignore, .ctxdignore, .git/info/exclude,
// secret-looking files never included, secrets inside files replaced by
// markers) and exact token counts per file, per directory and in total.
package pack

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/vsort"
	"github.com/ctxd/ctxd/lang"
	"github.com/ctxd/ctxd/secrets"
	"github.com/ctxd/ctxd/tokens"
	"github.com/ctxd/ctxd/treesitter"
	"github.com/ctxd/ctxd/workspace/tree"
)

// Formats of the packed document: the prompt formats (ctxd.FormatMarkdown,
// ctxd.FormatXML) and JSON.
const FormatJSON ctxd.Format = "json"

// DefaultEncoding counts the tokens unless Options.Encoding says otherwise.
const DefaultEncoding = tokens.O200kBase

// Options select and shape a pack.
type Options struct {
	// Path limits the pack to a subtree (root-relative slash path; "" or
	// "." for the whole root).
	Path string `json:"path,omitempty"`
	// Include, when not empty, keeps only files matching one of these
	// doublestar globs; Exclude drops matches. As in .gitignore, a glob
	// without a slash matches a file's name at any depth ("*.js",
	// ".env"); one with a slash matches the path from the root, or from
	// Path when a subtree is packed ("lib/**/*.ts"). An Include without
	// wildcards names a file: a secret file so named is packed (the
	// user's consent, as a prompt's literal pattern); a glob never packs
	// secret files.
	Include []string `json:"include,omitempty"`
	Exclude []string `json:"exclude,omitempty"`
	// Compress replaces each file of a language tree-sitter parses by its
	// signatures view (declarations kept, bodies collapsed).
	Compress bool `json:"compress,omitempty"`
	// Encoding is the tokenizer's encoding (o200k_base by default).
	Encoding string `json:"encoding,omitempty"`
	// Top is how many of the largest files and directories the summary
	// lists (default 10).
	Top int `json:"top,omitempty"`
	// NoContent leaves the files' text out of the result (counts only,
	// for `ctxd tokens`).
	NoContent bool `json:"no_content,omitempty"`
	// IncludeAssets packs the files left out by default as assets
	// (lockfiles, minified bundles, large data files: assets.go). A Path
	// naming one file packs it whatever it is (`ctxd tokens
	// package-lock.json` counts it).
	IncludeAssets bool `json:"include_assets,omitempty"`
	// Overlay holds an editor's unsaved buffers by root-relative path (a
	// daemon's, and those its request gives), packed as ctx/buildPrompt
	// gathers them: a buffer's text replaces the file on disk, and a
	// buffer Tree.OverlayKept keeps adds its file when the walk has none
	// (a new file only open in the editor, or an ignored one the user is
	// editing). A secret file's buffer is packed only when Path or an
	// Include names the file, as the file on disk would be. The selection
	// (Path, Include, Exclude), the asset rules and the size cap apply to
	// buffers as to files.
	Overlay map[string]string `json:"-"`
	// Views, when not nil, is the tree-sitter store Compress consults
	// before parsing a file and teaches what it parses (a daemon's, whose
	// background analysis has parsed the tree already; a CLI's, persisted
	// in the state directory).
	Views *treesitter.Store `json:"-"`
}

// Excluded is a file left out of the pack as an asset.
type Excluded struct {
	Path   string `json:"path"`
	Bytes  int    `json:"bytes"`
	Reason string `json:"reason"`
}

// File is one packed file.
type File struct {
	Path    string `json:"path"`
	Tokens  int    `json:"tokens"`
	Bytes   int    `json:"bytes"`
	Content string `json:"content,omitempty"`
	// Compressed is set when Content is the signatures view.
	Compressed bool `json:"compressed,omitempty"`
	// Redacted counts the secrets replaced by markers, as in prompts.
	Redacted int `json:"redacted,omitempty"`
	// Kind is what the file is, for choosing exclusions: KindSource,
	// KindTest, KindGenerated, KindDocs or KindData.
	Kind string `json:"kind"`
}

// Kinds of files (File.Kind, Result.Kinds).
const (
	KindSource    = "source"
	KindTest      = "tests"
	KindGenerated = "generated"
	KindDocs      = "docs"
	KindData      = "data"
)

// Kind is the total of one kind of file in a pack.
type Kind struct {
	Kind   string `json:"kind"`
	Tokens int    `json:"tokens"`
	Files  int    `json:"files"`
}

// Dir is a directory's totals (its files and all below it).
type Dir struct {
	Path   string `json:"path"`
	Tokens int    `json:"tokens"`
	Files  int    `json:"files"`
}

// Result is a pack.
type Result struct {
	Root     string `json:"root"`
	Encoding string `json:"encoding"`
	Tokens   int    `json:"tokens"` // total of the files' tokens
	Bytes    int    `json:"bytes"`
	Redacted int    `json:"redacted,omitempty"` // secrets replaced by markers
	Files    []File `json:"files"`              // path order
	Dirs     []Dir  `json:"dirs"`               // path order; "." is the root
	// LargestFiles and LargestDirs are the Top biggest by tokens, to
	// choose exclusions from.
	LargestFiles []File `json:"largest_files"`
	LargestDirs  []Dir  `json:"largest_dirs"`
	// Kinds totals the files by kind, largest first: how much of a pack
	// is tests or generated code is the first exclusion to consider.
	Kinds []Kind `json:"kinds"`
	// Excluded names the files left out as assets (path order); set
	// Options.IncludeAssets to pack them.
	Excluded []Excluded `json:"excluded,omitempty"`
	// NotText names the files left out because they cannot be packed as
	// text, with the reason (tree.SkipBinary, SkipTooBig, SkipRead),
	// path order.
	NotText []Excluded `json:"not_text,omitempty"`
	// Secret names the secret files (.env, keys, credentials: see
	// tree.IsSecret) left out, path order; an Include naming one, or a
	// Path naming one, packs it.
	Secret []string `json:"secret_files,omitempty"`
	// Warnings are for the person who asked: an Include that matched no
	// file (when none matched, PackCached returns ctxd.ErrInvalidParams
	// instead of an empty pack).
	Warnings []string `json:"warnings,omitempty"`
	// Part and Parts number the parts of a pack [Result.Split] cut
	// (1-based; 0 for a whole pack). A part's Files, Tokens, Bytes and
	// Redacted are its own; the rest is the whole pack's.
	Part  int `json:"part,omitempty"`
	Parts int `json:"parts,omitempty"`
	whole *Result
}

// wholePack returns the pack r is a part of, or r.
func (r *Result) wholePack() *Result {
	if r.whole != nil {
		return r.whole
	}
	return r
}

// Split cuts the pack into parts of at most max tokens each as rendered
// in format (markdown or xml), the files in path order and none cut in
// two; the first part carries the summary and the directory structure.
// A file that cannot fit in a part alone is an error naming it.
func (r *Result) Split(max int, format ctxd.Format) ([]*Result, error) {
	format, err := ParseFormat(string(format))
	if err != nil {
		return nil, err
	}
	if format == FormatJSON {
		return nil, fmt.Errorf("split a pack: markdown or xml only, not json: %w", ctxd.ErrInvalidParams)
	}
	counter, err := tokens.Get(r.Encoding)
	if err != nil {
		return nil, fmt.Errorf("split a pack: %w", err)
	}
	count := func(p *Result) int {
		var b strings.Builder
		p.Write(&b, format) // a strings.Builder does not fail
		return counter.Count(b.String())
	}
	part := func(files []File, i int) *Result {
		p := *r
		// Parts is set once known; the planning counts with three digits.
		p.Files, p.whole, p.Part, p.Parts = files, r, i, 999
		p.Tokens, p.Bytes, p.Redacted = 0, 0, 0
		for _, f := range files {
			p.Tokens += f.Tokens
			p.Bytes += f.Bytes
			p.Redacted += f.Redacted
		}
		return &p
	}
	// Plan with each file's cost in a part (its section, counted alone:
	// sections end in blank lines, so their counts add up), then check
	// each part's real count and move files on while one is over.
	empty := count(part(nil, 2))
	var groups [][]File
	var cur []File
	used := count(part(nil, 1))
	if used >= max {
		return nil, fmt.Errorf("split a pack: the summary and directory structure alone take %d tokens, over %d: %w", used, max, ctxd.ErrOverBudget)
	}
	for _, f := range r.Files {
		c := count(part([]File{f}, 2)) - empty
		// The first part may hold only the summary when its first file
		// would not fit beside it.
		if used+c > max && (len(cur) > 0 || len(groups) == 0) {
			groups, cur, used = append(groups, cur), nil, empty
		}
		cur = append(cur, f)
		used += c
	}
	groups = append(groups, cur)
	// Moving a file on can add a part, which renumbers them all: check
	// again until no part is over.
	for moved := true; moved; {
		moved = false
		for i := 0; i < len(groups); i++ {
			for {
				p := part(groups[i], i+1)
				p.Parts = len(groups)
				if count(p) <= max {
					break
				}
				if len(groups[i]) == 1 {
					f := groups[i][0]
					return nil, fmt.Errorf("split a pack: %s (%d tokens) does not fit in a part of %d tokens: give a larger split or exclude it: %w", f.Path, f.Tokens, max, ctxd.ErrOverBudget)
				}
				last := groups[i][len(groups[i])-1]
				groups[i] = groups[i][:len(groups[i])-1]
				if i+1 == len(groups) {
					groups = append(groups, nil)
				}
				groups[i+1] = append([]File{last}, groups[i+1]...)
				moved = true
			}
		}
	}
	var parts []*Result
	for i, g := range groups {
		p := part(g, i+1)
		p.Parts = len(groups)
		parts = append(parts, p)
	}
	return parts, nil
}

// Cache remembers token counts between packs (a daemon keeps one per
// workspace), keyed by a hash of the text, its length, the encoding and
// the compression, so a warm pack counts only what changed. Entries not
// used by the last pack are dropped. Safe for concurrent use; nil is no
// cache.
type Cache struct {
	mu    sync.Mutex
	last  map[countKey]countVal
	added int // entries counted since the cache was loaded or saved
}

type countKey struct {
	hash     [16]byte // SHA-256 of the text, truncated
	size     int
	encoding string
	compress bool
}

type countVal struct {
	tokens     int
	secrets    int    // secrets redacted from the text (0: the text is packed as read)
	compressed string // the signatures view, when compressed
	ok         bool   // the view exists
}

// NewCache returns an empty cache.
func NewCache() *Cache { return &Cache{last: map[countKey]countVal{}} }

// PackCached reads the workspace's files and counts their tokens, on
// GOMAXPROCS workers, with counts (and compressed views) remembered in
// cache between calls (nil: none).
func PackCached(ctx context.Context, ws *tree.Tree, opts Options, cache *Cache) (*Result, error) {
	for _, g := range append(append([]string(nil), opts.Include...), opts.Exclude...) {
		if !doublestar.ValidatePattern(g) {
			return nil, fmt.Errorf("pack: bad glob %q: %w", g, ctxd.ErrInvalidParams)
		}
	}
	enc := opts.Encoding
	if enc == "" {
		enc = DefaultEncoding
	}
	counter, err := tokens.Get(enc)
	if err != nil {
		return nil, fmt.Errorf("pack: %w", err)
	}
	// The scanner compiles a few hundred rules: built only when a text
	// must be scanned (not for a tree whose cached texts hold no secret).
	scanner := sync.OnceValues(secrets.Default)
	if len(prevCounts(cache)) == 0 {
		// Nothing counted before (a first pack): every text will be
		// scanned and counted, so the rules and the vocabulary are built
		// now, beside the walk, rather than by the first workers while
		// the others wait.
		go func() {
			if sc, err := scanner(); err == nil {
				sc.Prepare()
			}
		}()
		go counter.Count("warm up")
	}
	var scanErr error
	sub := strings.Trim(path.Clean("/"+strings.TrimPrefix(opts.Path, "./")), "/")
	included := make([]bool, len(opts.Include)) // an Include matched a file
	named := map[string]bool{}                  // the files Includes name
	for _, g := range opts.Include {
		if !strings.ContainsAny(g, "*?[{") {
			named[strings.TrimPrefix(path.Clean(g), "./")] = true
			if sub != "" {
				named[path.Join(sub, path.Clean(g))] = true
			}
		}
	}
	keep := func(rel string) bool {
		if sub != "" && rel != sub && !strings.HasPrefix(rel, sub+"/") {
			return false
		}
		if len(opts.Include) > 0 {
			hit := false
			for i, g := range opts.Include {
				if tree.MatchGlob(g, rel, sub) {
					included[i], hit = true, true
				}
			}
			if !hit {
				return false
			}
		}
		return !matchAny(opts.Exclude, rel, sub)
	}
	var secretFiles []string
	var unpacked []Excluded
	// walked are the files the walk listed, when there are buffers: a
	// buffer of any other file is packed after the walk (late, with the
	// files whose disk text could not be packed but whose buffer can).
	walked := map[string]bool{}
	var late []string
	walkKeep := keep
	if len(opts.Overlay) > 0 {
		walkKeep = func(rel string) bool {
			walked[rel] = true
			return keep(rel)
		}
	}
	other := func(rel, why string) bool {
		if _, open := opts.Overlay[rel]; open && why != tree.SkipSecret {
			// Binary, too big or unreadable on disk, but the editor
			// holds its text: the buffer is what gathering reads.
			late = append(late, rel)
			return false
		}
		if why != tree.SkipSecret {
			// Binary, over the size cap or unreadable: named, so a pack
			// never leaves a file out silently.
			x := Excluded{Path: rel, Reason: why}
			if fi, err := os.Stat(filepath.Join(ws.Root(), filepath.FromSlash(rel))); err == nil {
				x.Bytes = int(fi.Size())
			}
			unpacked = append(unpacked, x)
			return false
		}
		if named[rel] || rel == sub {
			// Named by an Include without wildcards, or the one file
			// Path names (`ctxd pack .env`): the user's consent.
			return true
		}
		secretFiles = append(secretFiles, rel)
		return false
	}
	type job struct {
		i    int
		rel  string
		text string
	}
	var files []File
	jobs := make(chan job, 64)
	var mu sync.Mutex
	var wg sync.WaitGroup
	var prev map[countKey]countVal
	next := map[countKey]countVal{}
	added := 0
	if cache != nil {
		cache.mu.Lock()
		prev = cache.last
		cache.mu.Unlock()
	}
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for j := range jobs {
				f := File{Path: j.rel, Bytes: len(j.text), Content: j.text, Kind: kindOf(j.rel, j.text)}
				sum := sha256.Sum256([]byte(j.text))
				key := countKey{size: len(j.text), encoding: enc, compress: opts.Compress}
				copy(key.hash[:], sum[:16])
				v, hit := prev[key]
				// Secrets are redacted as in prompts; a cached text known to
				// hold none is not scanned again.
				text := strings.ToValidUTF8(j.text, "\uFFFD")
				if !hit || v.secrets > 0 {
					sc, err := scanner()
					if err != nil {
						mu.Lock()
						scanErr = err
						mu.Unlock()
						continue
					}
					red, reds := sc.Redact(j.rel, text)
					text, v.secrets = red, len(reds)
				}
				f.Content, f.Redacted = text, v.secrets
				if !hit {
					if opts.Compress {
						if view, err := treesitter.Render(ctx, treesitter.Detect(j.rel, []byte(text)), []byte(text), treesitter.Signatures, treesitter.Options{Store: opts.Views}); err == nil {
							v.compressed, v.ok = view.Text, true
						}
					}
					if v.ok {
						text = v.compressed
					}
					v.tokens = counter.Count(text)
				}
				if v.ok {
					f.Content, f.Compressed = v.compressed, true
				}
				f.Tokens = v.tokens
				if opts.NoContent {
					f.Content = ""
				}
				mu.Lock()
				files[j.i] = f
				if cache != nil {
					next[key] = v
					if !hit {
						added++
					}
				}
				mu.Unlock()
			}
		})
	}
	var excluded []Excluded
	submit := func(rel string, b []byte) {
		if t, open := opts.Overlay[rel]; open {
			// The editor's text wins over the disk's.
			if int64(len(t)) > ws.MaxFileBytes() {
				unpacked = append(unpacked, Excluded{Path: rel, Bytes: len(t), Reason: tree.SkipTooBig})
				return
			}
			b = []byte(t)
		}
		// An asset named by Path (one file) or an Include is the user's
		// choice: it is packed.
		if !opts.IncludeAssets && rel != sub && !(len(opts.Include) > 0 && matchAny(opts.Include, rel, sub)) {
			if why := assetReason(rel, b); why != "" {
				excluded = append(excluded, Excluded{Path: rel, Bytes: len(b), Reason: why})
				return
			}
		}
		mu.Lock()
		i := len(files)
		files = append(files, File{})
		mu.Unlock()
		jobs <- job{i: i, rel: rel, text: string(b)}
	}
	err = ws.EachTextOr(ctx, walkKeep, func(rel string, b []byte) error {
		submit(rel, b)
		return nil
	}, other)
	if err == nil && len(opts.Overlay) > 0 {
		// The buffers of files the walk did not list: a new file only
		// open in the editor, an ignored one being edited (OverlayKept),
		// a secret one named by Path or an Include.
		for _, rel := range slices.Sorted(maps.Keys(opts.Overlay)) {
			if walked[rel] || !keep(rel) {
				continue
			}
			switch {
			case ws.OverlayKept(rel):
			case ws.InStateDir(rel):
				continue
			case !named[rel] && rel != sub:
				// A secret file's buffer, not named: left out and
				// listed, as the file on disk would be.
				secretFiles = append(secretFiles, rel)
				continue
			}
			late = append(late, rel)
		}
		for _, rel := range late {
			submit(rel, nil)
		}
	}
	close(jobs)
	wg.Wait()
	if err == nil {
		err = scanErr
	}
	if len(late) > 0 || len(secretFiles) > 0 {
		// Late buffers came after the walk's path order.
		byPath := func(a, b Excluded) int { return strings.Compare(a.Path, b.Path) }
		vsort.Func(files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
		vsort.Func(excluded, byPath)
		vsort.Func(unpacked, byPath)
		slices.Sort(secretFiles)
	}
	if err != nil {
		return nil, fmt.Errorf("pack: %w", err)
	}
	if cache != nil {
		cache.mu.Lock()
		// Counts of files outside this pack's selection stay: another
		// selection (a subtree, --include) must not forget them.
		for k, v := range prev {
			if _, ok := next[k]; !ok && len(next) < maxCacheEntries {
				next[k] = v
			}
		}
		cache.last = next
		cache.added += added
		cache.mu.Unlock()
	}
	r := &Result{Root: ws.Root(), Encoding: enc, Files: files, Excluded: excluded, NotText: unpacked, Secret: secretFiles}
	// An ignore file the walk could not read (over 4 MiB, a FIFO) leaves
	// its files in the pack: say so.
	if warns, err := ws.WalkWarnings(ctx); err == nil {
		r.Warnings = append(r.Warnings, warns...)
	}
	if len(opts.Include) > 0 && !slices.Contains(included, true) {
		// No file matched any Include: the pack would be empty, which no
		// one asks for (a mistyped glob); refused as a bad parameter, so
		// the command line exits 2 and writes nothing.
		return nil, fmt.Errorf("pack: --include %s matched no file%s: %w", strings.Join(opts.Include, ", --include "), underPath(sub), ctxd.ErrInvalidParams)
	}
	for i, g := range opts.Include {
		if !included[i] {
			r.Warnings = append(r.Warnings, fmt.Sprintf("--include %s matched no file%s", g, underPath(sub)))
		}
	}
	dirs := map[string]*Dir{".": {Path: "."}} // the root, even of an empty pack
	for _, f := range files {
		r.Tokens += f.Tokens
		r.Bytes += f.Bytes
		r.Redacted += f.Redacted
		for d := path.Dir(f.Path); ; d = path.Dir(d) {
			x := dirs[d]
			if x == nil {
				x = &Dir{Path: d}
				dirs[d] = x
			}
			x.Tokens += f.Tokens
			x.Files++
			if d == "." {
				break
			}
		}
	}
	for _, d := range dirs {
		r.Dirs = append(r.Dirs, *d)
	}
	sort.Slice(r.Dirs, func(i, j int) bool { return r.Dirs[i].Path < r.Dirs[j].Path })
	top := opts.Top
	if top <= 0 {
		top = 10
	}
	r.LargestFiles = largest(files, top, func(f File) int { return f.Tokens }, func(f File) string { return f.Path })
	for i := range r.LargestFiles {
		r.LargestFiles[i].Content = ""
	}
	// A directory nearly all of whose tokens are in one subdirectory is
	// not listed: the subdirectory says the same more precisely (GOROOT's
	// cmd/vendor/golang.org/x/ rather than also cmd/vendor/golang.org/).
	bulk := map[string]int{} // the largest subdirectory's tokens, by parent
	for _, d := range r.Dirs {
		if d.Path != "." {
			p := path.Dir(d.Path)
			bulk[p] = max(bulk[p], d.Tokens)
		}
	}
	var below []Dir
	for _, d := range r.Dirs {
		if d.Path != "." && !(d.Tokens > 0 && bulk[d.Path]*10 >= d.Tokens*9) {
			below = append(below, d)
		}
	}
	r.LargestDirs = largest(below, top, func(d Dir) int { return d.Tokens }, func(d Dir) string { return d.Path })
	kinds := map[string]*Kind{}
	for _, f := range files {
		k := kinds[f.Kind]
		if k == nil {
			k = &Kind{Kind: f.Kind}
			kinds[f.Kind] = k
		}
		k.Tokens += f.Tokens
		k.Files++
	}
	for _, k := range kinds {
		r.Kinds = append(r.Kinds, *k)
	}
	r.Kinds = largest(r.Kinds, len(r.Kinds), func(k Kind) int { return k.Tokens }, func(k Kind) string { return k.Kind })
	return r, nil
}

// kindOf says what a file is: a test (tree.IsTestFile), generated code
// (a generator's header near the top, or a generated-file name), docs
// (Markdown, reStructuredText, AsciiDoc, text), data (JSON, YAML, TOML,
// XML, CSV) or source.
func kindOf(rel, text string) string {
	base := strings.ToLower(path.Base(rel))
	switch {
	case lang.IsTest(rel):
		return KindTest
	case lang.IsGenerated(rel, []byte(text[:min(len(text), 2048)])):
		return KindGenerated
	}
	switch path.Ext(base) {
	case ".md", ".markdown", ".rst", ".adoc", ".txt":
		return KindDocs
	case ".json", ".yaml", ".yml", ".toml", ".xml", ".csv", ".tsv", ".ini":
		return KindData
	}
	return KindSource
}

// kindsLine is "tests 3012345 (49%), source …": the kinds' totals.
func (r *Result) kindsLine() string {
	var b strings.Builder
	for i, k := range r.Kinds {
		if i > 0 {
			b.WriteString(", ")
		}
		pct := 0
		if r.Tokens > 0 {
			pct = int(math.Round(100 * float64(k.Tokens) / float64(r.Tokens)))
		}
		fmt.Fprintf(&b, "%s %d (%d%%, %s)", k.Kind, k.Tokens, pct, Files(k.Files))
	}
	return b.String()
}

// prevCounts returns the cache's counts (nil for no cache).
func prevCounts(cache *Cache) map[countKey]countVal {
	if cache == nil {
		return nil
	}
	cache.mu.Lock()
	defer cache.mu.Unlock()
	return cache.last
}

func largest[T any](xs []T, n int, size func(T) int, name func(T) string) []T {
	out := append(make([]T, 0, len(xs)), xs...) // [] in JSON, never null
	sort.SliceStable(out, func(i, j int) bool {
		if size(out[i]) != size(out[j]) {
			return size(out[i]) > size(out[j])
		}
		return name(out[i]) < name(out[j])
	})
	return out[:min(n, len(out))]
}

// matchAny reports that rel matches one of globs (matchGlob).
func matchAny(globs []string, rel, sub string) bool {
	for _, g := range globs {
		if tree.MatchGlob(g, rel, sub) {
			return true
		}
	}
	return false
}

// underPath is " under PATH" for a subtree pack, "" otherwise.
func underPath(sub string) string {
	if sub == "" {
		return ""
	}
	return " under " + sub
}

// ParseFormat accepts a prompt format (ctxd.ParseFormat: markdown, md,
// xml) or json.
func ParseFormat(s string) (ctxd.Format, error) {
	if strings.EqualFold(strings.TrimSpace(s), string(FormatJSON)) {
		return FormatJSON, nil
	}
	if f, err := ctxd.ParseFormat(s); err == nil {
		return f, nil
	}
	return "", fmt.Errorf("unknown pack format %q (want markdown, xml or json): %w", s, ctxd.ErrInvalidParams)
}

// Write renders the pack in a format.
func (r *Result) Write(w io.Writer, format ctxd.Format) error {
	format, err := ParseFormat(string(format))
	if err != nil {
		return err
	}
	switch format {
	case FormatJSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	case ctxd.FormatXML:
		return r.writeXML(w)
	}
	return r.writeMarkdown(w)
}

func (r *Result) writeMarkdown(w io.Writer) error {
	b := &strings.Builder{}
	whole := r.wholePack()
	if r.Parts > 0 {
		fmt.Fprintf(b, "# Packed repository, part %d of %d\n\nThis part: %s, %d tokens. The whole pack: ", r.Part, r.Parts, Files(len(r.Files)), r.Tokens)
	} else {
		b.WriteString("# Packed repository\n\n")
	}
	fmt.Fprintf(b, "%s, %d tokens (%s), %d bytes", Files(len(whole.Files)), whole.Tokens, whole.Encoding, whole.Bytes)
	if whole.Redacted > 0 {
		fmt.Fprintf(b, "; %s found, each replaced wherever it occurs by a [REDACTED rule] marker", ctxd.Plural(whole.Redacted, "secret", "secrets"))
	}
	b.WriteString(".\n\n")
	if r.Part <= 1 {
		// The summary and the tree are the whole pack's, in the first
		// part only.
		whole.writeSummary(b, "## ")
		b.WriteString("## Directory structure\n\n```\n")
		whole.writeDirTree(b)
		b.WriteString("```\n\n")
	}
	b.WriteString("## Files\n\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	for _, f := range r.Files {
		fence := "```"
		for strings.Contains(f.Content, fence) {
			fence += "`"
		}
		note := ""
		if f.Compressed {
			note = ", signatures"
		}
		if _, err := fmt.Fprintf(w, "### %s (%d tokens%s)\n\n%s%s\n%s", ctxd.EscapeName(f.Path), f.Tokens, note, fence, fenceLang(f.Path), f.Content); err != nil {
			return err
		}
		if !strings.HasSuffix(f.Content, "\n") {
			io.WriteString(w, "\n")
		}
		if _, err := fmt.Fprintf(w, "%s\n\n", fence); err != nil {
			return err
		}
	}
	return nil
}

// writeDirTree writes the packed files as an indented tree, as Repomix's
// directory structure section does: each directory once, with a slash,
// above what it holds, two spaces deeper per level, in path order.
func (r *Result) writeDirTree(b *strings.Builder) {
	var open []string // the directories of the previous path
	for _, f := range r.Files {
		parts := strings.Split(f.Path, "/")
		dirs := parts[:len(parts)-1]
		same := 0
		for same < len(open) && same < len(dirs) && open[same] == dirs[same] {
			same++
		}
		for i := same; i < len(dirs); i++ {
			fmt.Fprintf(b, "%s%s/\n", strings.Repeat("  ", i), ctxd.EscapeName(dirs[i]))
		}
		fmt.Fprintf(b, "%s%s\n", strings.Repeat("  ", len(dirs)), ctxd.EscapeName(parts[len(parts)-1]))
		open = dirs
	}
}

// writeSummary lists the largest files and directories.
func (r *Result) writeSummary(b *strings.Builder, h string) {
	if len(r.Kinds) > 0 {
		fmt.Fprintf(b, "%sBy kind\n\n%s\n\n", h, r.kindsLine())
	}
	// A section with nothing to list is left out (a flat tree has no
	// directories: the heading stood alone).
	if len(r.LargestFiles) > 0 {
		fmt.Fprintf(b, "%sLargest files\n\n", h)
		for _, f := range r.LargestFiles {
			fmt.Fprintf(b, "- %s: %d tokens\n", ctxd.EscapeName(f.Path), f.Tokens)
		}
		b.WriteString("\n")
	}
	if len(r.LargestDirs) > 0 {
		fmt.Fprintf(b, "%sLargest directories\n\n", h)
		for _, d := range r.LargestDirs {
			fmt.Fprintf(b, "- %s/: %d tokens in %s\n", ctxd.EscapeName(d.Path), d.Tokens, Files(d.Files))
		}
		b.WriteString("\n")
	}
	if len(r.Excluded) > 0 {
		fmt.Fprintf(b, "%sLeft out as assets\n\n%s (--include-assets packs them):\n\n", h, r.excludedSummary())
		for _, x := range r.Excluded {
			fmt.Fprintf(b, "- %s: %d bytes, %s\n", ctxd.EscapeName(x.Path), x.Bytes, x.Reason)
		}
		b.WriteString("\n")
	}
	if len(r.NotText) > 0 {
		fmt.Fprintf(b, "%sLeft out as not text\n\n%s:\n\n", h, Files(len(r.NotText)))
		for _, x := range r.NotText {
			fmt.Fprintf(b, "- %s: %d bytes, %s\n", ctxd.EscapeName(x.Path), x.Bytes, x.Reason)
		}
		b.WriteString("\n")
	}
	if len(r.Secret) > 0 {
		fmt.Fprintf(b, "%sLeft out as secret files\n\n%s (--include PATH packs one, secrets inside redacted):\n\n", h, Files(len(r.Secret)))
		for _, p := range r.Secret {
			fmt.Fprintf(b, "- %s\n", ctxd.EscapeName(p))
		}
		b.WriteString("\n")
	}
}

// excludedSummary counts the files left out as assets.
func (r *Result) excludedSummary() string {
	n := 0
	for _, x := range r.Excluded {
		n += x.Bytes
	}
	return fmt.Sprintf("%s, %d bytes", Files(len(r.Excluded)), n)
}

// Files is "1 file" or "n files".
func Files(n int) string { return ctxd.Plural(n, "file", "files") }

func (r *Result) writeXML(w io.Writer) error {
	esc := func(s string) string {
		var b strings.Builder
		xml.EscapeText(&b, []byte(ctxd.EscapeName(s))) // names are data
		return b.String()
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	w = bw
	whole := r.wholePack()
	fmt.Fprintf(w, "<pack files=\"%d\" tokens=\"%d\" encoding=\"%s\"", len(r.Files), r.Tokens, esc(r.Encoding))
	if r.Parts > 0 {
		fmt.Fprintf(w, " part=\"%d\" parts=\"%d\" whole_files=\"%d\" whole_tokens=\"%d\"", r.Part, r.Parts, len(whole.Files), whole.Tokens)
	}
	io.WriteString(w, ">\n")
	if r.Part <= 1 {
		whole.writeXMLSummary(bw, esc)
	}
	err := writeOrdered(bw, r.Files, func(b *bytes.Buffer, f File) {
		fmt.Fprintf(b, "<file path=\"%s\" tokens=\"%d\">\n", esc(f.Path), f.Tokens)
		writeEscaped(b, f.Content)
		b.WriteString("\n</file>\n")
	})
	if err != nil {
		return err
	}
	io.WriteString(w, "</pack>\n")
	return bw.Flush()
}

// writeBatchBytes is about how much text one batch of writeOrdered holds.
const writeBatchBytes = 1 << 20

// writeXMLSummary writes the summary and the directory structure of an
// XML pack (the whole pack's, in a split pack's first part only).
func (r *Result) writeXMLSummary(w *bufio.Writer, esc func(string) string) {
	io.WriteString(w, "<summary>\n")
	for _, f := range r.LargestFiles {
		fmt.Fprintf(w, "<largest_file path=\"%s\" tokens=\"%d\"/>\n", esc(f.Path), f.Tokens)
	}
	for _, d := range r.LargestDirs {
		fmt.Fprintf(w, "<largest_dir path=\"%s\" tokens=\"%d\" files=\"%d\"/>\n", esc(d.Path), d.Tokens, d.Files)
	}
	for _, x := range append(r.Excluded[:len(r.Excluded):len(r.Excluded)], r.NotText...) {
		fmt.Fprintf(w, "<excluded path=\"%s\" bytes=\"%d\" reason=\"%s\"/>\n", esc(x.Path), x.Bytes, esc(x.Reason))
	}
	io.WriteString(w, "</summary>\n<directory_structure>\n")
	var tree strings.Builder
	r.writeDirTree(&tree)
	writeEscaped(w, tree.String())
	io.WriteString(w, "</directory_structure>\n")
}

// writeOrdered writes render's output for each file to w, in order. The
// files are rendered in batches of about writeBatchBytes on GOMAXPROCS
// workers (escaping a large pack is most of writing it), a few batches
// ahead of the one being written, so memory stays bounded.
func writeOrdered(w io.Writer, files []File, render func(*bytes.Buffer, File)) error {
	var starts []int // the first file of each batch
	for i, n := 0, 0; i < len(files); i++ {
		if i == 0 || n >= writeBatchBytes {
			starts = append(starts, i)
			n = 0
		}
		n += len(files[i].Content)
	}
	workers := runtime.GOMAXPROCS(0)
	bufs := make([]*bytes.Buffer, len(starts))
	ready := make([]chan struct{}, len(starts))
	for i := range ready {
		ready[i] = make(chan struct{})
	}
	// A worker takes a free buffer before a batch and the writer gives
	// it back after writing the batch (buffers are reused: no garbage the
	// size of the pack); batches are taken in order, so the one the
	// writer waits for is always being rendered.
	free := make(chan *bytes.Buffer, 2*workers)
	for range cap(free) {
		free <- &bytes.Buffer{}
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				b := <-free
				i := int(next.Add(1)) - 1
				if i >= len(starts) {
					free <- b
					return
				}
				end := len(files)
				if i+1 < len(starts) {
					end = starts[i+1]
				}
				b.Reset()
				for _, f := range files[starts[i]:end] {
					render(b, f)
				}
				bufs[i] = b
				close(ready[i])
			}
		})
	}
	// After a failed write the batches are still waited for (and
	// dropped), so every worker finishes.
	var err error
	for i := range starts {
		<-ready[i]
		if err == nil {
			_, err = w.Write(bufs[i].Bytes())
		}
		free <- bufs[i]
		bufs[i] = nil
	}
	wg.Wait()
	return err
}

// xmlEscapes maps the ASCII bytes XML text cannot hold as they are to
// their replacement ("" for bytes kept).
var xmlEscapes = func() (t [utf8.RuneSelf]string) {
	for c := range utf8.RuneSelf {
		if c < 0x20 && c != '\t' && c != '\n' {
			t[c] = "\uFFFD" // not allowed in XML 1.0; \r would be normalized away
		}
	}
	t['\r'] = "&#xD;"
	t['<'], t['>'], t['&'] = "&lt;", "&gt;", "&amp;"
	return t
}()

// writeEscaped writes text as XML character data, as xml.EscapeText does
// (invalid UTF-8 and disallowed control characters become U+FFFD), in runs
// between the bytes that need escaping.
func writeEscaped(w io.StringWriter, text string) {
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	start := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c >= utf8.RuneSelf {
			// U+FFFE and U+FFFF (EF BF BE, EF BF BF) are not XML characters.
			if c == 0xEF && i+2 < len(text) && text[i+1] == 0xBF && text[i+2] >= 0xBE {
				w.WriteString(text[start:i])
				w.WriteString("\uFFFD")
				i += 2
				start = i + 1
			}
			continue
		}
		if rep := xmlEscapes[c]; rep != "" {
			w.WriteString(text[start:i])
			w.WriteString(rep)
			start = i + 1
		}
	}
	w.WriteString(text[start:])
}

// WriteTree prints the token tree: every directory and file with its
// tokens, indented by depth, directories first at each level.
func (r *Result) WriteTree(w io.Writer) error { return r.WriteTreeDepth(w, 0) }

// WriteTreeDepth is WriteTree down to depth levels below the root (0: all
// of them); a directory at the last level shows its totals only.
func (r *Result) WriteTreeDepth(w io.Writer, maxDepth int) error {
	type node struct {
		name   string
		tokens int
		files  int
		dir    bool
		kids   map[string]*node
	}
	root := &node{name: ".", dir: true, kids: map[string]*node{}}
	for _, d := range r.Dirs {
		if d.Path == "." {
			root.tokens, root.files = d.Tokens, d.Files
		}
	}
	get := func(p string) *node {
		n := root
		if p == "." {
			return n
		}
		for _, part := range strings.Split(p, "/") {
			k := n.kids[part]
			if k == nil {
				k = &node{name: part, dir: true, kids: map[string]*node{}}
				n.kids[part] = k
			}
			n = k
		}
		return n
	}
	for _, d := range r.Dirs {
		n := get(d.Path)
		n.tokens, n.files = d.Tokens, d.Files
	}
	for _, f := range r.Files {
		p := get(path.Dir(f.Path))
		p.kids[path.Base(f.Path)] = &node{name: path.Base(f.Path), tokens: f.Tokens}
	}
	var b strings.Builder
	var walk func(n *node, depth int)
	walk = func(n *node, depth int) {
		name := ctxd.EscapeName(n.name)
		if n.dir {
			name += "/"
			fmt.Fprintf(&b, "%10d  %s%s (%s)\n", n.tokens, strings.Repeat("  ", depth), name, Files(n.files))
		} else {
			fmt.Fprintf(&b, "%10d  %s%s\n", n.tokens, strings.Repeat("  ", depth), name)
		}
		kids := make([]*node, 0, len(n.kids))
		for _, k := range n.kids {
			kids = append(kids, k)
		}
		sort.Slice(kids, func(i, j int) bool {
			if kids[i].dir != kids[j].dir {
				return kids[i].dir
			}
			return kids[i].name < kids[j].name
		})
		if maxDepth > 0 && depth >= maxDepth {
			return
		}
		for _, k := range kids {
			walk(k, depth+1)
		}
	}
	walk(root, 0)
	fmt.Fprintf(&b, "total %d tokens (%s) in %s\n", r.Tokens, r.Encoding, Files(len(r.Files)))
	if len(r.Kinds) > 0 {
		fmt.Fprintf(&b, "by kind: %s\n", r.kindsLine())
	}
	if len(r.LargestFiles) > 0 {
		b.WriteString("largest files:")
		for _, f := range r.LargestFiles {
			fmt.Fprintf(&b, " %s (%d)", ctxd.EscapeName(f.Path), f.Tokens)
		}
		b.WriteString("\n")
	}
	if len(r.LargestDirs) > 0 {
		b.WriteString("largest directories:")
		for _, d := range r.LargestDirs {
			fmt.Fprintf(&b, " %s/ (%d)", ctxd.EscapeName(d.Path), d.Tokens)
		}
		b.WriteString("\n")
	}
	if len(r.Excluded) > 0 {
		fmt.Fprintf(&b, "left out as assets: %s (--include-assets counts them)", r.excludedSummary())
		if len(r.Excluded) <= 5 {
			b.WriteString(":")
			for _, x := range r.Excluded {
				fmt.Fprintf(&b, " %s", ctxd.EscapeName(x.Path))
			}
		}
		b.WriteString("\n")
	}
	if len(r.NotText) > 0 {
		fmt.Fprintf(&b, "left out as not text: %s:", Files(len(r.NotText)))
		for _, x := range r.NotText[:min(len(r.NotText), 5)] {
			fmt.Fprintf(&b, " %s (%s)", ctxd.EscapeName(x.Path), x.Reason)
		}
		if len(r.NotText) > 5 {
			b.WriteString(" ...")
		}
		b.WriteString("\n")
	}
	if len(r.Secret) > 0 {
		fmt.Fprintf(&b, "left out as secret files: %s:", Files(len(r.Secret)))
		for _, p := range r.Secret[:min(len(r.Secret), 5)] {
			fmt.Fprintf(&b, " %s", ctxd.EscapeName(p))
		}
		if len(r.Secret) > 5 {
			b.WriteString(" ...")
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func fenceLang(p string) string {
	if l := lang.Of(p); l != "" {
		return l
	}
	return strings.TrimPrefix(path.Ext(p), ".")
}
