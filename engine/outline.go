package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/gather"
	"github.com/ctxd/ctxd/lang"
	"github.com/ctxd/ctxd/safefs"
	"github.com/ctxd/ctxd/treesitter"
	"github.com/ctxd/ctxd/workspace/tree"
)

// OutlineRequest is the input of ctx/outline (and of `ctxd outline` and
// `ctxd truncate`): a file, optionally its text, and optionally a level to
// render it at.
type OutlineRequest struct {
	// Path names the file (absolute, or relative to the workspace root).
	Path string `json:"path"`
	// Text, when set, is the file's content (an unsaved buffer); otherwise
	// the editor's buffer from textDocument/didChange, else the file on disk.
	Text *string `json:"text,omitempty"`
	// Language overrides detection by extension and shebang.
	Language string `json:"language,omitempty"`
	// Level, when set ("full", "bodies", "signatures", "outline",
	// "focus", "focus-only"), adds the file's view at that level to the
	// result; the focus levels need KeepLines or KeepFuncs.
	Level string `json:"level,omitempty"`
	// KeepLines and KeepFuncs keep functions whole in the view (the cursor
	// line, the lines of a stack trace; function names).
	KeepLines []int    `json:"keep_lines,omitempty"`
	KeepFuncs []string `json:"keep_funcs,omitempty"`
	// RefuseSecretFiles: a secret file (lang.IsSecret) is not read, as
	// PromptRequest.RefuseSecretFiles skips one named: the MCP server
	// sets it, an agent's name being no consent. Not a wire param.
	RefuseSecretFiles bool `json:"-"`
}

// OutlineResult is the answer of ctx/outline: the file's symbols and
// imports, and its view when a level was asked for.
type OutlineResult struct {
	Path     string              `json:"path"`
	Language string              `json:"language"`
	Symbols  []treesitter.Symbol `json:"symbols"`
	Imports  []string            `json:"imports"`
	View     *treesitter.View    `json:"view,omitempty"`
	// Truncation names the view's level, the same name as View.Level
	// ("full", "bodies", ...; "none" before views had one name set).
	Truncation ctxd.View `json:"truncation,omitempty"`
	// Redactions lists the secrets replaced by markers before the file
	// was outlined (source, line, rule; never the secret).
	Redactions []ctxd.Redaction `json:"redactions,omitempty"`
}

// Outline reads a workspace file (or the text given, or the editor's
// buffer) and outlines it. It may run concurrently.
func (e *Engine) Outline(ctx context.Context, req OutlineRequest) (*OutlineResult, error) {
	abs, rel, err := tree.Resolve(e.root, req.Path)
	if err != nil {
		return nil, err
	}
	if req.RefuseSecretFiles && lang.IsSecret(rel) {
		return nil, fmt.Errorf("outline %s: %w", gather.AgentSecret(rel), ctxd.ErrInvalidParams)
	}
	if req.Text == nil && e.inStateDir(rel) {
		// Checkpoints hold whole conversations and .git/ the history's
		// objects: gathering never reads them, nor does an outline.
		return nil, fmt.Errorf("%s is in git's or ctxd's state directory, not the workspace's source: outline a source file, or pass its text: %w", rel, ctxd.ErrInvalidParams)
	}
	var src []byte
	switch buf, ok := e.Buffer(rel); {
	case req.Text != nil:
		src = []byte(*req.Text)
	case ok:
		src = []byte(buf)
	default:
		src, err = readSource(abs, rel)
		if errors.Is(err, ctxd.ErrNotFound) {
			// The daemon and MCP both answer with this (they said it
			// differently): a client's path is read from the root, not
			// from the directory the client stands in.
			return nil, fmt.Errorf("%s: %w (check the path: it is read relative to the workspace root, %s)", rel, ctxd.ErrNotFound, e.root)
		}
		if err != nil {
			return nil, err
		}
	}
	req.Path = rel
	return OutlineSource(ctx, req, src)
}

// inStateDir reports whether rel (root-relative) is under .git/, .ctxd/
// or the engine's own state directory when that is inside the root
// (--state-dir state): the workspace's rule, Tree.InStateDir.
func (e *Engine) inStateDir(rel string) bool { return e.ws.InStateDir(rel) }

// ReadSource reads a file to outline, refusing one over
// [treesitter.MaxSize].
func ReadSource(path string) ([]byte, error) { return readSource(path, path) }

// readSource is ReadSource of the file abs, called name in its errors (the
// root-relative path a client gave).
func readSource(abs, name string) ([]byte, error) {
	src, err := safefs.ReadFile(context.Background(), abs, treesitter.MaxSize)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("read %s: %w", name, ctxd.ErrNotFound)
	case errors.Is(err, safefs.ErrTooBig):
		return nil, fmt.Errorf("read %s: larger than %d MiB: %w", name, treesitter.MaxSize>>20, ctxd.ErrInvalidParams)
	case errors.Is(err, safefs.ErrNotRegular):
		// "src: not a regular file (a directory)", not the PathError's
		// "read open /abs/src: ...".
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("%s: %w: outline reads one file: %w", name, err, ctxd.ErrInvalidParams)
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return src, nil
}

// OutlineSource outlines src, named by req.Path: the one function behind
// ctx/outline, `ctxd outline`, `ctxd truncate` and MCP outline. Secrets
// in src are redacted first (redactSource). A language tree-sitter
// cannot read, or a view that cannot be rendered at the level asked
// (syntax errors), is an invalid-params error saying so.
func OutlineSource(ctx context.Context, req OutlineRequest, src []byte) (*OutlineResult, error) {
	level, err := req.CheckLevel()
	if err != nil {
		return nil, err
	}
	lang := req.Language
	if lang == "" {
		lang = treesitter.Detect(req.Path, src)
	}
	if lang == "" && tree.IsBinary(src) {
		// An image or an archive: "unknown language" would send the user
		// looking for a language to name.
		return nil, fmt.Errorf("%s: a binary file (%d bytes), not source code: %w", req.Path, len(src), ctxd.ErrInvalidParams)
	}
	// The language param is ctx/outline's and MCP outline's, --language
	// the command line's.
	supported := strings.Join(treesitter.Languages, ", ")
	if doc := docFormats[strings.ToLower(path.Ext(req.Path))]; lang == "" && doc != "" {
		return nil, fmt.Errorf("%s: %s is prose, and outlines are of source code (ctxd outlines %s; the language param, or --language on the command line, names one if the file holds code): %w", req.Path, doc, supported, ctxd.ErrInvalidParams)
	}
	if lang == "" {
		return nil, fmt.Errorf("%s: unknown language (ctxd outlines %s; the language param, or --language on the command line, names one): %w", req.Path, supported, ctxd.ErrInvalidParams)
	}
	src, reds := redactSource(req.Path, src)
	syms, err := treesitter.Symbols(ctx, lang, src)
	if err != nil {
		return nil, outlineError(req.Path, err)
	}
	res := &OutlineResult{Path: req.Path, Language: lang, Symbols: syms.Outline(), Imports: syms.Imports, Redactions: reds}
	if res.Symbols == nil {
		res.Symbols = []treesitter.Symbol{}
	}
	if res.Imports == nil {
		res.Imports = []string{}
	}
	if req.Level == "" {
		return res, nil
	}
	v, err := treesitter.Render(ctx, lang, src, level, treesitter.Options{KeepLines: req.KeepLines, KeepFuncs: req.KeepFuncs})
	if err != nil {
		return nil, outlineError(req.Path, err)
	}
	res.View = &v
	res.Truncation = level
	return res, nil
}

// ErrNothingToKeep is the error of a focus level asked for with no
// function to keep: the view shows the kept functions whole and nothing
// else, so it would have nothing to show. It is an invalid-params error.
var ErrNothingToKeep = fmt.Errorf("the focus levels need functions to keep, and none were named (keep_lines or keep_funcs): %w", ctxd.ErrInvalidParams)

// CheckLevel parses req.Level ("" asks for no view) and refuses a focus
// level without KeepLines or KeepFuncs ([ErrNothingToKeep]). OutlineSource
// checks it first, so ctx/outline, MCP outline and `ctxd truncate` hold
// to one rule; the command line calls it too, to make a usage error of
// it.
func (req OutlineRequest) CheckLevel() (ctxd.View, error) {
	if req.Level == "" {
		return "", nil
	}
	level, err := treesitter.ParseLevel(req.Level)
	if err != nil {
		return "", err
	}
	if (level == treesitter.Focus || level == treesitter.FocusOnly) && len(req.KeepLines) == 0 && len(req.KeepFuncs) == 0 {
		return "", fmt.Errorf("level %s: %w", level, ErrNothingToKeep)
	}
	return level, nil
}

// docFormats names the document formats outline is asked for by mistake
// (README.md): no grammar of ours reads them, and "unknown language"
// said less than why.
var docFormats = map[string]string{
	".md": "Markdown", ".markdown": "Markdown", ".rst": "reStructuredText",
	".adoc": "AsciiDoc", ".txt": "plain text",
}

func outlineError(path string, err error) error {
	// The file first, as the other outline errors: each door names the
	// operation already ("ctxd outline: a.go: ...").
	if errors.Is(err, treesitter.ErrUnsupported) {
		return fmt.Errorf("%s: %w: %w", path, err, ctxd.ErrInvalidParams)
	}
	var te *treesitter.TimeoutError
	if errors.As(err, &te) {
		// Not the client's cancellation (MCP said "the call was
		// cancelled"): a file too large to parse in its time limit.
		return fmt.Errorf("%s: %w (the file is too large to parse in time; read a range of its lines instead): %w", path, err, ctxd.ErrInvalidParams)
	}
	return fmt.Errorf("%s: %w", path, err)
}
