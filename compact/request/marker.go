package request

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ctxd/ctxd/artifacts"
)

// MarkerHashLen is how many hex digits of the SHA-256 a marker shows; the
// report carries the full hash, and rehydration accepts any prefix of at
// least 12 digits.
const MarkerHashLen = 16

// Marker kinds.
const (
	// MarkerRef stands for a text of which part (or all) is omitted.
	MarkerRef = "ref"
	// MarkerDup stands for a text identical to one shown or seen before.
	MarkerDup = "dup"
	// MarkerBlob stands for lines of encoded or binary data.
	MarkerBlob = "blob"
)

// MarkerOpen opens every marker; markers are recognized by it.
const MarkerOpen = "[ctxd:"

// Marker is a reference parsed from a text.
type Marker struct {
	Kind string `json:"kind"`
	// Hash is the hex prefix the marker shows.
	Hash  string `json:"sha256"`
	Bytes int    `json:"bytes"`
	Lines int    `json:"lines"`
}

// NewMarker writes a marker, the one reference format of both
// compactors: what it stands for (kind, hash, bytes, lines), then
// detail, then how to ask for the text back:
//
//	[ctxd:ref sha256=0123456789abcdef bytes=65015 lines=1200 DETAIL; to see it, ask for lines a-b of sha256=0123456789abcdef]
//
// ctxd rehydrate and ctx/rehydrate resolve the hash in the session's
// artifact store. [Retrieval.Marker] writes the same marker with the
// ways a reader can read the text back itself.
func NewMarker(kind, hash string, bytes, lines int, detail string) string {
	return Retrieval{}.Marker(kind, hash, bytes, lines, detail)
}

// Retrieval is how a reader of a marker can get the text back without
// asking the one who wrote it: the ctxd rehydrate command (agents with a
// shell) and an HTTP GET (a proxy's artifact URL). The zero value names
// neither. Markers that carry it end
//
//	...; to see it, ask for lines a-b of sha256=H, or run: ctxd rehydrate [--state-dir D] --session S H a-b, or GET URL/S/H?lines=a-b]
//
// and parse as any other marker.
type Retrieval struct {
	// Session is the artifact scope the hint names (the compactor sets
	// it to the session it stores under).
	Session string `json:"-"`
	// Command names `ctxd rehydrate --session S H a-b`.
	Command bool `json:"command,omitempty"`
	// StateDir, with Command, is the command's --state-dir (the store
	// is not the default one of the reader's working directory).
	StateDir string `json:"state_dir,omitempty"`
	// URL is the base of a GET that serves artifacts as URL/S/H with an
	// optional ?lines=a-b (ctxd proxy: http://HOST:PORT/ctxd/artifacts).
	URL string `json:"url,omitempty"`
}

// Check reports a retrieval whose command or URL cannot be written into
// a marker (whitespace or brackets would end it or split its fields).
func (rt Retrieval) Check() error {
	if rt.StateDir != "" && !markerSafe(rt.StateDir) {
		return fmt.Errorf("retrieval state_dir %q has whitespace, quotes or brackets", rt.StateDir)
	}
	if rt.URL == "" {
		return nil
	}
	if !markerSafe(rt.URL) || !(strings.HasPrefix(rt.URL, "http://") || strings.HasPrefix(rt.URL, "https://")) {
		return fmt.Errorf("retrieval url %q: want an http(s) URL without whitespace, quotes or brackets", rt.URL)
	}
	return nil
}

// markerSafe reports text that can sit in a marker's field.
func markerSafe(s string) bool {
	return !strings.ContainsAny(s, " \t\r\n[]\"'`")
}

// Marker writes a marker ([NewMarker]) followed by the retrieval hints
// rt names; without a session (or with nothing named) it is NewMarker's.
func (rt Retrieval) Marker(kind, hash string, bytes, lines int, detail string) string {
	var sb strings.Builder
	sb.Grow(len(detail) + 120)
	sb.WriteString(MarkerOpen)
	sb.WriteString(kind)
	sb.WriteString(" sha256=")
	sb.WriteString(hash[:min(MarkerHashLen, len(hash))])
	sb.WriteString(" bytes=")
	sb.WriteString(strconv.Itoa(bytes))
	sb.WriteString(" lines=")
	sb.WriteString(strconv.Itoa(lines))
	if detail != "" {
		sb.WriteString(" ")
		sb.WriteString(detail)
	}
	h := hash[:min(MarkerHashLen, len(hash))]
	sb.WriteString("; to see it, ask for lines a-b of sha256=")
	sb.WriteString(h)
	if rt.Session != "" && rt.Check() == nil {
		if rt.Command {
			sb.WriteString(", or run: ctxd rehydrate ")
			if rt.StateDir != "" {
				sb.WriteString("--state-dir " + rt.StateDir + " ")
			}
			sb.WriteString("--session " + rt.Session + " " + h + " a-b")
		}
		if rt.URL != "" {
			sb.WriteString(", or GET " + strings.TrimRight(rt.URL, "/") + "/" + rt.Session + "/" + h + "?lines=a-b")
		}
	}
	sb.WriteString("]")
	return sb.String()
}

// ParseMarkers returns the ctxd markers in text, in order.
func ParseMarkers(text string) []Marker {
	var out []Marker
	for {
		i := strings.Index(text, MarkerOpen)
		if i < 0 {
			return out
		}
		text = text[i+len(MarkerOpen):]
		end := strings.IndexByte(text, ']')
		if end < 0 {
			return out
		}
		body := text[:end]
		kind, rest, ok := strings.Cut(body, " ")
		if !ok || (kind != MarkerRef && kind != MarkerDup && kind != MarkerBlob) {
			continue
		}
		m := Marker{Kind: kind}
		for _, f := range strings.Fields(rest) {
			k, v, ok := strings.Cut(strings.TrimRight(f, ";,"), "=")
			if !ok {
				continue
			}
			switch k {
			case "sha256":
				if m.Hash == "" && artifacts.ValidPrefix(v) {
					m.Hash = v
				}
			case "bytes":
				m.Bytes, _ = strconv.Atoi(v)
			case "lines":
				m.Lines, _ = strconv.Atoi(v)
			}
		}
		if m.Hash != "" {
			out = append(out, m)
		}
		text = text[end:]
	}
}

// HasMarker reports text that carries a ctxd marker.
func HasMarker(text string) bool {
	return strings.Contains(text, MarkerOpen) && len(ParseMarkers(text)) > 0
}

// RangeText writes a line range "a-b" (or "a" when a == b).
func RangeText(a, b int) string {
	if a == b {
		return strconv.Itoa(a)
	}
	return fmt.Sprintf("%d-%d", a, b)
}
