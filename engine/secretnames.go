package engine

import (
	"fmt"
	"os"
	"slices"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/lang"
	"github.com/ctxd/ctxd/query"
	"github.com/ctxd/ctxd/workspace/tree"
)

// namedSecrets lists the secret files of root the request names by path
// ("why is the password in .env wrong") that the context does not hold:
// a mention never gathers one (docs/gathering.md), and the prompt said
// nothing of it. Every door warns of them alike (the CLI on stderr, MCP's
// build_context and the daemon's ctx/buildPrompt in the envelope's
// warnings): see namedSecretWarning.
func namedSecrets(q *query.Query, root string, chunks []ctxd.Chunk) []string {
	in := map[string]bool{}
	for _, c := range chunks {
		in[c.Source] = true
	}
	var out []string
	for _, w := range q.FileNames {
		if !lang.IsSecret(w) {
			continue // most words: no path to resolve
		}
		// Resolved as the doors resolve an open file (symlinks followed,
		// nothing outside the root, absolute paths in either spelling of
		// a root given through a symlink): a file named here is one that
		// opening reads, as the warning says.
		abs, rel, err := tree.Resolve(root, w)
		if err != nil || rel == "" || rel == "." || !lang.IsSecret(rel) || in[rel] || slices.Contains(out, rel) {
			continue
		}
		if st, err := os.Stat(abs); err == nil && st.Mode().IsRegular() {
			out = append(out, rel)
		}
	}
	return out
}

// namedSecretWarning says that the request names rel, a secret file it
// did not gather, and how to read it: by opening it (the CLI's --open,
// the daemon's open_files), or, for an agent whose named files are
// refused (refused: MCP without --allow-secret-files), not at all.
func namedSecretWarning(rel string, refused bool) string {
	if refused {
		return fmt.Sprintf("the request names %s, a secret file, which a mention does not gather and an agent's open_files does not read (start ctxd mcp with --allow-secret-files to allow it)", rel)
	}
	return fmt.Sprintf("the request names %s, a secret file, which a mention does not gather: opening it reads it (--open %s, or open_files; values a secret rule matches are redacted)", rel, rel)
}
