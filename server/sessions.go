package server

import "github.com/ctxd/ctxd/engine"

// The session methods: checkpoints and timelines (docs/sessions.md).
// Methods that write (save, fork, delete) run in wire order, so a client
// that saves and then restores sees its save; reads and resume (which
// runs the pipeline) may run concurrently.
func init() {
	register(
		method{name: "ctx/checkpoint/save", handle: engineMethod((*engine.Engine).SaveCheckpoint)},
		method{name: "ctx/checkpoint/restore", async: true, handle: engineMethod((*engine.Engine).RestoreCheckpoint)},
		method{name: "ctx/sessions/list", async: true, handle: engineMethod((*engine.Engine).ListSessions)},
		method{name: "ctx/sessions/resume", async: true, handle: engineMethod((*engine.Engine).ResumeSession)},
		method{name: "ctx/sessions/timeline", async: true, handle: engineMethod((*engine.Engine).SessionTimeline)},
		method{name: "ctx/sessions/fork", handle: engineMethod((*engine.Engine).ForkSession)},
		method{name: "ctx/sessions/delete", handle: engineMethod((*engine.Engine).DeleteSession)},
	)
}
