package signal

import (
	"encoding/json"
	"path"
	"strings"
)

// Kind is what a command or tool does with files, by its name: the one
// table that tells a file read, a search and another view from a command
// that runs something. request.ReadOf reads the commands of KindRead (and
// checks their arguments), [ViewOutput] counts every kind but KindRun as
// a view, [SearchCall] finds the searches.
type Kind uint8

const (
	// KindRun runs something: its output's error lines are errors.
	KindRun Kind = iota
	// KindRead prints the text of the file its arguments name, whole
	// or the lines they name (cat, nl, head, sed -n 'a,bp').
	KindRead
	// KindSearch searches files and prints the hits (grep, rg, find).
	KindSearch
	// KindView prints other text of files: a part whose lines its
	// arguments do not name (tail, an editor window), listings, counts,
	// diffs.
	KindView
)

// commands are the shell commands that view files, by kind. A command
// not listed is KindRun.
var commands = map[string]Kind{
	"cat": KindRead, "nl": KindRead, "bat": KindRead, "less": KindRead, "more": KindRead, "head": KindRead, "sed": KindRead,
	"grep": KindSearch, "egrep": KindSearch, "fgrep": KindSearch, "rg": KindSearch, "ag": KindSearch, "ack": KindSearch, "find": KindSearch,
	"tail": KindView, "ls": KindView, "tree": KindView, "wc": KindView, "awk": KindView, "cut": KindView, "sort": KindView, "uniq": KindView,
	"xargs": KindView, "file": KindView, "stat": KindView, "diff": KindView, "column": KindView, "tr": KindView,
	// SWE-agent's file tools, run as commands: a window of the open
	// file (its lines are not in the arguments) and searches.
	"open": KindView, "goto": KindView, "scroll_up": KindView, "scroll_down": KindView, "view": KindView,
	"search_file": KindSearch, "search_dir": KindSearch, "find_file": KindSearch,
}

// toolKinds are tools that view files whatever their arguments, by name
// (an editor tool's view is told by its command argument, in
// [ViewOutput]).
var toolKinds = map[string]Kind{
	"view": KindRead, "read_file": KindRead, "Read": KindRead,
	"grep": KindSearch, "Grep": KindSearch, "glob": KindSearch, "Glob": KindSearch, "search": KindSearch,
	"find_file": KindSearch, "search_dir": KindSearch, "search_file": KindSearch,
	"open": KindView, "goto": KindView, "scroll_up": KindView, "scroll_down": KindView,
}

// Command is the kind of a shell command by its name (a path's base
// name: /bin/cat is cat).
func Command(name string) Kind {
	return commands[path.Base(name)]
}

// SearchCall reports whether a tool call searches files: a search tool,
// or a shell command line that only views files (as [ViewOutput] judges
// it) and runs a search among them (grep, rg, find, git grep). name is
// the tool's name, args its JSON arguments. The ledger's "latest search"
// and the replay's "search" status both use it.
func SearchCall(name, args string) bool {
	if toolKinds[name] == KindSearch || strings.HasPrefix(name, "search") {
		return true
	}
	var a map[string]any
	_ = json.Unmarshal([]byte(args), &a)
	cmd := commandLine(a)
	if cmd == "" || !viewCommand(cmd) {
		return false
	}
	for _, part := range splitShell(cmd) {
		f := commandWords(part)
		if len(f) > 0 && (Command(f[0]) == KindSearch || path.Base(f[0]) == "git" && len(f) > 1 && f[1] == "grep") {
			return true
		}
	}
	return false
}

// commandLine is the command line of a call's decoded arguments: its
// "command" or "raw" string.
func commandLine(a map[string]any) string {
	if cmd, _ := a["command"].(string); cmd != "" {
		return cmd
	}
	raw, _ := a["raw"].(string)
	return raw
}
