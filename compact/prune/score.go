package prune

import "github.com/ctxd/ctxd/compact/request"

// Base scores of items (higher stays longer). Tool results are evidence
// and outrank assistant chatter; results of mutations outrank results of
// commands, which outrank reads; injected system notices are boosted.
// Recency adds up to recencyWeight for the newest item. A unit (a call
// and its results) scores as its best item.
const (
	scoreNotice         = 85
	scoreSummary        = 80
	scoreMutationResult = 65
	scoreCommandResult  = 60
	scoreReadResult     = 50
	scoreErrorBonus     = 15
	scoreMutationCall   = 55
	scoreCommandCall    = 45
	scoreReadCall       = 35
	scoreUser           = 50
	scoreOther          = 40
	scoreAssistant      = 30
	scoreReasoning      = 25
	recencyWeight       = 40
)

// score sets every item's score.
func (r *run) score() {
	items := r.req.Items
	callClass := map[string]toolClass{}
	for _, it := range items {
		for j := range it.Segments {
			s := &it.Segments[j]
			if s.Kind == request.SegToolCall && s.CallID() != "" {
				callClass[s.CallID()] = max(callClass[s.CallID()], classifyTool(s.Name()))
			}
		}
	}
	n := len(items)
	for i, it := range items {
		base := r.itemBase(it, callClass)
		rec := 0.0
		if n > 1 {
			rec = recencyWeight * float64(i) / float64(n-1)
		}
		r.st[i].score = float64(base) + rec
	}
}

func (r *run) itemBase(it *request.Item, callClass map[string]toolClass) int {
	if it.Notice {
		return scoreNotice
	}
	switch it.Kind {
	case request.KindSummary:
		return scoreSummary
	case request.KindReasoning:
		return scoreReasoning
	case request.KindOther:
		return scoreOther
	}
	base := 0
	for j := range it.Segments {
		s := &it.Segments[j]
		v := 0
		switch s.Kind {
		case request.SegToolResult:
			c, ok := callClass[s.CallID()]
			if !ok {
				c = classifyTool(s.Name())
			}
			v = []int{scoreReadResult, scoreCommandResult, scoreMutationResult}[c]
			if r.isError(s) {
				v += scoreErrorBonus
			}
		case request.SegToolCall:
			v = []int{scoreReadCall, scoreCommandCall, scoreMutationCall}[classifyTool(s.Name())]
		}
		base = max(base, v)
	}
	if base > 0 {
		return base
	}
	switch it.Role() {
	case "user":
		return scoreUser
	case "assistant":
		return scoreAssistant
	case "system", "developer":
		return scoreNotice
	}
	return scoreOther
}
