// Package index keeps a workspace's file facts across requests and
// processes, so that a warm request does no work for what has not changed.
//
// Two parts, used by tree.Tree:
//
//   - [Watcher] follows the tree with inotify (github.com/fsnotify/fsnotify):
//     one watch per directory the walk kept, plus the git directory (HEAD,
//     index, refs). It records which paths changed since the last
//     [Watcher.Take]; a request that finds nothing changed skips the walk
//     and reuses the cached git facts. When the kernel's watch limit is hit
//     (ENOSPC), the queue overflows, or a directory appears or vanishes, the
//     watcher asks for a full rescan instead of guessing; a watcher that
//     could not watch everything reports [Watcher.Degraded] and the caller
//     falls back to walking on every request (the behavior without a
//     daemon).
//
//   - [Save] and [Load] persist per-file facts ([File]: path, size, mtime,
//     content hash, language and lexical terms) under the workspace's state
//     directory: versioned, written atomically (temporary file and rename),
//     and verified on load (magic, version, key and a CRC-32C of the body:
//     a check against damage, computed by the CPU at several GB/s).
//     A file's facts are reused only while its size and modification time
//     match and its mtime is older than the snapshot (git's racy-clean
//     rule); anything else is read again. A corrupt, foreign or stale index
//     is an error from Load, and the caller rebuilds: it is never trusted.
//
//   - [WriteSealed] and [ReadSealed] keep the other derived facts beside
//     the index (gather's file graph, keyed by a digest of the files it is
//     built from, and its HEAD-keyed git history) with the same rules:
//     atomic writes, a magic, the key and a SHA-256 checked on read, and a
//     rebuild for anything that does not verify.
//
// Ranking reads the facts through [Snapshot.Each] and [Snapshot.Lookup].
package index
