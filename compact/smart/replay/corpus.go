package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/compact/request"
)

// Session is one scripted agent session of the corpus: the top-level
// members of its requests and, per turn, the items the agent appends,
// the facts the turn needs and the damage done to the artifact store
// before it.
type Session struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Tags name the hard cases the session was written for; coverage is
	// computed from what the run observes, not from these.
	Tags          []string       `json:"tags"`
	Format        request.Format `json:"format"`
	Model         string         `json:"model"`
	ContextWindow int            `json:"context_window,omitempty"`
	SessionID     string         `json:"session_id"`
	// Continued sessions send only each turn's new items with
	// previous_response_id (Responses server-side state).
	Continued bool `json:"continued,omitempty"`
	// Top is the request object without its items member.
	Top json.RawMessage `json:"top"`
	// SeedArtifacts are stored before the first turn: the texts behind
	// references the history already carries (a resumed session).
	SeedArtifacts []SeedArtifact `json:"seed_artifacts,omitempty"`
	Turns         []Turn         `json:"turns"`
}

// SeedArtifact is an artifact present (or damaged) before the session.
type SeedArtifact struct {
	Content string `json:"content"`
	// State is "ok", "missing" (never stored) or "corrupt" (stored, then
	// altered).
	State string `json:"state"`
}

// Turn is one request of a session.
type Turn struct {
	// Append are the items the agent adds before this request.
	Append []json.RawMessage `json:"append"`
	// Top, when set, replaces the top-level members from this turn on
	// (changed static instructions).
	Top json.RawMessage `json:"top,omitempty"`
	// PreviousResponseID is sent by continued sessions.
	PreviousResponseID string `json:"previous_response_id,omitempty"`
	// Needs are facts (single-line strings from earlier outputs) the
	// model needs to answer this turn.
	Needs []string `json:"needs,omitempty"`
	// Damage is done to the store before this turn.
	Damage []Damage `json:"damage,omitempty"`
}

// Damage deletes or corrupts the artifact of a text.
type Damage struct {
	// Op is "delete" or "corrupt".
	Op string `json:"op"`
	// SHA256 names the artifact.
	SHA256 string `json:"sha256"`
}

// Corpus is a set of sessions.
type Corpus struct {
	Sessions []*Session
	// Bytes is the corpus's size on disk.
	Bytes int64
}

// Load reads a corpus: a session file, or a directory of *.json session
// files (read in name order).
func Load(path string) (*Corpus, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("load corpus: %w", err)
	}
	files := []string{path}
	if fi.IsDir() {
		files, err = filepath.Glob(filepath.Join(path, "*.json"))
		if err != nil {
			return nil, fmt.Errorf("load corpus: %w", err)
		}
		slices.Sort(files)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("load corpus %s: no *.json session files: %w", path, ctxd.ErrInvalidParams)
	}
	c := &Corpus{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("load corpus: %w", err)
		}
		c.Bytes += int64(len(b))
		var s Session
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&s); err != nil {
			return nil, fmt.Errorf("load session %s: %w: %w", filepath.Base(f), err, ctxd.ErrInvalidParams)
		}
		if err := s.validate(); err != nil {
			return nil, fmt.Errorf("load session %s: %w", filepath.Base(f), err)
		}
		c.Sessions = append(c.Sessions, &s)
	}
	return c, nil
}

func (s *Session) validate() error {
	if s.Name == "" || s.SessionID == "" || len(s.Turns) == 0 {
		return fmt.Errorf("name, session_id and turns are required: %w", ctxd.ErrInvalidParams)
	}
	if _, err := request.ParseFormat(string(s.Format)); err != nil || s.Format == "" {
		return fmt.Errorf("format %q: %w", s.Format, ctxd.ErrInvalidParams)
	}
	if t := bytes.TrimSpace(s.Top); len(t) < 2 || t[0] != '{' {
		return fmt.Errorf("top must be an object: %w", ctxd.ErrInvalidParams)
	}
	for i, t := range s.Turns {
		if len(t.Top) > 0 && bytes.TrimSpace(t.Top)[0] != '{' {
			return fmt.Errorf("turn %d: top must be an object: %w", i+1, ctxd.ErrInvalidParams)
		}
		for _, d := range t.Damage {
			if (d.Op != "delete" && d.Op != "corrupt") || len(d.SHA256) != 64 {
				return fmt.Errorf("turn %d: damage %+v: want op delete or corrupt and a sha256: %w", i+1, d, ctxd.ErrInvalidParams)
			}
		}
	}
	for _, a := range s.SeedArtifacts {
		switch a.State {
		case "ok", "missing", "corrupt":
		default:
			return fmt.Errorf("seed artifact state %q: want ok, missing or corrupt: %w", a.State, ctxd.ErrInvalidParams)
		}
	}
	return nil
}

// itemsKey is the member that holds a format's items.
func itemsKey(f request.Format) string {
	if f == request.FormatResponses {
		return "input"
	}
	return "messages"
}

// Requests materializes the request of every turn: the top-level members
// in force, previous_response_id for continued sessions, and the items
// so far (this turn's only, when continued).
func (s *Session) Requests() [][]byte {
	out := make([][]byte, len(s.Turns))
	top := bytes.TrimSpace(s.Top)
	var items []json.RawMessage
	for i, t := range s.Turns {
		if len(t.Top) > 0 {
			top = bytes.TrimSpace(t.Top)
		}
		if s.Continued {
			items = t.Append
		} else {
			items = append(items, t.Append...)
		}
		var b bytes.Buffer
		b.Grow(len(top) + 64 + len(items)*256)
		inner := bytes.TrimSpace(top[1 : len(top)-1])
		b.WriteByte('{')
		b.Write(inner)
		if len(inner) > 0 {
			b.WriteByte(',')
		}
		if s.Continued && t.PreviousResponseID != "" {
			id, _ := json.Marshal(t.PreviousResponseID)
			b.WriteString(`"previous_response_id":`)
			b.Write(id)
			b.WriteByte(',')
		}
		b.WriteString(`"` + itemsKey(s.Format) + `":[`)
		for k, it := range items {
			if k > 0 {
				b.WriteString(",\n")
			}
			b.Write(it)
		}
		b.WriteString("]}")
		out[i] = b.Bytes()
	}
	return out
}

// Window names a context window band.
func Window(tokens int) string {
	switch {
	case tokens >= 16000 && tokens <= 16384:
		return "16k"
	case tokens >= 32000 && tokens <= 32768:
		return "32k"
	case tokens >= 128000 && tokens <= 131072:
		return "128k"
	case tokens >= 200000 && tokens <= 204800:
		return "200k"
	}
	return strings.TrimSpace(fmt.Sprintf("%dk", tokens/1000))
}
