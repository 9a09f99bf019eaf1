package smart

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxd/ctxd/artifacts"
	"github.com/ctxd/ctxd/compact/prune"
	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/compact/signal"
)

// The ledger (docs/proxy.md, "Stepped eviction and the ledger"): when a
// masked request is still over the usable window, whole older rounds
// leave it in rare steps and one user message, the ledger, takes their
// place: what they asked, read, changed, ran and broke, bounded to a few
// percent of the window, with a reference to the whole span verbatim.
//
// Steps: the evictable items (neither protected nor exact, before the
// latest round) are cut at a grid of boundaries every evictStepShare of
// the usable window of forwarded tokens, counted from the oldest; the cut
// is the first grid boundary after which the request fits. The grid
// depends only on the oldest items' forwarded sizes (settled once masked),
// so between steps the same items are evicted and the same ledger stands:
// the next turns only append. When the request crosses the window again,
// the cut moves one grid cell, which brings it down by about that cell.

// Bounds of the ledger and of the eviction steps.
const (
	// ledgerPercent of the usable window bounds the ledger's tokens
	// (at least minLedgerTokens).
	ledgerPercent   = 4
	minLedgerTokens = 200
	// evictStepPercent of the usable window is the grid cell: a step
	// brings the request about that far under the window.
	evictStepPercent = 50
	// ledgerUserChars cuts a long user message in the ledger (its whole
	// text is in the span's reference).
	ledgerUserChars = 600
	// ledgerErrorLines more error lines of a failing output are listed
	// after its most telling one.
	ledgerErrorLines = 3
)

// eviction is a planned stepped eviction of the masked request.
type eviction struct {
	cut    int   // the items before it are evicted (but protected ones)
	drop   []int // items evicted, in order
	at     int   // the ledger goes before this original item
	budget int   // the ledger's token bound
}

// forwardedTokens is each item's tokens with the selected rewrites.
func (r *run) forwardedTokens() []int {
	ft := make([]int, len(r.req.Items))
	for i, it := range r.req.Items {
		ft[i] = r.est.Item(it)
	}
	for _, c := range r.cands {
		if c.selected() {
			ft[c.ref.Item] += c.after - c.seg.Tokens
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
	for _, u := range pair.Units {
		for e := u[0] + 1; e <= u[len(u)-1]; e++ {
			crosses[e] = true
		}
	}
	limit := pair.Units[pair.UnitOf[n-1]][0]
	from := 0
	if c := sess.cut; c > 0 && c <= limit && !crosses[c] && r.req.Items[c-1].Hash() == sess.cutHash {
		from = c
	}
	if from == 0 && total <= high {
		return nil
	}
	ft := r.forwardedTokens()
	budget := max(minLedgerTokens, high*ledgerPercent/100)
	cell := max(high*evictStepPercent/100, 1)
	evictable := func(i int) bool { return !r.protected[i] && !r.exact[i] }
	cum, k, cut := 0, 1, -1
	for e := 1; e <= limit; e++ {
		if evictable(e - 1) {
			cum += ft[e-1]
		}
		switch {
		case e < from:
			continue
		case e == from:
			if total-cum+budget <= high {
				cut = e
			} else {
				k = cum/cell + 1
				continue
			}
		case crosses[e] || (cum < k*cell && e < limit):
			continue
		case cum > 0 && total-cum+budget <= high:
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
	ev := &eviction{at: -1, budget: budget, cut: cut}
	for i := range cut {
		if evictable(i) {
			ev.drop = append(ev.drop, i)
			if ev.at < 0 {
				ev.at = i
			}
		}
	}
	if len(ev.drop) == 0 {
		return nil
	}
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
	got, err := request.Parse(evicted, r.req.Format)
	if err != nil || got.Check() != nil {
		return nil, 0
	}
	r.rep.PolicyReasons = append(r.rep.PolicyReasons, fmt.Sprintf("stepped_eviction_%d_messages", len(ev.drop)))
	return evicted, r.est.Request(got)
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
		sum := sha256.Sum256(r.req.Items[i].Raw)
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
	// The span is written once, into a buffer of its exact size, and
	// handed to the store as is: an evicted output is held once more
	// here, not once per builder and conversion.
	n := 0
	for _, i := range ev.drop {
		n += prune.EvictedPieceLen(i, r.req.Items[i])
	}
	var span bytes.Buffer
	span.Grow(n)
	for _, i := range ev.drop {
		prune.WriteEvictedPiece(&span, i, r.req.Items[i])
	}
	text := span.Bytes()
	ref, _, err := r.o.opts.Store.Put(r.ctx, r.scope, text)
	if err == nil {
		err = r.o.opts.Store.Flush()
	}
	if err != nil {
		return builtLedger{err: err}
	}
	marker := r.rt.Marker(request.MarkerRef, ref.Hash, len(text), artifacts.CountLines(text), "evicted messages "+indexList(ev.drop))
	l := r.ledger(ev, marker)
	var raw []byte
	for chars := ev.budget * 4; chars >= 200; chars = chars * 3 / 4 {
		raw = prune.UserItem(r.req.Format, l.render(chars))
		it, err := request.ParseItem(r.req.Format, raw)
		if err != nil {
			return builtLedger{err: err}
		}
		if r.est.Item(it) <= ev.budget {
			break
		}
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
	head     string
	users    []string
	problems []*problem
	changed  fileList
	read     fileList
	commands []string
}

// problem is an error or a failing test seen in an evicted output, with
// its latest status in the span: open, or fixed when a later run of the
// same command no longer reports it.
type problem struct {
	line  string
	cmd   string
	fixed bool
}

// fileList is files in first-seen order with the line ranges seen.
type fileList struct {
	order  []string
	ranges map[string][]string
}

func (f *fileList) add(path, lines string) {
	if f.ranges == nil {
		f.ranges = map[string][]string{}
	}
	rs, ok := f.ranges[path]
	if !ok {
		f.order = append(f.order, path)
	}
	if lines != "" && !slices.Contains(rs, lines) {
		rs = append(rs, lines)
	}
	f.ranges[path] = rs
}

func (f *fileList) entries() []string {
	out := make([]string, 0, len(f.order))
	for _, p := range f.order {
		if rs := f.ranges[p]; len(rs) > 0 {
			out = append(out, p+" (lines "+strings.Join(rs, ", ")+")")
		} else {
			out = append(out, p)
		}
	}
	return out
}

// ledger collects what ev's items did. It depends on those items alone.
func (r *run) ledger(ev *eviction, marker string) *ledger {
	l := &ledger{head: fmt.Sprintf("%s ledger of %d earlier messages removed to fit the context window; all of them verbatim: %s]", request.SummaryPrefix, len(ev.drop), marker)}
	open := "" // the file an editor command works on (SWE-agent's open)
	last := map[string][]*problem{}
	for _, i := range ev.drop {
		it := r.req.Items[i]
		for j := range it.Segments {
			s := &it.Segments[j]
			switch s.Kind {
			case request.SegText:
				if it.Role == "user" && !it.Notice && it.Kind != request.KindSummary {
					l.users = append(l.users, cutText(s.Text, ledgerUserChars))
				}
			case request.SegToolCall:
				open = l.call(s, open)
			case request.SegToolResult:
				cmd := r.commandOf(s.CallID)
				code := exitCode(s)
				info := r.o.cache.Info(r.o.cache.Key(s.Text), s.Text)
				if cmd != "" {
					c := "`" + oneLineCut(cmd, 160) + "`"
					if code != "" {
						c += " -> " + code
					}
					l.commands = append(l.commands, c)
				}
				failed := s.IsError || info.Failure || (info.IsError && code != "0") || (code != "" && code != "0")
				key := cmd
				if !failed {
					for _, p := range last[key] {
						p.fixed = true
					}
					delete(last, key)
					continue
				}
				var ps []*problem
				top := signal.ErrorLine(s.Text)
				if top != "" {
					ps = append(ps, &problem{line: top, cmd: cmd})
				}
				// The output's other error lines, the last few (a
				// traceback ends with what matters).
				var more []string
				for _, sig := range info.Signals {
					if sig != top && classifyLine(sig) == lineError {
						more = append(more, sig)
					}
				}
				for _, sig := range more[max(0, len(more)-ledgerErrorLines):] {
					ps = append(ps, &problem{line: sig, cmd: cmd})
				}
				for _, t := range info.Tests {
					ps = append(ps, &problem{line: "failing test " + t, cmd: cmd})
				}
				last[key] = ps
				l.problems = append(l.problems, ps...)
			}
		}
	}
	return l
}

// commandOf is what a call ran: its command argument, else its name and
// arguments.
func (r *run) commandOf(id string) string {
	ci, ok := r.calls[id]
	if !ok {
		return ""
	}
	_, _, cmds := prune.CallNotes(&request.Segment{Kind: request.SegToolCall, Name: ci.name, Text: ci.args})
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
	if c, _ := args["command"].(string); c != "" && (strings.Contains(s.Name, "edit") || args["path"] != nil) {
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
// reference, then user messages, open problems, files changed, files
// read, fixed problems and commands, each list cut where the bound is
// reached with a count of what was left out (it is all in the span's
// reference).
func (l *ledger) render(chars int) string {
	var sb strings.Builder
	sb.WriteString(l.head)
	left := chars - len(l.head)
	section := func(title, sep string, entries []string) {
		if len(entries) == 0 {
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
				fmt.Fprintf(&sb, "%s(%d more in the reference)", sep, len(entries)-k)
				left = 0
				return
			}
			sb.WriteString(sep)
			sb.WriteString(e)
			left -= len(e) + len(sep)
		}
	}
	var open, fixed []string
	seen := map[string]bool{}
	for k := len(l.problems) - 1; k >= 0; k-- {
		p := l.problems[k]
		if seen[p.line] {
			continue
		}
		seen[p.line] = true
		if p.fixed {
			fixed = append(fixed, "[fixed] "+p.line)
		} else {
			open = append(open, "[open] "+p.line)
		}
	}
	slices.Reverse(open)
	slices.Reverse(fixed)
	section("User messages", "\n- ", l.users)
	section("Errors and failing tests (latest status)", "\n- ", append(open, fixed...))
	section("Files changed", "\n- ", l.changed.entries())
	section("Files read", "\n- ", l.read.entries())
	section("Commands (exit code)", "\n- ", dedupe(l.commands))
	return sb.String()
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

// cutText keeps a text whole up to max bytes, else its first max bytes
// (on a rune boundary) and a note.
func cutText(s string, max int) string {
	s = strings.TrimSpace(s)
	if len(s) <= max {
		return s
	}
	n := max
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
