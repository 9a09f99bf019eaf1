package smart

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/artifacts"
	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/internal/byteview"
)

// resolveRef expands a marker's hash prefix in a scope, caching what it
// finds (artifacts are immutable; eviction is caught by Verify).
func (o *Optimizer) resolveRef(ctx context.Context, scope, prefix string) (string, error) {
	if o.opts.Store == nil {
		return "", fmt.Errorf("no artifact store: %w", ctxd.ErrNotFound)
	}
	key := scope + "/" + prefix
	o.refsMu.Lock()
	full, ok := o.refs[key]
	o.refsMu.Unlock()
	if ok {
		return full, nil
	}
	full, err := o.opts.Store.Resolve(ctx, scope, prefix)
	if err != nil {
		return "", err
	}
	o.refsMu.Lock()
	if len(o.refs) >= maxCached {
		clear(o.refs)
	}
	o.refs[key] = strings.Clone(full) // the prefix itself when it is whole: a view of the body
	o.refsMu.Unlock()
	return full, nil
}

// Rehydrate returns lines start..end (1-based, inclusive; 0, 0 for all)
// of the artifact a reference names, from the session's scope, verified
// against its hash: ctx/rehydrate and `ctxd rehydrate`.
func Rehydrate(ctx context.Context, store *artifacts.Store, session, hash string, start, end int) (*artifacts.Lines, error) {
	if err := ctxd.ValidSessionID(session); err != nil {
		return nil, fmt.Errorf("rehydrate: %w", err)
	}
	l, err := store.Lines(ctx, session, hash, start, end)
	if err != nil {
		return nil, fmt.Errorf("rehydrate: %w", err)
	}
	return l, nil
}

// inputRefs checks the references a segment of the input carries: each
// must resolve and verify; when the latest turn asks for one, the text it
// stands for is put back. A reference that does not resolve is recorded:
// a live call then fails closed (see run.optimize), shadow and canary-out
// calls report it.
func (r *run) inputRefs(c *cand) {
	c.class, c.reason = request.ClassRehydratableExact, "carries ctxd references"
	ms := request.ParseMarkers(c.seg.Text)
	requested := false
	full := ""
	ok := true
	for _, m := range ms {
		asked := r.latestHas(m.Hash[:12])
		requested = requested || asked
		h, err := r.o.resolveRef(r.ctx, r.scope, m.Hash)
		if err == nil {
			_, err = r.o.opts.Store.Verify(r.ctx, r.scope, h)
		}
		if err != nil {
			ok = false
			reason := "artifact missing"
			if errors.Is(err, artifacts.ErrCorrupt) {
				reason = "artifact does not verify against its sha256"
				r.hashFails[m.Hash] = true
			}
			if asked {
				r.missingReq[m.Hash] = true
			}
			r.unresolved = append(r.unresolved, Unresolved{Item: c.ref.Item, Seg: c.ref.Seg, SHA256: m.Hash, Reason: reason})
			c.decision, c.reason = DecisionUnresolved, reason+"; segment kept as it was"
			r.refErrs = append(r.refErrs, fmt.Errorf("item %d segment %d: reference sha256=%s of session %s: %s: %w", c.ref.Item, c.ref.Seg, m.Hash, r.scope, reason, err))
			continue
		}
		if full == "" {
			full = h
		} else if full != h {
			ok = false // references to two texts: not one text to put back
		}
	}
	if !requested || !ok || full == "" || !r.payloadValue(c.seg) {
		return
	}
	content, _, err := r.o.opts.Store.Get(r.ctx, r.scope, full)
	if err != nil {
		if errors.Is(err, artifacts.ErrCorrupt) {
			r.hashFails[full] = true
		}
		r.missingReq[full] = true
		r.unresolved = append(r.unresolved, Unresolved{Item: c.ref.Item, Seg: c.ref.Seg, SHA256: full, Reason: err.Error()})
		c.decision, c.reason = DecisionUnresolved, "artifact could not be read; segment kept as it was"
		r.refErrs = append(r.refErrs, fmt.Errorf("item %d segment %d: reference sha256=%s of session %s could not be read: %w", c.ref.Item, c.ref.Seg, full[:request.MarkerHashLen], r.scope, err))
		return
	}
	c.transform, c.text, c.rehydrate, c.artifact = TransformRehydrate, string(content), content, full
	c.after = r.segTokens(c.seg, c.text)
	c.alloc = c.after
	c.decision, c.reason = DecisionRewritten, "the latest turn asks for the referenced text"
}

// storeArtifacts writes the texts the selected references stand for. A
// write that fails leaves its segment as it was.
func (r *run) storeArtifacts() {
	r.stored = map[string]ArtifactUse{}
	defer r.flushArtifacts()
	for _, c := range r.cands {
		if !c.selected() || c.artifact == "" || c.transform == TransformRehydrate {
			continue
		}
		if use, ok := r.stored[c.artifact]; ok {
			c.status = use.Status
			continue
		}
		ref, status, err := r.o.opts.Store.Put(r.ctx, r.scope, byteview.ReadOnly(c.seg.Text))
		if err == nil && ref.Hash != c.artifact {
			err = fmt.Errorf("stored hash %s differs from the text's %s", ref.Hash[:12], c.artifact[:12])
		}
		if err != nil {
			c.decision, c.reason = DecisionUnresolved, "artifact could not be stored; segment kept as it was"
			r.unresolved = append(r.unresolved, Unresolved{Item: c.ref.Item, Seg: c.ref.Seg, SHA256: c.artifact, Reason: err.Error()})
			r.rep.SegmentRollbackCount++
			r.o.log.Warn("artifact store failed; segment kept", "sha256", c.artifact[:12], "error", err)
			continue
		}
		if status == artifacts.StatusRepaired {
			r.hashFails[c.artifact] = true
		}
		c.status = status
		r.stored[c.artifact] = ArtifactUse{Ref: ref, Status: status}
	}
	if !r.continuation() {
		return
	}
	// A request that continues server-side state carries each output once:
	// the next turns can only recognize a repeat of it, and rehydrate it,
	// from the store.
	for _, c := range r.cands {
		if c.selected() || c.seg.Kind != request.SegToolResult || c.seg.Tokens < minPayloadTokens || c.decision == DecisionUnresolved || request.HasMarker(c.seg.Text) {
			continue
		}
		if _, ok := r.stored[c.in.Hash]; ok {
			continue
		}
		_, status, err := r.o.opts.Store.Put(r.ctx, r.scope, byteview.ReadOnly(c.seg.Text))
		if err != nil {
			r.o.log.Warn("artifact store failed for a continued output", "sha256", c.in.Hash[:12], "error", err)
			continue
		}
		if status == artifacts.StatusRepaired {
			r.hashFails[c.in.Hash] = true
		}
		if status != artifacts.StatusExists {
			r.keptStored++
		}
	}
}

// flushArtifacts makes the texts just stored durable before the reply
// that refers to them (one fsync per pack with [artifacts.Options.Sync],
// not one per artifact). If that fails, no reference to them is emitted:
// their segments are kept as they were.
func (r *run) flushArtifacts() {
	if r.o.opts.Store == nil || len(r.stored) == 0 {
		return
	}
	err := r.o.opts.Store.Flush()
	if err == nil {
		return
	}
	r.o.log.Warn("artifact store flush failed; segments kept", "error", err)
	for _, c := range r.cands {
		if !c.selected() || c.artifact == "" || c.transform == TransformRehydrate {
			continue
		}
		c.decision, c.reason = DecisionUnresolved, "artifact could not be made durable; segment kept as it was"
		r.unresolved = append(r.unresolved, Unresolved{Item: c.ref.Item, Seg: c.ref.Seg, SHA256: c.artifact, Reason: err.Error()})
		r.rep.SegmentRollbackCount++
	}
	r.stored = map[string]ArtifactUse{}
}

// planArtifacts records, in shadow mode, the artifacts a live call would
// store, without writing them.
func (r *run) planArtifacts() {
	r.stored = map[string]ArtifactUse{}
	for _, c := range r.cands {
		if c.selected() && c.artifact != "" && c.transform != TransformRehydrate {
			c.status = "planned"
			r.stored[c.artifact] = ArtifactUse{Ref: artifacts.Ref{Hash: c.artifact, Bytes: c.in.Bytes, Lines: c.in.Lines}, Status: "planned"}
		}
	}
}

// textRefs checks the references in message texts that are not payload
// candidates (an earlier summary of the pruner, a message the hard
// budget reduced to its reference): each must resolve and verify, like
// those in tool outputs; a live call fails closed on one that does not.
func (r *run) textRefs() {
	seen := map[request.SegRef]bool{}
	for _, c := range r.cands {
		seen[c.ref] = true
	}
	for i, it := range r.req.Items {
		for j := range it.Segments {
			s := &it.Segments[j]
			ref := request.SegRef{Item: i, Seg: j}
			if seen[ref] || s.Kind != request.SegText || !strings.Contains(s.Text, request.MarkerOpen) {
				continue
			}
			for _, m := range request.ParseMarkers(s.Text) {
				h, err := r.o.resolveRef(r.ctx, r.scope, m.Hash)
				if err == nil {
					_, err = r.o.opts.Store.Verify(r.ctx, r.scope, h)
				}
				if err == nil {
					continue
				}
				reason := "artifact missing"
				if errors.Is(err, artifacts.ErrCorrupt) {
					reason = "artifact does not verify against its sha256"
					r.hashFails[m.Hash] = true
				}
				r.unresolved = append(r.unresolved, Unresolved{Item: i, Seg: j, SHA256: m.Hash, Reason: reason})
				r.refErrs = append(r.refErrs, fmt.Errorf("item %d segment %d: reference sha256=%s of session %s: %s: %w", i, j, m.Hash, r.scope, reason, err))
			}
		}
	}
}
