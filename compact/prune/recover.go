package prune

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxd/ctxd/artifacts"
	"github.com/ctxd/ctxd/compact/request"
	"github.com/ctxd/ctxd/compact/signal"
	"github.com/ctxd/ctxd/internal/byteview"
)

// checkRefs fails closed on the references the input carries: each must
// resolve in the scope and verify against its hash. Without a store
// nothing can be checked, and nothing is (a library caller that keeps
// no artifacts).
func (r *run) checkRefs(ctx context.Context) error {
	st := r.p.opts.Store
	if st == nil {
		return nil
	}
	for i, it := range r.req.Items {
		for j := range it.Segments {
			s := &it.Segments[j]
			if !strings.Contains(s.Text, request.MarkerOpen) {
				continue
			}
			for _, m := range request.ParseMarkers(s.Text) {
				full, err := st.Resolve(ctx, r.scope, m.Hash)
				if err == nil {
					_, err = st.Verify(ctx, r.scope, full)
				}
				if err != nil {
					if ctx.Err() != nil {
						return ctx.Err()
					}
					why := "not stored"
					if errors.Is(err, artifacts.ErrCorrupt) {
						why = "does not verify against its sha256"
					}
					return fmt.Errorf("compress messages: item %d segment %d: reference sha256=%s of session %s %s: %w", i, j, m.Hash, r.scope, why, request.ErrUnresolvedReference)
				}
			}
		}
	}
	return nil
}

// stash records a text that a reference in the output stands for; the
// run stores every stashed text before it emits anything.
func (r *run) stash(hash, text string) {
	if r.stashed == nil {
		r.stashed = map[string]string{}
	}
	r.stashed[hash] = text
}

// storeStashed writes the stashed texts to the store. A write that fails
// fails the run: a reference that would not resolve is never emitted.
func (r *run) storeStashed(ctx context.Context) error {
	st := r.p.opts.Store
	if st == nil {
		return nil
	}
	for hash, text := range r.stashed {
		ref, _, err := st.Put(ctx, r.scope, []byte(text))
		if err != nil {
			return fmt.Errorf("compress messages: store the text behind reference %s: %w", hash[:min(len(hash), request.MarkerHashLen)], err)
		}
		if ref.Hash != hash {
			return fmt.Errorf("compress messages: stored text hashes to %s, not %s", ref.Hash, hash)
		}
	}
	// Durable before the reply that refers to them: one fsync per pack
	// (with artifacts.Options.Sync), not one per text.
	if len(r.stashed) > 0 {
		if err := st.Flush(); err != nil {
			return fmt.Errorf("compress messages: make stored texts durable: %w", err)
		}
	}
	return nil
}

// referenceText is a tool output reduced to its reference: the error
// line it ends with (error output) and the marker. It is the last step
// before eviction; the whole text is behind the marker.
func referenceText(text, hash string, isErr bool, rt request.Retrieval) (string, bool) {
	m := markerWith(rt, len([]rune(text)), hash, len(text), byteview.CountLines(text))
	out := m
	if isErr {
		if l := signal.ErrorLine(text); l != "" {
			out = l + "\n" + m
		}
	}
	return out, len(out) < len(text)
}

// evictedText renders the evicted items as the artifact the summary's
// reference stands for: each item's texts, tool calls and tool outputs
// verbatim, under a header naming the item. It is written once into a
// builder of its size: no copy per item, no builder doubling.
func (r *run) evictedText() string {
	size, _ := r.evictedSize()
	var sb strings.Builder
	sb.Grow(size)
	for i, it := range r.req.Items {
		if r.st[i].summed {
			WriteEvictedPiece(&sb, i, it)
		}
	}
	return sb.String()
}

// evictedSize is the length and the line count of evictedText, without
// building it.
func (r *run) evictedSize() (size, lines int) {
	for i := range r.req.Items {
		if r.st[i].summed {
			n, l := r.pieceSize(i)
			size += n
			lines += l
		}
	}
	return size, lines
}

// pieceSize is the length and the line count of item i's part of
// evictedText, measured once per run.
func (r *run) pieceSize(i int) (size, lines int) {
	st := &r.st[i]
	if !st.pieceDone {
		var c lineCounter
		WriteEvictedPiece(&c, i, r.req.Items[i])
		st.pieceLen, st.pieceLines, st.pieceDone = c.n, int32(c.lines), true
	}
	return st.pieceLen, int(st.pieceLines)
}

// EvictedPiece renders item i of a request as the artifact of evicted
// messages holds it: a header naming the item, then its texts, tool
// calls and tool outputs verbatim. Both compactors' evictions store
// their spans in this form.
func EvictedPiece(i int, it *request.Item) string {
	var sb strings.Builder
	sb.Grow(EvictedPieceLen(i, it))
	WriteEvictedPiece(&sb, i, it)
	return sb.String()
}

// PieceWriter is where [WriteEvictedPiece] writes: a *strings.Builder,
// a *bytes.Buffer, or a counter.
type PieceWriter interface {
	WriteString(s string) (int, error)
	WriteByte(c byte) error
}

// EvictedPieceLen is len(EvictedPiece(i, it)), without rendering it.
func EvictedPieceLen(i int, it *request.Item) int {
	var n pieceCounter
	WriteEvictedPiece(&n, i, it)
	return int(n)
}

// WriteEvictedPiece writes EvictedPiece(i, it) to w, the texts straight
// from the item (no formatted copy of a large output): callers that
// size w first with [EvictedPieceLen] hold the text once.
func WriteEvictedPiece(w PieceWriter, i int, it *request.Item) {
	role := it.Role()
	if role == "" {
		role = it.Kind.String()
	}
	w.WriteString("=== message ")
	w.WriteString(strconv.Itoa(i))
	w.WriteString(" (")
	w.WriteString(role)
	w.WriteString(") ===\n")
	for j := range it.Segments {
		s := &it.Segments[j]
		switch s.Kind {
		case request.SegToolCall:
			w.WriteString("[tool call ")
			w.WriteString(s.CallID())
			w.WriteByte(' ')
			w.WriteString(s.Name())
			w.WriteString("]\n")
			w.WriteString(s.Text)
			w.WriteByte('\n')
		case request.SegToolResult:
			w.WriteString("[tool result ")
			w.WriteString(s.CallID())
			w.WriteString("]\n")
			w.WriteString(s.Text)
			w.WriteByte('\n')
		case request.SegImage:
			w.WriteString("[image]\n")
		default:
			if s.Text != "" {
				w.WriteString(s.Text)
				w.WriteByte('\n')
			}
		}
	}
}

// pieceCounter counts what is written to it.
type pieceCounter int

func (c *pieceCounter) WriteString(s string) (int, error) {
	*c += pieceCounter(len(s))
	return len(s), nil
}

func (c *pieceCounter) WriteByte(byte) error {
	*c++
	return nil
}

// lineCounter counts the bytes and the newlines written to it.
type lineCounter struct{ n, lines int }

func (c *lineCounter) WriteString(s string) (int, error) {
	c.n += len(s)
	c.lines += strings.Count(s, "\n")
	return len(s), nil
}

func (c *lineCounter) WriteByte(b byte) error {
	c.n++
	if b == '\n' {
		c.lines++
	}
	return nil
}

// evictedList names the evicted items compactly: "3-7, 9".
func (r *run) evictedList() string {
	var parts []string
	n := len(r.st)
	for i := 0; i < n; i++ {
		if !r.st[i].summed {
			continue
		}
		j := i
		for j+1 < n && r.st[j+1].summed {
			j++
		}
		parts = append(parts, request.RangeText(i, j))
		i = j
	}
	return strings.Join(parts, ", ")
}

// dedupe is the one rewrite made at any pressure, since it loses
// nothing: a tool output identical to an earlier one in the request
// becomes a reference to it ("dup", with the text stored like any
// other), outside the protected items.
func (r *run) dedupe() {
	type anchor struct {
		item int
		call string
	}
	first := map[request.TextKey]anchor{}
	for i, it := range r.req.Items {
		st := &r.st[i]
		for j := range it.Segments {
			seg := &it.Segments[j]
			if seg.Kind != request.SegToolResult || seg.Value().Len() == 0 || len(seg.Text) < minHidden || len(seg.Images()) > 0 {
				continue
			}
			k := r.key(seg)
			a, seen := first[k]
			if !seen {
				if !st.gone {
					first[k] = anchor{item: i, call: seg.CallID()}
				}
				continue
			}
			if st.gone || st.protected || seg.Class != request.ClassDroppableDuplicate {
				continue
			}
			where := fmt.Sprintf("message %d", a.item)
			if a.call != "" {
				where = fmt.Sprintf("call %s (message %d)", a.call, a.item)
			}
			hash := seg.Hash()
			text := r.rt.Marker(request.MarkerDup, hash, len(seg.Text), byteview.CountLines(seg.Text), "identical to the output of "+where)
			after := r.est.Segment(request.NewSegment(seg.Kind, seg.Name(), "", text))
			if after >= int(seg.Tokens) || !r.plan.SetText(request.SegRef{Item: i, Seg: j}, text) {
				continue
			}
			st.tokens -= int(seg.Tokens) - after
			r.condensed[i] = append(r.condensed[i], Condensed{Segment: j, Hash: hash, HiddenChars: len([]rune(seg.Text)), TokensBefore: int(seg.Tokens), TokensAfter: after})
			st.dups++
			st.reason = joinReason(st.reason, "duplicate tool output replaced by a reference to "+where)
			r.stash(hash, seg.Text)
		}
	}
}

// supersede is the second rewrite made at any pressure: the output of a
// file read that a later call reads again (the same lines or all of the
// file) or edits becomes a reference (the text stored like any other; see
// [request.Superseded]), outside the protected items. A read that
// failed or reports a failure is left alone; the source of a module that
// raises or catches errors is not error output ([signal.Info.Failure]).
func (r *run) supersede() {
	if r.p.opts.Store == nil {
		return // the text would not be recoverable
	}
	calls, where := request.Calls(r.req)
	sup := r.p.cache.Superseded(calls)
	if len(sup) == 0 {
		return
	}
	for i, it := range r.req.Items {
		st := &r.st[i]
		if st.gone || st.protected {
			continue
		}
		for j := range it.Segments {
			seg := &it.Segments[j]
			s, ok := sup[seg.CallID()]
			if !ok || seg.Kind != request.SegToolResult || seg.Value().Len() == 0 || len(seg.Text) < 2*minHidden || len(seg.Images()) > 0 || r.readFailed(seg) {
				continue
			}
			if slices.ContainsFunc(r.condensed[i], func(c Condensed) bool { return c.Segment == j }) {
				continue // a duplicate already
			}
			how := "read again"
			if s.Edit {
				how = "edited"
			}
			detail := fmt.Sprintf("%d %s: %s was %s by call %s (message %d)", len([]rune(seg.Text)), request.ReferencePrefix, strings.NewReplacer("[", "(", "]", ")").Replace(oneLine(s.Path)), how, s.By, where[s.By])
			hash := seg.Hash()
			text := r.rt.Marker(request.MarkerRef, hash, len(seg.Text), byteview.CountLines(seg.Text), detail)
			after := r.est.Segment(request.NewSegment(seg.Kind, seg.Name(), "", text))
			if after >= int(seg.Tokens) || !r.plan.SetText(request.SegRef{Item: i, Seg: j}, text) {
				continue
			}
			st.tokens -= int(seg.Tokens) - after
			r.condensed[i] = append(r.condensed[i], Condensed{Segment: j, Hash: hash, HiddenChars: len([]rune(seg.Text)), TokensBefore: int(seg.Tokens), TokensAfter: after})
			st.reason = joinReason(st.reason, "file read superseded: "+s.Path+" was "+how+" later")
			r.stash(hash, seg.Text)
		}
	}
}

// readFailed reports a file read whose output is error output: the call
// failed, or its text reports a failure (a traceback, "TypeError: …").
func (r *run) readFailed(s *request.Segment) bool {
	return s.IsError || r.p.cache.Info(r.key(s), s.Text).Failure
}
