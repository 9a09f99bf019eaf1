package gather

import (
	"bytes"
	"path"
	"strings"

	"github.com/ctxd/ctxd"
)

// fileRole is what a file is for, as far as ranking code for a task goes.
// Lexical scores are multiplied by the role's prior, so a changelog or an
// issue template that repeats the request's words cannot outrank the code
// that does what they describe.
type fileRole uint8

const (
	roleCode fileRole = iota
	roleDoc
	roleChangelog // CHANGELOG, HISTORY, NEWS, release notes: every past request's words
	roleMeta      // .github/, issue and PR templates, CODEOWNERS, funding
	roleConfig
	roleExample
	roleGenerated // "Code generated ... DO NOT EDIT", "@generated"
	roleVendored  // vendor/, third_party/, node_modules/
	roleFixture   // testdata/, fixtures/
)

var roleNames = [...]string{"code", "doc", "changelog", "meta", "config", "example", "generated", "vendored", "fixture"}

func (r fileRole) String() string { return roleNames[r] }

// Role priors for code tasks and for explanation requests ("how does X
// work", "explain"), where docs may rise, though never to code's level.
var (
	codePriors    = [...]float64{roleCode: 1, roleDoc: 0.35, roleChangelog: 0.1, roleMeta: 0.15, roleConfig: 0.5, roleExample: 0.5, roleGenerated: 0.3, roleVendored: 0.3, roleFixture: 0.4}
	explainPriors = [...]float64{roleCode: 1, roleDoc: 0.8, roleChangelog: 0.15, roleMeta: 0.2, roleConfig: 0.5, roleExample: 0.7, roleGenerated: 0.3, roleVendored: 0.3, roleFixture: 0.4}
)

// classifyRole returns the role of a root-relative path; generated says
// its text starts with a generated-code marker (generatedHead).
func classifyRole(rel string, generated bool) fileRole {
	lower := strings.ToLower(rel)
	base := path.Base(lower)
	stem := base
	if i := strings.IndexByte(stem, '.'); i > 0 {
		stem = stem[:i]
	}
	switch stem {
	case "changelog", "changes", "history", "news", "releases", "release-notes", "release_notes", "whatsnew", "upgrading", "migration":
		if l := Language(rel); l == "" || docLanguages[l] {
			return roleChangelog
		}
		// a source file named history.go is code
	case "codeowners", "funding", "code_of_conduct", "contributing", "security", "support", "pull_request_template", "issue_template":
		return roleMeta
	}
	for seg := range strings.SplitSeq(path.Dir(lower), "/") {
		switch seg {
		case ".github", ".gitlab", ".circleci", ".devcontainer", "issue_template", ".vscode", ".idea":
			return roleMeta
		case "vendor", "third_party", "node_modules", "bower_components":
			return roleVendored
		case "testdata", "fixtures", "fixture", "__fixtures__", "__snapshots__":
			return roleFixture
		case "changelog", "changelogs", "changes", "release-notes", "releasenotes", "whatsnew":
			return roleChangelog
		}
	}
	if generated {
		return roleGenerated
	}
	switch fileKind(rel) {
	case kindDoc:
		return roleDoc
	case kindConfig:
		return roleConfig
	case kindExample:
		return roleExample
	}
	if strings.HasSuffix(base, ".min.js") || strings.Contains(base, ".pb.") || strings.HasSuffix(base, "_generated.go") || strings.HasSuffix(base, ".lock") {
		return roleGenerated
	}
	return roleCode
}

// generatedHead reports a generated-code marker in the first lines: Go's
// "Code generated ... DO NOT EDIT." and the "@generated" convention.
func generatedHead(head []byte) bool {
	if len(head) > 1024 {
		head = head[:1024]
	}
	if i := bytes.Index(head, []byte("Code generated ")); i >= 0 && bytes.Contains(head[i:], []byte("DO NOT EDIT")) {
		return true
	}
	return bytes.Contains(head, []byte("@generated"))
}

// maxSelectedLines bounds the selected text a chunk carries.
const maxSelectedLines = 80

// selectedText returns the lines of text that sel covers (1-based,
// inclusive), at most maxSelectedLines of them; "" without a selection.
func selectedText(text string, sel *ctxd.LineRange) string {
	if sel == nil || sel.Start < 1 || sel.End < sel.Start {
		return ""
	}
	lines := strings.SplitAfter(text, "\n")
	if sel.Start > len(lines) {
		return ""
	}
	end := min(sel.End, len(lines), sel.Start+maxSelectedLines-1)
	return strings.Join(lines[sel.Start-1:end], "")
}

// explainQuery reports a request that asks how something works rather
// than for a change: docs may rise for it.
func explainQuery(q string) bool {
	q = strings.ToLower(q)
	for _, p := range []string{"how does", "how do", "how is", "how are", "explain", "what does", "what is", "why does", "walk me through", "overview", "documentation", "docs"} {
		if strings.Contains(q, p) {
			return true
		}
	}
	return false
}
