package smart

import (
	"bufio"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxd/ctxd/compact/prune"
	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/compact/signal"
	"github.com/ctxd/ctxd/internal/vsort"
)

// The ledger (docs/proxy.md, "Stepped eviction and the ledger"): when a
// masked request is still over the usable window, whole older rounds
// leave it in rare steps and one user message, the ledger, takes their
// place: what they asked, read, changed, ran and broke, within a bound
// (ledgerBound), with a reference to the whole span verbatim.
//
// Steps: the evictable items (neither protected nor exact, before the
// latest round) are cut at a grid of boundaries every evictStepPercent of
// the usable window of forwarded tokens, counted from the oldest; the cut
// is the first grid boundary after which the request fits. The grid
// depends only on the oldest items' forwarded sizes (settled once masked),
// so between steps the same items are evicted and the same ledger stands:
// the next turns only append. When the request crosses the window again,
// the cut moves one grid cell, which brings it down by about that cell.

// Bounds of the ledger and of the eviction steps.
const (
	// The ledger's token bound (ledgerBound) is room for what an agent
	// needs back of the evicted rounds: ledgerTokens, within
	// ledgerMaxPercent of the usable window, and never under
	// ledgerPercent of it (or minLedgerTokens). The whole bound is kept
	// free at a step. What the evicted rounds hold does not grow with
	// the window: on the turn-by-turn replay (BENCHMARKS.md, "h26vis2")
	// their open errors and the locations in files the agent used later
	// take about 1,000-2,000 tokens a session; 4% of a 16k window (480
	// tokens) showed 65% of those, 1,800 tokens 93%. ledgerMaxPercent
	// is 20 (was 15): an estimator that counts more tokens for the same
	// text (Anthropic's, 22% more on the replay) also has a calibration
	// margin that shrinks the usable window (about 8,600 of a 16k
	// window): 15% of it held 1,290 tokens, 40% less content than the
	// chat format's 1,800 at 16k, and showed 88.4% of the pertinent
	// signals; 20% (1,720) shows 90.1% (BENCHMARKS.md, "h26vis2 (10:55").
	// Windows whose usable tokens are 12,000 or more keep 1,800.
	ledgerPercent    = 4
	ledgerMaxPercent = 20
	ledgerTokens     = 1800
	minLedgerTokens  = 200
	// evictStepPercent of the usable window is the grid cell: a step
	// brings the request about that far under the window (55: with the
	// ledger's bound above, 50 billed 0.463 / 0.506 of pass-through at
	// 16k / 32k, 55 0.447 / 0.496, 60 0.429 / 0.505; BENCHMARKS.md,
	// "h26vis2").
	evictStepPercent = 55
	// ledgerUserChars cuts a long user message in the ledger (its whole
	// text is in the span's reference).
	ledgerUserChars = 600
	// The errors and failing tests take at most 1/ledgerErrorShare of
	// the ledger's room, the user's messages 1/ledgerUserShare, the
	// files read 1/ledgerReadShare; what a section leaves goes on.
	ledgerErrorShare = 3
	ledgerUserShare  = 4
	ledgerReadShare  = 8
	// ledgerUserRoom is what a user message's entry needs beside its
	// text: the section's title, the cut note and a count.
	ledgerUserRoom = 120
	// ledgerKeptNote introduces the error lines a cut user message keeps.
	ledgerKeptNote = " Its error lines:"
)

// ledgerBound is the ledger's token bound at a usable window of usable
// tokens (see ledgerTokens).
func ledgerBound(usable int) int {
	return max(minLedgerTokens, usable*ledgerPercent/100, min(ledgerTokens, usable*ledgerMaxPercent/100))
}

// eviction is a planned stepped eviction of the masked request.
type eviction struct {
	cut    int   // the items before it are evicted (but protected ones)
	drop   []int // items evicted, in order
	at     int   // the ledger goes before this original item
	budget int   // the ledger's token bound
}

// forwardedTokens is each item's tokens with the selected rewrites. The
// items' counts are r.est's, set when the run counted the request (a
// tiny item's count is not cached: counting 300,000 of them again was a
// fifth of the request's estimating).
func (r *run) forwardedTokens() []int {
	ft := make([]int, len(r.req.Items))
	for i, it := range r.req.Items {
		ft[i] = int(it.Tokens)
	}
	for _, c := range r.cands {
		if c.selected() {
			ft[c.ref.Item] += c.after - int(c.seg.Tokens)
		}
	}
	return ft
}

// planEviction plans the step that brings the masked request under the
// usable window, or nil when it fits or no step can make it fit. The
// session's previous cut (sess) is sticky: while the request fits with
// it, it stays; else the cut moves on along the grid from it, never back.
func (r *run) planEviction(sess sessionState) *eviction {
	high := r.b.usable
	total := r.estimateAfter()
	n := len(r.req.Items)
	if n < 3 || r.o.opts.Store == nil {
		return nil
	}
	pair := r.pairing()
	// A boundary E (evict what is before it) is valid when no unit has
	// items on both sides; the latest round's unit stays.
	crosses := make([]bool, n+1)
	for k := range pair.NumUnits() {
		u := pair.Unit(k)
		for e := u[0] + 1; e <= u[len(u)-1]; e++ {
			crosses[e] = true
		}
	}
	limit := int(pair.Unit(pair.UnitOf(n - 1))[0])
	from := 0
	if c := sess.cut; c > 0 && c <= limit && !crosses[c] && r.req.Items[c-1].Hash() == sess.cutHash {
		from = c
	}
	if from == 0 && total <= high {
		return nil
	}
	ft := r.forwardedTokens()
	budget := ledgerBound(high)
	cell := max(high*evictStepPercent/100, 1)
	evictable := func(i int) bool { return !r.protected[i] && !r.exact[i] }
	dropped := func(cut int) []int {
		drop := make([]int, 0, cut)
		for i := range cut {
			if evictable(i) {
				drop = append(drop, i)
			}
		}
		return drop
	}
	// The ledger's whole bound is kept free: a step leaves that much
	// more room, so the next one comes later (reserving only what the
	// ledger's content needs gave more, smaller steps: a higher bill).
	fits := func(cum int) bool { return total-cum+budget <= high }
	cum, k, cut := 0, 1, -1
	for e := 1; e <= limit; e++ {
		if evictable(e - 1) {
			cum += ft[e-1]
		}
		switch {
		case e < from:
			continue
		case e == from:
			if fits(cum) {
				cut = e
			} else {
				k = cum/cell + 1
				continue
			}
		case crosses[e] || (cum < k*cell && e < limit):
			continue
		case cum > 0 && fits(cum):
			cut = e
		default:
			k = cum/cell + 1
			continue
		}
		break
	}
	if cut < 0 {
		return nil
	}
	ev := &eviction{budget: budget, cut: cut, drop: dropped(cut)}
	if len(ev.drop) == 0 {
		return nil
	}
	ev.at = ev.drop[0]
	return ev
}

// applyEviction evicts ev's items from out (the rewritten request, nil
// for the original) and puts the ledger in their place; the span is
// stored verbatim first. It returns nil when it cannot (the caller falls
// back to the unstepped eviction).
func (r *run) applyEviction(out []byte, ev *eviction) ([]byte, int) {
	built, err := r.ledgerItem(ev)
	if err != nil {
		r.o.log.Warn("artifact store failed; no stepped eviction", "error", err)
		return nil, 0
	}
	raw := built.raw
	// out is the original request with the selected rewrites
	// (emitValidated): the same plan over the parsed original, less the
	// evicted items, writes the same bytes without parsing out again.
	plan := r.req.NewPlan()
	for _, i := range ev.drop {
		plan.DropItem(i)
	}
	if out != nil {
		for _, c := range r.cands {
			if c.selected() && !plan.Dropped(c.ref.Item) {
				plan.SetText(c.ref, c.text)
			}
		}
	}
	plan.Insert(ev.at, raw)
	evicted, err := plan.Emit()
	if err != nil {
		return nil, 0
	}
	// The output is proved against the plan (valid JSON of the format,
	// the kept items as they were, pairs intact) and counted without a
	// second model of the request beside the first: at 30,000 small
	// messages that model was the request's peak (issue 28).
	n, err := plan.Verify(evicted, r.est)
	if err != nil {
		return nil, 0
	}
	r.rep.PolicyReasons = append(r.rep.PolicyReasons, fmt.Sprintf("stepped_eviction_%d_messages", len(ev.drop)))
	return evicted, n
}

// ledgerKey keys a built ledger: the session, the evicted items' bytes,
// the bound and how references read back. A sticky cut evicts the same
// items turn after turn, so the span is rendered, hashed and stored once.
type ledgerKey struct {
	scope, items string
	budget       int
	format       request.Format
	rt           request.Retrieval
	encoding     string
}

// builtLedger is a ledger item, the hash of its stored span and the
// error storing it gave.
type builtLedger struct {
	raw  []byte
	span string
	err  error
}

// ledgerItem stores ev's span verbatim and renders the ledger item within
// its bound (memoized by ledgerKey; when the store failed or no longer
// holds the span, it builds again).
func (r *run) ledgerItem(ev *eviction) (builtLedger, error) {
	// The key hashes the evicted items' hashes (hex, as Item.Hash), not
	// cached on the items: thousands of small evicted messages would
	// each keep a hash no one reads again.
	h := sha256.New()
	var hx [2 * sha256.Size]byte
	for _, i := range ev.drop {
		sum := sha256.Sum256(r.req.Items[i].Raw())
		hex.Encode(hx[:], sum[:])
		h.Write(hx[:])
	}
	k := ledgerKey{scope: r.scope, items: hex.EncodeToString(h.Sum(nil)), budget: ev.budget, format: r.req.Format, rt: r.rt, encoding: r.b.counter.Encoding()}
	b := request.Memo(r.o.cache, k, func() builtLedger { return r.buildLedger(ev) })
	if b.err == nil {
		// The span may have left the store since (its size cap, a gc):
		// a stat after the first verification.
		_, b.err = r.o.opts.Store.Verify(r.ctx, r.scope, b.span)
	}
	if b.err != nil {
		// A failed store is remembered with its key: try again now.
		b = r.buildLedger(ev)
	}
	return b, b.err
}

func (r *run) buildLedger(ev *eviction) builtLedger {
	// The span is written piece by piece from the items, twice (hashed,
	// then into the store's pack), never whole: a request of many
	// messages held it beside its model at its peak (issue 28).
	ref, _, err := r.o.opts.Store.PutWith(r.ctx, r.scope, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 32<<10)
		for _, i := range ev.drop {
			prune.WriteEvictedPiece(bw, i, r.req.Items[i])
		}
		return bw.Flush()
	})
	if err == nil {
		err = r.o.opts.Store.Flush()
	}
	if err != nil {
		return builtLedger{err: err}
	}
	marker := r.rt.Marker(request.MarkerRef, ref.Hash, ref.Bytes, ref.Lines, "evicted messages "+indexList(ev.drop))
	l := r.ledger(ev, marker)
	// Rendered at about 4 bytes a token, then rescaled by the tokens it
	// took (lists of line numbers take more, prose in some encodings
	// less) until it is within its bound: a render that fills under
	// 90% of it while cutting entries is tried once more at the bytes
	// its bound holds, and kept if it fits (the open errors, whose
	// share of the room is fixed, took a third of 1,800 tokens' worth
	// of bytes in Anthropic's encoding, 1,257 tokens in all).
	var raw, fit []byte
	grown := false
	for chars, tries := ev.budget*4, 0; chars >= 200; tries++ {
		text, cut := l.render(chars)
		raw = prune.UserItem(r.req.Format, text)
		it, err := request.ParseItem(r.req.Format, raw)
		if err != nil {
			return builtLedger{err: err}
		}
		n := r.est.Item(it)
		if n <= ev.budget {
			fit = raw
			if grown || n >= ev.budget*9/10 || !cut {
				break
			}
			grown, chars = true, chars*ev.budget/max(n, 1)*97/100
			continue
		}
		if fit != nil {
			break // the larger render did not fit: the one that did stands
		}
		next := chars * ev.budget / n * 97 / 100
		if tries >= 3 {
			next = min(next, chars*3/4)
		}
		chars = min(next, chars-1)
	}
	if fit != nil {
		raw = fit
	}
	return builtLedger{raw: raw, span: ref.Hash}
}

// indexList names item indexes compactly: "3-7, 9".
func indexList(idx []int) string {
	var parts []string
	for i := 0; i < len(idx); i++ {
		j := i
		for j+1 < len(idx) && idx[j+1] == idx[j]+1 {
			j++
		}
		parts = append(parts, request.RangeText(idx[i], idx[j]))
		i = j
	}
	return strings.Join(parts, ", ")
}

// ledger is what evicted items did, in their order.
type ledger struct {
	head       string
	users      []string
	userCounts []int32 // firstCounts(users), made by the first render
	// userLines are the error lines of the user's messages that have
	// any (signal.Analyze), by text: a message cut keeps them.
	userLines map[string][]string
	problems  []*problem
	changed   fileList
	read      fileList
	locs      locationList
	commands  []string
	calls     []namedCall // the evicted calls' arguments, in order
}

// problem is an error line or a failing test seen in an evicted output
// of a command that ran something (not a file view or a search), with
// its latest status in the span: open while the latest run of the same
// command still reports it, fixed when it no longer does.
type problem struct {
	line  string
	cmd   string
	fixed bool
}

// fileList is files in first-seen order with the line ranges seen and
// the latest item that named each.
type fileList struct {
	order  []string
	ranges map[string][]string
	last   map[string]int
	at     int // the item being read
}

func (f *fileList) add(path, lines string) {
	if f.ranges == nil {
		f.ranges, f.last = map[string][]string{}, map[string]int{}
	}
	rs, ok := f.ranges[path]
	if !ok {
		f.order = append(f.order, path)
	}
	if lines != "" && !slices.Contains(rs, lines) {
		rs = append(rs, lines)
	}
	f.ranges[path] = rs
	f.last[path] = f.at
}

// entries is each file with its line ranges merged and sorted:
// "a.py: 12-40, 88, 120-133".
func (f *fileList) entries() []string {
	out := make([]string, 0, len(f.order))
	for _, p := range f.order {
		if rs := mergeRanges(f.ranges[p]); rs != "" {
			out = append(out, p+": "+rs)
		} else {
			out = append(out, p)
		}
	}
	return out
}

// mergeRanges merges line ranges into sorted, disjoint ones ("150-240",
// "88", "1-200" are "1-240"; "300", "12-40" are "12-40, 300"); a range
// it cannot read ("1--1") is kept as written, after the others.
func mergeRanges(rs []string) string {
	var iv [][2]int
	var odd []string
	for _, r := range rs {
		a, b, ok := strings.Cut(r, "-")
		x, e1 := strconv.Atoi(a)
		y, e2 := strconv.Atoi(b)
		switch {
		case !ok && e1 == nil:
			iv = append(iv, [2]int{x, x})
		case ok && e1 == nil && e2 == nil && x <= y:
			iv = append(iv, [2]int{x, y})
		default:
			odd = append(odd, r)
		}
	}
	vsort.Func(iv, func(p, q [2]int) int { return cmp.Or(p[0]-q[0], p[1]-q[1]) })
	var parts []string
	for k := 0; k < len(iv); {
		lo, hi := iv[k][0], iv[k][1]
		for k++; k < len(iv) && iv[k][0] <= hi+1; k++ {
			hi = max(hi, iv[k][1])
		}
		parts = append(parts, request.RangeText(lo, hi))
	}
	return strings.Join(append(parts, odd...), ", ")
}

// locationList is the file:line locations of the evicted items, by file,
// each location once, with the latest item each location and each
// file's locations were seen in and whether one was a hit of the span's
// latest search.
type locationList struct {
	order  []string
	lines  map[string][]string
	seen   map[string]int // each location's latest item
	last   map[string]int
	search map[string]bool
}

func (l *locationList) add(loc string, at int, search bool) {
	if l.seen == nil {
		l.lines, l.seen, l.last, l.search = map[string][]string{}, map[string]int{}, map[string]int{}, map[string]bool{}
	}
	c := strings.LastIndexByte(loc, ':')
	path, line := loc[:c], loc[c+1:]
	if _, ok := l.lines[path]; !ok {
		l.order = append(l.order, path)
	}
	if _, ok := l.seen[loc]; !ok {
		l.lines[path] = append(l.lines[path], line)
	}
	l.seen[loc] = at
	l.last[path] = at
	l.search[path] = l.search[path] || search
}

// namedCall is a tool call's arguments and its item.
type namedCall struct {
	at   int
	text string
}

// ranked lists the locations by file, "a.py:3,17,40", line numbers in
// order: first the locations a later call went on to use (a call after
// the location's latest sighting names its file: read, changed,
// searched, run; as read and changed files and calls record them),
// then the latest search's other hits, then the rest; in each group the
// files seen latest first (a file whose early locations were used and
// later ones not is listed in both groups). used is how many entries
// the first two groups hold.
func (l *locationList) ranked(read, changed *fileList, calls []namedCall) (out []string, used int) {
	// named is the latest item that names path after from, or -1.
	named := func(path string) int {
		bare := strings.TrimPrefix(path, "./")
		latest := -1
		for _, f := range []*fileList{changed, read} {
			for p, at := range f.last {
				if at > latest && (p == path || strings.HasSuffix(p, "/"+bare)) {
					latest = at
				}
			}
		}
		// A call that names the file otherwise (grep PATTERN FILE,
		// python -m pytest FILE::test, a script that opens it).
		for k := len(calls) - 1; k >= 0 && calls[k].at > latest; k-- {
			if strings.Contains(calls[k].text, bare) {
				latest = calls[k].at
			}
		}
		return latest
	}
	type entry struct {
		path  string
		lines []string
		rank  int
		last  int
	}
	var entries []entry
	for _, p := range l.order {
		upto := named(p)
		var usedLines, rest []string
		lastUsed := -1
		for _, n := range l.lines[p] {
			if at := l.seen[p+":"+n]; at < upto {
				usedLines = append(usedLines, n)
				lastUsed = max(lastUsed, at)
			} else {
				rest = append(rest, n)
			}
		}
		if len(usedLines) > 0 {
			entries = append(entries, entry{p, usedLines, 0, lastUsed})
		}
		if len(rest) > 0 {
			rank := 2
			if l.search[p] {
				rank = 1
			}
			entries = append(entries, entry{p, rest, rank, l.last[p]})
		}
	}
	vsort.StableFunc(entries, func(a, b entry) int {
		return cmp.Or(a.rank-b.rank, b.last-a.last)
	})
	out = make([]string, 0, len(entries))
	for _, e := range entries {
		if e.rank < 2 {
			used++
		}
		slices.SortStableFunc(e.lines, func(a, b string) int {
			x, _ := strconv.Atoi(a)
			y, _ := strconv.Atoi(b)
			return x - y
		})
		out = append(out, e.path+":"+strings.Join(e.lines, ","))
	}
	return out, used
}

// isLocation reports whether a critical signal is a file:line location
// alone (as grep and tracebacks print them), not an error line.
func isLocation(sig string) bool {
	locs := signal.Locations(sig, nil)
	return len(locs) == 1 && locs[0] == strings.TrimLeft(sig, "./") && strings.LastIndexByte(sig, ':') > 0
}

// ledger collects what ev's items did. It depends on those items alone.
func (r *run) ledger(ev *eviction, marker string) *ledger {
	l := &ledger{head: fmt.Sprintf("%s ledger of %d earlier messages removed to fit the context window; all of them verbatim: %s]", request.SummaryPrefix, len(ev.drop), marker)}
	open := ""                             // the file an editor command works on (SWE-agent's open)
	latest := map[string]map[string]bool{} // a command's latest run: the lines it reported
	// The span's latest search (signal.SearchCall, the replay's rule).
	search := -1
	for _, i := range ev.drop {
		for j := range r.req.Items[i].Segments {
			s := &r.req.Items[i].Segments[j]
			if ci, ok := r.calls[s.CallID()]; s.Kind == request.SegToolResult && ok && signal.SearchCall(ci.name, ci.args) {
				search = i
			}
		}
	}
	for _, i := range ev.drop {
		it := r.req.Items[i]
		l.read.at, l.changed.at = i, i
		for j := range it.Segments {
			s := &it.Segments[j]
			switch s.Kind {
			case request.SegText:
				user := it.Role() == "user" && !it.Notice && it.Kind != request.KindSummary
				text := strings.TrimSpace(s.Text)
				if user {
					l.users = append(l.users, text)
				}
				for _, sig := range r.o.cache.Signals(r.o.cache.Key(s.Text), s.Text) {
					switch {
					case isLocation(sig):
						l.locs.add(sig, i, false)
					case user && !slices.Contains(l.userLines[text], sig):
						if l.userLines == nil {
							l.userLines = map[string][]string{}
						}
						l.userLines[text] = append(l.userLines[text], sig)
					}
				}
			case request.SegOther:
				// A document the user attached is what they asked with,
				// as their text is: the ledger names it, and shows a
				// plain-text one's text.
				if d := documentLine(s.Text); d != "" && it.Role() == "user" && !it.Notice {
					l.users = append(l.users, d)
				}
			case request.SegToolCall:
				open = l.call(s, open)
				l.calls = append(l.calls, namedCall{at: i, text: s.Text})
			case request.SegToolResult:
				l.result(r, s, i, i == search, latest)
			}
		}
	}
	for _, p := range l.problems {
		p.fixed = !latest[p.cmd][p.line]
	}
	return l
}

// result notes what one evicted output says: its command and exit code,
// its locations, and (when its command ran something) its error lines
// and failing tests; latest keeps each command's latest run's lines.
func (l *ledger) result(r *run, s *request.Segment, at int, search bool, latest map[string]map[string]bool) {
	cmd := r.commandOf(s.CallID())
	code := exitCode(s)
	info := r.o.cache.Analysis(r.o.cache.Key(s.Text), s.Text)
	if cmd != "" {
		c := "`" + oneLineCut(cmd, 160) + "`"
		if code != "" {
			c += " -> " + code
		}
		l.commands = append(l.commands, c)
	}
	var lines []string
	for _, sig := range info.Signals {
		if isLocation(sig) {
			l.locs.add(sig, at, search)
		} else {
			lines = append(lines, sig)
		}
	}
	if ci, ok := r.calls[s.CallID()]; ok && signal.ViewOutput(ci.name, ci.args) {
		return
	}
	// The most telling error line first (a traceback's last line).
	if top := signal.ErrorLine(s.Text); top != "" {
		if k := slices.Index(lines, top); k > 0 {
			lines = slices.Insert(slices.Delete(lines, k, k+1), 0, top)
		}
	}
	for _, t := range info.Tests {
		// A failure line naming the test says it already ("FAILED
		// a.py::test_x - KeyError"): one entry, not two.
		if !slices.ContainsFunc(lines, func(line string) bool { return strings.Contains(line, t) }) {
			lines = append(lines, "failing test "+t)
		}
	}
	now := map[string]bool{}
	for _, line := range lines {
		now[line] = true
		l.problems = append(l.problems, &problem{line: line, cmd: cmd})
	}
	latest[cmd] = now
}

// commandOf is what a call ran: its command argument, else its name and
// arguments.
func (r *run) commandOf(id string) string {
	ci, ok := r.calls[id]
	if !ok {
		return ""
	}
	_, _, cmds := prune.CallNotes(request.NewSegment(request.SegToolCall, ci.name, "", ci.args))
	if len(cmds) > 0 {
		return cmds[0]
	}
	return strings.TrimSpace(ci.name + " " + ci.args)
}

var (
	returnCode = regexp.MustCompile(`<returncode>(-?\d+)</returncode>`)
	exitStatus = regexp.MustCompile(`(?i)\bexit (?:code|status)[:= ]+(-?\d+)`)
)

// exitCode is the exit code an output reports ("" when it names none).
func exitCode(s *request.Segment) string {
	head := s.Text[:min(len(s.Text), 200)]
	if m := returnCode.FindStringSubmatch(head); m != nil {
		return m[1]
	}
	tail := s.Text[max(0, len(s.Text)-300):]
	if m := exitStatus.FindStringSubmatch(tail); m != nil {
		return m[1]
	}
	if s.IsError {
		return "error"
	}
	return ""
}

var (
	pathToken = regexp.MustCompile(`^[\w./@+-]*[\w-]\.[A-Za-z][A-Za-z0-9]{0,7}$`)
	sedRange  = regexp.MustCompile(`^'?(\d+),(\d+)p'?$`)
	editRange = regexp.MustCompile(`^(\d+):(\d+)$`)
)

// call notes the files a tool call read or changed, with line ranges
// where the call names them: path arguments (view_range), and the shapes
// of shell commands agents use (sed -n 'a,bp' FILE, nl -ba FILE | sed -n
// 'a,bp', cat FILE, head -n N FILE, sed -i … FILE, cat > FILE, SWE-agent's
// open FILE [N], edit a:b and create FILE). open is the file an editor
// command works on, returned updated.
func (l *ledger) call(s *request.Segment, open string) string {
	read, modified, cmds := prune.CallNotes(s)
	var args map[string]any
	_ = json.Unmarshal([]byte(s.Text), &args)
	if c, _ := args["command"].(string); c != "" && (strings.Contains(s.Name(), "edit") || args["path"] != nil) {
		// str_replace_editor-like tools: the command says read or change.
		path, _ := args["path"].(string)
		switch c {
		case "view":
			rng := ""
			if vr, ok := args["view_range"].([]any); ok && len(vr) == 2 {
				rng = fmt.Sprintf("%v-%v", vr[0], vr[1])
			}
			l.read.add(path, rng)
			return path
		case "create", "str_replace", "insert", "undo_edit":
			l.changed.add(path, "")
			return path
		}
	}
	for _, p := range modified {
		l.changed.add(p, "")
	}
	for _, p := range read {
		if !strings.HasSuffix(p, "()") {
			l.read.add(p, "")
		}
	}
	for _, c := range cmds {
		open = l.shell(c, open)
	}
	return open
}

// shell notes what one shell command line read or changed.
func (l *ledger) shell(cmd, open string) string {
	for _, part := range strings.Split(cmd, "&&") {
		{
			pipe := strings.Split(part, "|")
			var file, rng string
			write := false
			for _, seg := range pipe {
				f := strings.Fields(strings.TrimSpace(seg))
				if len(f) == 0 {
					continue
				}
				switch f[0] {
				case "open", "create", "edit", "goto":
					// SWE-agent's editor commands.
					switch {
					case f[0] == "open" && len(f) > 1:
						open = strings.Trim(f[1], `"'`)
						l.read.add(open, "")
					case f[0] == "create" && len(f) > 1:
						open = strings.Trim(f[1], `"'`)
						l.changed.add(open, "")
					case f[0] == "edit" && len(f) > 1 && open != "":
						if m := editRange.FindStringSubmatch(f[1]); m != nil {
							l.changed.add(open, m[1]+"-"+m[2])
						}
					}
					continue
				}
				for k := 0; k < len(f); k++ {
					t := strings.Trim(f[k], `"'`)
					switch {
					case t == ">" || t == ">>":
						if k+1 < len(f) && pathToken.MatchString(strings.Trim(f[k+1], `"'`)) {
							l.changed.add(strings.Trim(f[k+1], `"'`), "")
						}
						k++
					case t == "-i" && f[0] == "sed":
						write = true
					case f[0] == "sed" && sedRange.MatchString(t):
						m := sedRange.FindStringSubmatch(t)
						rng = m[1] + "-" + m[2]
					case f[0] == "head" && t == "-n" && k+1 < len(f):
						rng = "1-" + f[k+1]
						k++
					case pathToken.MatchString(t) && !strings.HasPrefix(t, "-") && k > 0:
						switch f[0] {
						case "cat", "nl", "sed", "head", "tail", "less", "more":
							file = t
						}
					}
				}
			}
			switch {
			case file != "" && write:
				l.changed.add(file, "")
			case file != "":
				l.read.add(file, rng)
			}
		}
	}
	return open
}

// render writes the ledger within about chars bytes: the head with the
// reference, then the sections in the order of what an agent needs
// back first (BENCHMARKS.md, "h26vis2"): the errors and failing tests
// (open ones, then fixed ones) and the user's messages, each within a
// share of the bound; the files changed; the files read with their
// line ranges, within a share; the locations by file in files used
// later or found by the latest search; the other locations; the
// commands last. Each list is cut where its room ends with a count of
// what was left out (it is all in the span's reference); the room a
// section leaves goes to the next ones. cut reports a list cut so.
func (l *ledger) render(chars int) (text string, cut bool) {
	var sb strings.Builder
	sb.WriteString(l.head)
	left := chars - len(l.head)
	section := func(title, sep string, entries []string) {
		if len(entries) == 0 || left <= 0 {
			return
		}
		hdr := "\n" + title + ":"
		if left < len(hdr)+40 {
			return
		}
		sb.WriteString(hdr)
		left -= len(hdr)
		for k, e := range entries {
			if len(e)+len(sep) > left {
				if c := strings.LastIndexByte(e[:max(0, left-len(sep))], ','); c > 0 && sep == " " && strings.IndexByte(e, ':') < c {
					// A file's location list is cut at a line number.
					sb.WriteString(sep)
					sb.WriteString(e[:c])
					left -= len(sep) + c
				}
				fmt.Fprintf(&sb, "%s(%d more in the reference)", sep, len(entries)-k)
				left, cut = 0, true
				return
			}
			sb.WriteString(sep)
			sb.WriteString(e)
			left -= len(e) + len(sep)
		}
	}
	// within runs sections in at most share of the whole room; what
	// they leave goes on to the next sections.
	room := left
	within := func(share int, sections func()) {
		rest := max(0, left-room/share)
		left -= rest
		sections()
		left += rest
	}
	// Each line once, at its latest report, open ones first.
	var open, fixed []string
	seen := map[string]bool{}
	for k := len(l.problems) - 1; k >= 0; k-- {
		p := l.problems[k]
		if seen[p.line] {
			continue
		}
		seen[p.line] = true
		if p.fixed {
			fixed = append(fixed, p.line)
		} else {
			open = append(open, p.line)
		}
	}
	slices.Reverse(open)
	slices.Reverse(fixed)
	// What is still broken, then what the user asked, each within a
	// share (a message cut is whole in the reference).
	within(ledgerErrorShare, func() {
		section("Open errors and failing tests", "\n- ", open)
		section("Fixed since (a later run of their command no longer reports them)", "\n- ", fixed)
	})
	within(ledgerUserShare, func() {
		// Each message cut to the room there is (at most
		// ledgerUserChars), rather than left out.
		most := min(ledgerUserChars, left-ledgerUserRoom)
		if l.userCounts == nil {
			l.userCounts = firstCounts(l.users) // once for every try
		}
		section("User messages", "\n- ", countedBy(l.users, l.userCounts, func(text string) string { return cutKeeping(text, most, l.userLines[text]) }))
	})
	section("Files changed (lines)", "\n- ", l.changed.entries())
	// The locations are the bulk of the evicted rounds' signals: those
	// in files the agent went on to read or change, or found by its
	// latest search, first; the rest (most of them in files no later
	// call names) after them (BENCHMARKS.md, "h26vis2").
	within(ledgerReadShare, func() { section("Files read (lines)", "\n- ", l.read.entries()) })
	locs, used := l.locs.ranked(&l.read, &l.changed, l.calls)
	section("Locations in files used later or found by the latest search", " ", locs[:used])
	section("Other locations", " ", locs[used:])
	section("Commands (exit code)", "\n- ", dedupe(l.commands))
	return sb.String(), cut
}

// countedBy is s with each entry once, at its first place, cut (by cut),
// with the times it was repeated ("… (3 times)"), given s's counts
// (firstCounts(s)): an agent harness's repeated format reminder takes
// one line.
func countedBy(s []string, counts []int32, cut func(string) string) []string {
	var out []string
	for i, e := range s {
		if counts[i] == 0 {
			continue
		}
		c := cut(e)
		if counts[i] > 1 {
			c += " (" + strconv.Itoa(int(counts[i])) + " times)"
		}
		out = append(out, c)
	}
	return out
}

// firstCounts is, for each entry of s, the times it occurs in s at its
// first place and 0 at the others. Entries are grouped by sorting their
// indexes, not in a map: a request of many tiny messages has as many
// user messages, and a map of them was the largest thing its ledger
// held (issue 28).
func firstCounts(s []string) []int32 {
	idx := make([]int32, len(s))
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortStableFunc(idx, func(a, b int32) int { return strings.Compare(s[a], s[b]) })
	counts := make([]int32, len(s))
	for g := 0; g < len(idx); {
		h := g + 1
		for h < len(idx) && s[idx[h]] == s[idx[g]] {
			h++
		}
		counts[idx[g]] = int32(h - g) // the stable sort keeps the first place first
		g = h
	}
	return counts
}

// cutKeeping is cutText(s, most) that keeps lines (a message's error
// lines) the cut would hide, each on a line of its own after the note,
// within most bytes: a long task or a harness's reminder keeps its
// critical lines in view as a masked output does. When the lines leave
// less than ledgerUserRoom bytes of head, they are left to the
// reference.
func cutKeeping(s string, most int, lines []string) string {
	s = strings.TrimSpace(s)
	if len(s) <= most || len(lines) == 0 {
		return cutText(s, most)
	}
	var keep strings.Builder
	for _, line := range lines {
		if !strings.Contains(s[:most], line) {
			keep.WriteString("\n  ")
			keep.WriteString(line)
		}
	}
	if most-keep.Len() < ledgerUserRoom {
		return cutText(s, most)
	}
	return cutText(s, most-keep.Len()-len(ledgerKeptNote)) + ledgerKeptNote + keep.String()
}

func dedupe(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, e := range s {
		if !seen[e] {
			seen[e] = true
			out = append(out, e)
		}
	}
	return out
}

// cutText keeps a text whole up to most bytes, else its first most bytes
// (on a rune boundary) and a note.
func cutText(s string, most int) string {
	s = strings.TrimSpace(s)
	if len(s) <= most {
		return s
	}
	n := max(most, 0)
	for n > 0 && !isRuneStart(s[n]) {
		n--
	}
	return s[:n] + " […cut: " + strconv.Itoa(len(s)-n) + " more bytes, verbatim in the reference]"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// oneLineCut is the first line of s, at most max bytes.
func oneLineCut(s string, max int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	if len(s) > max {
		n := max
		for n > 0 && !isRuneStart(s[n]) {
			n--
		}
		s = s[:n] + "…"
	}
	return s
}

// documentLine is the ledger's line for a content block or part that
// is a document (an Anthropic document block, a Chat file part, a
// Responses input_file part): its title or file name, and the text of a
// plain-text source; "" for any other block.
func documentLine(raw string) string {
	if !strings.Contains(raw, `"document"`) && !strings.Contains(raw, `"file"`) && !strings.Contains(raw, `"input_file"`) {
		return ""
	}
	var d struct {
		Type   string `json:"type"`
		Title  string `json:"title"`
		Source struct {
			Type      string `json:"type"`
			MediaType string `json:"media_type"`
			Data      string `json:"data"`
		} `json:"source"`
		File struct {
			Filename string `json:"filename"`
		} `json:"file"`
		Filename string `json:"filename"`
	}
	if json.Unmarshal([]byte(raw), &d) != nil {
		return ""
	}
	words := []string{d.Type}
	if name := cmp.Or(d.Title, d.File.Filename, d.Filename); name != "" {
		words = append(words, name)
	}
	switch d.Type {
	case "document":
		if d.Source.Type == "text" && d.Source.Data != "" {
			return "(" + strings.Join(words, " ") + ") " + strings.TrimSpace(d.Source.Data)
		}
		if d.Source.MediaType != "" {
			words = append(words, d.Source.MediaType)
		}
	case "file", "input_file":
	default:
		return ""
	}
	return "(" + strings.Join(words, " ") + ", in the reference)"
}
