// Package gather collects the candidate context of a request from a
// workspace: files (open in the editor, matched by patterns, named in the
// request or in a stack trace, picked by the task type, or ranked lexically
// against the request), the workspace structure, a summary of the
// dependency manifests and the git history and uncommitted changes.
//
// A [Workspace] walks its root once, honoring .gitignore files,
// .git/info/exclude, core.excludesFile and .ctxdignore, and keeps what it
// learned (file facts and a BM25 index of paths and identifiers) between
// requests; later requests only read the files that changed. Secret files
// are never gathered unless the user names them explicitly, and nothing
// outside the root is ever read. The design, the priority table and the
// ranking method are in docs/gathering.md.
package gather
