package replay

import (
	"bytes"
	"fmt"
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
	if !bytes.Equal(ib[:in.Items[0].Span.Start], ob[:out.Items[0].Span.Start]) || !bytes.Equal(ib[in.Items[n-1].Span.End:], ob[out.Items[n-1].Span.End:]) {
		return false
	}
	for i := 0; i+1 < n; i++ {
		if !bytes.Equal(ib[in.Items[i].Span.End:in.Items[i+1].Span.Start], ob[out.Items[i].Span.End:out.Items[i+1].Span.Start]) {
			return false
		}
	}
	for i := range n {
		a, b := in.Items[i], out.Items[i]
		if a.Role != b.Role || a.Type != b.Type || len(a.Segments) != len(b.Segments) {
			return false
		}
		pa, pb := a.Span.Start, b.Span.Start
		for j := range a.Segments {
			sa, sb := &a.Segments[j], &b.Segments[j]
			if sa.Kind != sb.Kind || sa.CallID != sb.CallID || sa.Name != sb.Name {
				return false
			}
			if sa.Text == sb.Text {
				continue
			}
			payload := sa.Kind == request.SegToolResult || sa.Kind == request.SegText && a.Notice
			if !payload || sa.Value.Len() == 0 || sa.Value.Start < pa || sb.Value.Start < pb {
				return false
			}
			if !bytes.Equal(ib[pa:sa.Value.Start], ob[pb:sb.Value.Start]) {
				return false
			}
			pa, pb = sa.Value.End, sb.Value.End
		}
		if !bytes.Equal(ib[pa:a.Span.End], ob[pb:b.Span.End]) {
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
		if !slices.Equal(in.Items[i].Calls, out.Items[i].Calls) || !slices.Equal(in.Items[i].Results, out.Items[i].Results) {
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
	st := Signals{Kinds: map[string]*KindCount{}}
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
	text := signal.Normalized(outText.String())
	for i, it := range in.Items {
		for _, s := range it.Segments {
			if s.Kind != request.SegToolResult && s.Kind != request.SegText {
				continue
			}
			a := signal.Analyze(s.Text)
			for _, sig := range slices.Concat(a.Signals, a.Tests, a.Paths) {
				st.Total++
				kind := signalKind(sig, a)
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
						st.Hidden = append(st.Hidden, fmt.Sprintf("item %d %s/%s failure=%v: %.100q", i, it.Role, it.Kind, a.Failure, sig))
					}
				} else {
					st.Lost = append(st.Lost, fmt.Sprintf("%s: signal lost: %.80q", at, sig))
				}
			}
		}
	}
	return st
}
