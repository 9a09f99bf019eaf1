package request

import "strings"

// classify marks notices and summaries and gives every segment its class.
func classify(r *Request) {
	firstSystem := true
	seen := make(map[string]bool) // tool result texts seen so far
	for _, it := range r.Items {
		switch it.Role() {
		case "system", "developer":
			if !firstSystem {
				it.Notice = true
			}
			firstSystem = false
		case "user":
			if t := firstText(it); strings.HasPrefix(strings.TrimSpace(t), "<system-reminder>") {
				it.Notice = true
			}
		}
		if strings.HasPrefix(firstText(it), SummaryPrefix) {
			it.Kind = KindSummary
		}
		for i := range it.Segments {
			s := &it.Segments[i]
			s.Class = segmentClass(it, s, seen)
		}
	}
	for i := range r.Fixed {
		if r.Fixed[i].Class == 0 {
			r.Fixed[i].Class = ClassProtocolExact
		}
	}
}

func firstText(it *Item) string {
	for i := range it.Segments {
		if it.Segments[i].Kind == SegText {
			return it.Segments[i].Text
		}
	}
	return ""
}

func segmentClass(it *Item, s *Segment, seen map[string]bool) Class {
	switch s.Kind {
	case SegToolCall:
		return ClassProtocolExact
	case SegThinking, SegRedactedThinking, SegReasoning:
		return ClassContinuationExact
	case SegImage:
		return ClassLosslessTransformable
	case SegToolResult:
		switch {
		case hasReference(s.Text):
			return ClassRehydratableExact
		case len(s.Text) > 0 && seen[s.Text]:
			return ClassDroppableDuplicate
		}
		if len(s.Text) > 0 {
			seen[s.Text] = true
		}
		return ClassCondensable
	case SegText:
		switch {
		case it.Kind == KindSummary:
			return ClassCondensable
		case it.Role() == "assistant":
			return ClassCondensable
		}
		return ClassCriticalExact
	}
	return ClassProtocolExact
}

// hasReference reports text that carries a ctxd reference marker.
func hasReference(text string) bool { return HasMarker(text) }
