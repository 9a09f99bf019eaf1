package prune

import (
	"fmt"
	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/compact/signal"
	"github.com/ctxd/ctxd/internal/byteview"
	"strings"
	"unicode/utf8"
)

// minHidden is the fewest characters worth hiding: below it the marker
// costs about what it saves.
const minHidden = 64

// markerWith returns the reference that stands for n hidden characters
// of a text whose SHA-256 is hash, in the one marker format of both
// compactors ([request.NewMarker]) with rt's retrieval hints:
//
//	[ctxd:ref sha256=0123456789abcdef bytes=B lines=L N chars hidden to save context; to see it, ...]
//
// B and L are the whole text's size, which the artifact holds.
func markerWith(rt request.Retrieval, n int, hash string, bytes, lines int) string {
	return rt.Marker(request.MarkerRef, hash, bytes, lines, fmt.Sprintf("%d %s", n, request.ReferencePrefix))
}

// condenseWith cuts a tool output longer than maxChars characters to a
// preview and a marker (markerWith, with rt's retrieval hints). Plain
// output keeps its head; error output keeps a third of maxChars from the
// head and two thirds from the tail, since the last lines of a traceback
// or a failing test matter most. Cuts fall on rune boundaries, on a line
// boundary when one is near. images counts images the output carried,
// which the condensed text drops. ok is false when condensing would hide
// fewer than a few dozen characters.
func condenseWith(rt request.Retrieval, text string, maxChars int, isError bool, hash string, images int) (out string, hidden int, ok bool) {
	total := utf8.RuneCountInString(text)
	if maxChars < 0 || total-maxChars < minHidden && images == 0 {
		return text, 0, false
	}
	maxChars = min(maxChars, total)
	headN, tailN := maxChars, 0
	if isError {
		headN = maxChars / 3
		tailN = maxChars - headN
	}
	head := snapHead(text[:runeOffset(text, headN)])
	tail := ""
	if tailN > 0 {
		tail = snapTail(text[runeOffset(text, total-tailN):])
	}
	hidden = total - utf8.RuneCountInString(head) - utf8.RuneCountInString(tail)
	if hidden < minHidden && images == 0 {
		return text, 0, false
	}
	kept := hiddenErrorLines(text[len(head) : len(text)-len(tail)])
	var sb strings.Builder
	sb.Grow(len(head) + len(tail) + len(kept) + 80)
	sb.WriteString(head)
	if head != "" && !strings.HasSuffix(head, "\n") {
		sb.WriteByte('\n')
	}
	sb.WriteString(markerWith(rt, hidden, hash, len(text), byteview.CountLines(text)))
	if images > 0 {
		fmt.Fprintf(&sb, " [%d image(s) omitted]", images)
	}
	if kept != "" {
		sb.WriteByte('\n')
		sb.WriteString(kept)
	}
	if tail != "" {
		sb.WriteByte('\n')
		sb.WriteString(tail)
	}
	return sb.String(), hidden, true
}

// maxKeptErrorLines caps the error and failure lines of a condensed
// output's hidden part that stay verbatim after its marker.
const maxKeptErrorLines = 8

// hiddenErrorLines returns the error and failure lines, and up to two
// location lines right after each, of the part of an output a condensed
// preview hides (the first [maxKeptErrorLines] of them, each cut to
// [signal.MaxSignalBytes]), one per line, so a failing test or a
// compiler error in the middle of a long log stays in front of the
// model; the marker's reference still holds every line.
func hiddenErrorLines(mid string) string {
	var sb strings.Builder
	n, after := 0, 0
	var locs []string
	for _, l := range signal.SplitLines(mid) {
		if n == maxKeptErrorLines {
			break
		}
		t := strings.TrimSpace(signal.CleanLine(l))
		if t == "" {
			after = 0
			continue
		}
		switch {
		case signal.ClassifyLine(t) == signal.LineError:
			after = 2
		case after > 0 && len(signal.Locations(t, locs[:0])) > 0:
			// The location lines right after a failure (a Go test's
			// file:line message, a traceback's frames) belong to it.
			after--
		default:
			after = 0
			continue
		}
		if len(t) > signal.MaxSignalBytes {
			t = strings.ToValidUTF8(t[:signal.MaxSignalBytes], "")
		}
		if n > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString(t)
		n++
	}
	return sb.String()
}

// runeOffset returns the byte offset of the n-th rune of s.
func runeOffset(s string, n int) int {
	if n <= 0 {
		return 0
	}
	i := 0
	for off := range s {
		if i == n {
			return off
		}
		i++
	}
	return len(s)
}

// snapHead ends a head at its last newline when that keeps at least three
// quarters of it.
func snapHead(h string) string {
	if i := strings.LastIndexByte(h, '\n'); i >= 0 && i+1 >= len(h)*3/4 {
		return h[:i+1]
	}
	return h
}

// snapTail starts a tail after its first newline when that keeps at least
// three quarters of it.
func snapTail(t string) string {
	if i := strings.IndexByte(t, '\n'); i >= 0 && len(t)-(i+1) >= len(t)*3/4 {
		return t[i+1:]
	}
	return t
}

// looksLikeError reports tool output that reads as an error or failure
// (the classifier both compactors share).
func looksLikeError(text string) bool { return signal.LooksLikeError(text) }

// toolClass sorts a tool by what it does, from its name.
type toolClass int

const (
	toolRead toolClass = iota
	toolCommand
	toolMutation
)

var (
	mutationWords = []string{"write", "edit", "create", "delete", "remove", "patch", "apply", "replace", "move", "rename", "insert", "update", "commit", "mkdir", "save"}
	commandWords  = []string{"bash", "shell", "exec", "run", "terminal", "command", "cmd"}
)

func classifyTool(name string) toolClass {
	n := strings.ToLower(name)
	for _, w := range mutationWords {
		if strings.Contains(n, w) {
			return toolMutation
		}
	}
	for _, w := range commandWords {
		if strings.Contains(n, w) {
			return toolCommand
		}
	}
	return toolRead
}
