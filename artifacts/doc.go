// Package artifacts is ctxd's content-addressed store of the texts Smart
// Context takes out of a model request (large tool outputs, condensed
// history, binary-like blobs), so that a reference left in their place can
// be rehydrated later, whole or by line range.
//
// An artifact is a file named by the SHA-256 of its bytes, in a folder of
// its own per session scope under the state directory's artifacts/ folder
// (see [Dir]): <state>/artifacts/<scope>/<sha256>. The scope folder's name
// is a hash of the session id, so a lookup for one session never touches
// another session's folder: a session can only read what it stored, even
// when two sessions store the same text (each keeps its own copy).
//
// Writes are atomic (a temporary file renamed into place), and every read
// verifies the content against its name: a truncated or altered file is
// [ErrCorrupt], a missing one wraps [ctxd.ErrNotFound]; neither is
// repaired silently, but [Store.Put] of the original bytes replaces a file
// that does not verify. The store has a size cap: when it is exceeded the
// least recently used artifacts (by modification time, refreshed on use)
// are removed, never ones used in the last [Options.Protect].
//
// The store keeps nothing in memory that the files do not say, except a
// cache of which files it has verified (by size and modification time),
// so two processes over one directory (a daemon restarted between turns)
// see the same artifacts. The design is in docs/smart-context.md.
package artifacts
