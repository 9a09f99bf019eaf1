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
	re     *regexp.Regexp
}

func cues(task ctxd.TaskType, weight int, phrases ...string) []cue {
	out := make([]cue, len(phrases))
	for i, p := range phrases {
		out[i] = cue{task, weight, regexp.MustCompile(`\b` + p + `\b`)}
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

// detectTask infers the task type from a request. ok is false when no cue
// matched; the task is then implement, the design's default.
func detectTask(request string) (task ctxd.TaskType, ok bool) {
	text := strings.ToLower(request)
	score := map[ctxd.TaskType]int{}
	for _, c := range cueTable {
		if n := len(c.re.FindAllStringIndex(text, 3)); n > 0 {
			score[c.task] += c.weight * n
		}
	}
	if n := len(traceLine.FindAllStringIndex(request, 5)); n >= 2 {
		score[ctxd.TaskDebug] += 5
	}
	best, bestScore := ctxd.TaskImplement, 0
	// A fixed order keeps ties stable: the earlier type wins. Debug and test
	// come before implement because a request that both "adds" and "fixes"
	// is usually a fix; analyze comes before refactor and implement because
	// a request that asks to "explain" something is a question, whatever
	// else it mentions.
	for _, t := range []ctxd.TaskType{ctxd.TaskDebug, ctxd.TaskTest, ctxd.TaskAnalyze, ctxd.TaskRefactor, ctxd.TaskImplement} {
		if score[t] > bestScore {
			best, bestScore = t, score[t]
		}
	}
	return best, bestScore > 0
}
