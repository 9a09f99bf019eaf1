package gather

import (
	"cmp"
	"context"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/lang"
	"github.com/ctxd/ctxd/query"
	"github.com/ctxd/ctxd/workspace/tree"
)

// Reasons recorded in Facts.Reasons.
const (
	reasonLexical    = "lexical match"
	reasonStackTrace = "named in stack trace"
	reasonReadme     = "project readme"
	reasonDirty      = "uncommitted changes"
	reasonRecent     = "changed in a recent commit"
)

// maxTargets bounds how many targets the task-specific sources expand.
const maxTargets = 5

// maxStemMatches bounds the code files a request names by their stem
// alone that addNamedStems adds beside the files it names by path, and
// maxStemFiles the files one such word may name (a word naming more,
// "models" in django, names no one file).
const (
	maxStemMatches = 2
	maxStemFiles   = 2
	reasonStem     = "named by its stem in the request"
)

// maxDocMatches bounds the documentation a code task's lexical matches
// add beside the code (docs/gathering.md, "Translations").
const maxDocMatches = 2

// maxTestMatches bounds the tests the lexical matches add for a request
// that is not about tests: a test repeats the words of the code it tests,
// and on the development set (eval recall, 100 commits, BENCHMARKS.md
// "hword") tests had held a fifth to two fifths of the lexical places
// (8k: gin 175 of 590, httpx 198 of 550, express 238 of 632), and no test
// is ever an answer file. Gathering the code below them in their stead
// was measured too and lost lines at 8k: the deeper code files took the
// tokens of the answers ranked above them.
const maxTestMatches = 2

// maxTestMatches applies from a context of compress.RoomyBudget tokens
// (or an unknown one): below it the same rule lost changed lines on the
// development set (8k: gin, requests and httpx one request each, fastapi
// one gained), as the fitter's presence pass (its best 12 chunks) and
// upgrades then fell to other files.

// taskSources adds what the task type calls for (see docs/gathering.md),
// ranking files lexically against the request along the way.
func (g *gathering) taskSources(ctx context.Context, overlay map[string]string) error {
	r := g.req
	ix := g.snap.Index
	if len(overlay) > 0 {
		ix = g.snap.WithOverlay(overlay)
	}
	g.lexical = ix.Ranking(tree.NewRankQuery(r.Query, r.Task == ctxd.TaskTest || r.Query.AboutTests), 0, nil)
	hits := g.lexical.Hits
	if err := ctx.Err(); err != nil {
		return err
	}
	scores := g.lexical.Score

	g.addErrorLocations()

	// Targets: what the user pointed at; failing that, the best lexical
	// matches.
	targets := g.targets()
	named := len(targets) > 0
	// A question about how something works or how to use it counts the
	// docs as any match.
	explains := r.Query.Explain || r.Query.HowTo
	aboutTests := r.Task == ctxd.TaskTest || r.Query.AboutTests
	if !named && len(hits) > 0 {
		// For a code task, documentation is no target either (as it
		// takes none of the code's lexical places below): the best code
		// match and those within 80% of it, at most 3. Nor is a test,
		// unless the request is about tests: the code a change is about
		// is the source, and its tests come with it (addTests); a test
		// that repeats the request's words took a target's place and
		// boost from the module it tests.
		top, n := 0.0, 0
		for i, h := range hits {
			if n == 3 || top > 0 && h.Score < 0.8*top {
				break
			}
			if !explains && g.lexical.IsDoc(i) || !aboutTests && lang.IsTest(h.Path) {
				continue
			}
			if top == 0 {
				top = h.Score
			}
			n++
			if c := g.add(h.Path, reasonLexical, ctxd.RoleTarget, false); c != nil {
				targets = append(targets, h.Path)
			}
		}
	}
	// Lexical matches as related files: the top Depth when nothing is
	// named, a few otherwise.
	want := r.Depth
	if named {
		want = min(3, r.Depth)
	}
	added := 0 // lexical places taken beside the targets, docs and the first tests not counted
	if len(hits) > 0 {
		// For a code task, documentation takes none of the code's places:
		// at most maxDocMatches docs are added beside the top want others
		// (an explanation counts them as any match). A request not about
		// tests gathers at most maxTestMatches tests by their words, beside
		// the code as docs are (the targets' own tests come by name,
		// addTests); a test past them keeps its place but is not gathered,
		// so the code below it does not come in its stead. From a context
		// of compress.RoomyBudget tokens (or an unknown one).
		top := hits[0].Score
		docs, tests := 0, 0
		capTests := g.roomy()
		for i, h := range hits {
			if added >= want || h.Score < 0.15*top {
				break
			}
			if g.cands[h.Path] != nil {
				continue
			}
			doc := !explains && g.lexical.IsDoc(i)
			if doc && docs >= maxDocMatches {
				continue
			}
			test := capTests && !doc && !aboutTests && lang.IsTest(h.Path)
			if test && tests >= maxTestMatches {
				added++
				continue
			}
			if g.add(h.Path, reasonLexical, ctxd.RoleRelated, false) != nil {
				switch {
				case doc:
					docs++
				case test:
					tests++
				default:
					added++
				}
			}
		}
	}
	if r.Query.HowTo {
		g.addHowToDocs(hits)
	}
	if named {
		g.addNamedStems(hits, aboutTests)
	}
	if !named && added+len(targets) < minRequestFiles {
		g.addRecent(r.Depth)
	}
	if len(targets) > maxTargets {
		targets = targets[:maxTargets]
	}

	var namedTargets []string
	if named {
		namedTargets = targets
	}
	g.named = namedTargets
	links := g.linkSources(ctx, hits, namedTargets)
	g.addFused(links, g.fusedWant(), aboutTests)

	res := lang.ImportResolver{
		GoModule: g.snap.GoModule,
		Py:       g.snap.PyModules(),
	}
	if err := g.byTask(ctx, targets, res, scores); err != nil {
		return err
	}
	for rel, c := range g.cands {
		if h, rank := g.lexical.Hit(rel); h != nil {
			c.relScore, c.relevance, c.lexRank = h.Score, h.Relevance, rank
		}
	}
	g.linkFacts(links)
	return nil
}

// howToDocs is how many of the best-matching documents a question about
// how to use the project gathers, wherever the ranking puts them.
const howToDocs = 2

// addHowToDocs adds the first howToDocs documents of the lexical ranking
// (docs pages, READMEs) for a question about how to use the project: the
// code and its tests, which say the request's words more often, had
// taken every place ("how do I test a websocket endpoint with the test
// client" gathered thirteen tests and modules, not docs/testclient.md,
// whose "Testing WebSocket sessions" section is the answer).
func (g *gathering) addHowToDocs(hits []tree.Hit) {
	n := 0
	for i, h := range hits {
		if n == howToDocs {
			return
		}
		if !g.lexical.IsDoc(i) {
			continue
		}
		n++
		g.add(h.Path, reasonLexical, ctxd.RoleRelated, false)
	}
}

// minRequestFiles is how many files a request must find by its words
// (targets and lexical matches) before the recently changed code stops
// filling in (addRecent).
const minRequestFiles = 3

// addRecent adds the code files of the recent commits (the newest first,
// at most n) when the request names no file and its words find fewer
// than minRequestFiles: "Minor tweaks and cleanup" or "Getting help in
// there" match nothing, and gathering nothing left a 16k context empty
// on a three-file repository, while the files changed last are where
// work in progress most often continues (their recency is scored too).
func (g *gathering) addRecent(n int) {
	if g.git == nil {
		return
	}
	added := 0
	for _, cm := range g.git.Commits {
		for _, rel := range cm.Files {
			if added >= n {
				return
			}
			f := g.snap.ByRel[rel]
			if f == nil || !f.HasTerms() || lang.KindOf(rel) != lang.KindCode || lang.IsTest(rel) || g.cands[rel] != nil {
				continue
			}
			if g.add(rel, reasonRecent, ctxd.RoleRelated, false) != nil {
				added++
			}
		}
	}
}

// addErrorLocations adds the files of the request's stack frames and
// error text: the error locations. The innermost frame in the workspace
// (the last one of a Python traceback, the first one of Go, Node and Java
// traces) is where the error was raised.
func (g *gathering) addErrorLocations() {
	r := g.req
	locs := r.Query.Frames
	innermost := ""
	pythonOrder := r.Query.InnermostLast
	locFiles := make([][]string, len(locs))
	for i, loc := range locs {
		if locFiles[i] = g.snap.TraceFiles(g.w.Root(), loc.Path); len(locFiles[i]) > 0 {
			if innermost == "" || pythonOrder {
				innermost = locFiles[i][0]
			}
		}
	}
	for i, loc := range locs {
		for _, rel := range locFiles[i] {
			role, reason := ctxd.RoleError, reasonStackTrace
			if r.Task != ctxd.TaskDebug {
				role = ctxd.RoleTarget
			}
			c := g.add(rel, reason, role, false)
			if c == nil {
				continue
			}
			c.facts.Mentioned = true
			c.facts.InnermostFrame = rel == innermost
			if loc.Line > 0 && !slices.Contains(c.facts.ErrorLines, loc.Line) {
				c.facts.ErrorLines = append(c.facts.ErrorLines, loc.Line)
			}
		}
	}
}

// byTask adds what the task type calls for around the targets (see
// docs/gathering.md): tests, siblings and imports to implement; tests and
// fixtures to test; importers to refactor; the uncommitted changes to
// debug; the readme to analyze.
func (g *gathering) byTask(ctx context.Context, targets []string, res lang.ImportResolver, scores func(rel string) float64) error {
	r := g.req
	switch r.Task {
	case ctxd.TaskImplement:
		for _, t := range targets {
			g.addTests(t, min(3, r.Depth))
			g.addSiblings(t, scores, max(r.Depth/2, 1))
			g.addImported(t, res, scores, max(r.Depth/2, 1))
		}
	case ctxd.TaskTest:
		for _, t := range targets {
			g.addTests(t, r.Depth)
			g.addFixtures(t, scores, min(3, r.Depth))
		}
	case ctxd.TaskRefactor:
		for _, t := range targets {
			if err := g.addImporters(ctx, t, res, scores, r.Depth); err != nil {
				return err
			}
			g.addTests(t, min(3, r.Depth))
		}
	case ctxd.TaskDebug:
		for _, t := range targets {
			g.addTests(t, 1)
		}
		g.addDirty(max(r.Depth/2, 1))
	case ctxd.TaskAnalyze:
		g.addReadme(readmeNames)
	}
	if r.Query.HowTo {
		// A question about how to use the project, whatever its task
		// ("how to make an option required" reads as implement): the
		// readme is where a user looks first, in any spelling
		// (commander.js writes Readme.md).
		g.addReadme(howToReadmeNames)
	}
	return nil
}

// The readme's names, the first one a workspace has gathered: for an
// analysis, and, in more spellings, for a question about how to use the
// project (the analysis keeps its names: its context on the development
// set stays as it was).
var (
	readmeNames      = []string{"README.md", "README", "README.rst", "README.txt", "readme.md"}
	howToReadmeNames = []string{"README.md", "Readme.md", "readme.md", "README.markdown", "README.mdx", "README.rst", "README.txt", "README"}
)

// addReadme adds the first of names the workspace's root holds.
func (g *gathering) addReadme(names []string) {
	for _, name := range names {
		if g.snap.ByRel[name] != nil {
			g.add(name, reasonReadme, ctxd.RoleRelated, false)
			return
		}
	}
}

// addNamedStems adds the code files a request names by their name without
// the extension ("sqlmigrate wraps its output in BEGIN/COMMIT" names
// commands/sqlmigrate.py) when it also names files by path: those take
// the targets' place, and only the best three lexical matches come
// beside them, so a request that pointed at the test to add
// (tests/migrations/test_commands.py) had lost the module it is about,
// ranked below three files that repeat the words. Such a file is
// a lexical match (its path holds the word); it is added whatever its
// place, a word of four letters or more that names at most maxStemFiles
// of the matches, at most maxStemMatches files, the words taken in the
// request's order, documentation and tests (unless the request is about
// tests) left out.
func (g *gathering) addNamedStems(hits []tree.Hit, aboutTests bool) {
	at := map[string]int{} // word -> its first place in the request
	for _, w := range g.req.Query.Words {
		if w = strings.ToLower(w); len(w) >= 4 {
			if _, ok := at[w]; !ok {
				at[w] = len(at)
			}
		}
	}
	if len(at) == 0 {
		return
	}
	stemOf := func(p string) string {
		b := path.Base(p)
		return strings.ToLower(strings.TrimSuffix(b, path.Ext(b)))
	}
	files := map[string]int{} // stem -> matches named so
	var named []int           // the hits whose stem is a word, in rank order
	for i, h := range hits {
		if s := stemOf(h.Path); hasKey(at, s) {
			files[s]++
			named = append(named, i)
		}
	}
	// The words in the request's order (its subject first: a title names
	// the module before the files it touches), each word's files in rank
	// order.
	slices.SortStableFunc(named, func(a, b int) int { return cmp.Compare(at[stemOf(hits[a].Path)], at[stemOf(hits[b].Path)]) })
	added := 0
	for _, i := range named {
		if added == maxStemMatches {
			break
		}
		h := hits[i]
		if files[stemOf(h.Path)] > maxStemFiles || g.lexical.IsDoc(i) || !aboutTests && lang.IsTest(h.Path) || g.cands[h.Path] != nil {
			continue
		}
		if g.add(h.Path, reasonStem, ctxd.RoleRelated, false) != nil {
			added++
		}
	}
}

// targets lists the candidates the user pointed at (open files, literal
// patterns, mentions, error locations), in the order they were found.
func (g *gathering) targets() []string {
	var cs []*candidate
	for _, c := range g.cands {
		if c.facts.Role == ctxd.RoleTarget || c.facts.Role == ctxd.RoleError {
			cs = append(cs, c)
		}
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i].order < cs[j].order })
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.rel
	}
	return out
}

// addTests adds a target's tests (or, for a test, the sources it tests),
// and notes Rust sources that hold their tests inline.
func (g *gathering) addTests(target string, n int) {
	if f := g.snap.ByRel[target]; f != nil && f.InlineTests {
		if c := g.cands[target]; c != nil && !slices.Contains(c.facts.Reasons, "has inline tests (#[cfg(test)])") {
			c.facts.Reasons = append(c.facts.Reasons, "has inline tests (#[cfg(test)])")
		}
	}
	isTest := lang.IsTest(target)
	pairs := lang.TestPairs(target, g.snap.ByBase)
	if isTest && len(pairs) == 0 && slices.Contains(g.named, target) {
		pairs = g.testedSources(target)
	}
	for i, p := range pairs {
		if i >= n {
			break
		}
		if isTest {
			g.add(p, "tested by "+target, ctxd.RoleTarget, false)
		} else {
			g.add(p, "test for "+target, ctxd.RoleTest, false)
		}
	}
}

// testedSources returns the source file a test file the user pointed at
// is named after when no source file has a matching name: Express's test/res.cookie.js tests
// res.cookie, which lib/response.js defines. The words of the test file's
// name (its source names' stem: test markers and extension dropped) are
// ranked over the code files that are not tests, and the best one that
// defines one of them is taken; none when no code file defines any.
func (g *gathering) testedSources(target string) []string {
	names := lang.SourceNames(path.Base(target))
	if len(names) == 0 || g.snap.Index == nil {
		return nil
	}
	stem := strings.TrimSuffix(names[0], path.Ext(names[0]))
	q := query.Parse(stem)
	if len(tree.TermsOf(q.Words)) == 0 {
		return nil
	}
	hits := g.snap.Index.RankBy(tree.NewRankQuery(q, false), 10, func(p string) bool { return !lang.IsTest(p) })
	for _, h := range hits {
		if h.Match.Role == lang.RoleCode.String() && h.Match.Definitions > 0 {
			return []string{h.Path}
		}
	}
	return nil
}

// addFixtures adds test data next to a target: files under testdata/,
// fixtures/ or __fixtures__/ in its directory that match the request's
// words (at least fixtureMinShare of the best file's score), best match
// first. The first files of testdata/ in path order came in whatever the
// request was about (a ClientIP test brought test.proto and hello.tmpl).
func (g *gathering) addFixtures(target string, scores func(rel string) float64, n int) {
	dir := path.Dir(target)
	if lang.IsTest(target) && !strings.HasSuffix(target, "_test.go") {
		return
	}
	top := 0.0
	if hits := g.lexical.Hits; len(hits) > 0 {
		top = hits[0].Score
	}
	var fs []scored
	for _, sub := range []string{"testdata", "fixtures", "__fixtures__"} {
		prefix := tree.RelSlash(dir, sub) + "/"
		for _, f := range g.snap.Files {
			if strings.HasPrefix(f.Rel, prefix) && f.HasTerms() {
				if s := scores(f.Rel); s > 0 && s >= fixtureMinShare*top {
					fs = append(fs, scored{f.Rel, s})
				}
			}
		}
	}
	g.addBest(fs, n, "fixture for "+target, ctxd.RoleTest)
}

// fixtureMinShare is the least share of the best lexical score a fixture
// needs to be gathered for a test task.
const fixtureMinShare = 0.15

// addSiblings adds files of the target's directory in the same language
// (not tests), best lexical match first.
func (g *gathering) addSiblings(target string, scores func(rel string) float64, n int) {
	dir := path.Dir(target)
	language := lang.Of(target)
	if language == "" {
		return
	}
	var sibs []string
	for _, p := range g.snap.ByDir(dir) {
		if p != target && lang.Of(p) == language && !lang.IsTest(p) {
			sibs = append(sibs, p)
		}
	}
	sort.SliceStable(sibs, func(i, j int) bool { return scores(sibs[i]) > scores(sibs[j]) })
	reason := "same directory as " + target
	if language == "go" {
		reason = "same package as " + target
	}
	for i, p := range sibs {
		if i >= n {
			break
		}
		g.add(p, reason, ctxd.RoleRelated, false)
	}
}

// addImported adds the workspace files a target imports (relative JS/TS
// and Python imports, and Go packages of the same module: their first
// file by lexical order is not useful, so Go is left to siblings and
// lexical matches), best lexical match first, then in path order. A
// Python package's __init__.py is left out when the target imports a
// module or subpackage right inside it too ("from django.db import
// models" is about models, not django/db/__init__.py).
func (g *gathering) addImported(target string, res lang.ImportResolver, scores func(rel string) float64, n int) {
	f := g.snap.ByRel[target]
	if f == nil || len(f.Imports) == 0 || f.Lang() == "go" {
		return
	}
	var imps []scored
	for _, other := range g.snap.Files {
		if other.Rel == target || other.Secret || !other.HasTerms() || !lang.SameFamily(f.Lang(), other.Lang()) {
			continue
		}
		if res.Imports(target, f.Lang(), f.Imports, other.Rel) {
			imps = append(imps, scored{rel: other.Rel, score: scores(other.Rel)})
		}
	}
	var inits []string // packages whose __init__.py to leave out
	for _, p := range imps {
		if path.Base(p.rel) != "__init__.py" {
			continue
		}
		pkg := path.Dir(p.rel)
		if slices.ContainsFunc(imps, func(q scored) bool {
			d := path.Dir(q.rel)
			if path.Base(q.rel) == "__init__.py" {
				d = path.Dir(d) // a subpackage
			}
			return q.rel != p.rel && d == pkg
		}) {
			inits = append(inits, p.rel)
		}
	}
	imps = slices.DeleteFunc(imps, func(p scored) bool { return slices.Contains(inits, p.rel) })
	g.addBest(imps, n, "imported by "+target, ctxd.RoleRelated)
}

// scored is a candidate file with its lexical score.
type scored struct {
	rel   string
	score float64
}

// addBest adds up to n of cands (those not added already do not count),
// best score first, then in their order.
func (g *gathering) addBest(cands []scored, n int, reason, role string) {
	slices.SortStableFunc(cands, func(a, b scored) int { return cmp.Compare(b.score, a.score) })
	added := 0
	for _, c := range cands {
		if added >= n {
			return
		}
		if g.add(c.rel, reason, role, false) != nil {
			added++
		}
	}
}

// addImporters adds the files that import the target (REFACTOR's
// dependents), best lexical match first.
func (g *gathering) addImporters(ctx context.Context, target string, res lang.ImportResolver, scores func(rel string) float64, n int) error {
	language := lang.Of(target)
	imports := res.ImportsOf(target)
	type dep struct {
		rel   string
		test  bool
		score float64
	}
	var deps []dep
	for i, f := range g.snap.Files {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if f.Rel == target || f.Secret || len(f.Imports) == 0 || !lang.SameFamily(language, f.Lang()) {
			continue
		}
		if imports.By(f.Rel, f.Lang(), f.Imports) {
			deps = append(deps, dep{rel: f.Rel, test: lang.IsTest(f.Rel), score: scores(f.Rel)})
		}
	}
	// Code before tests, then best lexical match; stable, so path order
	// within ties.
	slices.SortStableFunc(deps, func(a, b dep) int {
		if a.test != b.test {
			if !a.test {
				return -1
			}
			return 1
		}
		return cmp.Compare(b.score, a.score)
	})
	if len(deps) > n {
		g.warnings = append(g.warnings, fmt.Sprintf("%d files import %s; kept %d", len(deps), target, n))
		deps = deps[:n]
	}
	// Go imports packages, not files: "imports tree.go" read as if
	// gins.go named tree.go.
	reason := "imports " + target
	if language == "go" {
		reason = "imports the package of " + target
	}
	for _, d := range deps {
		g.add(d.rel, reason, ctxd.RoleDependent, false)
	}
	return nil
}

// addDirty adds code files with uncommitted changes (recent changes are
// where a bug most often comes from).
func (g *gathering) addDirty(n int) {
	if g.git == nil || g.git.Diff == nil {
		return
	}
	added := 0
	for _, c := range g.git.Diff.Changes {
		if added >= n {
			return
		}
		f := g.snap.ByRel[c.Path]
		if f == nil || !f.HasTerms() || lang.KindOf(c.Path) != lang.KindCode {
			continue
		}
		if g.add(c.Path, reasonDirty, ctxd.RoleRelated, false) != nil {
			added++
		}
	}
}
