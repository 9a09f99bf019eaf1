package replay

import (
	"fmt"
	"strings"

	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/compact/signal"
)

// Where the hidden signals of the distinct measure were, and whether
// they still mattered at the measured turn: a study aid beside the
// measure (it changes none of its counts). A hidden signal's place is
// that of its latest occurrence in the input:
//
//   - "evicted": its item is no longer in the forwarded request (a
//     ledger or a summary stands for it);
//   - "masked": its tool output is forwarded as a masked view;
//   - "condensed": its tool output is forwarded rewritten otherwise;
//   - "changed": a message forwarded with other text.
//
// Its status at the measured (last) turn:
//
//   - an error line or failing test is "open" unless a later run of
//     the same command (same call arguments) no longer reports it
//     ("fixed");
//   - a location is "touched" when a later tool call names its file,
//     "search" when it is a hit of the latest search output, else
//     "stale";
//   - a path is "touched" when a later tool call names it, else
//     "stale".
//
// A signal is pertinent when it is "open", "touched" or "search"
// ([Pertinent]): the measure's pertinent column counts those.

// placeOf is where the forwarded request out holds segment s of the
// input's item it.
func placeOf(it *request.Item, s *request.Segment, outResults map[string]string, outRaw map[string]bool) string {
	if s.Kind == request.SegToolResult && s.CallID() != "" {
		t, ok := outResults[s.CallID()]
		switch {
		case !ok:
			return "evicted"
		case t == s.Text:
			return "whole"
		case strings.Contains(t, "(masked"):
			return "masked"
		}
		return "condensed"
	}
	if outRaw[string(it.Raw())] {
		return "whole"
	}
	return "evicted"
}

// occurrence is the latest counted occurrence of a distinct signal.
type occurrence struct {
	item int
	seg  *request.Segment
}

// Pertinent reports whether a signal of status (statusOf) still
// matters at the measured turn.
func Pertinent(status string) bool {
	return status == "open" || status == "touched" || status == "search"
}

// latestSearch is the item of the input's latest search output
// (signal.SearchCall), or -1.
func latestSearch(in *request.Request, calls map[string]*request.Segment) int {
	for i := len(in.Items) - 1; i >= 0; i-- {
		for j := range in.Items[i].Segments {
			s := &in.Items[i].Segments[j]
			if c := calls[s.CallID()]; s.Kind == request.SegToolResult && c != nil && signal.SearchCall(c.Name(), c.Text) {
				return i
			}
		}
	}
	return -1
}

// statusOf is a signal's status at the last turn (see above); lastSearch
// is latestSearch's item.
func statusOf(kind, sig string, at occurrence, in *request.Request, calls map[string]*request.Segment, lastSearch int) string {
	switch kind {
	case "path", "location":
		if namedAfter(kind, sig, at, in) >= 0 {
			return "touched"
		}
		if kind == "location" && lastSearch == at.item {
			return "search"
		}
		return "stale"
	}
	c := calls[at.seg.CallID()]
	if c == nil {
		return "open"
	}
	for i := len(in.Items) - 1; i > at.item; i-- {
		for j := range in.Items[i].Segments {
			s := &in.Items[i].Segments[j]
			if d := calls[s.CallID()]; s.Kind == request.SegToolResult && d != nil && d.Text == c.Text {
				if strings.Contains(s.Text, sig) {
					return "open"
				}
				return "fixed"
			}
		}
	}
	return "open"
}

// namedAfter is the first item after a path's or location's occurrence
// whose tool call names its file, or -1.
func namedAfter(kind, sig string, at occurrence, in *request.Request) int {
	if kind != "path" && kind != "location" {
		return -1
	}
	file := sig
	if kind == "location" {
		file = sig[:strings.LastIndexByte(sig, ':')]
	}
	for i := at.item + 1; i < len(in.Items); i++ {
		for _, s := range in.Items[i].Segments {
			if s.Kind == request.SegToolCall && strings.Contains(s.Text, file) {
				return i
			}
		}
	}
	return -1
}

// touchedAt names the first later item whose tool call names a path's
// or location's file (" touched at item N of M"), or "".
func touchedAt(kind, sig string, at occurrence, in *request.Request) string {
	if i := namedAfter(kind, sig, at, in); i >= 0 {
		return fmt.Sprintf(" touched at item %d of %d", i, len(in.Items))
	}
	return ""
}
