package server

import (
	"context"
	"encoding/json"

	"github.com/ctxd/ctxd/workspace"
)

// statusMethod reports the workspace's background work; a client may poll
// it, so it does not pause that work (see handle).
const statusMethod = "ctx/status"

func init() {
	register(method{name: statusMethod, async: true, handle: status})
}

// StatusResult is the answer of ctx/status.
type StatusResult struct {
	Root string `json:"root"`
	// Analysis is the progress of the background analysis of the
	// workspace's source files (workspace.AnalysisStatus).
	Analysis workspace.AnalysisStatus `json:"analysis"`
}

// status answers ctx/status. It takes no params and may run concurrently
// with anything.
func status(_ context.Context, cl *client, params json.RawMessage) (any, error) {
	if err := decode(params, &struct{}{}); err != nil {
		return nil, err
	}
	e := cl.engine()
	return StatusResult{Root: e.Root(), Analysis: e.AnalysisStatus()}, nil
}
