package smart

import (
	"encoding/json"
	"strings"

	"github.com/ctxd/ctxd/compact/request"
)

// correctiveWords open or fill a user message that corrects the model.
var correctiveWords = []string{"no,", "no.", "that's wrong", "that is wrong", "not what i asked", "you forgot", "still fail", "still broken", "doesn't work", "didn't work", "does not work", "try again", "revert that", "undo that", "wrong file", "i said"}

// pathKeys are the argument names that carry a file path.
var pathKeys = []string{"path", "file_path", "filepath", "file", "filename", "target_file"}

// quality computes the quality proxies the request itself shows.
func (r *run) quality() {
	t := &r.rep.Telemetry
	t.InvalidToolCallContinuaton += len(r.pairing().Orphans)
	seenCall := map[string]bool{}
	seenPath := map[string]bool{}
	firstUser := true
	latestUser := -1
	for i, it := range r.req.Items {
		if it.Role() == "user" && !it.Notice && hasUserText(it) {
			latestUser = i
			if firstUser {
				firstUser = false
			} else if corrective(it) {
				t.CorrectiveUserMessages++
			}
		}
		for j := range it.Segments {
			s := &it.Segments[j]
			if s.Kind != request.SegToolCall {
				continue
			}
			k := s.Name() + "\x00" + s.Text
			if seenCall[k] {
				t.RepeatedToolCallCount++
			}
			seenCall[k] = true
			if p := readPath(s); p != "" {
				if seenPath[p] {
					t.ModelRereadRequests++
				}
				seenPath[p] = true
			}
		}
	}
	if !r.o.session(r.scope).rewritten || latestUser < 0 {
		return
	}
	for _, it := range r.req.Items[latestUser+1:] {
		for j := range it.Segments {
			s := &it.Segments[j]
			if s.Kind != request.SegToolResult {
				continue
			}
			in := r.o.cache.Info(r.o.cache.Key(s.Text), s.Text)
			if in.IsBuild && (in.IsError || s.IsError) {
				t.TestOrBuildFailedAfter++
			}
		}
	}
}

func corrective(it *request.Item) bool {
	text := strings.ToLower(it.Text())
	for _, w := range correctiveWords {
		if strings.HasPrefix(text, w) || strings.Contains(text, " "+w) {
			return true
		}
	}
	return false
}

// readPath returns the path a file-reading call reads, or "".
func readPath(s *request.Segment) string {
	if !request.NameHas(s.Name(), request.ReadTools) || len(s.Text) > 4096 || !strings.HasPrefix(strings.TrimSpace(s.Text), "{") {
		return ""
	}
	var args map[string]any
	if json.Unmarshal([]byte(s.Text), &args) != nil {
		return ""
	}
	for _, k := range pathKeys {
		if p, ok := args[k].(string); ok && p != "" {
			return p
		}
	}
	return ""
}
