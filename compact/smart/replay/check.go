package replay

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/compact/signal"
)

// The checks here are the replay's own: they re-parse the optimizer's
// input and output and compare them without using its validator, so a
// bug there cannot hide here.

// controlPlaneIntact reports whether out keeps everything of in that is
// not a rewritten payload value byte for byte: the members around the
// items, the separators, each item's bytes outside the values whose text
// changed, and every segment whose text did not change. Only tool
// outputs and injected notices may change.
func controlPlaneIntact(in, out *request.Request) bool {
	if in.ItemsKey != out.ItemsKey || len(in.Items) != len(out.Items) || in.InputString != out.InputString {
		return false
	}
	n := len(in.Items)
	if n == 0 {
		return bytes.Equal(in.Body, out.Body)
	}
	ib, ob := in.Body, out.Body
	if !bytes.Equal(ib[:in.Items[0].Span().Start], ob[:out.Items[0].Span().Start]) || !bytes.Equal(ib[in.Items[n-1].Span().End:], ob[out.Items[n-1].Span().End:]) {
		return false
	}
	for i := 0; i+1 < n; i++ {
		if !bytes.Equal(ib[in.Items[i].Span().End:in.Items[i+1].Span().Start], ob[out.Items[i].Span().End:out.Items[i+1].Span().Start]) {
			return false
		}
	}
	for i := range n {
		a, b := in.Items[i], out.Items[i]
		if a.Role() != b.Role() || a.Type() != b.Type() || len(a.Segments) != len(b.Segments) {
			return false
		}
		pa, pb := a.Span().Start, b.Span().Start
		for j := range a.Segments {
			sa, sb := &a.Segments[j], &b.Segments[j]
			if sa.Kind != sb.Kind || sa.CallID() != sb.CallID() || sa.Name() != sb.Name() {
				return false
			}
			if sa.Text == sb.Text {
				continue
			}
			payload := sa.Kind == request.SegToolResult || sa.Kind == request.SegText && a.Notice
			if !payload || sa.Value().Len() == 0 || sa.Value().Start < pa || sb.Value().Start < pb {
				return false
			}
			if !bytes.Equal(ib[pa:sa.Value().Start], ob[pb:sb.Value().Start]) {
				return false
			}
			pa, pb = sa.Value().End, sb.Value().End
		}
		if !bytes.Equal(ib[pa:a.Span().End], ob[pb:b.Span().End]) {
			return false
		}
	}
	return true
}

// toolCallsIntact reports whether out issues and answers the same call
// ids, item by item and in order, and pairs as completely as in.
func toolCallsIntact(in, out *request.Request) bool {
	if len(in.Items) != len(out.Items) {
		return false
	}
	for i := range in.Items {
		if !slices.Equal(in.Items[i].Calls(), out.Items[i].Calls()) || !slices.Equal(in.Items[i].Results(), out.Items[i].Results()) {
			return false
		}
	}
	return (in.Check() == nil) == (out.Check() == nil)
}

// requestText joins every text of a request a model reads: fixed parts,
// texts, tool calls and results, reasoning.
func requestText(r *request.Request) string {
	var sb strings.Builder
	for _, f := range r.Fixed {
		sb.WriteString(f.Text)
		sb.WriteByte('\n')
	}
	for _, it := range r.Items {
		for j := range it.Segments {
			sb.WriteString(it.Segments[j].Text)
			sb.WriteByte('\n')
		}
	}
	return sb.String()
}

// Signals is what CheckSignals found: the critical signals (error
// lines, failing tests, paths) of a request's tool outputs and texts,
// those visible in the rewritten request and those recoverable from it
// (visible, or in the text a reference resolves to, references inside
// it followed too), and the references followed.
type Signals struct {
	Total, Visible, Recovered int
	Refs, RefsOK              int
	// Lost names each reference that did not resolve and each signal
	// lost, prefixed by at.
	Lost []string
	// Hidden names each signal that is recoverable but not visible:
	// the input item it came from and the signal.
	Hidden []string
	// Kinds splits Total and Visible by kind: "error" (error and
	// failure lines, failing tests), "location" (a file:line alone, as
	// grep and tracebacks print them) and "path" (a file a diff
	// touches).
	Kinds map[string]*KindCount
	// Distinct is the measure the bar is on (origin.go): each
	// signal once per distinct (kind, text), error lines and failing
	// tests only from outputs of commands that ran something. Total,
	// Visible and Recovered above count every occurrence of every
	// signal of every output (the measure before it), reported beside.
	Distinct Measure
}

// Measure is the distinct measure: signals, those visible and those
// recoverable, by kind too, and the hidden ones ("kind: text").
type Measure struct {
	Total, Visible, Recovered int
	Kinds                     map[string]*KindCount
	Hidden                    []string
	// Counted is every signal counted, "kind: text", in order.
	Counted []string
	// Where counts the hidden signals by "kind place status" (where.go:
	// where their latest occurrence went, whether it still mattered).
	Where map[string]int
	// Pertinent counts the signals still pertinent at the measured turn
	// ([Pertinent]: an error still open, a location or path whose file a
	// later call names, a hit of the latest search), PertinentVisible
	// those of them visible: the measure beside Visible/Total that does
	// not count stale hits of old searches.
	Pertinent, PertinentVisible int
	// HiddenPertinent is each pertinent signal not visible, "kind place
	// status item N: text" (N its latest occurrence's input item): what
	// a ledger or a masked view left out that still mattered.
	HiddenPertinent []string
}

// KindCount is the signals of one kind and those visible.
type KindCount struct{ Total, Visible int }

// signalKind is a signal's kind for [Signals.Kinds].
func signalKind(sig string, a *signal.Info) string {
	switch {
	case slices.Contains(a.Paths, sig):
		return "path"
	case slices.Contains(a.Tests, sig):
		return "error"
	}
	if locs := signal.Locations(sig, nil); len(locs) == 1 && locs[0] == strings.TrimLeft(sig, "./") {
		return "location"
	}
	return "error"
}

// CheckSignals checks in's critical signals against out, resolving
// references with get (an artifact store's Get for the run's session).
// The trajectory benchmark and the proxy's turn-by-turn replay share it.
func CheckSignals(in, out *request.Request, get func(hash string) ([]byte, error), at string) Signals {
	st := Signals{Kinds: map[string]*KindCount{}, Distinct: Measure{Kinds: map[string]*KindCount{}, Where: map[string]int{}}}
	calls := map[string]*request.Segment{}
	for _, it := range in.Items {
		for j := range it.Segments {
			if s := &it.Segments[j]; s.Kind == request.SegToolCall && s.CallID() != "" {
				calls[s.CallID()] = s
			}
		}
	}
	seen := map[[2]string]bool{}
	resolved := map[string][]byte{}
	var outText strings.Builder
	var queue []string
	for _, it := range out.Items {
		for _, s := range it.Segments {
			outText.WriteString(s.Text)
			outText.WriteByte('\n')
			queue = append(queue, s.Text)
		}
	}
	for len(queue) > 0 {
		txt := queue[0]
		queue = queue[1:]
		for _, m := range request.ParseMarkers(txt) {
			if _, ok := resolved[m.Hash]; ok {
				continue
			}
			st.Refs++
			b, err := get(m.Hash)
			if err != nil {
				st.Lost = append(st.Lost, fmt.Sprintf("%s: reference %s does not resolve: %v", at, m.Hash, err))
				resolved[m.Hash] = nil
				continue
			}
			st.RefsOK++
			resolved[m.Hash] = b
			queue = append(queue, string(b))
		}
	}
	text := signal.Normalized(outText.String() + listedLocations(outText.String()))
	segs := textSegments(in, calls)
	latest := latestOccurrences(segs)
	search := latestSearch(in, calls)
	outResults, outRaw := map[string]string{}, map[string]bool{}
	for _, it := range out.Items {
		outRaw[string(it.Raw())] = true
		for _, s := range it.Segments {
			if s.Kind == request.SegToolResult {
				outResults[s.CallID()] = s.Text
			}
		}
	}
	for _, ts := range segs {
		i, it, a, view := ts.item, in.Items[ts.item], ts.a, ts.view
		for _, sig := range slices.Concat(a.Signals, a.Tests, a.Paths) {
			st.Total++
			kind := signalKind(sig, a)
			if key := [2]string{kind, sig}; !seen[key] && (kind != "error" || !view) {
				seen[key] = true
				occ := latest[key]
				status := statusOf(kind, sig, occ, in, calls, search)
				visible, hidden := st.Distinct.add(kind, sig, text, resolved)
				if hidden {
					w := kind + " " + placeOf(in.Items[occ.item], occ.seg, outResults, outRaw) + " " + status
					st.Distinct.Where[w]++
				}
				if Pertinent(status) {
					st.Distinct.Pertinent++
					if visible {
						st.Distinct.PertinentVisible++
					} else {
						st.Distinct.HiddenPertinent = append(st.Distinct.HiddenPertinent, fmt.Sprintf("%s %s %s item %d%s: %.160q", kind, placeOf(in.Items[occ.item], occ.seg, outResults, outRaw), status, occ.item, touchedAt(kind, sig, occ, in), sig))
					}
				}
			}
			kc := st.Kinds[kind]
			if kc == nil {
				kc = &KindCount{}
				st.Kinds[kind] = kc
			}
			kc.Total++
			ok := strings.Contains(text, sig)
			if ok {
				st.Visible++
				kc.Visible++
			}
			for _, b := range resolved {
				ok = ok || bytes.Contains(b, []byte(sig)) || strings.Contains(signal.Normalized(string(b)), sig)
			}
			if ok {
				st.Recovered++
				if !strings.Contains(text, sig) {
					st.Hidden = append(st.Hidden, fmt.Sprintf("item %d %s/%s failure=%v: %.100q", i, it.Role(), it.Kind, a.Failure, sig))
				}
			} else {
				st.Lost = append(st.Lost, fmt.Sprintf("%s: signal lost: %.80q", at, sig))
			}
		}
	}
	return st
}

// locationList is a file's locations listed compactly, as masked views
// list them: "a.py:3,17,40".
var locationList = regexp.MustCompile(`([A-Za-z0-9_./\\@+-]+):([0-9]+(?:,[0-9]+)+)`)

// listedLocations spells out, one a line, the locations a text lists
// compactly after the first of each list ("a.py:3,17,40" lists a.py:17
// and a.py:40 too): the model reads them, so they are visible.
func listedLocations(text string) string {
	var sb strings.Builder
	for _, m := range locationList.FindAllStringSubmatch(text, -1) {
		for _, n := range strings.Split(m[2], ",")[1:] {
			sb.WriteString("\n" + m[1] + ":" + n)
		}
	}
	return sb.String()
}

// textSegment is an input text or tool output, its signals and whether
// it is the output of a file view or a search (origin.go).
type textSegment struct {
	item int
	seg  *request.Segment
	a    *signal.Info
	view bool
}

// textSegments analyzes in's texts and tool outputs once, in order.
func textSegments(in *request.Request, calls map[string]*request.Segment) []textSegment {
	var segs []textSegment
	for i, it := range in.Items {
		for j := range it.Segments {
			s := &it.Segments[j]
			if s.Kind != request.SegToolResult && s.Kind != request.SegText {
				continue
			}
			ts := textSegment{item: i, seg: s, a: signal.Analyze(s.Text)}
			if c := calls[s.CallID()]; s.Kind == request.SegToolResult && c != nil {
				ts.view = signal.ViewOutput(c.Name(), c.Text)
			}
			segs = append(segs, ts)
		}
	}
	return segs
}

// latestOccurrences is each distinct signal's latest counted occurrence.
func latestOccurrences(segs []textSegment) map[[2]string]occurrence {
	latest := map[[2]string]occurrence{}
	for _, ts := range segs {
		for _, sig := range slices.Concat(ts.a.Signals, ts.a.Tests, ts.a.Paths) {
			if kind := signalKind(sig, ts.a); kind != "error" || !ts.view {
				latest[[2]string{kind, sig}] = occurrence{item: ts.item, seg: ts.seg}
			}
		}
	}
	return latest
}

// add counts one distinct signal against the rewritten request's text
// and the texts its references resolve to; it reports whether the
// signal is visible, and whether it is hidden (recoverable, not
// visible).
func (m *Measure) add(kind, sig, text string, resolved map[string][]byte) (visible, hidden bool) {
	kc := m.Kinds[kind]
	if kc == nil {
		kc = &KindCount{}
		m.Kinds[kind] = kc
	}
	m.Total++
	kc.Total++
	m.Counted = append(m.Counted, kind+": "+sig)
	if strings.Contains(text, sig) {
		m.Visible++
		kc.Visible++
		m.Recovered++
		return true, false
	}
	for _, b := range resolved {
		if bytes.Contains(b, []byte(sig)) || strings.Contains(signal.Normalized(string(b)), sig) {
			m.Recovered++
			m.Hidden = append(m.Hidden, fmt.Sprintf("%s: %.100q", kind, sig))
			return false, true
		}
	}
	return false, false
}
