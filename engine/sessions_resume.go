package engine

import (
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

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/safefs"
	"github.com/ctxd/ctxd/sessions"
	"github.com/ctxd/ctxd/workspace/tree"
)

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
	abs, _, err := tree.Resolve(e.root, source)
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
		// The recorded budget is the build's resolved one. Parts the
		// caller set stay set; otherwise they plan as the build did, the
		// request's spare share moving to the context.
		callerParts := req.TokenBudget != nil && req.TokenBudget.System+req.TokenBudget.Context+req.TokenBudget.UserRequest+req.TokenBudget.Response > 0
		req.TokenBudget = &BudgetRequest{System: b.System, Context: b.Context, UserRequest: b.UserRequest, Response: b.Response}
		req.recordedParts = !callerParts
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
		if _, rel, err := tree.Resolve(e.root, of.Path); err == nil && fileExists(e.root, rel) && !e.refusedSource(ctx, rel, listed) {
			of.Text = nil
			if of.CheckPosition() != nil {
				// A checkpoint from before positions were checked, or
				// from elsewhere: the file is still open, its position
				// is not.
				of.Line, of.Selection = 0, nil
			}
			ofs = append(ofs, of)
			open[rel] = true
		}
	}
	for _, c := range cp.Chunks {
		if c.Open && exists[c.Source] && !open[c.Source] {
			of := ctxd.OpenFile{Path: c.Source, Line: c.Cursor, Selection: c.Selection}
			if of.CheckPosition() != nil {
				of.Line, of.Selection = 0, nil
			}
			ofs = append(ofs, of)
			open[c.Source] = true
		}
	}
	req.OpenFiles = ofs
	var pats []string
	for _, p := range req.Patterns {
		if strings.ContainsAny(p, "*?[{") {
			pats = append(pats, p)
		} else if _, rel, err := tree.Resolve(e.root, p); err == nil && fileExists(e.root, rel) && !e.refusedSource(ctx, rel, listed) {
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
