package request

import (
	"encoding/json"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/ctxd/ctxd/compact/signal"
)

// Call is a tool call as the superseded-read rule sees it: its id, tool
// name and arguments (the raw JSON text).
type Call struct {
	ID, Name, Args string
}

// Calls returns the tool calls of a request in order, and the item each
// one is in (by call id): the input of [Superseded].
func Calls(req *Request) ([]Call, map[string]int) {
	var calls []Call
	at := map[string]int{}
	for i, it := range req.Items {
		for _, seg := range it.Segments {
			if seg.Kind == SegToolCall && seg.CallID() != "" {
				calls = append(calls, Call{ID: seg.CallID(), Name: seg.Name(), Args: seg.Text})
				at[seg.CallID()] = i
			}
		}
	}
	return calls, at
}

// Supersession says that the output of a file read is superseded: a
// later call reads the same file again (FileRead.Covers: the same lines,
// a range holding them, or all of it) or edits it. It is the one rule of
// when a read's text is out of date; both compactors and both strengths
// of it come from here:
//
//   - superseded (By): the read's text is stored behind a reference below
//     pressure (a lossless rewrite: ctxd rehydrate brings it back);
//   - stale (Reread): a later read shows the agent the file again (its
//     lines, or any of it after an edit), so the read's text is not needed
//     in view; a read that only an edit follows is not stale (the agent
//     needs its text to know what it edited).
type Supersession struct {
	// By is the id of the first later call that reads its lines again or
	// edits the file.
	By string
	// Path is the file.
	Path string
	// Edit is true when the call By edits the file.
	Edit bool
	// Reread is the id of the first later read that makes it stale ("":
	// none): a read that covers it, or any read of the file after the
	// file was edited.
	Reread string
}

// Superseded returns, for the calls of a conversation in order, the reads
// whose output a later call supersedes (see [Supersession]), by the
// read's id. Each call's parse is kept in the cache: an agent loop sends
// the same calls turn after turn.
func (c *Cache) Superseded(calls []Call) map[string]Supersession {
	return superseded(calls, parseAll(calls, c.parsed))
}

// CallRead is what a call reads ([ReadOf] of its name and arguments).
type CallRead struct {
	Read   FileRead
	IsRead bool
}

// ReadsOf returns [ReadOf] of each of calls (in their order) and
// [Cache.Superseded] of them, each call's arguments hashed and parsed once
// for both and the parse kept in the cache.
func (c *Cache) ReadsOf(calls []Call) ([]CallRead, map[string]Supersession) {
	pcs := parseAll(calls, c.parsed)
	reads := make([]CallRead, len(pcs))
	for i, pc := range pcs {
		reads[i] = CallRead{Read: pc.read, IsRead: pc.isRead}
	}
	return reads, superseded(calls, pcs)
}

// parseAll parses each of calls with parse, in order.
func parseAll(calls []Call, parse func(name, args string) parsedCall) []parsedCall {
	pcs := make([]parsedCall, len(calls))
	for i, c := range calls {
		pcs[i] = parse(c.Name, c.Args)
	}
	return pcs
}

func (c *Cache) parsed(name, args string) parsedCall {
	return Memo(c, callKey{name: name, args: c.Key(args)}, func() parsedCall { return parseCall(name, args) })
}

type callKey struct {
	name string
	args TextKey
}

// parsedCall is what the rule needs of a call, parsed once.
type parsedCall struct {
	read   FileRead
	isRead bool
	m      map[string]any
	cmd    string
	// runs and writes are the scripts cmd runs and writes (scriptRun,
	// scriptWrite), in order.
	runs, writes []string
}

func parseCall(name, argText string) parsedCall {
	pc := parsedCall{m: args(argText)}
	pc.read, pc.isRead = readOf(name, pc.m)
	if pc.m != nil {
		pc.cmd = shellCommand(pc.m)
	}
	if pc.cmd != "" {
		for _, mm := range scriptRun.FindAllStringSubmatch(pc.cmd, -1) {
			pc.runs = append(pc.runs, mm[1])
		}
		for _, mm := range scriptWrite.FindAllStringSubmatch(pc.cmd, -1) {
			pc.writes = append(pc.writes, mm[1])
		}
	}
	return pc
}

// superseded is the rule over calls, each parsed (pcs[i] is calls[i]'s).
func superseded(calls []Call, pcs []parsedCall) map[string]Supersession {
	// A script written by one call and run by a later one edits what the
	// script says: the run is judged with the script's text. A call that
	// only writes a script edits nothing itself.
	cmds := make([]string, len(calls))
	skip := make([]bool, len(calls))
	scripts := map[string]string{}
	for i := range calls {
		cmd := pcs[i].cmd
		cmds[i] = cmd
		if cmd == "" {
			continue
		}
		for _, run := range pcs[i].runs {
			if text, ok := scripts[run]; ok {
				cmds[i] += "\n" + text
			}
		}
		for _, w := range pcs[i].writes {
			scripts[w] = cmd
		}
		skip[i] = len(pcs[i].writes) > 0 && len(pcs[i].runs) == 0
	}
	out := map[string]Supersession{}
	for i, c := range calls {
		if !pcs[i].isRead || c.ID == "" {
			continue
		}
		r := pcs[i].read
		var sp Supersession
		edited := false
		for j := i + 1; j < len(calls) && sp.Reread == ""; j++ {
			if pcs[j].isRead && pcs[j].read.Path == r.Path && (edited || pcs[j].read.Covers(r)) {
				sp.Reread = calls[j].ID
				if sp.By == "" {
					sp.By = calls[j].ID
				}
				continue
			}
			if !edited && !skip[j] && edits(calls[j].Name, pcs[j].m, cmds[j], r.Path) {
				edited = true
				if sp.By == "" {
					sp.By, sp.Edit = calls[j].ID, true
				}
			}
		}
		if sp.By != "" {
			sp.Path = r.Path
			out[c.ID] = sp
		}
	}
	return out
}

// FileRead is a call that shows a file: its path and the line range it
// shows ("" for the whole file; otherwise "a,b" as the call wrote it).
type FileRead struct {
	Path  string
	Range string
}

// Covers reports whether read r shows every line read o shows, of the
// same file: r is the whole file, or its range holds o's ("a,b"; a
// negative end is the file's end, as an editor's view_range writes it).
func (r FileRead) Covers(o FileRead) bool {
	if r.Path != o.Path {
		return false
	}
	if r.Range == "" || r.Range == o.Range {
		return true
	}
	ra, rb, ok1 := lineRange(r.Range)
	oa, ob, ok2 := lineRange(o.Range)
	return ok1 && ok2 && ra <= oa && ob <= rb
}

// lineRange reads a range "a,b"; an end below 1 (the file's end) is the
// largest int.
func lineRange(s string) (a, b int, ok bool) {
	x, y, found := strings.Cut(s, ",")
	if !found {
		return 0, 0, false
	}
	a, err1 := strconv.Atoi(x)
	b, err2 := strconv.Atoi(y)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	if b < 1 {
		b = int(^uint(0) >> 1)
	}
	return a, b, true
}

// ReadTools name tools that read files; editTools tools that change them.
var (
	ReadTools = []string{"read", "view", "cat", "open", "get_file", "show_file", "fetch_file"}
	editTools = []string{"write", "edit", "replace", "create", "patch", "insert", "apply"}
)

// pathKeys are the argument names that carry a file path.
var pathKeys = []string{"path", "file_path", "filePath", "file", "filename", "target_file", "absolute_path"}

// args decodes a call's arguments when they are a small JSON object.
func args(text string) map[string]any {
	t := strings.TrimSpace(text)
	if len(t) > 1<<16 || !strings.HasPrefix(t, "{") {
		return nil
	}
	var m map[string]any
	if json.Unmarshal([]byte(t), &m) != nil {
		return nil
	}
	return m
}

func argPath(m map[string]any) string {
	for _, k := range pathKeys {
		if p, ok := m[k].(string); ok && p != "" {
			return p
		}
	}
	return ""
}

// NameHas reports whether a tool's name, in any case, holds one of words
// (lowercase): how tool calls are told apart by what they do.
func NameHas(name string, words []string) bool {
	n := strings.ToLower(name)
	for _, w := range words {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// shellCommand returns the command line of a shell-like call.
func shellCommand(m map[string]any) string {
	for _, k := range []string{"command", "cmd"} {
		if c, ok := m[k].(string); ok {
			return c
		}
	}
	return ""
}

// editorCommands are the subcommands of an editor tool (SWE-agent's and
// Anthropic's str_replace_editor) beside its "view".
var editorCommands = map[string]bool{"create": true, "str_replace": true, "insert": true, "undo_edit": true, "write": true}

var (
	sedRange  = regexp.MustCompile(`^sed -n ['"]?(\d+,\d+)p['"]?$`)
	headLines = regexp.MustCompile(`^head (?:-n ?|-)(\d+)$`)
)

// ReadOf reports whether a call reads a file, and which lines: a read
// tool with a path argument, an editor's view, or a shell command that
// only prints a file (a command of signal.KindRead: cat, nl, head,
// sed -n 'a,bp', bat, less, more; optionally piped into sed -n or head).
func ReadOf(name, argText string) (FileRead, bool) {
	return readOf(name, args(argText))
}

// readOf is [ReadOf] of a call's decoded arguments (nil: not an object).
func readOf(name string, m map[string]any) (FileRead, bool) {
	if m == nil {
		return FileRead{}, false
	}
	if c, ok := m["command"].(string); ok && (c == "view" || editorCommands[c]) {
		p := argPath(m)
		if c != "view" || p == "" {
			return FileRead{}, false
		}
		r := ""
		if v, ok := m["view_range"].([]any); ok && len(v) == 2 {
			a, _ := v[0].(float64)
			b, _ := v[1].(float64)
			r = strconv.Itoa(int(a)) + "," + strconv.Itoa(int(b))
		}
		return FileRead{Path: p, Range: r}, true
	}
	if cmd := shellCommand(m); cmd != "" {
		return shellRead(cmd)
	}
	if NameHas(name, ReadTools) && !NameHas(name, editTools) {
		if p := argPath(m); p != "" {
			return FileRead{Path: p}, true
		}
	}
	return FileRead{}, false
}

// shellRead recognizes a one-line command that only prints (part of) a
// file.
func shellRead(cmd string) (FileRead, bool) {
	cmd = strings.TrimSpace(cmd)
	if cmd == "" || strings.ContainsAny(cmd, "\n;&><`$") {
		return FileRead{}, false
	}
	stages := strings.Split(cmd, "|")
	if len(stages) > 2 {
		return FileRead{}, false
	}
	first := strings.Fields(strings.TrimSpace(stages[0]))
	if len(first) < 2 {
		return FileRead{}, false
	}
	var fr FileRead
	if signal.Command(first[0]) != signal.KindRead {
		return FileRead{}, false
	}
	first[0] = path.Base(first[0])
	if first[0] == "sed" {
		mm := sedRange.FindStringSubmatch(strings.Join(first[:len(first)-1], " "))
		if mm == nil {
			return FileRead{}, false
		}
		fr.Range = mm[1]
	}
	if first[0] == "head" {
		if mm := headLines.FindStringSubmatch(strings.Join(first[:len(first)-1], " ")); mm != nil {
			fr.Range = "1," + mm[1]
		}
	}
	p := strings.Trim(first[len(first)-1], `'"`)
	if strings.HasPrefix(p, "-") || p == "" {
		return FileRead{}, false
	}
	for _, f := range first[1 : len(first)-1] {
		if !strings.HasPrefix(f, "-") && first[0] != "sed" && first[0] != "head" {
			return FileRead{}, false // more than one file
		}
	}
	fr.Path = p
	if len(stages) == 2 {
		next := strings.TrimSpace(stages[1])
		switch mm, hm := sedRange.FindStringSubmatch(next), headLines.FindStringSubmatch(next); {
		case mm != nil && fr.Range == "":
			fr.Range = mm[1]
		case hm != nil && fr.Range == "":
			fr.Range = "1," + hm[1]
		default:
			return FileRead{}, false
		}
	}
	return fr, true
}

// scriptWrite finds a script a command writes (a redirection into a
// .py/.sh/.js/.rb/.pl file); scriptRun one a command runs.
var (
	scriptWrite = regexp.MustCompile(`>\s*([^\s;&|<>'"]+\.(?:py|sh|js|rb|pl))\b`)
	scriptRun   = regexp.MustCompile(`(?:^|[\s;&|(])(?:python3?|bash|sh|node|ruby|perl)\s+([^\s;&|<>'"]+\.(?:py|sh|js|rb|pl))\b`)
)

// shellEdits are what a command that changes a file says.
var shellEdits = []string{"sed -i", "perl -i", "perl -pi", "write_text(", ".write(", "apply_patch", "git apply", "git checkout", "patch -p", "patch <", "truncate "}

// edits reports whether a call changes the file at path: an edit tool or
// an editor subcommand naming it, or a command that names it and writes
// (sed -i, a redirection into it, a script's write_text or write, a
// patch). m is the call's arguments, cmd its command line (or ""). A
// false positive costs only the view of a stale read: the read stays
// behind a reference.
func edits(name string, m map[string]any, cmd, path string) bool {
	if m == nil || path == "" {
		return false
	}
	if c, ok := m["command"].(string); ok && editorCommands[c] {
		return argPath(m) == path
	}
	if cmd != "" {
		if !strings.Contains(cmd, path) {
			return false
		}
		for _, w := range shellEdits {
			if strings.Contains(cmd, w) {
				return true
			}
		}
		for _, w := range []string{">" + path, "> " + path, ">>" + path, ">> " + path, "tee " + path, "tee -a " + path} {
			if strings.Contains(cmd, w) {
				return true
			}
		}
		return false
	}
	return NameHas(name, editTools) && argPath(m) == path
}
