package prune

import (
	"encoding/json"
	"fmt"
	"github.com/ctxd/ctxd/compact/signal"
	"strings"
	"unicode/utf8"

	"github.com/ctxd/ctxd/compact/request"
)

// Caps on what a summary lists, so it stays compact whatever it replaces.
const (
	maxFiles     = 20
	maxCommands  = 10
	maxErrors    = 5
	maxDecisions = 5
	maxRequests  = 3
	maxLineRunes = 160
)

// digest collects what evicted items did, for the summary.
type digest struct {
	items     int
	read      list
	modified  list
	commands  list
	errors    list
	decisions list
	requests  list
}

// list is an ordered set with a cap; it counts what did not fit.
type list struct {
	max   int
	items []string
	seen  map[string]bool
	more  int
}

func (l *list) add(s string) {
	s = oneLine(s)
	if s == "" || l.seen[s] {
		return
	}
	if l.seen == nil {
		l.seen = map[string]bool{}
	}
	l.seen[s] = true
	if len(l.items) >= l.max {
		l.more++
		return
	}
	l.items = append(l.items, s)
}

// String joins the items with sep and notes how many did not fit.
func (l *list) String(sep string) string {
	s := strings.Join(l.items, sep)
	if l.more > 0 {
		s += fmt.Sprintf("%s(and %d more)", sep, l.more)
	}
	return s
}

// oneLine trims s to one line of at most maxLineRunes runes.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	if utf8.RuneCountInString(s) > maxLineRunes {
		s = s[:runeOffset(s, maxLineRunes-1)] + "…"
	}
	return s
}

func newDigest() *digest {
	return &digest{
		read: list{max: maxFiles}, modified: list{max: maxFiles}, commands: list{max: maxCommands},
		errors: list{max: maxErrors}, decisions: list{max: maxDecisions}, requests: list{max: maxRequests},
	}
}

// pathKeys are argument keys that name files.
var pathKeys = []string{"path", "file_path", "filepath", "filename", "file", "target_file", "notebook_path", "paths", "files"}

// decisionOpeners start a line of assistant prose that records a decision.
var decisionOpeners = []string{"i'll ", "i will ", "we'll ", "we will ", "decided", "decision", "plan:", "the fix is", "the issue is", "the problem is", "root cause", "i'm going to "}

// addNotes records what an item did: its notes (itemNotes, computed
// once per item content).
func (d *digest) addNotes(ns []note) {
	d.items++
	for _, n := range ns {
		d.list(n.list).add(n.s)
	}
}

// list is the digest's list of kind k.
func (d *digest) list(k noteList) *list {
	switch k {
	case noteRead:
		return &d.read
	case noteModified:
		return &d.modified
	case noteCommand:
		return &d.commands
	case noteError:
		return &d.errors
	case noteDecision:
		return &d.decisions
	}
	return &d.requests
}

// notes is what one item adds to a digest, list by list in the item's
// order. It depends only on the item, so it is computed once per item
// content ([request.Memo]): a summary is rebuilt as eviction grows, and
// an agent re-sends its history turn after turn (the digest of a long
// run's evicted items was a fifth of compress's time on the development
// corpus). A run keeps them flat ([note]): most items have one or none.
type notes struct {
	read, modified, commands, errors, decisions, requests []string
}

// noteList names a list of the digest.
type noteList uint8

const (
	noteRead noteList = iota
	noteModified
	noteCommand
	noteError
	noteDecision
	noteRequest
)

// note is one entry of an item's notes: the list it goes to and its text.
type note struct {
	list noteList
	s    string
}

// flat returns n's entries list by list (nil when it has none).
func (n *notes) flat() []note {
	k := len(n.read) + len(n.modified) + len(n.commands) + len(n.errors) + len(n.decisions) + len(n.requests)
	if k == 0 {
		return nil
	}
	out := make([]note, 0, k)
	for l, from := range [...][]string{noteRead: n.read, noteModified: n.modified, noteCommand: n.commands, noteError: n.errors, noteDecision: n.decisions, noteRequest: n.requests} {
		for _, s := range from {
			out = append(out, note{list: noteList(l), s: s})
		}
	}
	return out
}

// notesKey keys an item's notes: its bytes and what parsing saw of it.
type notesKey struct {
	format request.Format
	role   string
	kind   request.Kind
	notice bool
	raw    request.TextKey
}

// minMemoItem is the size of the smallest item whose notes are kept in
// the cache: a smaller one's are read again each time (its entry would
// outweigh it; a request of many tiny messages would fill the cache
// with them, as request.Cache.Info does not keep tiny texts).
const minMemoItem = 256

func itemNotes(c *Cache, format request.Format, it *request.Item) []note {
	if c == nil || len(it.Raw()) < minMemoItem {
		return noteItem(it)
	}
	k := notesKey{format: format, role: it.Role(), kind: it.Kind, notice: it.Notice, raw: c.KeyBytes(it.Raw())}
	return request.Memo(c, k, func() []note {
		ns := noteItem(it)
		for i := range ns {
			ns[i].s = strings.Clone(ns[i].s) // kept beyond the request (request.Memo)
		}
		return ns
	})
}

// noteItem collects what an item did: the files its calls read and
// modified, the commands they ran, the error line of each failing
// output, the decisions of its assistant prose and its user requests.
func noteItem(it *request.Item) []note {
	var n notes
	for i := range it.Segments {
		s := &it.Segments[i]
		switch s.Kind {
		case request.SegToolCall:
			n.addCall(s)
		case request.SegToolResult:
			if s.IsError || looksLikeError(s.Text) {
				n.errors = append(n.errors, errorLine(s.Text))
			}
		case request.SegText:
			switch it.Role() {
			case "assistant":
				for _, line := range strings.Split(s.Text, "\n") {
					l := strings.ToLower(strings.TrimLeft(line, " -*#>"))
					for _, o := range decisionOpeners {
						if strings.HasPrefix(l, o) {
							n.decisions = append(n.decisions, strings.TrimLeft(line, " -*#>"))
							break
						}
					}
				}
			case "user":
				if it.Kind != request.KindSummary && !it.Notice {
					n.requests = append(n.requests, s.Text)
				}
			}
		}
	}
	return n.flat()
}

// CallNotes is what a tool call did, read from its arguments: the files
// it read and modified (path arguments, by the tool's kind) and the
// commands it ran. The summary and Smart Context's ledger read calls
// with it.
func CallNotes(s *request.Segment) (read, modified, commands []string) {
	n := &notes{}
	n.addCall(s)
	return n.read, n.modified, n.commands
}

func (n *notes) addCall(s *request.Segment) {
	var args map[string]any
	if err := json.Unmarshal([]byte(s.Text), &args); err != nil {
		args = nil
	}
	class := classifyTool(s.Name())
	var files []string
	for _, k := range pathKeys {
		switch v := args[k].(type) {
		case string:
			files = append(files, v)
		case []any:
			for _, e := range v {
				if p, ok := e.(string); ok {
					files = append(files, p)
				}
			}
		}
	}
	for _, f := range files {
		if class == toolMutation {
			n.modified = append(n.modified, f)
		} else {
			n.read = append(n.read, f)
		}
	}
	if class == toolCommand || args["command"] != nil || args["cmd"] != nil {
		for _, k := range []string{"command", "cmd"} {
			switch v := args[k].(type) {
			case string:
				n.commands = append(n.commands, v)
			case []any:
				var parts []string
				for _, e := range v {
					if p, ok := e.(string); ok {
						parts = append(parts, p)
					}
				}
				n.commands = append(n.commands, strings.Join(parts, " "))
			}
		}
	}
	if len(files) == 0 && class != toolCommand && s.Name() != "" {
		n.read = append(n.read, s.Name()+"()")
	}
}

// errorLine picks the most telling error line of error output (see
// signal.ErrorLine), else its last non-empty line.
func errorLine(text string) string {
	if l := signal.ErrorLine(text); l != "" {
		return l
	}
	lines := strings.Split(text, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if t := strings.TrimSpace(lines[i]); t != "" {
			return t
		}
	}
	return ""
}

// head is the summary's first line alone (the short form).
func (d *digest) head() string {
	return fmt.Sprintf("%s %d earlier messages were removed to fit the context budget.]", request.SummaryPrefix, d.items)
}

// text renders the summary. It opens with [request.SummaryPrefix] so a
// later pass knows it.
func (d *digest) text() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s %d earlier messages were removed to fit the context budget. What they did:]", request.SummaryPrefix, d.items)
	line := func(label string, l *list, sep string) {
		if len(l.items) > 0 {
			fmt.Fprintf(&sb, "\n%s: %s", label, l.String(sep))
		}
	}
	line("Earlier user requests", &d.requests, " | ")
	line("Files read", &d.read, ", ")
	line("Files modified", &d.modified, ", ")
	line("Commands run", &d.commands, " | ")
	line("Errors seen", &d.errors, " | ")
	line("Decisions", &d.decisions, " | ")
	return sb.String()
}

// UserItem renders text as a user message in format f (the summary's
// and the ledger's item).
func UserItem(f request.Format, text string) []byte { return userItem(f, text) }

// userItem renders text as a user message in format f.
func userItem(f request.Format, text string) []byte {
	t := jsonString(text)
	if f == request.FormatResponses {
		return []byte(`{"type":"message","role":"user","content":[{"type":"input_text","text":` + string(t) + `}]}`)
	}
	return []byte(`{"role":"user","content":` + string(t) + `}`)
}

// jsonString encodes s as a JSON string without HTML escaping.
func jsonString(s string) string {
	var sb strings.Builder
	enc := json.NewEncoder(&sb)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(sb.String(), "\n")
}

// RetryPrefix opens the lesson-learned note of [Pruner.ForRetry].
const RetryPrefix = "[AUTO-FIX RECOVERY]"

// retryErrorTokens bounds the error text quoted in a retry note.
const retryErrorTokens = 200

// retryNote is the seed's lesson-learned note around the (already
// shortened) error text.
func retryNote(errText string) string {
	sep := " "
	if strings.Contains(errText, "\n") {
		sep = "\n"
	}
	return RetryPrefix + "\nPrevious attempt failed:" + sep + errText +
		"\nWe have rolled back to a previous checkpoint.\nPlease analyze the error and try a different approach.\nConsider what went wrong and how to avoid the same mistake."
}
