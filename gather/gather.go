package gather

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/internal/byteview"
	"github.com/ctxd/ctxd/lang"
	"github.com/ctxd/ctxd/prioritize"
	"github.com/ctxd/ctxd/query"
	"github.com/ctxd/ctxd/workspace/tree"
)

// Defaults of [Options] and [Request].
const (
	DefaultMaxFiles       = 50
	DefaultStructureDepth = 3
	DefaultDepth          = 10
)

// Request is one gathering request.
type Request struct {
	// Query is the user's request, read: its stack frames, the files it
	// mentions and the words of the lexical ranking. Nil is an empty
	// request.
	Query *query.Query
	// Task is the task type, already resolved by the caller (never "").
	Task ctxd.TaskType
	// Patterns are doublestar globs read as .gitignore and a pack's
	// --include read them (tree.MatchGlob): one without a slash matches a
	// name at any depth ("*.rs"), one with a slash a path from the root. A
	// pattern without wildcards names a file explicitly: that is consent
	// to gather it even when it is secret-like or ignored.
	Patterns []string
	// MaxFiles caps the files gathered from patterns, relevance and
	// task-specific sources (open files are not counted). Zero means
	// DefaultMaxFiles.
	MaxFiles int
	// OpenFiles are the files open in the editor; an OpenFile's Text wins
	// over disk. Opening a file is consent to gather it.
	OpenFiles []ctxd.OpenFile
	// RefuseSecretFiles makes a name no consent: a secret file named by
	// an open file or a literal pattern is skipped with a warning. The
	// MCP server sets it (its caller is an agent, not the user).
	RefuseSecretFiles bool
	// Overlay holds unsaved editor buffers by root-relative path; they win
	// over disk wherever the file is gathered.
	Overlay map[string]string
	// StructureDepth is the depth of the structure tree; zero means
	// DefaultStructureDepth.
	StructureDepth int
	// Commits is how many recent commits the history covers; zero means
	// DefaultCommits, negative turns history off.
	Commits int
	// Depth bounds each task-specific list (related files, dependents,
	// tests, lexical matches); zero means DefaultDepth.
	Depth int
	// ContextBudget is the token budget the context will be fit into, when
	// known (0: unknown); the link signals add fewer files to a small one
	// (see links.go).
	ContextBudget int
	// Fusion weighs the link signals in the fused ranking of files no
	// source gathered, as prioritize.Options.Fusion does in the score
	// (zero: prioritize.DefaultFusion).
	Fusion prioritize.FusionWeights
}

// Result is what [Workspace.Gather] found.
type Result struct {
	// Chunks are the candidates, unsorted: Content is the whole text,
	// Facts are filled, Priority is the base priority and Source is set;
	// Tokens and Score are left for the engine.
	Chunks []ctxd.Chunk
	// FilesScanned counts the files the walk saw (not ignored).
	FilesScanned int
	// Warnings are non-fatal problems a person can act on (an unreadable
	// file, git unavailable, a capped list); they never hold source text.
	Warnings []string
	// Diff is the uncommitted changes the gathering read (nil outside
	// git): the line histories of dirty files read their hunks from it.
	Diff *tree.Diff
}

// Log attribute keys.
const (
	keyFiles  = "files"
	keyTook   = "took"
	keyChunks = "chunks"
)

// candidate is a file on its way to becoming a chunk.
type candidate struct {
	rel   string
	facts ctxd.Facts
	order int
	text  *string // editor text (open file or overlay); nil reads disk
	// relScore is the raw lexical score, relevance the normalized one
	// (Hit.Relevance).
	relScore, relevance float64
	lexRank             int // 1-based place in the lexical ranking, 0 when none
}

// roleRank orders roles: a file keeps the strongest role it was given.
var roleRank = map[string]int{
	"":                 0,
	ctxd.RoleRelated:   1,
	ctxd.RoleDependent: 2,
	ctxd.RoleTest:      3,
	ctxd.RoleTarget:    4,
	ctxd.RoleError:     5,
}

// gathering is the state of one Gather call.
type gathering struct {
	w        *tree.Tree
	req      Request
	snap     *tree.Snapshot
	cands    map[string]*candidate
	lexical  *tree.Ranking // the request's lexical ranking
	git      *tree.GitInfo // nil outside git
	warnings []string
	// named are the targets the user pointed at (named, open, in a
	// stack trace), not the best lexical matches.
	named []string
}

// add records that rel is gathered for reason in role. Non-explicit
// sources never add secret files; nothing under .git/, .ctxd/ or the
// state directory (tree.Tree.InStateDir) is ever added. It returns the
// candidate, or nil when refused.
func (g *gathering) add(rel, reason, role string, explicit bool) *candidate {
	if g.w.InStateDir(rel) {
		if explicit {
			g.warnings = append(g.warnings, fmt.Sprintf("skipped %s: files under .git/, .ctxd/ and ctxd's state directory are never gathered", rel))
		}
		return nil
	}
	if (!explicit || g.req.RefuseSecretFiles) && lang.IsSecret(rel) {
		if explicit {
			g.warnings = append(g.warnings, "skipped "+AgentSecret(rel))
		}
		return nil
	}
	c := g.cands[rel]
	if c == nil && !explicit && roleRank[role] <= roleRank[ctxd.RoleTest] && g.lexical.LeftOut(rel) {
		// A copy of a file for another language than the request's
		// (conf/locale/<lang>/formats.py) that the ranking left out
		// comes beside the request's files by no other way either: not
		// as an import (django's "from django.utils import formats" had
		// brought seven), a link, a recent change or a test. What the
		// request points at (targets, error locations) still comes.
		return nil
	}
	if c == nil {
		c = &candidate{rel: rel, order: len(g.cands)}
		g.cands[rel] = c
	}
	if !slices.Contains(c.facts.Reasons, reason) {
		c.facts.Reasons = append(c.facts.Reasons, reason)
	}
	if roleRank[role] > roleRank[c.facts.Role] {
		c.facts.Role = role
	}
	if explicit {
		c.facts.Explicit = true
	}
	return c
}

// AgentSecret says why a secret file an agent named is not read (Request.
// RefuseSecretFiles, engine.OutlineRequest.RefuseSecretFiles): an agent's
// name is no consent, the user's switch is (docs/security.md).
func AgentSecret(rel string) string {
	return fmt.Sprintf("%s: a secret file, not read for an agent (start ctxd mcp with --allow-secret-files to allow it)", rel)
}

// Gather collects candidate chunks for a request from the workspace
// tree w: it asks w for a snapshot and the git facts, then selects. An OpenFile or Pattern
// outside the root is an error wrapping [ctxd.ErrOutsideRoot]; a bad
// parameter wraps [ctxd.ErrInvalidParams]. Cancelling ctx stops the walk
// promptly and returns ctx.Err() wrapped. Safe for concurrent use.
func Gather(ctx context.Context, w *tree.Tree, r Request) (*Result, error) {
	t0 := time.Now()
	r, err := withDefaults(r)
	if err != nil {
		return nil, fmt.Errorf("gather: %w", err)
	}
	g := &gathering{w: w, req: r, cands: map[string]*candidate{}}
	// Explicit paths are checked before any work, so a path outside the
	// root fails fast.
	x, err := resolveExplicit(w, r)
	if err != nil {
		return nil, fmt.Errorf("gather: %w", err)
	}
	snap, gi, warns, err := w.SnapshotAndGit(ctx, r.Commits)
	if err != nil {
		return nil, fmt.Errorf("gather: %w", err)
	}
	g.snap, g.git = snap, gi
	g.warnings = append(g.warnings, warns...)

	// 1. Open files: critical, explicit.
	g.addOpen(x.opens)
	// 2. Patterns: a literal path is explicit; a glob matches walked,
	// non-secret files.
	for _, p := range x.literal {
		g.add(p, "pattern "+p, ctxd.RoleTarget, true)
	}
	if err := g.matchGlobs(ctx, x.globs); err != nil {
		return nil, fmt.Errorf("gather: %w", err)
	}
	// 3. Files named in the request.
	for _, rel := range snap.Mentions(w.Root(), r.Query.Paths) {
		if c := g.add(rel, "mentioned in request", ctxd.RoleTarget, false); c != nil {
			c.facts.Mentioned = true
		}
	}
	// 4. Task-specific sources, with lexical relevance.
	if err := g.taskSources(ctx, x.overlay); err != nil {
		return nil, fmt.Errorf("gather: %w", err)
	}
	var extra []ctxd.Chunk
	if gi != nil {
		for rel, c := range g.cands {
			c.facts.CommitRank = gi.CommitRank[rel]
			c.facts.Dirty = gi.Dirty[rel]
		}
		extra = append(extra, gitChunks(gi, r.Task)...)
	}

	// 6. Cap, read and build the chunks.
	g.capFiles()
	chunks := g.fileChunks(ctx, x.overlay)
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("gather: %w", err)
	}
	chunks = append(chunks, g.structureChunk(x.overlay))
	if d := g.depsChunk(); d != nil {
		chunks = append(chunks, *d)
	}
	chunks = append(chunks, extra...)
	w.Logger().Debug("gathered", keyChunks, len(chunks), keyFiles, snap.Scanned, keyTook, time.Since(t0))
	res := &Result{Chunks: chunks, FilesScanned: snap.Scanned, Warnings: g.warnings}
	if g.git != nil {
		res.Diff = g.git.Diff
	}
	return res, nil
}

// withDefaults checks r's task type and fills its zero fields with the
// defaults.
func withDefaults(r Request) (Request, error) {
	if r.Task == "" {
		return r, fmt.Errorf("task type not set: %w", ctxd.ErrInvalidParams)
	}
	if _, err := ctxd.ParseTaskType(string(r.Task)); err != nil {
		return r, err
	}
	if r.Query == nil {
		r.Query = query.Parse("")
	}
	if r.MaxFiles <= 0 {
		r.MaxFiles = DefaultMaxFiles
	}
	if r.StructureDepth <= 0 {
		r.StructureDepth = DefaultStructureDepth
	}
	r.Commits = tree.CommitsOrDefault(r.Commits)
	if r.Depth <= 0 {
		r.Depth = DefaultDepth
	}
	return r, nil
}

// explicit are the paths a request names, resolved against the root: open
// files, literal patterns, globs and the editor's unsaved buffers.
type explicit struct {
	opens          []openRel
	literal, globs []string
	overlay        map[string]string
}

// openRel is an open file and its root-relative path.
type openRel struct {
	of  ctxd.OpenFile
	rel string
}

// resolveExplicit resolves the paths r names; one outside the root is an
// error.
func resolveExplicit(w *tree.Tree, r Request) (explicit, error) {
	var x explicit
	for _, of := range r.OpenFiles {
		_, rel, err := tree.Resolve(w.Root(), of.Path)
		if err != nil {
			return x, fmt.Errorf("open file: %w", err)
		}
		x.opens = append(x.opens, openRel{of, rel})
	}
	// A pattern given twice (a configured one the request repeats, a
	// client that merges lists) is matched once: each copy walked every
	// file and said its warning again.
	seen := map[string]bool{}
	for _, p := range r.Patterns {
		lit, glob, err := w.SplitPattern(p)
		if err != nil {
			return x, err
		}
		if lit != "" && !seen["lit:"+lit] {
			seen["lit:"+lit] = true
			x.literal = append(x.literal, lit)
		}
		if glob != "" && !seen["glob:"+glob] {
			seen["glob:"+glob] = true
			x.globs = append(x.globs, glob)
		}
	}
	x.overlay = map[string]string{}
	if err := tree.ResolveOverlay(w.Root(), x.overlay, r.Overlay); err != nil {
		return x, fmt.Errorf("overlay: %w", err)
	}
	return x, nil
}

// addOpen adds the open files: critical, explicit, with the editor's
// cursor, selection and unsaved text.
func (g *gathering) addOpen(opens []openRel) {
	for _, o := range opens {
		c := g.add(o.rel, "open file", ctxd.RoleTarget, true)
		if c == nil {
			continue
		}
		c.facts.Open = true
		c.facts.Cursor = max(o.of.Line, 0)
		if o.of.Selection != nil {
			sel := *o.of.Selection
			c.facts.Selection = &sel
		}
		if o.of.Text != nil {
			t := *o.of.Text
			c.text = &t
			c.facts.Unsaved = true
		}
	}
}

// matchGlobs adds the walked files matching each glob, best lexical match
// first when a glob matches more than MaxFiles.
func (g *gathering) matchGlobs(ctx context.Context, globs []string) error {
	for _, pat := range globs {
		var matched []string
		secret := 0
		for i, f := range g.snap.Files {
			if i%1024 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			if !tree.MatchGlob(pat, f.Rel, "") {
				continue
			}
			if f.Secret {
				secret++ // a glob is not consent
				continue
			}
			matched = append(matched, f.Rel)
		}
		switch {
		case len(matched) == 0 && secret > 0:
			g.warnings = append(g.warnings, fmt.Sprintf("pattern %s matched only secret files (%d), which a glob never gathers: name one by its path", pat, secret))
		case len(matched) == 0:
			// A mistyped glob gathered nothing and said nothing.
			g.warnings = append(g.warnings, fmt.Sprintf("pattern %s matched no file (a glob with a slash is read from the root, one without matches a name at any depth)", pat))
		}
		if len(matched) > g.req.MaxFiles {
			g.warnings = append(g.warnings, fmt.Sprintf("pattern %s matched %d files; kept the %d that best match the request", pat, len(matched), g.req.MaxFiles))
			set := map[string]bool{}
			for _, m := range matched {
				set[m] = true
			}
			var keep []string
			for _, h := range g.snap.Index.RankBy(tree.NewRankQuery(g.req.Query, g.req.Query.AboutTests), 0, func(p string) bool { return set[p] }) {
				keep = append(keep, h.Path)
				delete(set, h.Path)
			}
			rest := make([]string, 0, len(set))
			for m := range set {
				rest = append(rest, m)
			}
			sort.Strings(rest)
			matched = append(keep, rest...)[:g.req.MaxFiles]
		}
		for _, m := range matched {
			g.add(m, "pattern "+pat, ctxd.RoleRelated, false)
		}
	}
	return nil
}

// capFiles keeps at most MaxFiles candidates besides open files, the most
// important first (priority, then the order they were found in).
func (g *gathering) capFiles() {
	var rest []*candidate
	for _, c := range g.cands {
		if !c.facts.Open {
			rest = append(rest, c)
		}
	}
	if len(rest) <= g.req.MaxFiles {
		return
	}
	sort.Slice(rest, func(i, j int) bool {
		pi, pj := g.priority(rest[i]), g.priority(rest[j])
		if pi != pj {
			return pi > pj
		}
		return rest[i].order < rest[j].order
	})
	for _, c := range rest[g.req.MaxFiles:] {
		delete(g.cands, c.rel)
	}
	g.warnings = append(g.warnings, fmt.Sprintf("gathered %d files; kept %d (max_files)", len(rest), g.req.MaxFiles))
}

// fileChunks reads each candidate and builds its chunk. Binary, oversized,
// missing and unreadable files are dropped; explicit ones with a warning.
func (g *gathering) fileChunks(ctx context.Context, overlay map[string]string) []ctxd.Chunk {
	rels := make([]string, 0, len(g.cands))
	for rel := range g.cands {
		rels = append(rels, rel)
	}
	sort.Strings(rels)
	idents := g.req.Query.Idents
	chunks := make([]ctxd.Chunk, 0, len(rels))
	for _, rel := range rels {
		if ctx.Err() != nil {
			return nil
		}
		if ch, ok := g.fileChunk(g.cands[rel], overlay, idents); ok {
			chunks = append(chunks, ch)
		}
	}
	return chunks
}

// fileChunk reads candidate c (its editor text, an unsaved buffer, else
// the file through the tree) and builds its chunk; ok is false when it is
// dropped (binary, oversized, missing, unreadable: an explicit one with a
// warning).
func (g *gathering) fileChunk(c *candidate, overlay map[string]string, idents []string) (ch ctxd.Chunk, ok bool) {
	rel := c.rel
	explicit := c.facts.Explicit || c.facts.Open
	var text string
	// raw is text's bytes when they were read from disk (nil
	// otherwise): counted, sniffed and hashed without a copy each.
	var raw []byte
	// stub is set for a minified file known from the index: it is
	// not read at all.
	var stub *tree.Text
	switch {
	case c.text != nil:
		text = *c.text
	case overlay[rel] != "" || hasKey(overlay, rel):
		text = overlay[rel]
		c.facts.Unsaved = true
	default:
		t, why := g.w.ReadText(g.snap, rel)
		if why != "" {
			if explicit {
				g.warnings = append(g.warnings, fmt.Sprintf("skipped %s: %s", rel, why))
			}
			return ctxd.Chunk{}, false
		}
		c.facts.ModTime = t.ModTime
		if t.Minified {
			stub = &t
			break
		}
		text, raw = t.Text, t.Raw
	}
	if int64(len(text)) > g.w.MaxFileBytes() {
		if explicit {
			g.warnings = append(g.warnings, "skipped "+rel+": "+tree.SizeCapReason(int64(len(text)), g.w.MaxFileBytes()))
		}
		return ctxd.Chunk{}, false
	}
	if raw == nil {
		raw = []byte(text)
	}
	f := &c.facts
	f.Language = lang.Of(rel)
	f.Size = int64(len(text))
	f.Lines = byteview.CountLines(raw)
	switch {
	case stub != nil:
		f.Size, f.Lines, f.Minified = stub.Size, stub.Lines, true
	case lang.Minified(raw):
		f.Minified = true
	}
	if f.Minified {
		// One line that says why, never the text: see minified.go.
		text = minifiedStub(f.Size, f.Lines)
		raw = []byte(text)
		f.Selection = nil
	}
	if f.Open && !f.Minified {
		// An editor's cursor or selection past the end (a stale
		// position, a typo in --open file:LINE) is dropped, and said. An
		// editor puts the cursor on the line after a final newline.
		if f.Cursor > f.Lines+1 {
			g.warnings = append(g.warnings, fmt.Sprintf("%s: line %d is past its end (%d lines); the cursor is ignored", rel, f.Cursor, f.Lines))
			f.Cursor = 0
		}
		if f.Selection != nil && f.Selection.Start > f.Lines+1 {
			g.warnings = append(g.warnings, fmt.Sprintf("%s: the selection starts past its end (line %d of %d); it is ignored", rel, f.Selection.Start, f.Lines))
			f.Selection = nil
		}
	}
	f.Test = lang.IsTest(rel)
	f.Relevance = c.relevance
	f.LexicalRank = c.lexRank
	if h, place := g.lexical.Hit(rel); h != nil {
		m := g.lexical.Match(place - 1)
		f.Lexical = &m
		if best := g.lexical.Hits[0].Score; best > 0 {
			f.LexicalShare = math.Round(h.Score/best*1000) / 1000
		}
	}
	f.SelectedText = selectedText(text, f.Selection)
	for _, id := range idents {
		if strings.Contains(text, id) {
			f.MentionedSymbols = append(f.MentionedSymbols, id)
		}
	}
	sum := sha256.Sum256(raw)
	prio := g.priority(c)
	if prio > ctxd.PriorityMedium && !f.Explicit && !f.Open && f.Role != ctxd.RoleError {
		// Generated files and test data are never the code a task is
		// about: at most MEDIUM, whatever brought them in ("fixture
		// for utils.go" made test.pb.go HIGH for a test task).
		if r := lang.RoleOf(rel, lang.GeneratedHead([]byte(text[:min(len(text), 4096)]))); r == lang.RoleGenerated || r == lang.RoleFixture {
			prio = ctxd.PriorityMedium
		}
	}
	return ctxd.Chunk{
		Source:    rel,
		ChunkType: ctxd.ChunkFile,
		Priority:  prio,
		Hash:      hex.EncodeToString(sum[:]),
		Facts:     *f,
		Content:   text,
	}, true
}

func hasKey[V any](m map[string]V, k string) bool {
	_, ok := m[k]
	return ok
}

// priority is a candidate's base priority; the table is in
// docs/gathering.md.
func (g *gathering) priority(c *candidate) ctxd.Priority {
	f := &c.facts
	task := g.req.Task
	if f.Open || f.Role == ctxd.RoleError {
		return ctxd.PriorityCritical
	}
	if f.Explicit || f.Mentioned || f.Role == ctxd.RoleTarget {
		return ctxd.PriorityHigh
	}
	p := ctxd.PriorityMedium
	switch f.Role {
	case ctxd.RoleTest:
		if task == ctxd.TaskTest {
			p = ctxd.PriorityHigh
		}
	case ctxd.RoleDependent:
		if task == ctxd.TaskRefactor {
			p = ctxd.PriorityHigh
		}
	case ctxd.RoleRelated:
		switch {
		case containsPrefix(f.Reasons, "same package as") || containsPrefix(f.Reasons, "imported by"):
			p = ctxd.PriorityHigh
		case len(f.Reasons) == 1 && f.Reasons[0] == reasonLexical:
			// A lexical match alone is at most MEDIUM: its strength is
			// scored by the relevance term, so a HIGH base would count it
			// twice and let it overtake the files the user pointed at.
			switch {
			case c.relevance >= 0.5:
				p = ctxd.PriorityMedium
			case c.relevance >= 0.2:
				p = ctxd.PriorityLow
			default:
				p = ctxd.PriorityMinimal // indirect
			}
		}
	}
	switch lang.KindOf(c.rel) {
	case lang.KindDoc, lang.KindExample:
		if p > ctxd.PriorityLow {
			p = ctxd.PriorityLow
		}
	case lang.KindConfig:
		if p > ctxd.PriorityMedium {
			p = ctxd.PriorityMedium
		}
	case lang.KindCode:
		if (f.Dirty || f.CommitRank > 0) && p < ctxd.PriorityHigh {
			p = ctxd.PriorityHigh // recently changed
		}
	}
	return p
}

func containsPrefix(ss []string, prefix string) bool {
	for _, s := range ss {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

// structureShare is the share of a known context budget the structure
// tree may take before it is rendered one level shallower: a tree cut to
// its head and tail by the fitter showed `./`, `.ci/` and two lines of
// its first directory and elided the rest (ctxd's own tree at 8,000
// tokens: 3 of 400 lines), where a shallower tree shows every top-level
// directory with its counts.
const structureShare = 0.1

// structureChunk renders the workspace tree (ignored and secret files
// left out, files only open in the editor shown), to the request's depth
// or, when the context budget is known and the tree would take more than
// structureShare of it (about four bytes a token), to the deepest level
// that fits, depth 1 at least.
func (g *gathering) structureChunk(overlay map[string]string) ctxd.Chunk {
	depth := g.req.StructureDepth
	text := g.snap.Structure(depth, overlay)
	reason := fmt.Sprintf("workspace tree to depth %d", depth)
	if limit := int(structureShare * float64(g.req.ContextBudget) * 4); g.req.ContextBudget > 0 && len(text) > limit {
		deep := len(text)
		for depth > 1 && len(text) > limit {
			depth--
			text = g.snap.Structure(depth, overlay)
		}
		reason = fmt.Sprintf("workspace tree to depth %d (depth %d takes about %d tokens, over a tenth of the %d-token context)", depth, g.req.StructureDepth, deep/4, g.req.ContextBudget)
	}
	p := ctxd.PriorityMedium
	switch g.req.Task {
	case ctxd.TaskAnalyze:
		p = ctxd.PriorityHigh
	case ctxd.TaskDebug:
		p = ctxd.PriorityLow
	}
	sum := sha256.Sum256([]byte(text))
	return ctxd.Chunk{
		Source:    "structure",
		ChunkType: ctxd.ChunkStructure,
		Priority:  p,
		Hash:      hex.EncodeToString(sum[:]),
		Facts: ctxd.Facts{
			Reasons: []string{reason},
			Lines:   byteview.CountLines(text),
			Size:    int64(len(text)),
		},
		Content: text,
	}
}

// depsChunk summarizes the dependency manifests, or returns nil when the
// workspace has none.
func (g *gathering) depsChunk() *ctxd.Chunk {
	text, warns := g.w.Deps(g.snap)
	g.warnings = append(g.warnings, warns...)
	if text == "" {
		return nil
	}
	p := ctxd.PriorityLow
	switch g.req.Task {
	case ctxd.TaskAnalyze:
		p = ctxd.PriorityHigh
	case ctxd.TaskImplement, ctxd.TaskRefactor:
		p = ctxd.PriorityMedium
	}
	c := metaChunk("deps", ctxd.ChunkDependency, p, text, "dependency manifests")
	return &c
}

// maxSelectedLines bounds the selected text a chunk carries.
const maxSelectedLines = 80

// selectedText returns the lines of text that sel covers (1-based,
// inclusive), at most maxSelectedLines of them; "" without a selection.
func selectedText(text string, sel *ctxd.LineRange) string {
	if sel == nil || sel.Start < 1 || sel.End < sel.Start {
		return ""
	}
	lines := strings.SplitAfter(text, "\n")
	if sel.Start > len(lines) {
		return ""
	}
	end := min(sel.End, len(lines), sel.Start+maxSelectedLines-1)
	return strings.Join(lines[sel.Start-1:end], "")
}

// minifiedStub is the one line a prompt shows for a minified file.
func minifiedStub(size int64, lines int) string {
	return fmt.Sprintf("[minified or very-long-line file: %d bytes on %s; content left out]", size, ctxd.Plural(lines, "line", "lines"))
}
