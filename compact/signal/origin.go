package signal

import (
	"encoding/json"
	"path"
	"strings"
)

// Which tool outputs are file views or searches (the text of files, not
// something that ran): their quoted error lines are not errors. The
// replay's distinct measure (compact/smart/replay, origin.go) and Smart
// Context's ledger read outputs with this one rule.

// neutralCommands run nothing of their own and print nothing an agent
// acts on: they do not make a pipeline a run.
var neutralCommands = map[string]bool{
	"cd": true, "echo": true, "printf": true, "export": true, "true": true, "set": true,
	"pwd": true, "sleep": true, "clear": true, ":": true,
}

// gitViews are git subcommands that show text (a file, a diff, a log).
var gitViews = map[string]bool{"diff": true, "show": true, "log": true, "status": true, "grep": true, "blame": true, "ls-files": true}

// ViewOutput reports whether a tool call's output is a file view or a
// search (see above): name is the tool's name, args its JSON arguments.
// A call it cannot read is a run: its error lines count.
func ViewOutput(name, args string) bool {
	var a map[string]any
	_ = json.Unmarshal([]byte(args), &a)
	cmd, _ := a["command"].(string)
	switch name {
	case "str_replace_editor", "str_replace_based_edit_tool", "editor":
		// An editor tool: its view command reads a file; its edits print
		// a snippet of the edited file.
		return cmd == "view" || cmd == ""
	}
	if toolKinds[name] != KindRun {
		return true
	}
	cmd = commandLine(a)
	return cmd != "" && viewCommand(cmd)
}

// viewCommand reports whether a shell command line only views or
// searches files: every command of its pipelines and lists is a view or
// neutral, and one at least is a view.
func viewCommand(cmd string) bool {
	views := 0
	for _, part := range splitShell(cmd) {
		f := commandWords(part)
		if len(f) == 0 {
			continue
		}
		w := path.Base(f[0])
		switch {
		case neutralCommands[w]:
		case Command(w) != KindRun:
			views++
		case w == "git" && len(f) > 1 && gitViews[f[1]]:
			views++
		default:
			return false
		}
	}
	return views > 0
}

// commandWords are the words of one command of a line from the command
// it runs on: without variable assignments and wrappers (timeout and its
// duration, sudo, time, command).
func commandWords(part string) []string {
	f := strings.Fields(part)
	for len(f) > 0 && (strings.Contains(f[0], "=") && !strings.HasPrefix(f[0], "=") || f[0] == "timeout" || f[0] == "sudo" || f[0] == "time" || f[0] == "command") {
		if f[0] == "timeout" && len(f) > 1 {
			f = f[1:] // the duration
		}
		f = f[1:]
	}
	return f
}

// splitShell cuts a command line at its pipes, lists, subshells and new
// lines outside quotes.
func splitShell(cmd string) []string {
	var parts []string
	var cur strings.Builder
	var quote rune
	for _, r := range cmd {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case strings.ContainsRune("|&;()\n", r):
			parts = append(parts, cur.String())
			cur.Reset()
			continue
		}
		cur.WriteRune(r)
	}
	return append(parts, cur.String())
}
