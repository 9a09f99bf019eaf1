package sessions

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ctxd/ctxd"
)

// SchemaVersion is the version of the checkpoint files this package
// writes. Version 1 is the seed design's plain checkpoint (no sequence
// number, chunk list or checksum); [Decode] migrates it on read.
const SchemaVersion = 2

// Errors a caller branches on. A [Problem] carries the path and the reason
// of each file that fails with one of them.
var (
	// ErrCorrupt: a checkpoint file is truncated, not JSON, fails its
	// checksum, or holds values no writer produces.
	ErrCorrupt = errors.New("corrupt checkpoint")
	// ErrNewerSchema: a checkpoint was written by a newer ctxd with a
	// schema this version cannot read. It is left alone, like a corrupt
	// one.
	ErrNewerSchema = errors.New("checkpoint written by a newer ctxd")
)

// State is where a session's task stands.
type State string

// The states of a session (the seed's checkpoint structure).
const (
	StateRunning   State = "running"
	StateCompleted State = "completed"
	StateFailed    State = "failed"
	StateAbandoned State = "abandoned"
)

// States lists every [State] in a stable order.
var States = []State{StateRunning, StateCompleted, StateFailed, StateAbandoned}

// ParseState accepts a state name in any case; "" returns "" and no error
// (the caller picks the default).
func ParseState(s string) (State, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return "", nil
	}
	for _, st := range States {
		if string(st) == s {
			return st, nil
		}
	}
	return "", fmt.Errorf("unknown state %q (want running, completed, failed or abandoned): %w", s, ctxd.ErrInvalidParams)
}

// Summary is the seed's context_summary: how much context the checkpoint's
// envelope held.
type Summary struct {
	ChunksIncluded int     `json:"chunks_included"`
	TokensUsed     int     `json:"tokens_used"`
	Utilization    float64 `json:"utilization"`
}

// SummaryOf summarizes a fitted context.
func SummaryOf(c ctxd.CompressedContext) Summary {
	return Summary{ChunksIncluded: len(c.Chunks), TokensUsed: c.TokensUsed, Utilization: c.Utilization}
}

// Parent names the checkpoint a forked session started from.
type Parent struct {
	SessionID string `json:"session_id"`
	Seq       int    `json:"seq"`
}

// ChunkRef records one chunk of an envelope without its content: enough to
// tell on resume whether the source changed (Hash, the SHA-256 of the
// whole source text) and to show what was included and how.
type ChunkRef struct {
	Source    string         `json:"source"`
	ChunkType ctxd.ChunkType `json:"chunk_type"`
	Hash      string         `json:"hash,omitempty"`
	// Lines is the source's line count; Elided are the line ranges left
	// out at Truncation's level, so the included ranges are the rest.
	Lines          int              `json:"lines,omitempty"`
	Truncated      bool             `json:"truncated,omitempty"`
	Truncation     ctxd.View        `json:"truncation,omitempty"`
	Elided         []ctxd.LineRange `json:"elided,omitempty"`
	Tokens         int              `json:"tokens"`
	OriginalTokens int              `json:"original_tokens,omitempty"`
	Priority       ctxd.Priority    `json:"priority"`
	Score          float64          `json:"score"`
	// Open, Cursor and Selection record an editor's open file, so a resume
	// can open it again.
	Open      bool            `json:"open,omitempty"`
	Cursor    int             `json:"cursor,omitempty"`
	Selection *ctxd.LineRange `json:"selection,omitempty"`
}

// ChunkRefs records an envelope's chunks.
func ChunkRefs(cs []ctxd.Chunk) []ChunkRef {
	out := make([]ChunkRef, 0, len(cs))
	for _, c := range cs {
		out = append(out, ChunkRef{
			Source: c.Source, ChunkType: c.ChunkType, Hash: c.Hash,
			Lines: c.Facts.Lines, Truncated: c.Truncated, Truncation: c.Truncation, Elided: c.Elided,
			Tokens: c.Tokens, OriginalTokens: c.OriginalTokens, Priority: c.Priority, Score: c.Score,
			Open: c.Facts.Open, Cursor: c.Facts.Cursor, Selection: c.Facts.Selection,
		})
	}
	return out
}

// Checkpoint is one saved state of a session: the seed's checkpoint
// structure plus the envelope's chunk list, the request that built it and
// the place in the session's timeline. Its JSON form is the file format
// and the wire format of ctx/checkpoint/restore.
type Checkpoint struct {
	SchemaVersion int    `json:"schema_version"`
	SessionID     string `json:"session_id"`
	// Seq is the checkpoint's number in its session's timeline, from 1.
	Seq int `json:"seq"`
	// Parent is the checkpoint a forked session started from; nil for
	// sessions that were not forked.
	Parent    *Parent   `json:"parent,omitempty"`
	Timestamp time.Time `json:"timestamp"`
	// Root is the workspace the session belongs to.
	Root        string        `json:"root,omitempty"`
	TaskType    ctxd.TaskType `json:"task_type"`
	UserRequest string        `json:"user_request"`
	State       State         `json:"state"`
	// Note says why the checkpoint exists when that is not a plain save
	// (a fork and the error it corrects).
	Note           string  `json:"note,omitempty"`
	ContextSummary Summary `json:"context_summary"`
	// Model is the model name the envelope was built for; TokenBudget its
	// resolved budget.
	Model       string          `json:"model,omitempty"`
	TokenBudget *ctxd.Budget    `json:"token_budget,omitempty"`
	Artifacts   []ctxd.Artifact `json:"artifacts"`
	// ConversationHistory is the agent's messages as given (a JSON array
	// in one of the request formats), HistoryFormat that format when
	// known ("openai-chat", "anthropic-messages", "openai-responses").
	ConversationHistory json.RawMessage `json:"conversation_history"`
	HistoryFormat       string          `json:"history_format,omitempty"`
	Chunks              []ChunkRef      `json:"chunks"`
	// BuildRequest is the request that built the envelope (the engine's
	// own JSON, without unsaved buffer text), so a resume can rebuild it.
	// The store does not interpret it.
	BuildRequest json.RawMessage `json:"build_request,omitempty"`
	// Checksum is "sha256:" and the hex SHA-256 of the file's bytes before
	// the checksum member; set by the store.
	Checksum string `json:"checksum,omitempty"`

	// migratedFrom is the schema version the checkpoint was read from
	// when older than SchemaVersion (0 otherwise).
	migratedFrom int
	// removed is set on a saved checkpoint: see RemovedByRetention.
	removed []int
}

// MigratedFrom returns the schema version cp was migrated from on read, or
// 0 when it was read in the current version.
func (cp *Checkpoint) MigratedFrom() int { return cp.migratedFrom }

// RemovedByRetention returns, on a checkpoint [Store.Save] or
// [Store.Append] returned, the numbers of the older checkpoints the keep-N
// retention removed right after the save.
func (cp *Checkpoint) RemovedByRetention() []int { return cp.removed }

// HistoryLen returns the number of messages in the conversation history
// (0 when it is empty or not an array).
func (cp *Checkpoint) HistoryLen() int {
	var msgs []json.RawMessage
	if json.Unmarshal(cp.ConversationHistory, &msgs) != nil {
		return 0
	}
	return len(msgs)
}

// validate checks what a writer must have set. Errors wrap
// ctxd.ErrInvalidParams; Decode rewraps them as corruption.
func (cp *Checkpoint) validate() error {
	if err := ctxd.ValidSessionID(cp.SessionID); err != nil {
		return err
	}
	if cp.Seq < 1 {
		return fmt.Errorf("seq must be at least 1, got %d: %w", cp.Seq, ctxd.ErrInvalidParams)
	}
	if cp.Timestamp.IsZero() {
		return fmt.Errorf("timestamp is missing: %w", ctxd.ErrInvalidParams)
	}
	if _, err := ParseState(string(cp.State)); err != nil || cp.State == "" {
		return fmt.Errorf("state %q: want running, completed, failed or abandoned: %w", cp.State, ctxd.ErrInvalidParams)
	}
	if cp.TaskType != "" {
		if _, err := ctxd.ParseTaskType(string(cp.TaskType)); err != nil {
			return fmt.Errorf("task_type: %w", err)
		}
	}
	if err := checkArray(cp.ConversationHistory); err != nil {
		return fmt.Errorf("conversation_history: %w", err)
	}
	if len(cp.BuildRequest) > 0 {
		if t := bytes.TrimSpace(cp.BuildRequest); len(t) == 0 || t[0] != '{' || !json.Valid(t) {
			return fmt.Errorf("build_request must be a JSON object: %w", ctxd.ErrInvalidParams)
		}
	}
	if p := cp.Parent; p != nil {
		if err := ctxd.ValidSessionID(p.SessionID); err != nil {
			return fmt.Errorf("parent: %w", err)
		}
		if p.Seq < 1 {
			return fmt.Errorf("parent seq must be at least 1, got %d: %w", p.Seq, ctxd.ErrInvalidParams)
		}
	}
	return nil
}

// checkArray reports a conversation history that is not a JSON array.
func checkArray(raw json.RawMessage) error {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || t[0] != '[' || !json.Valid(t) {
		return fmt.Errorf("want a JSON array of messages: %w", ctxd.ErrInvalidParams)
	}
	return nil
}

// normalize fills the fields every file carries, so a checkpoint
// round-trips through a file unchanged.
func (cp *Checkpoint) normalize() {
	cp.SchemaVersion = SchemaVersion
	cp.Checksum = ""
	cp.Timestamp = cp.Timestamp.UTC()
	if cp.Artifacts == nil {
		cp.Artifacts = []ctxd.Artifact{}
	}
	if cp.Chunks == nil {
		cp.Chunks = []ChunkRef{}
	}
	if len(bytes.TrimSpace(cp.ConversationHistory)) == 0 {
		cp.ConversationHistory = json.RawMessage("[]")
	}
}

// checksumMember opens the member that ends every current file.
const checksumMember = `,"checksum":"sha256:`

// encode returns the file form of cp: its JSON object, ending with the
// checksum member over the bytes before it, and a newline, and that
// checksum. It validates cp first (errors wrap ctxd.ErrInvalidParams).
// HTML characters are not escaped, so messages keep their bytes.
func encode(cp *Checkpoint) (data []byte, checksum string, err error) {
	c := *cp
	c.normalize()
	if err := c.validate(); err != nil {
		return nil, "", fmt.Errorf("encode checkpoint: %w", err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&c); err != nil {
		return nil, "", fmt.Errorf("encode checkpoint: %w", err)
	}
	body := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	sum := sha256.Sum256(body)
	checksum = "sha256:" + hex.EncodeToString(sum[:])
	out := make([]byte, 0, len(body)+len(checksumMember)+64+3)
	out = append(out, body[:len(body)-1]...)
	out = append(out, checksumMember...)
	out = append(out, checksum[len("sha256:"):]...)
	out = append(out, "\"}\n"...)
	return out, checksum, nil
}

// Decode reads a checkpoint file. A current file must end with a checksum
// member that matches the bytes before it; a version 1 file (no
// schema_version, or 1) has none and is migrated. Errors wrap [ErrCorrupt]
// or [ErrNewerSchema] and say why. Decode never panics, whatever data
// holds.
func Decode(data []byte) (*Checkpoint, error) {
	t := bytes.TrimRight(data, " \t\r\n")
	body, sum, hasSum := splitChecksum(t)
	if !hasSum {
		return decodeLegacy(t)
	}
	h := sha256.New()
	h.Write(body)
	h.Write([]byte("}"))
	if got := hex.EncodeToString(h.Sum(nil)); got != sum {
		return nil, fmt.Errorf("checksum mismatch: the file says sha256:%s, its content hashes to sha256:%s (changed after it was written): %w", sum, got, ErrCorrupt)
	}
	var cp Checkpoint
	if err := json.Unmarshal(t, &cp); err != nil {
		return nil, fmt.Errorf("checksum verifies but the JSON does not decode: %v: %w", err, ErrCorrupt)
	}
	switch {
	case cp.SchemaVersion > SchemaVersion:
		return nil, fmt.Errorf("schema version %d, this ctxd reads up to %d: %w", cp.SchemaVersion, SchemaVersion, ErrNewerSchema)
	case cp.SchemaVersion < SchemaVersion:
		return nil, fmt.Errorf("schema version %d with a checksum: no writer produces that: %w", cp.SchemaVersion, ErrCorrupt)
	}
	if err := cp.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", strings.TrimSuffix(err.Error(), ": "+ctxd.ErrInvalidParams.Error()), ErrCorrupt)
	}
	cp.Timestamp = cp.Timestamp.UTC()
	return &cp, nil
}

// splitChecksum splits t (a file without trailing space) into the bytes
// before the checksum member and the hex checksum.
func splitChecksum(t []byte) (body []byte, sum string, ok bool) {
	const tail = len(`"}`)
	n := len(checksumMember) + 64 + tail
	if len(t) < n+1 || !bytes.HasSuffix(t, []byte(`"}`)) {
		return nil, "", false
	}
	i := len(t) - n
	if !bytes.Equal(t[i:i+len(checksumMember)], []byte(checksumMember)) {
		return nil, "", false
	}
	s := string(t[i+len(checksumMember) : len(t)-tail])
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
			return nil, "", false
		}
	}
	return t[:i], s, true
}

// v1Checkpoint is the seed design's checkpoint: the ContextCheckpoint
// structure, saved as plain JSON without a sequence number, a chunk list
// or a checksum. Its save call passed the envelope's context as
// "context", which is where the chunks come from when present.
type v1Checkpoint struct {
	SchemaVersion       *int            `json:"schema_version"`
	SessionID           string          `json:"session_id"`
	Timestamp           string          `json:"timestamp"`
	TaskType            string          `json:"task_type"`
	UserRequest         string          `json:"user_request"`
	State               string          `json:"state"`
	ContextSummary      *Summary        `json:"context_summary"`
	Context             *v1Context      `json:"context"`
	Artifacts           []ctxd.Artifact `json:"artifacts"`
	ConversationHistory json.RawMessage `json:"conversation_history"`
}

type v1Context struct {
	Chunks      []json.RawMessage `json:"chunks"`
	TokensUsed  int               `json:"tokens_used"`
	Utilization float64           `json:"utilization"`
}

// v1Chunk is the part of a seed chunk a checkpoint keeps; fields are
// decoded one by one so a value of an unexpected type loses only itself.
type v1Chunk struct {
	Source     string          `json:"source"`
	ChunkType  string          `json:"chunk_type"`
	Hash       string          `json:"hash"`
	Tokens     json.RawMessage `json:"tokens"`
	Truncated  bool            `json:"truncated"`
	Truncation ctxd.View       `json:"truncation"`
	Priority   json.RawMessage `json:"priority"`
	Score      json.RawMessage `json:"score"`
}

// decodeLegacy reads a file without a checksum: a version 1 checkpoint,
// or a damaged current one.
func decodeLegacy(t []byte) (*Checkpoint, error) {
	if len(t) == 0 {
		return nil, fmt.Errorf("the file is empty: %w", ErrCorrupt)
	}
	if !json.Valid(t) {
		var v any
		err := json.Unmarshal(t, &v)
		return nil, fmt.Errorf("not valid JSON (truncated?): %v: %w", err, ErrCorrupt)
	}
	var v1 v1Checkpoint
	if err := json.Unmarshal(t, &v1); err != nil {
		return nil, fmt.Errorf("not a checkpoint object: %v: %w", err, ErrCorrupt)
	}
	if v1.SchemaVersion != nil && *v1.SchemaVersion > SchemaVersion {
		return nil, fmt.Errorf("schema version %d, this ctxd reads up to %d: %w", *v1.SchemaVersion, SchemaVersion, ErrNewerSchema)
	}
	if v1.SchemaVersion != nil && *v1.SchemaVersion != 1 {
		return nil, fmt.Errorf("schema version %d without its checksum (truncated or edited): %w", *v1.SchemaVersion, ErrCorrupt)
	}
	return migrateV1(&v1)
}

// migrateV1 turns a seed checkpoint into the current structure. Seq and a
// missing session id or timestamp are the caller's to fill (the store
// takes them from the file's name, directory and modification time).
func migrateV1(v1 *v1Checkpoint) (*Checkpoint, error) {
	cp := &Checkpoint{
		SchemaVersion:       SchemaVersion,
		SessionID:           v1.SessionID,
		TaskType:            ctxd.TaskType(strings.ToLower(v1.TaskType)),
		UserRequest:         v1.UserRequest,
		Artifacts:           v1.Artifacts,
		ConversationHistory: v1.ConversationHistory,
		migratedFrom:        1,
	}
	if v1.SessionID != "" {
		if err := ctxd.ValidSessionID(v1.SessionID); err != nil {
			return nil, fmt.Errorf("version 1 checkpoint: %v: %w", err, ErrCorrupt)
		}
	}
	st, err := ParseState(v1.State)
	if err != nil {
		return nil, fmt.Errorf("version 1 checkpoint: %v: %w", err, ErrCorrupt)
	}
	if st == "" {
		st = StateRunning
	}
	cp.State = st
	if cp.TaskType != "" {
		if _, err := ctxd.ParseTaskType(string(cp.TaskType)); err != nil {
			return nil, fmt.Errorf("version 1 checkpoint: %v: %w", err, ErrCorrupt)
		}
	}
	if v1.Timestamp != "" {
		ts, err := parseV1Time(v1.Timestamp)
		if err != nil {
			return nil, fmt.Errorf("version 1 checkpoint: %v: %w", err, ErrCorrupt)
		}
		cp.Timestamp = ts
	}
	if len(bytes.TrimSpace(cp.ConversationHistory)) == 0 || bytes.Equal(bytes.TrimSpace(cp.ConversationHistory), []byte("null")) {
		cp.ConversationHistory = json.RawMessage("[]")
	} else if err := checkArray(cp.ConversationHistory); err != nil {
		return nil, fmt.Errorf("version 1 checkpoint: conversation_history is not an array: %w", ErrCorrupt)
	}
	if v1.Context != nil {
		for _, raw := range v1.Context.Chunks {
			var c v1Chunk
			if json.Unmarshal(raw, &c) != nil || c.Source == "" {
				continue
			}
			ref := ChunkRef{Source: c.Source, ChunkType: ctxd.ChunkType(c.ChunkType), Hash: c.Hash, Truncated: c.Truncated, Truncation: c.Truncation}
			_ = json.Unmarshal(c.Tokens, &ref.Tokens)
			_ = json.Unmarshal(c.Priority, &ref.Priority)
			_ = json.Unmarshal(c.Score, &ref.Score)
			cp.Chunks = append(cp.Chunks, ref)
		}
	}
	switch {
	case v1.ContextSummary != nil:
		cp.ContextSummary = *v1.ContextSummary
	case v1.Context != nil:
		cp.ContextSummary = Summary{ChunksIncluded: len(cp.Chunks), TokensUsed: v1.Context.TokensUsed, Utilization: v1.Context.Utilization}
	}
	if cp.Artifacts == nil {
		cp.Artifacts = []ctxd.Artifact{}
	}
	if cp.Chunks == nil {
		cp.Chunks = []ChunkRef{}
	}
	return cp, nil
}

// parseV1Time reads the seed's timestamps: RFC 3339, or Python's
// isoformat() without a zone (taken as UTC).
func parseV1Time(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999"} {
		if ts, err := time.Parse(layout, s); err == nil {
			return ts.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("timestamp %q: want RFC 3339", s)
}
