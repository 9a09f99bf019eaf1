// Package sessions is ctxd's store of session checkpoints and timelines:
// what an editor needs to resume a task when it reopens a workspace, and
// what an agent needs to fork a failed attempt from an earlier checkpoint
// (the Token Diet's fork_and_correct).
//
// A session is a directory under the state directory's sessions/ folder
// (see [StateDir]); each checkpoint is its own immutable file, 000001.json,
// 000002.json, ..., so the timeline of a session is its directory listing.
// A save allocates the next number under an OS file lock on the session's
// lock file, writes a temporary file, fsyncs it, publishes it with a hard
// link (which fails rather than replace an existing checkpoint) and fsyncs
// the directory; a crash at any moment leaves either the previous state or
// the new checkpoint complete, plus at most an orphaned temporary file that
// is never loaded. Two processes saving to one session therefore never
// overwrite each other's checkpoints.
//
// Every checkpoint file ends with a SHA-256 checksum of the bytes before
// it, and carries a schema version; [Decode] verifies both, and migrates
// older versions on read (version 1 is the seed design's plain checkpoint
// JSON). A file that does not verify is reported as a [Problem] with its
// path and the reason, skipped, and never deleted: not by retention, not
// by [Store.GC], not by [Store.Delete].
//
// The store records envelopes and histories; it never recomputes them
// (the engine does, for resume and fork). The design is in
// docs/sessions.md.
package sessions
