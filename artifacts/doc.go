// Package artifacts is ctxd's content-addressed store of the texts Smart
// Context takes out of a model request (large tool outputs, condensed
// history, binary-like blobs), so that a reference left in their place can
// be rehydrated later, whole or by line range.
//
// A session scope is a folder of its own under the state directory's
// artifacts/ folder (see [Dir]), named by a hash of the session id, so a
// lookup for one session never touches another session's folder: a
// session can only read what it stored, even when two sessions store the
// same text (each keeps its own copy). Its artifacts are records appended
// to one pack file, <state>/artifacts/<scope>/pack (see [PackPath]; the
// record format is in docs/smart-context.md): a call that stores many
// texts appends to one file instead of creating one file per text.
// Artifacts of the earlier layout, one file per artifact named by its
// SHA-256, stay readable.
//
// Appends take an exclusive lock on the pack, so the CLI and the daemon
// may write one session at once; every record carries a header checksum
// and every read verifies the content against its hash: a damaged or
// altered record is [ErrCorrupt] or skipped, a missing one wraps
// [ctxd.ErrNotFound]; neither is repaired silently, but [Store.Put] of
// the original bytes stores a fresh copy. [Store.Flush] makes the records
// appended since the last flush durable (with [Options.Sync]). The store
// has a size cap: when it is exceeded the least recently used packs and
// files (by modification time, refreshed on use) are removed, never ones
// used in the last [Options.Protect].
//
// The store keeps nothing in memory that the files do not say, except an
// index of each pack's records and a cache of what it has verified,
// so two processes over one directory (a daemon restarted between turns)
// see the same artifacts. The design is in docs/smart-context.md.
package artifacts
