package query

import (
	"regexp"
	"strings"

	"github.com/ctxd/ctxd"
)

// cue is a phrase that hints at a task type, with a weight. Phrases are
// matched on word boundaries in the lower-cased request.
type cue struct {
	task   ctxd.TaskType
	weight int
	re     lineRE
}

func cues(task ctxd.TaskType, weight int, phrases ...string) []cue {
	out := make([]cue, len(phrases))
	for i, p := range phrases {
		out[i] = cue{task, weight, newLineRE(`\b` + p + `\b`)}
	}
	return out
}

// The cue table. Strong phrases (weight 3) decide ties that single words
// (weight 1) would get wrong: "fix the failing test" is debugging, "add
// tests for" is testing.
var cueTable = concat(
	cues(ctxd.TaskDebug, 3, `failing tests?`, `stack ?trace`, `traceback`, `panic(s|ked)?`, `segfault`, `nil pointer`, `null pointer`, `doesn'?t work`, `not working`, `throws?`, `crash(es|ed|ing)?`, `exception`, `regression`, `fails?`, `failed`, `broken`),
	cues(ctxd.TaskDebug, 2, `bug`, `error`, `errors`, `debug`, `fix`, `wrong`, `incorrect`, `unexpected`, `hangs?`, `leaks?`, `race`, `deadlock`),
	cues(ctxd.TaskTest, 3, `(write|add|create|generate|improve|more) (an? |some |the |new |missing )?(unit |integration |e2e |regression )?tests?`, `tests? for`, `test coverage`, `unit tests?`, `table[- ]driven`, `fuzz(ing)? tests?`),
	cues(ctxd.TaskTest, 1, `tests?`, `spec`, `coverage`, `fixtures?`, `mock`),
	cues(ctxd.TaskRefactor, 3, `refactor(ing)?`, `rename`, `extract`, `clean ?up`, `restructure`, `deduplicate`, `split up`, `split (the |this |that |it )?[\w.]+ into`, `move .+ (in)?to`, `simplify`, `reorganize`, `decouple`),
	cues(ctxd.TaskAnalyze, 3, `explain`, `how (does|do|is|are)`, `what (does|do|is|are)`, `why (does|do|is)`, `where (is|are|does)`, `analy[sz]e`, `overview`, `architecture`, `walk me through`, `summari[sz]e`, `review`, `understand`, `document`),
	cues(ctxd.TaskImplement, 2, `implement`, `add`, `create`, `build`, `support`, `introduce`, `write`, `new`, `make`, `allow`, `enable`),
)

func concat(lists ...[]cue) []cue {
	var out []cue
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// traceLine matches a stack-trace frame or compiler error location
// ("foo.go:12", "File \"x.py\", line 3", "at f (a.js:1:2)").
var traceLine = regexp.MustCompile(`(?m)(\w+\.\w+:\d+|File "[^"]+", line \d+|^\s+at .+\(.+:\d+(:\d+)?\))`)

// detectTask infers the task type from a request; change is whether it
// asks for a change ([asksChange]). ok is false when no cue matched; the
// task is then implement, the design's default. A request that asks for
// a change is not analyze, whatever questions it asks on the way ("why
// does this reject X? make it accept X"); one that does not, and says
// what happens against what should ("why does it return 404 instead of
// 405?"), reports a bug.
func detectTask(request string, change bool) (task ctxd.TaskType, ok bool) {
	text := strings.ToLower(request)
	score := map[ctxd.TaskType]int{}
	for _, c := range cueTable {
		if n := len(c.re.findAllIndex(text, 3)); n > 0 {
			score[c.task] += c.weight * n
		}
	}
	if n := len(traceLine.FindAllStringIndex(request, 5)); n >= 2 {
		score[ctxd.TaskDebug] += 5
	}
	if change {
		delete(score, ctxd.TaskAnalyze)
	} else if mismatch(text) {
		score[ctxd.TaskDebug] += 3
	}
	best, bestScore := ctxd.TaskImplement, 0
	// A fixed order keeps ties stable: the earlier type wins. Debug and test
	// come before implement because a request that both "adds" and "fixes"
	// is usually a fix; analyze comes before refactor and implement because
	// a request that asks to "explain" something (and for no change) is a
	// question, whatever else it mentions.
	for _, t := range []ctxd.TaskType{ctxd.TaskDebug, ctxd.TaskTest, ctxd.TaskAnalyze, ctxd.TaskRefactor, ctxd.TaskImplement} {
		if score[t] > bestScore {
			best, bestScore = t, score[t]
		}
	}
	return best, bestScore > 0
}

// mismatch reports a request (lower-cased) that sets what happens against
// what was expected: a bug report, even in the question form. "instead
// of" counts in a question ("why does it return 404 instead of 405?") or
// after a verb of behaviour ("the router responds with 404 instead of
// 405"), not in a request for a change that names no behaviour ("Pass
// context to .forEach instead of closure", an express commit).
func mismatch(text string) bool {
	if expectedRE.matchString(text) || behaviourInsteadRE.matchString(text) {
		return true
	}
	question := strings.Contains(text, "?") || questionRE.MatchString(strings.TrimSpace(text))
	if question {
		return insteadRE.matchString(text)
	}
	// A statement that says what the code fails to do ("path parameters
	// with dots are not matched", "retry does not respect Retry-After",
	// "ShouldBind ignores the tag") or that it answers with an HTTP error
	// status is a bug report; one that says what is missing ("YAML is not
	// supported") asks for a feature.
	if m := brokenRE.FindStringSubmatch(text); m != nil && !missingRE.MatchString(m[0]) {
		return true
	}
	return statusRE.matchString(text)
}

var (
	insteadRE          = newLineRE(`\b(instead of|rather than)\b`)
	expectedRE         = newLineRE(`\bexpected\b.{0,80}\b(got|but|returns?)\b`)
	brokenRE           = regexp.MustCompile(`\b((does|do|is|are|was|were|can|will)(\s+not|n'?t)|cannot|won'?t|never|ignores|ignored|loses|swallows|hangs)\b(\s+\w+)?`)
	missingRE          = regexp.MustCompile(`\b(supported|implemented|available|possible|exposed|configurable|documented)$`)
	statusRE           = newLineRE(`\b(returns?|returned|responds?|responded|gives?|gave|answers?|answered|sends?|sent|fails? with|failed with|throws?|raises?)\b[^.?!\n]{0,30}\b[45]\d\d\b`)
	behaviourInsteadRE = newLineRE(`\b(returns?|returned|returning|gives?|gets?|shows?|throws?|raises?|prints?|sends?|responds?|yields?|produces?)\b[^.?!\n]{0,60}\b(instead of|rather than)\b`)
)

// clauseRE splits a request into clauses: at sentence punctuation (a dot
// or colon only before a space: res.set and app.py:12 stay whole), commas,
// and "and" or "then" between clauses.
var clauseRE = regexp.MustCompile(`[?!;\n]+|[.:,]+(\s|$)|\s+(and|then)\s+`)

// politeRE is what may come before a clause's verb without making it a
// question or a statement: "please", "can you", "now", "also"...
var politeRE = regexp.MustCompile(`^((please|pls|now|so|then|and|also|just|but|instead|can you|could you|would you|will you|let'?s|lets|i want you to|you should)\s+)*`)

// imperativeRE matches a clause that starts with a verb asking for a
// change ("make it accept X", "fix the parser", "add a flag").
var imperativeRE = regexp.MustCompile(`^(make|fix|add|change|update|implement|create|remove|delete|rename|refactor|support|allow|handle|use|write|move|replace|ensure|extract|split|convert|migrate|return|accept|reject|drop|keep|set|stop|avoid|prevent|improve|optimi[sz]e|clean|simplify|introduce|enable|disable|bump|upgrade|raise|throw|validate|reuse|switch|wire|expose|rewrite|port)\b`)

// modalRE matches a statement of what the code should do ("it should
// accept X", "the parser must not panic").
var modalRE = regexp.MustCompile(`\b(should|must|needs? to|has to|ought to)\b`)

// asksChange reports a request that asks for a change: one of its
// clauses starts with an imperative verb (after "please", "can you" and
// the like), or one that is not a question says what the code should or
// must do.
func asksChange(request string) bool {
	text := strings.ToLower(request)
	for len(text) > 0 {
		loc := clauseRE.FindStringIndex(text)
		clause, rest, question := text, "", false
		if loc != nil {
			clause, rest = text[:loc[0]], text[loc[1]:]
			question = strings.Contains(text[loc[0]:loc[1]], "?")
		}
		clause = strings.TrimSpace(clause)
		clause = strings.TrimSpace(clause[len(politeRE.FindString(clause)):])
		if imperativeRE.MatchString(clause) || !question && modalRE.MatchString(clause) && !questionRE.MatchString(clause) {
			return true
		}
		text = rest
	}
	return false
}

// questionRE matches a clause in the question form.
var questionRE = regexp.MustCompile(`^(why|how|what|where|when|which|who|is|are|does|do|did|can|could|would|should|will)\b`)
