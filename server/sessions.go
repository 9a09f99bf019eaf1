package server

import (
	"context"
	"encoding/json"

	"github.com/ctxd/ctxd/engine"
)

// The session methods: checkpoints and timelines (docs/sessions.md).
// Methods that write (save, fork, delete) run in wire order, so a client
// that saves and then restores sees its save; reads and resume (which
// runs the pipeline) may run concurrently.
func init() {
	register(
		method{name: "ctx/checkpoint/save", handle: saveCheckpoint},
		method{name: "ctx/checkpoint/restore", async: true, handle: restoreCheckpoint},
		method{name: "ctx/sessions/list", async: true, handle: listSessions},
		method{name: "ctx/sessions/resume", async: true, handle: resumeSession},
		method{name: "ctx/sessions/timeline", async: true, handle: sessionTimeline},
		method{name: "ctx/sessions/fork", handle: forkSession},
		method{name: "ctx/sessions/delete", handle: deleteSession},
	)
}

func saveCheckpoint(ctx context.Context, cl *client, params json.RawMessage) (any, error) {
	var req engine.SaveRequest
	if err := decode(params, &req); err != nil {
		return nil, err
	}
	return cl.engine().SaveCheckpoint(ctx, req)
}

func restoreCheckpoint(ctx context.Context, cl *client, params json.RawMessage) (any, error) {
	var req engine.RestoreRequest
	if err := decode(params, &req); err != nil {
		return nil, err
	}
	return cl.engine().RestoreCheckpoint(ctx, req)
}

func listSessions(ctx context.Context, cl *client, params json.RawMessage) (any, error) {
	var req engine.ListRequest
	if err := decode(params, &req); err != nil {
		return nil, err
	}
	return cl.engine().ListSessions(ctx, req)
}

func resumeSession(ctx context.Context, cl *client, params json.RawMessage) (any, error) {
	var req engine.ResumeRequest
	if err := decode(params, &req); err != nil {
		return nil, err
	}
	return cl.engine().ResumeSession(ctx, req)
}

func sessionTimeline(ctx context.Context, cl *client, params json.RawMessage) (any, error) {
	var req engine.TimelineRequest
	if err := decode(params, &req); err != nil {
		return nil, err
	}
	return cl.engine().SessionTimeline(ctx, req)
}

func forkSession(ctx context.Context, cl *client, params json.RawMessage) (any, error) {
	var req engine.ForkRequest
	if err := decode(params, &req); err != nil {
		return nil, err
	}
	return cl.engine().ForkSession(ctx, req)
}

func deleteSession(ctx context.Context, cl *client, params json.RawMessage) (any, error) {
	var req engine.DeleteRequest
	if err := decode(params, &req); err != nil {
		return nil, err
	}
	return cl.engine().DeleteSession(ctx, req)
}
