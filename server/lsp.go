package server

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/ctxd/ctxd"
)

// The parts of LSP's messages ctxd reads: the document notifications and
// initialize's workspace root. They are declared here rather than taken
// from go.lsp.dev/protocol, whose generated types and decoders for the
// whole protocol cost about 1 MB of the release binary for these few
// fields. Fields ctxd does not read (capabilities, trace, ...) are not
// decoded, so they cannot fail a request.

// lspPosition is a position in a document: a 0-based line and a character
// offset in UTF-16 code units.
type lspPosition struct {
	Line      uint32 `json:"line"`
	Character uint32 `json:"character"`
}

// lspRange is a range [start, end) of a document.
type lspRange struct {
	Start lspPosition `json:"start"`
	End   lspPosition `json:"end"`
}

// lspDocument identifies a document, with its text when it is opened.
type lspDocument struct {
	URI        string `json:"uri"`
	LanguageID string `json:"languageId,omitempty"`
	Version    int32  `json:"version,omitempty"`
	Text       string `json:"text,omitempty"`
}

// lspDocumentParams are didOpen's and didClose's params.
type lspDocumentParams struct {
	TextDocument lspDocument `json:"textDocument"`
}

// lspChange is one of didChange's content changes: an edit of Range, or
// the whole text when Range is absent.
type lspChange struct {
	Range       *lspRange `json:"range,omitempty"`
	RangeLength *uint32   `json:"rangeLength,omitempty"`
	Text        string    `json:"text"`
}

// lspChangeParams are didChange's params.
type lspChangeParams struct {
	TextDocument   lspDocument `json:"textDocument"`
	ContentChanges []lspChange `json:"contentChanges"`
}

// lspFolder is a workspace folder.
type lspFolder struct {
	URI  string `json:"uri"`
	Name string `json:"name"`
}

// lspInitializeParams are the fields of initialize's params ctxd reads.
type lspInitializeParams struct {
	RootURI               *string         `json:"rootUri"`
	RootPath              *string         `json:"rootPath"`
	WorkspaceFolders      []lspFolder     `json:"workspaceFolders"`
	InitializationOptions json.RawMessage `json:"initializationOptions"`
	ClientInfo            clientInfo      `json:"clientInfo"`
}

// decodeLSPParams decodes an LSP notification's or request's params into
// v: an object whose fields ctxd reads must have their types; other
// fields are ignored.
func decodeLSPParams(params json.RawMessage, v any) error {
	t := bytes.TrimSpace(params)
	if len(t) == 0 || t[0] != '{' {
		return fmt.Errorf("params must be an object: %w", ctxd.ErrInvalidParams)
	}
	if err := json.Unmarshal(t, v); err != nil {
		return fmt.Errorf("%s: %w", describe(err, v), ctxd.ErrInvalidParams)
	}
	return nil
}

// decodeDocumentParams decodes a document notification's params; the
// document's URI is required.
func decodeDocumentParams(params json.RawMessage, v any, doc *lspDocument) error {
	if err := decodeLSPParams(params, v); err != nil {
		return err
	}
	if doc.URI == "" {
		return fmt.Errorf("textDocument.uri is required: %w", ctxd.ErrInvalidParams)
	}
	return nil
}
