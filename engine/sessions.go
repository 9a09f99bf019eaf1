package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/compact/prune"
	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/gather"
	"github.com/ctxd/ctxd/safefs"
	"github.com/ctxd/ctxd/sessions"
)

// EnvStateDir names the environment variable that moves a workspace's
// state directory (sessions/, artifacts/, cache/) away from <root>/.ctxd.
// A relative value is taken relative to the workspace root. The
// --state-dir flags of `ctxd serve` and `ctxd sessions` set it.
const EnvStateDir = "CTXD_STATE_DIR"

// StateDir returns the state directory of a workspace root:
// $CTXD_STATE_DIR when set, else <root>/.ctxd. It is the one place the
// location is decided; every store under it (sessions, artifacts) asks
// here.
func StateDir(root string) string { return sessions.StateDir(root, os.Getenv(EnvStateDir)) }

// StateDir returns the engine's state directory: [Options.StateDir],
// else [StateDir] of the root.
func (e *Engine) StateDir() string { return e.stateDir }

// SessionStore opens the workspace's session store. Opening is cheap and
// creates nothing; the store holds no state in memory, so every call may
// open its own.
func (e *Engine) SessionStore() (*sessions.Store, error) {
	return sessions.Open(sessions.Dir(e.StateDir()), sessions.Options{Logger: e.log})
}

// noRecordKey marks a context whose prompt build must not save a
// checkpoint (the rebuild of a resume).
type noRecordKey struct{}

// recordCheckpoint saves a checkpoint of env when ctx/buildPrompt (or
// `ctxd prompt --session`) names a session: the envelope's chunks and
// summary, the request that built it, and the history and artifacts of
// the session's previous checkpoint. An invalid session id is an error;
// a failure to write is a warning on the envelope, since the prompt
// itself is good.
func (e *Engine) recordCheckpoint(ctx context.Context, req PromptRequest, env *ctxd.Envelope, assemble bool) error {
	if !assemble || req.SessionID == "" || ctx.Value(noRecordKey{}) != nil {
		return nil
	}
	if err := sessions.ValidID(req.SessionID); err != nil {
		return fmt.Errorf("session_id: %w", err)
	}
	build, err := buildRequestJSON(req)
	if err != nil {
		return err
	}
	st, err := e.SessionStore()
	if err == nil {
		var cp *sessions.Checkpoint
		cp, err = st.Append(ctx, req.SessionID, func(prev *sessions.Checkpoint, _ int) (*sessions.Checkpoint, error) {
			next := carryOver(prev, e.root)
			applyEnvelope(next, env)
			next.BuildRequest = build
			next.State = sessions.StateRunning
			return next, nil
		})
		if err == nil {
			e.log.Debug("checkpoint recorded", "session", cp.SessionID, "seq", cp.Seq)
			return nil
		}
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	e.log.Warn("checkpoint not saved", "session", req.SessionID, "error", err)
	env.Warnings = append(env.Warnings, fmt.Sprintf("checkpoint of session %s not saved: %v", req.SessionID, err))
	return nil
}

// buildRequestJSON is the request as a checkpoint keeps it: without the
// session id and without unsaved buffer text (the editor sends buffers
// again when it reopens them).
func buildRequestJSON(req PromptRequest) (json.RawMessage, error) {
	req.SessionID = ""
	ofs := make([]ctxd.OpenFile, len(req.OpenFiles))
	for i, of := range req.OpenFiles {
		of.Text = nil
		ofs[i] = of
	}
	req.OpenFiles = ofs
	b, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("record build request: %w", err)
	}
	return b, nil
}

// carryOver starts the next checkpoint from the previous one: a
// checkpoint is a whole snapshot, so what a save does not replace (the
// history, the artifacts, the envelope) stays as it was.
func carryOver(prev *sessions.Checkpoint, root string) *sessions.Checkpoint {
	if prev == nil {
		return &sessions.Checkpoint{Root: root, State: sessions.StateRunning}
	}
	next := *prev
	next.Timestamp = time.Time{}
	next.Checksum = ""
	next.Note = ""
	next.Root = root
	return &next
}

// applyEnvelope records an envelope in cp: task, request, model, budget,
// chunk list and summary, and its artifacts (added to those already
// recorded).
func applyEnvelope(cp *sessions.Checkpoint, env *ctxd.Envelope) {
	cp.TaskType = env.TaskType
	cp.UserRequest = env.UserRequest
	if env.OriginalInput != "" {
		cp.UserRequest = env.OriginalInput
	}
	cp.Model = env.Model.Name
	b := env.TokenBudget
	cp.TokenBudget = &b
	cp.Chunks = sessions.ChunkRefs(env.Context.Chunks)
	cp.ContextSummary = sessions.SummaryOf(env.Context)
	for _, a := range env.Artifacts {
		if !containsArtifact(cp.Artifacts, a) {
			cp.Artifacts = append(cp.Artifacts, a)
		}
	}
}

func containsArtifact(as []ctxd.Artifact, a ctxd.Artifact) bool {
	for _, x := range as {
		if x == a {
			return true
		}
	}
	return false
}

// SaveRequest is the input of ctx/checkpoint/save. Fields left out keep
// the values of the session's previous checkpoint (a checkpoint is a
// whole snapshot); a new session starts empty and running.
type SaveRequest struct {
	SessionID string `json:"session_id"`
	// State is running, completed, failed or abandoned.
	State       string `json:"state,omitempty"`
	TaskType    string `json:"task_type,omitempty"`
	UserRequest string `json:"user_request,omitempty"`
	// ConversationHistory is the agent's messages, a JSON array in one of
	// the request formats, kept as given; HistoryFormat names the format
	// (chat, anthropic, responses; detected when absent).
	ConversationHistory json.RawMessage `json:"conversation_history,omitempty"`
	HistoryFormat       string          `json:"history_format,omitempty"`
	// Artifacts replace the recorded ones when given (an empty array
	// clears them).
	Artifacts []ctxd.Artifact `json:"artifacts,omitempty"`
	// Envelope, when given, records its chunks, summary, model and budget
	// (a ctx/buildPrompt result).
	Envelope *ctxd.Envelope `json:"envelope,omitempty"`
	Note     string         `json:"note,omitempty"`
}

// SaveResult is the answer of ctx/checkpoint/save.
type SaveResult struct {
	SessionID      string           `json:"session_id"`
	Seq            int              `json:"seq"`
	Timestamp      time.Time        `json:"timestamp"`
	State          sessions.State   `json:"state"`
	ContextSummary sessions.Summary `json:"context_summary"`
	Checksum       string           `json:"checksum"`
	// Removed are the older checkpoints the keep-N retention removed
	// after this save.
	Removed []int `json:"removed,omitempty"`
}

// SaveCheckpoint appends a checkpoint to a session's timeline (creating
// the session on its first save). Safe to call concurrently, from any
// number of processes: each save gets its own number.
func (e *Engine) SaveCheckpoint(ctx context.Context, req SaveRequest) (*SaveResult, error) {
	if req.SessionID == "" {
		return nil, fmt.Errorf("session_id is required: %w", ctxd.ErrInvalidParams)
	}
	state, err := sessions.ParseState(req.State)
	if err != nil {
		return nil, fmt.Errorf("state: %w", err)
	}
	task, err := ctxd.ParseTaskType(req.TaskType)
	if err != nil {
		return nil, fmt.Errorf("task_type: %w", err)
	}
	format, err := historyFormat(req.ConversationHistory, req.HistoryFormat)
	if err != nil {
		return nil, err
	}
	st, err := e.SessionStore()
	if err != nil {
		return nil, err
	}
	cp, err := st.Append(ctx, req.SessionID, func(prev *sessions.Checkpoint, _ int) (*sessions.Checkpoint, error) {
		next := carryOver(prev, e.root)
		if req.Envelope != nil {
			applyEnvelope(next, req.Envelope)
			// The recorded request built another envelope.
			next.BuildRequest = nil
		}
		if task != "" {
			next.TaskType = task
		}
		if req.UserRequest != "" {
			next.UserRequest = req.UserRequest
		}
		if state != "" {
			next.State = state
		}
		if req.ConversationHistory != nil {
			next.ConversationHistory = req.ConversationHistory
			next.HistoryFormat = string(format)
		}
		if req.Artifacts != nil {
			next.Artifacts = req.Artifacts
		}
		next.Note = req.Note
		return next, nil
	})
	if err != nil {
		return nil, err
	}
	return &SaveResult{SessionID: cp.SessionID, Seq: cp.Seq, Timestamp: cp.Timestamp, State: cp.State, ContextSummary: cp.ContextSummary, Checksum: cp.Checksum, Removed: cp.RemovedByRetention()}, nil
}

// historyFormat validates a conversation history (a JSON array) and
// resolves its format: the one named, else the one detected.
func historyFormat(hist json.RawMessage, name string) (request.Format, error) {
	if hist == nil {
		if name != "" {
			return "", fmt.Errorf("history_format without conversation_history: %w", ctxd.ErrInvalidParams)
		}
		return "", nil
	}
	if t := bytes.TrimSpace(hist); len(t) == 0 || t[0] != '[' || !json.Valid(t) {
		return "", fmt.Errorf("conversation_history must be a JSON array of messages: %w", ctxd.ErrInvalidParams)
	}
	f, err := request.ParseFormat(name)
	if err != nil {
		return "", fmt.Errorf("history_format: %w", err)
	}
	if f != "" || bytes.Equal(bytes.TrimSpace(hist), []byte("[]")) {
		return f, nil
	}
	for _, body := range [][]byte{request.WrapHistory(hist, request.FormatChat, ""), request.WrapHistory(hist, request.FormatResponses, "")} {
		if f, err := request.Detect(body); err == nil {
			return f, nil
		}
	}
	return "", nil
}

// RestoreRequest is the input of ctx/checkpoint/restore.
type RestoreRequest struct {
	SessionID string `json:"session_id"`
	// Seq names a checkpoint; 0 restores the newest one that verifies.
	Seq int `json:"seq,omitempty"`
}

// RestoreCheckpoint reads a checkpoint back. A missing session or
// checkpoint is an error wrapping ctxd.ErrNotFound; a named checkpoint
// that does not verify wraps sessions.ErrCorrupt.
func (e *Engine) RestoreCheckpoint(ctx context.Context, req RestoreRequest) (*sessions.Restored, error) {
	if req.SessionID == "" {
		return nil, fmt.Errorf("session_id is required: %w", ctxd.ErrInvalidParams)
	}
	st, err := e.SessionStore()
	if err != nil {
		return nil, err
	}
	return st.Restore(ctx, req.SessionID, req.Seq)
}

// ListRequest is the input of ctx/sessions/list.
type ListRequest struct {
	// State keeps only sessions in that state.
	State string `json:"state,omitempty"`
	// Limit keeps the newest Limit sessions; 0 keeps all.
	Limit int `json:"limit,omitempty"`
}

// ListSessions lists the workspace's sessions, newest first, with the
// files that could not be read in Problems.
func (e *Engine) ListSessions(ctx context.Context, req ListRequest) (*sessions.Listing, error) {
	state, err := sessions.ParseState(req.State)
	if err != nil {
		return nil, fmt.Errorf("state: %w", err)
	}
	if req.Limit < 0 {
		return nil, fmt.Errorf("limit must not be negative, got %d: %w", req.Limit, ctxd.ErrInvalidParams)
	}
	st, err := e.SessionStore()
	if err != nil {
		return nil, err
	}
	l, err := st.List(ctx)
	if err != nil {
		return nil, err
	}
	if state != "" {
		kept := l.Sessions[:0]
		for _, in := range l.Sessions {
			if in.State == state {
				kept = append(kept, in)
			}
		}
		l.Sessions = kept
	}
	if req.Limit > 0 && len(l.Sessions) > req.Limit {
		l.Sessions = l.Sessions[:req.Limit]
	}
	return l, nil
}

// TimelineRequest is the input of ctx/sessions/timeline.
type TimelineRequest struct {
	SessionID string `json:"session_id"`
}

// SessionTimeline returns a session's checkpoints, oldest first.
func (e *Engine) SessionTimeline(ctx context.Context, req TimelineRequest) (*sessions.Timeline, error) {
	if req.SessionID == "" {
		return nil, fmt.Errorf("session_id is required: %w", ctxd.ErrInvalidParams)
	}
	st, err := e.SessionStore()
	if err != nil {
		return nil, err
	}
	return st.Timeline(ctx, req.SessionID)
}

// DeleteRequest is the input of ctx/sessions/delete.
type DeleteRequest struct {
	SessionID string `json:"session_id"`
}

// DeleteSession removes a session (corrupt files are left in place and
// reported).
func (e *Engine) DeleteSession(ctx context.Context, req DeleteRequest) (*sessions.DeleteResult, error) {
	if req.SessionID == "" {
		return nil, fmt.Errorf("session_id is required: %w", ctxd.ErrInvalidParams)
	}
	st, err := e.SessionStore()
	if err != nil {
		return nil, err
	}
	return st.Delete(ctx, req.SessionID)
}

// GCRequest says what [Engine.GCSessions] collects.
type GCRequest struct {
	// MaxAge removes sessions whose newest checkpoint is older; 0 turns
	// the age rule off.
	MaxAge time.Duration
	// MaxBytes caps the store's size, oldest sessions first (never a
	// running session younger than MaxAge); 0 means no cap.
	MaxBytes int64
	// Keep trims every session to its newest Keep checkpoints; 0 leaves
	// them.
	Keep   int
	DryRun bool
}

// GCSessions collects old sessions and checkpoints (see sessions.Store.GC).
func (e *Engine) GCSessions(ctx context.Context, req GCRequest) (*sessions.GCReport, error) {
	st, err := e.SessionStore()
	if err != nil {
		return nil, err
	}
	return st.GC(ctx, sessions.GCOptions{MaxAge: req.MaxAge, MaxBytes: req.MaxBytes, Keep: req.Keep, DryRun: req.DryRun})
}

// Statuses of a recorded source on resume.
const (
	// SourceUnchanged: the file hashes as it did when recorded.
	SourceUnchanged = "unchanged"
	// SourceChanged: the file changed since; it was read again.
	SourceChanged = "changed"
	// SourceMissing: the file is gone (or no longer inside the workspace).
	SourceMissing = "missing"
	// SourceRegenerated: not a file (structure, history, diff,
	// dependencies); it is computed again from the workspace.
	SourceRegenerated = "regenerated"
)

// SourceStatus is what became of one recorded chunk's source.
type SourceStatus struct {
	Source    string         `json:"source"`
	ChunkType ctxd.ChunkType `json:"chunk_type"`
	Status    string         `json:"status"`
	OldHash   string         `json:"old_hash,omitempty"`
	NewHash   string         `json:"new_hash,omitempty"`
	// Included reports that the rebuilt envelope holds the source.
	Included bool `json:"included"`
}

// ResumeRequest is the input of ctx/sessions/resume.
type ResumeRequest struct {
	// SessionID names the session; absent picks the newest running
	// session of this workspace.
	SessionID string `json:"session_id,omitempty"`
}

// ResumeResult is the answer of ctx/sessions/resume.
type ResumeResult struct {
	// Resumed is false when no session was named and none is running;
	// Reason says so.
	Resumed   bool   `json:"resumed"`
	Reason    string `json:"reason,omitempty"`
	SessionID string `json:"session_id,omitempty"`
	// Checkpoint is the restored checkpoint (history, artifacts, chunks).
	Checkpoint *sessions.Checkpoint `json:"checkpoint,omitempty"`
	// Envelope is the context rebuilt against the workspace as it is now,
	// with the recorded request, task, model and budget.
	Envelope *ctxd.Envelope `json:"envelope,omitempty"`
	// Sources says, for each recorded chunk, whether its source changed.
	Sources   []SourceStatus `json:"sources"`
	Unchanged int            `json:"unchanged"`
	Changed   int            `json:"changed"`
	Missing   int            `json:"missing"`
	Warnings  []string       `json:"warnings,omitempty"`
	// Problems are checkpoint files skipped on the way (they do not
	// verify).
	Problems []sessions.Problem `json:"problems,omitempty"`
}

// ResumeSession picks a session up where it was left: the named one or
// the newest running session of this workspace, its newest checkpoint
// restored, each recorded source compared with the workspace (changed,
// missing, unchanged) and the envelope rebuilt from what is there now.
// The rebuild saves no checkpoint; the next ctx/buildPrompt does.
func (e *Engine) ResumeSession(ctx context.Context, req ResumeRequest) (*ResumeResult, error) {
	st, err := e.SessionStore()
	if err != nil {
		return nil, err
	}
	res := &ResumeResult{Sources: []SourceStatus{}}
	id := req.SessionID
	tracked := trackedSessions(ctx, e.root, st.Dir())
	if id != "" && tracked[id] {
		return nil, fmt.Errorf("session %q arrived with the repository (its checkpoints are tracked by git), so it is not trusted; resume a session of your own: %w", id, sessions.ErrCorrupt)
	}
	if id == "" {
		l, err := st.List(ctx)
		if err != nil {
			return nil, err
		}
		res.Problems = l.Problems
		for _, in := range l.Sessions {
			if tracked[in.SessionID] {
				res.Warnings = append(res.Warnings, fmt.Sprintf("session %q was skipped: its checkpoints are tracked by git (they arrived with the repository)", in.SessionID))
				continue
			}
			if in.State == sessions.StateRunning && (in.Root == "" || in.Root == e.root) {
				id = in.SessionID
				break
			}
		}
		if id == "" {
			res.Reason = "no running session in this workspace"
			return res, nil
		}
	}
	r, err := st.Restore(ctx, id, 0)
	if err != nil {
		return nil, err
	}
	cp := r.Checkpoint
	res.Resumed, res.SessionID, res.Checkpoint = true, id, cp
	res.Problems = append(res.Problems, r.Problems...)

	listed := e.listedFiles(ctx)
	present := e.compareSources(ctx, cp, res, listed)
	preq, warn := e.resumeRequest(ctx, cp, present, listed)
	if warn != "" {
		res.Warnings = append(res.Warnings, warn)
	}
	if preq == nil {
		return res, nil
	}
	env, err := e.run(context.WithValue(ctx, noRecordKey{}, true), *preq, nil, true)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		res.Warnings = append(res.Warnings, fmt.Sprintf("the envelope was not rebuilt: %v", err))
		return res, nil
	}
	res.Envelope = env
	in := map[string]bool{}
	for _, c := range env.Context.Chunks {
		in[c.Source] = true
	}
	for i := range res.Sources {
		res.Sources[i].Included = in[res.Sources[i].Source]
	}
	return res, nil
}

// compareSources fills res.Sources and its counts, and returns the
// recorded file sources that still exist (root-relative).
func (e *Engine) compareSources(ctx context.Context, cp *sessions.Checkpoint, res *ResumeResult, listed map[string]bool) []string {
	var present []string
	seen := map[string]bool{}
	for _, c := range cp.Chunks {
		if seen[c.Source] {
			continue
		}
		seen[c.Source] = true
		s := SourceStatus{Source: c.Source, ChunkType: c.ChunkType, OldHash: c.Hash}
		if c.ChunkType != ctxd.ChunkFile {
			s.Status = SourceRegenerated
			res.Sources = append(res.Sources, s)
			continue
		}
		if e.refusedSource(ctx, c.Source, listed) {
			s.Status = SourceRefused
			res.Sources = append(res.Sources, s)
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s was not re-read: a secret or ignored file under today's rules", c.Source))
			continue
		}
		text, err := e.currentText(c.Source)
		switch {
		case err != nil:
			s.Status = SourceMissing
			res.Missing++
		default:
			sum := sha256.Sum256(text)
			s.NewHash = hex.EncodeToString(sum[:])
			if s.NewHash == c.Hash {
				s.Status = SourceUnchanged
				res.Unchanged++
			} else {
				s.Status = SourceChanged
				res.Changed++
			}
			present = append(present, c.Source)
		}
		res.Sources = append(res.Sources, s)
	}
	return present
}

// currentText reads a recorded source as gathering would now: the
// editor's unsaved buffer, else the file. A source that resolves outside
// the workspace (the checkpoint file is untrusted) counts as missing.
func (e *Engine) currentText(source string) ([]byte, error) {
	abs, _, err := gather.Resolve(e.root, source)
	if err != nil {
		return nil, err
	}
	if t, ok := e.Buffer(source); ok {
		return []byte(t), nil
	}
	b, err := safefs.ReadFile(context.Background(), abs, e.cfg.Gather.MaxFileBytes)
	if errors.Is(err, safefs.ErrNotRegular) {
		return nil, fmt.Errorf("%s is not a regular file: %w", source, fs.ErrNotExist)
	}
	return b, err
}

// resumeRequest rebuilds the prompt request of a checkpoint: the recorded
// request (patterns, format, window, open files that still exist) with
// the recorded task, model and budget, and every recorded file that still
// exists named as a literal pattern, so the rebuilt context covers them.
func (e *Engine) resumeRequest(ctx context.Context, cp *sessions.Checkpoint, present []string, listed map[string]bool) (*PromptRequest, string) {
	var req PromptRequest
	warn := ""
	if len(cp.BuildRequest) > 0 {
		if err := json.Unmarshal(cp.BuildRequest, &req); err != nil {
			req = PromptRequest{}
			warn = fmt.Sprintf("the recorded build request does not decode (%v); rebuilt from the recorded chunks", err)
		}
	}
	if strings.TrimSpace(cp.UserRequest) != "" {
		req.UserRequest = cp.UserRequest
	}
	if strings.TrimSpace(req.UserRequest) == "" {
		return nil, "the checkpoint records no user request, so no envelope was rebuilt"
	}
	req.SessionID = cp.SessionID
	if cp.TaskType != "" {
		req.TaskType = string(cp.TaskType)
	}
	if cp.Model != "" {
		req.Model = cp.Model
	}
	if b := cp.TokenBudget; b != nil && b.Validate() == nil {
		req.TokenBudget = &BudgetRequest{System: b.System, Context: b.Context, UserRequest: b.UserRequest, Response: b.Response}
	}
	exists := map[string]bool{}
	for _, p := range present {
		exists[p] = true
	}
	// Open files and literal patterns that are gone would only produce
	// warnings; leave them out (they are reported as missing).
	open := map[string]bool{}
	var ofs []ctxd.OpenFile
	for _, of := range req.OpenFiles {
		if _, rel, err := gather.Resolve(e.root, of.Path); err == nil && fileExists(e.root, rel) && !e.refusedSource(ctx, rel, listed) {
			of.Text = nil
			ofs = append(ofs, of)
			open[rel] = true
		}
	}
	for _, c := range cp.Chunks {
		if c.Open && exists[c.Source] && !open[c.Source] {
			ofs = append(ofs, ctxd.OpenFile{Path: c.Source, Line: c.Cursor, Selection: c.Selection})
			open[c.Source] = true
		}
	}
	req.OpenFiles = ofs
	var pats []string
	for _, p := range req.Patterns {
		if strings.ContainsAny(p, "*?[{") {
			pats = append(pats, p)
		} else if _, rel, err := gather.Resolve(e.root, p); err == nil && fileExists(e.root, rel) && !e.refusedSource(ctx, rel, listed) {
			pats = append(pats, p)
		}
	}
	named := 0
	for _, src := range present {
		if !open[src] {
			pats = append(pats, escapeGlob(src))
			named++
		}
	}
	req.Patterns = pats
	if maxFiles := max(req.MaxFiles, e.cfg.Gather.MaxFiles); named > maxFiles {
		req.MaxFiles = named
	}
	return &req, warn
}

func fileExists(root, rel string) bool {
	fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel)))
	return err == nil && fi.Mode().IsRegular()
}

// escapeGlob quotes a path's glob metacharacters, so it matches itself
// only.
func escapeGlob(p string) string {
	if !strings.ContainsAny(p, `*?[]{}\`) {
		return p
	}
	var b strings.Builder
	for _, r := range p {
		if strings.ContainsRune(`*?[]{}\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// ForkRequest is the input of ctx/sessions/fork: TimeTraveler's
// fork_and_correct.
type ForkRequest struct {
	SessionID string `json:"session_id"`
	// Seq is the checkpoint to fork from; 0 means the one before the
	// newest (checkpoint N-1).
	Seq int `json:"seq,omitempty"`
	// Error is the failure to correct: quoted in the lesson-learned note.
	Error string `json:"error"`
	// NewSessionID names the new session; generated when absent.
	NewSessionID string `json:"new_session_id,omitempty"`
	// Model, ContextWindow and Budget configure the pruner (the
	// checkpoint's model when absent).
	Model         string `json:"model,omitempty"`
	ContextWindow int    `json:"context_window,omitempty"`
	Budget        int    `json:"budget,omitempty"`
}

// ForkResult is the answer of ctx/sessions/fork.
type ForkResult struct {
	SessionID string          `json:"session_id"`
	Parent    sessions.Parent `json:"parent"`
	// Checkpoint is the new session's first checkpoint; its history is
	// the parent's, pruned for the retry, ending with the lesson note.
	Checkpoint *sessions.Checkpoint `json:"checkpoint"`
	// Report is the pruner's account of each message.
	Report   *prune.Report `json:"report"`
	Warnings []string      `json:"warnings,omitempty"`
}

// ForkSession starts a new session from an earlier checkpoint of another
// (fork_and_correct): the checkpoint before the newest unless one is
// named, its conversation history pruned for a retry with the error's
// lesson-learned note, state running, parent recorded. The old session's
// timeline is not touched.
func (e *Engine) ForkSession(ctx context.Context, req ForkRequest) (*ForkResult, error) {
	if req.SessionID == "" {
		return nil, fmt.Errorf("session_id is required: %w", ctxd.ErrInvalidParams)
	}
	if strings.TrimSpace(req.Error) == "" {
		return nil, fmt.Errorf("error is required: the failure the fork corrects goes into the lesson-learned note: %w", ctxd.ErrInvalidParams)
	}
	if req.Seq < 0 {
		return nil, fmt.Errorf("seq must not be negative, got %d: %w", req.Seq, ctxd.ErrInvalidParams)
	}
	newID := req.NewSessionID
	if newID == "" {
		newID = newSessionID()
	} else if err := sessions.ValidID(newID); err != nil {
		return nil, fmt.Errorf("new_session_id: %w", err)
	}
	st, err := e.SessionStore()
	if err != nil {
		return nil, err
	}
	res := &ForkResult{SessionID: newID}
	seq := req.Seq
	if seq == 0 {
		tl, err := st.Timeline(ctx, req.SessionID)
		if err != nil {
			return nil, err
		}
		var good []int
		for _, en := range tl.Entries {
			if en.Problem == "" {
				good = append(good, en.Seq)
			}
		}
		switch len(good) {
		case 0:
			return nil, fmt.Errorf("fork session %s: none of its checkpoints verifies: %w", req.SessionID, sessions.ErrCorrupt)
		case 1:
			seq = good[0]
			res.Warnings = append(res.Warnings, fmt.Sprintf("session %s has one readable checkpoint; forked from it (%d)", req.SessionID, seq))
		default:
			seq = good[len(good)-2]
		}
	}
	r, err := st.Restore(ctx, req.SessionID, seq)
	if err != nil {
		return nil, err
	}
	src := r.Checkpoint

	format, err := request.ParseFormat(src.HistoryFormat)
	if err != nil {
		format = ""
	}
	model := req.Model
	if model == "" {
		model = src.Model
	}
	wrapAs := format
	if wrapAs == "" {
		if f, err := historyFormat(src.ConversationHistory, ""); err == nil {
			wrapAs = f
		}
	}
	body := request.WrapHistory(src.ConversationHistory, wrapAs, model)
	out, rep, err := prune.ForRetry(ctx, body, req.Error, prune.Options{Model: model, ContextWindow: req.ContextWindow, Budget: req.Budget, Format: format, Logger: e.log})
	if err != nil {
		return nil, fmt.Errorf("fork session %s at checkpoint %d: prune the history: %w", req.SessionID, seq, err)
	}
	hist, err := unwrapHistory(out)
	if err != nil {
		return nil, fmt.Errorf("fork session %s at checkpoint %d: %w", req.SessionID, seq, err)
	}
	next := *src
	next.SessionID = newID
	next.Seq = 0
	next.Timestamp = time.Time{}
	next.Checksum = ""
	next.State = sessions.StateRunning
	next.Parent = &sessions.Parent{SessionID: req.SessionID, Seq: seq}
	next.ConversationHistory = hist
	next.HistoryFormat = string(rep.Format)
	next.Root = e.root
	next.Note = fmt.Sprintf("fork of %s at checkpoint %d to retry after: %s", req.SessionID, seq, firstLine(req.Error, 200))
	cp, err := st.Create(ctx, &next)
	if err != nil {
		return nil, err
	}
	res.Parent = *next.Parent
	res.Checkpoint = cp
	res.Report = rep
	return res, nil
}

// unwrapHistory takes the messages (or Responses input) back out of a
// pruned request body.
func unwrapHistory(body []byte) (json.RawMessage, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		return nil, fmt.Errorf("read the pruned history: %w", err)
	}
	for _, k := range []string{"messages", "input"} {
		if v, ok := top[k]; ok && len(bytes.TrimSpace(v)) > 0 && bytes.TrimSpace(v)[0] == '[' {
			return v, nil
		}
	}
	return nil, errors.New("read the pruned history: no messages in the pruner's output")
}

// firstLine returns s's first non-empty line, cut to n runes.
func firstLine(s string, n int) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			if r := []rune(l); len(r) > n {
				return string(r[:n]) + "…"
			}
			return l
		}
	}
	return ""
}
