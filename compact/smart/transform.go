package smart

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/internal/vsort"
)

// Transforms, as reports name them.
const (
	// TransformLossless removes terminal noise (ANSI escapes, progress-bar
	// redraws, trailing blanks, blank runs) and folds runs of identical
	// lines; every line's content is kept.
	TransformLossless = "lossless"
	// TransformBlob replaces runs of encoded or binary-looking lines with
	// a reference.
	TransformBlob = "blob"
	// TransformCondense cuts an older output to its head, its critical
	// lines (errors, diff headers, repository state, locations) and its
	// tail, with a reference to the whole.
	TransformCondense = "condense"
	// TransformReference does the same to a large recent output or an old
	// file read, with a larger preview.
	TransformReference = "reference"
	// TransformDuplicate replaces an output identical to one shown earlier
	// in the request (or seen in an earlier turn) with a reference.
	TransformDuplicate = "duplicate"
	// TransformSuperseded replaces an injected notice that a later one
	// repeats or supersedes with a reference.
	TransformSuperseded = "superseded"
	// TransformRehydrate puts back the text a reference in the input
	// stands for, when the latest turn asks for it.
	TransformRehydrate = "rehydrate"
)

// utilityPercent weighs the tokens a transform saves: lossless and
// duplicate removal lose nothing; condensing hides content the model may
// have to ask for.
var utilityPercent = map[string]int{
	TransformLossless: 100, TransformBlob: 100, TransformDuplicate: 100, TransformSuperseded: 90,
	TransformReference: 90, TransformCondense: 80,
}

// repeatNote follows the first line of a run of identical lines.
func repeatNote(n int) string {
	return "[previous line repeated " + strconv.Itoa(n) + " more times]"
}

// losslessView cleans every line (see cleanLine), folds runs of three or
// more identical lines into the line and a note, and collapses runs of
// blank lines. ok is false when nothing changes. The view is first only
// compared with the text, so an output it leaves as it is (most are)
// costs no copy, and a changed one is built at its exact size.
func losslessView(text string) (string, bool) {
	raw := splitLines(text)
	same := &sameWriter{text: text}
	foldLines(raw, same)
	if same.same() {
		return text, false
	}
	var sb strings.Builder
	sb.Grow(same.n)
	foldLines(raw, &sb)
	out := sb.String()
	if !strings.HasSuffix(text, "\n") {
		out = strings.TrimSuffix(out, "\n")
	}
	return out, out != text
}

// lineWriter is where foldLines writes: a strings.Builder or a
// sameWriter.
type lineWriter interface {
	WriteString(string) (int, error)
	WriteByte(byte) error
}

// foldLines writes the lossless view of raw's lines to w, each followed
// by a line break.
func foldLines(raw []string, w lineWriter) {
	blank := false
	for i := 0; i < len(raw); {
		l := cleanLine(raw[i])
		j := i + 1
		for j < len(raw) && l != "" && cleanLine(raw[j]) == l {
			j++
		}
		if l == "" {
			if !blank {
				w.WriteByte('\n')
			}
			blank = true
			i = j
			continue
		}
		blank = false
		w.WriteString(l)
		w.WriteByte('\n')
		switch n := j - i; {
		case n >= 3:
			w.WriteString(repeatNote(n - 1))
			w.WriteByte('\n')
		case n == 2:
			w.WriteString(l)
			w.WriteByte('\n')
		}
		i = j
	}
}

// sameWriter compares what is written with text followed by a line
// break (foldLines ends every line with one; losslessView trims it when
// text has none), keeping nothing.
type sameWriter struct {
	text string
	n    int
	diff bool
}

func (w *sameWriter) WriteString(s string) (int, error) {
	for i := 0; i < len(s) && !w.diff; {
		if w.n+i >= len(w.text) {
			w.diff = w.n+i > len(w.text) || s[i] != '\n' || strings.HasSuffix(w.text, "\n")
			i++
			continue
		}
		k := min(len(s)-i, len(w.text)-w.n-i)
		w.diff = s[i:i+k] != w.text[w.n+i:w.n+i+k]
		i += k
	}
	w.n += len(s)
	return len(s), nil
}

func (w *sameWriter) WriteByte(c byte) error {
	if !w.diff {
		switch {
		case w.n < len(w.text):
			w.diff = w.text[w.n] != c
		default:
			w.diff = w.n > len(w.text) || c != '\n' || strings.HasSuffix(w.text, "\n")
		}
	}
	w.n++
	return nil
}

// same reports that what was written is the text (and the line break
// trimmed after it when the text has none).
func (w *sameWriter) same() bool {
	if w.diff {
		return false
	}
	if strings.HasSuffix(w.text, "\n") || w.text == "" {
		return w.n == len(w.text)
	}
	return w.n == len(w.text)+1
}

// viewLine is a line as a view shows it: cleaned, a blob line replaced by
// a note, and at most maxViewLineBytes.
func viewLine(raw string) (string, bool) {
	l := cleanLine(raw)
	if isBlobLine(strings.TrimSpace(l)) {
		return "[" + strconv.Itoa(len(l)) + " bytes of encoded data]", true
	}
	if len(l) <= maxViewLineBytes {
		return l, false
	}
	n := maxViewLineBytes
	for n > 0 && !utf8.RuneStart(l[n]) {
		n--
	}
	return l[:n] + "…", true
}

// view describes a condensed view.
type view struct {
	head, tail int    // most lines shown from each end
	chars      int    // most bytes of the view
	note       string // added to the marker
	// quiet: a masked file read that reports no failure, whose
	// error-looking lines are the file's source (maskedView).
	quiet bool
}

// condensedView cuts text to its first and last lines and the critical
// lines between them (errors first, then diff headers and repository
// state, then locations; each shown with its line number), with a ref
// marker naming what was omitted. ok is false when the view would hide
// nothing.
func condensedView(text, hash string, v view, rt request.Retrieval) (string, bool) {
	raw := splitLines(text)
	n := len(raw)
	if n == 0 {
		return "", false
	}
	lines := make([]string, n)
	cut := false
	for i, l := range raw {
		var c bool
		lines[i], c = viewLine(l)
		cut = cut || c
	}
	avail := max(v.chars-170-len(v.note), 0)
	h, used := 0, 0
	for h < n && h < v.head && used+len(lines[h])+1 <= avail*2/5 {
		used += len(lines[h]) + 1
		h++
	}
	t, usedT := 0, 0
	for t < n-h && t < v.tail && usedT+len(lines[n-1-t])+1 <= avail/5 {
		usedT += len(lines[n-1-t]) + 1
		t++
	}
	if h+t >= n && !cut {
		return "", false
	}
	rest := avail - used - usedT
	type pick struct {
		i    int
		rank int
	}
	var cands []pick
	for i := h; i < n-t; i++ {
		rank := -1
		switch classifyLine(lines[i]) {
		case lineError:
			rank = 0
		case lineDiffHead, lineRepo:
			rank = 1
		case lineLocation:
			rank = 2
		}
		if rank >= 0 {
			cands = append(cands, pick{i, rank})
		}
	}
	vsort.StableFunc(cands, func(a, b pick) int { return cmp.Compare(a.rank, b.rank) })
	var kept []int
	shown := map[string]bool{}
	for _, c := range cands {
		l := lines[c.i]
		if shown[l] {
			continue
		}
		cost := len(l) + len(strconv.Itoa(c.i+1)) + 5
		if cost > rest {
			continue
		}
		rest -= cost
		shown[l] = true
		kept = append(kept, c.i)
	}
	slices.Sort(kept)
	detail := ""
	if h+t < n {
		detail = "omitted=" + request.RangeText(h+1, n-t)
		if len(kept) > 0 {
			detail += fmt.Sprintf(" (%d of them kept below with their line numbers)", len(kept))
		}
	} else {
		detail = "long lines cut at " + strconv.Itoa(maxViewLineBytes) + " bytes"
	}
	if v.note != "" {
		detail += "; " + v.note
	}
	return writeView(lines, h, t, rt.Marker(request.MarkerRef, hash, len(text), n, detail), kept, ""), true
}

// writeView writes a condensed view: the first h lines, the marker, the
// kept lines with their line numbers, extra (a line of its own, when
// not empty) and the last t lines.
func writeView(lines []string, h, t int, marker string, kept []int, extra string) string {
	n := len(lines)
	var sb strings.Builder
	writeFolded(&sb, lines[:h])
	sb.WriteString(marker)
	for _, i := range kept {
		sb.WriteString("\n  ")
		sb.WriteString(strconv.Itoa(i + 1))
		sb.WriteString("| ")
		sb.WriteString(lines[i])
	}
	if extra != "" {
		sb.WriteString("\n  ")
		sb.WriteString(extra)
	}
	if t > 0 {
		sb.WriteByte('\n')
		writeFolded(&sb, lines[n-t:])
	}
	return strings.TrimSuffix(sb.String(), "\n")
}

// writeFolded writes lines, each followed by a newline, folding runs of
// three or more identical lines into the line and a repeat note.
func writeFolded(sb *strings.Builder, lines []string) {
	for i := 0; i < len(lines); {
		j := i + 1
		for j < len(lines) && lines[j] == lines[i] && lines[i] != "" {
			j++
		}
		sb.WriteString(lines[i])
		sb.WriteByte('\n')
		switch n := j - i; {
		case n >= 3:
			sb.WriteString(repeatNote(n - 1))
			sb.WriteByte('\n')
		case n == 2:
			sb.WriteString(lines[i])
			sb.WriteByte('\n')
		}
		i = j
	}
}

// blobView replaces each run of blob lines (at least 256 bytes) with a
// blob marker and cleans the other lines as losslessView does. ok is
// false when there is no such run.
func blobView(text, hash string, rt request.Retrieval) (string, bool) {
	raw := splitLines(text)
	var sb strings.Builder
	found := false
	var rest []string
	flush := func() {
		if len(rest) == 0 {
			return
		}
		v, _ := losslessView(strings.Join(rest, "\n"))
		sb.WriteString(v)
		sb.WriteByte('\n')
		rest = rest[:0]
	}
	for i := 0; i < len(raw); {
		j, size := i, 0
		for j < len(raw) && isBlobLine(strings.TrimSpace(cleanLine(raw[j]))) {
			size += len(raw[j]) + 1
			j++
		}
		if j > i && size >= 256 {
			flush()
			found = true
			sb.WriteString(rt.Marker(request.MarkerBlob, hash, len(text), len(raw), fmt.Sprintf("omitted=%s (%d bytes of encoded or binary data)", request.RangeText(i+1, j), size)))
			sb.WriteByte('\n')
			i = j
			continue
		}
		if j == i {
			j = i + 1
		}
		rest = append(rest, raw[i:j]...)
		i = j
	}
	flush()
	if !found {
		return "", false
	}
	out := sb.String()
	if !strings.HasSuffix(text, "\n") {
		out = strings.TrimSuffix(out, "\n")
	}
	return out, true
}

// CondenseOutput is a command's output as an agent should read it, for
// write-time condensing (`ctxd run`): its first and last lines/3 lines
// and the critical lines between them (errors, failing tests, file:line
// locations, each with its line number), terminal noise removed, within
// about lines*160 bytes (runView), and a reference to the whole text by hash (stored
// by the caller) that says how to read it back (rt). ok is false when
// the view would hide nothing: print the text as it is.
func CondenseOutput(text, hash string, lines int, rt request.Retrieval) (string, bool) {
	return condensedView(text, hash, runView(lines), rt)
}

// RunLines is how many lines of a command's output `ctxd run` prints
// whole by default (--lines); a longer output gets runView(RunLines),
// the view the proxy also gives a very long output within the masking
// horizon (Call.MaskLong).
const RunLines = 60

// runView is the view of an output over lines lines: its first and last
// lines/3 and its critical lines, within lines*160 bytes.
func runView(lines int) view {
	return view{head: lines / 3, tail: lines / 3, chars: lines * 160}
}

// Bounds of a masked view's critical part (bytes): its error and failing
// test lines, and the file:line locations of the lines it does not show.
const (
	maskCriticalBytes  = 1200
	maskLocationsBytes = 8000
)

// locationsByFile lists locs by file within about limit bytes: each
// file's path once, then its line numbers ("a.py:3,17,40"), files in
// first-seen order; more counts those left out.
func locationsByFile(locs []string, limit int) (list []string, more int) {
	var order []string
	byPath := map[string][]string{}
	rest := limit
	for _, loc := range locs {
		c := strings.LastIndexByte(loc, ':')
		path, line := loc[:c], loc[c+1:]
		_, listed := byPath[path]
		cost := len(line) + 1
		if !listed {
			cost = len(loc) + 1
		}
		if cost > rest {
			more++
			continue
		}
		rest -= cost
		if !listed {
			order = append(order, path)
		}
		byPath[path] = append(byPath[path], line)
	}
	for _, path := range order {
		list = append(list, path+":"+strings.Join(byPath[path], ","))
	}
	return list, more
}

// maskedView is a masked output as the model reads it: its first head
// and last tail lines, a reference to the whole, then every critical
// line of the rest verbatim with its line number (error and failure
// lines, failing tests, diff headers, within maskCriticalBytes) and the
// file:line locations of the lines not shown (within maskLocationsBytes),
// so what a reader needs of an old output stays in view without a call.
// rt is the reference's retrieval hint (the zero value: "ask for lines
// a-b" only); note opens the reference's detail ("masked", or why).
// A quiet view (a file read that reports no failure) keeps no critical
// lines: `raise ValueError(` in a file's text is its source, not an error
// (signal.Info.Failure; the replay's measure does not count it either),
// and the whole file is a reference away. ok is false when the view
// would hide nothing.
func maskedView(text, hash string, head, tail int, note string, quiet bool, rt request.Retrieval) (string, bool) {
	raw := splitLines(text)
	n := len(raw)
	if n == 0 {
		return "", false
	}
	lines := make([]string, n)
	for i, l := range raw {
		lines[i], _ = viewLine(l)
	}
	const headBytes, tailBytes = 240, 160
	h, used := 0, 0
	for h < n && h < head && used+len(lines[h])+1 <= headBytes {
		used += len(lines[h]) + 1
		h++
	}
	t, used := 0, 0
	for t < n-h && t < tail && used+len(lines[n-1-t])+1 <= tailBytes {
		used += len(lines[n-1-t]) + 1
		t++
	}
	if h+t >= n {
		return "", false
	}
	var kept []int
	shown := map[string]bool{}
	rest := maskCriticalBytes
	if quiet {
		rest = 0
	}
	for i := h; i < n-t && rest > 0; i++ {
		l := lines[i]
		switch classifyLine(l) {
		case lineError, lineDiffHead:
		default:
			continue
		}
		if shown[l] {
			continue
		}
		cost := len(l) + len(strconv.Itoa(i+1)) + 5
		if cost > rest {
			continue
		}
		rest -= cost
		shown[l] = true
		kept = append(kept, i)
	}
	// The locations of the lines not shown, each once, in order, listed
	// by file ("a.py:3,17,40 b.py:9": the path once, then its line
	// numbers, files in first-seen order): the same locations in fewer
	// bytes, so a long list of hits keeps more of them in the bound.
	var all []string
	seen := map[string]bool{}
	for i := h; i < n-t; i++ {
		if shown[lines[i]] {
			continue
		}
		for _, loc := range locations(strings.TrimSpace(lines[i]), nil) {
			if !seen[loc] {
				seen[loc] = true
				all = append(all, loc)
			}
		}
	}
	locs, more := locationsByFile(all, maskLocationsBytes)
	detail := "omitted=" + request.RangeText(h+1, n-t) + " (" + note
	if len(kept) > 0 {
		detail += fmt.Sprintf("; %d critical lines kept below with their line numbers", len(kept))
	}
	detail += ")"
	extra := ""
	if len(locs) > 0 {
		extra = "locations: " + strings.Join(locs, " ")
		if more > 0 {
			extra += fmt.Sprintf(" (and %d more)", more)
		}
	}
	return writeView(lines, h, t, rt.Marker(request.MarkerRef, hash, len(text), n, detail), kept, extra), true
}
