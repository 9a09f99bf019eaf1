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
	re     wordRE
}

func cues(task ctxd.TaskType, weight int, phrases ...string) []cue {
	out := make([]cue, len(phrases))
	for i, p := range phrases {
		out[i] = cue{task, weight, newWordRE(`\b` + p + `\b`)}
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

// traceLines is len(traceLine.FindAllStringIndex(request, 2)), read from
// the line where a match may first start: every match holds a ':' before
// a digit or `File "`, and one that starts before the first of them is
// the third form's, on that line or after blank space before it.
func traceLines(request string) int {
	c := -1
	for i := strings.IndexByte(request, ':'); i >= 0; {
		if i+1 < len(request) && request[i+1] >= '0' && request[i+1] <= '9' {
			c = i
			break
		}
		k := strings.IndexByte(request[i+1:], ':')
		if k < 0 {
			break
		}
		i += 1 + k
	}
	if f := strings.Index(request, `File "`); f >= 0 && (c < 0 || f < c) {
		c = f
	}
	if c < 0 {
		return 0
	}
	w := strings.LastIndexByte(request[:c], '\n') + 1
	for w > 0 && isSpaceRE(request[w-1]) {
		w--
	}
	from := strings.LastIndexByte(request[:w], '\n') + 1
	return len(traceLine.FindAllStringIndex(request[from:], 2))
}

// isSpaceRE reports the bytes of \s in a regular expression.
func isSpaceRE(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// detectTask infers the task type from a request; lower is the request
// lower-cased and idx its first words ([indexWords]); change is whether
// it asks for a change ([asksChange]). ok is false when no cue matched; the
// task is then implement, the design's default. A request that asks for
// a change is not analyze, whatever questions it asks on the way ("why
// does this reject X? make it accept X"); one that does not, and says
// what happens against what should ("why does it return 404 instead of
// 405?"), reports a bug.
func detectTask(request, lower string, idx wordIndex, change bool) (task ctxd.TaskType, ok bool) {
	text := lower
	score := map[ctxd.TaskType]int{}
	for _, c := range cueTable {
		if n := c.re.count(text, idx, 3); n > 0 {
			score[c.task] += c.weight * n
		}
	}
	if traceLines(request) >= 2 {
		score[ctxd.TaskDebug] += 5
	}
	if change {
		delete(score, ctxd.TaskAnalyze)
	} else if mismatch(text, idx) {
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

// mismatch reports a request (lower-cased, idx its first words) that sets what happens against
// what was expected: a bug report, even in the question form. "instead
// of" counts in a question ("why does it return 404 instead of 405?") or
// after a verb of behaviour ("the router responds with 404 instead of
// 405"), not in a request for a change that names no behaviour ("Pass
// context to .forEach instead of closure", an express commit).
func mismatch(text string, idx wordIndex) bool {
	if expectedRE.matchString(text, idx) || behaviourInsteadRE.matchString(text, idx) {
		return true
	}
	question := strings.Contains(text, "?") || questionRE.MatchString(strings.TrimSpace(text))
	if question {
		return insteadRE.matchString(text, idx)
	}
	// A statement that says what the code fails to do ("path parameters
	// with dots are not matched", "retry does not respect Retry-After",
	// "ShouldBind ignores the tag") or that it answers with an HTTP error
	// status is a bug report; one that says what is missing ("YAML is not
	// supported") asks for a feature.
	if m, ok := broken(text); ok && !missingRE.MatchString(m) {
		return true
	}
	return statusRE.matchString(text, idx)
}

var (
	insteadRE          = newWordRE(`\b(instead of|rather than)\b`)
	expectedRE         = newWordRE(`\bexpected\b.{0,80}\b(got|but|returns?)\b`)
	brokenRE           = regexp.MustCompile(`\b((does|do|is|are|was|were|can|will)(\s+not|n'?t)|cannot|won'?t|never|ignores|ignored|loses|swallows|hangs)\b(\s+\w+)?`)
	missingRE          = regexp.MustCompile(`\b(supported|implemented|available|possible|exposed|configurable|documented)$`)
	statusRE           = newWordRE(`\b(returns?|returned|responds?|responded|gives?|gave|answers?|answered|sends?|sent|fails? with|failed with|throws?|raises?)\b[^.?!\n]{0,30}\b[45]\d\d\b`)
	behaviourInsteadRE = newWordRE(`\b(returns?|returned|returning|gives?|gets?|shows?|throws?|raises?|prints?|sends?|responds?|yields?|produces?)\b[^.?!\n]{0,60}\b(instead of|rather than)\b`)
)

// brokenNegated and brokenWords are brokenRE's words, in its order.
var (
	brokenNegated = []string{"does", "do", "is", "are", "was", "were", "can", "will"}
	brokenWords   = []string{"cannot", "won't", "wont", "never", "ignores", "ignored", "loses", "swallows", "hangs"}
)

// broken is brokenRE.FindString(text), read by hand in one pass: at each
// word's start the alternatives in the expression's order, then the
// optional next word (greedy, as the expression takes it).
func broken(text string) (string, bool) {
	wordEnd := func(i int) bool { return i >= len(text) || !isWordByte(text[i]) }
	at := func(i int) int { // the end of a match of the group at i, -1 none
		for _, v := range brokenNegated {
			if !strings.HasPrefix(text[i:], v) {
				continue
			}
			j := i + len(v)
			k := j
			for k < len(text) && isSpaceRE(text[k]) {
				k++
			}
			if k > j && strings.HasPrefix(text[k:], "not") && wordEnd(k+3) {
				return k + 3
			}
			if strings.HasPrefix(text[j:], "n't") && wordEnd(j+3) {
				return j + 3
			}
			if strings.HasPrefix(text[j:], "nt") && wordEnd(j+2) {
				return j + 2
			}
		}
		for _, v := range brokenWords {
			if strings.HasPrefix(text[i:], v) && wordEnd(i+len(v)) {
				return i + len(v)
			}
		}
		return -1
	}
	for i := 0; i < len(text); i++ {
		if strings.IndexByte("diawcnlsh", text[i]) < 0 || i > 0 && isWordByte(text[i-1]) {
			continue
		}
		end := at(i)
		if end < 0 {
			continue
		}
		k := end
		for k < len(text) && isSpaceRE(text[k]) {
			k++
		}
		if k > end && k < len(text) && isWordByte(text[k]) {
			for k < len(text) && isWordByte(text[k]) {
				k++
			}
			end = k
		}
		return text[i:end], true
	}
	return "", false
}

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
// lower is the request lower-cased.
func asksChange(lower string) bool {
	text := lower
	for len(text) > 0 {
		start, end := clauseEnd(text)
		clause, rest, question := text, "", false
		if start >= 0 {
			clause, rest = text[:start], text[end:]
			question = strings.Contains(text[start:end], "?")
		}
		clause = strings.TrimSpace(clause)
		clause = strings.TrimSpace(clause[politeEnd(clause):])
		first := leadingWord(clause)
		if imperativeVerbs[first] || !question && modal(clause) && !questionWords[first] {
			return true
		}
		text = rest
	}
	return false
}

// The words imperativeRE and questionRE start with: each matches a
// clause whose leading word is one of them.
var (
	imperativeVerbs = wordSet(imperativeRE)
	questionWords   = wordSet(questionRE)
)

// wordSet returns the words of an expression ^(a|b|c)\b, checked to be
// that form.
func wordSet(re *regexp.Regexp) map[string]bool {
	expr := re.String()
	inner, ok := strings.CutPrefix(expr, "^(")
	if inner, ok = strings.CutSuffix(inner, `)\b`); !ok {
		panic("query: not a word list: " + expr)
	}
	set := map[string]bool{}
	for _, w := range strings.Split(inner, "|") {
		if strings.Trim(w, "abcdefghijklmnopqrstuvwxyz") == "" {
			set[w] = true
			continue
		}
		// optimi[sz]e: one class of two letters.
		pre, rest, ok1 := strings.Cut(w, "[")
		class, post, ok2 := strings.Cut(rest, "]")
		if !ok1 || !ok2 || strings.Trim(pre+class+post, "abcdefghijklmnopqrstuvwxyz") != "" {
			panic("query: not a word list: " + expr)
		}
		for _, c := range class {
			set[pre+string(c)+post] = true
		}
	}
	return set
}

// leadingWord returns the run of word bytes (\b's) text starts with.
func leadingWord(text string) string {
	i := 0
	for i < len(text) && isWordByte(text[i]) {
		i++
	}
	return text[:i]
}

// politeWords are politeRE's phrases, in its order.
var politeWords = []string{"please", "pls", "now", "so", "then", "and", "also", "just", "but", "instead", "can you", "could you", "would you", "will you", "let's", "lets", "i want you to", "you should"}

// politeEnd is len(politeRE.FindString(clause)): the phrases, each with
// the white space after it, as many as follow one another.
func politeEnd(clause string) int {
	end := 0
	for {
		next := -1
		for _, p := range politeWords {
			if strings.HasPrefix(clause[end:], p) {
				k := end + len(p)
				for k < len(clause) && isSpaceRE(clause[k]) {
					k++
				}
				if k > end+len(p) {
					next = k
					break
				}
			}
		}
		if next < 0 {
			return end
		}
		end = next
	}
}

// modal is modalRE.MatchString(clause), the expression run only on a
// clause that holds one of its words.
func modal(clause string) bool {
	for _, w := range []string{"should", "must", "need", "has to", "ought to"} {
		if strings.Contains(clause, w) {
			return modalRE.MatchString(clause)
		}
	}
	return false
}

// clauseEnd is clauseRE.FindStringIndex(text) read by hand: the first
// place where one of its three forms matches, in their order, and its
// end; -1 when there is none.
func clauseEnd(text string) (start, end int) {
	stop := func(c byte) bool { return c == '?' || c == '!' || c == ';' || c == '\n' }
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case stop(c):
			j := i + 1
			for j < len(text) && stop(text[j]) {
				j++
			}
			return i, j
		case c == '.' || c == ':' || c == ',':
			j := i + 1
			for j < len(text) && (text[j] == '.' || text[j] == ':' || text[j] == ',') {
				j++
			}
			if j == len(text) {
				return i, j
			}
			if isSpaceRE(text[j]) {
				return i, j + 1
			}
			i = j // no form matches inside the run
		case isSpaceRE(c):
			j := i + 1
			for j < len(text) && isSpaceRE(text[j]) {
				j++
			}
			k := -1
			if strings.HasPrefix(text[j:], "and") {
				k = j + 3
			} else if strings.HasPrefix(text[j:], "then") {
				k = j + 4
			}
			if k >= 0 && k < len(text) && isSpaceRE(text[k]) {
				for k < len(text) && isSpaceRE(text[k]) {
					k++
				}
				return i, k
			}
			// The run's newline, if any, ends a clause (the first form).
			if n := strings.IndexByte(text[i:j], '\n'); n >= 0 {
				return clauseEnd2(text, i+n)
			}
			i = j
		default:
			i++
		}
	}
	return -1, -1
}

// clauseEnd2 is the first form's match at i, a newline.
func clauseEnd2(text string, i int) (start, end int) {
	j := i + 1
	for j < len(text) && (text[j] == '?' || text[j] == '!' || text[j] == ';' || text[j] == '\n') {
		j++
	}
	return i, j
}

// questionRE matches a clause in the question form.
var questionRE = regexp.MustCompile(`^(why|how|what|where|when|which|who|is|are|does|do|did|can|could|would|should|will)\b`)
