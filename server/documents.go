package server

import (
	"context"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/ctxd/ctxd"
)

// The textDocument notifications keep the editor's unsaved buffers, which
// gathering prefers over the files on disk. They are notifications: errors
// are logged, never answered.
func init() {
	register(
		method{name: "textDocument/didOpen", handle: didOpen},
		method{name: "textDocument/didChange", handle: didChange},
		method{name: "textDocument/didClose", handle: didClose},
	)
}

func didOpen(_ context.Context, cl *client, params json.RawMessage) (any, error) {
	var p lspDocumentParams
	if err := decodeDocumentParams(params, &p, &p.TextDocument); err != nil {
		return nil, fmt.Errorf("didOpen params: %w", err)
	}
	return nil, cl.engine().SetBuffer(uriPath(p.TextDocument.URI), p.TextDocument.Text)
}

func didChange(_ context.Context, cl *client, params json.RawMessage) (any, error) {
	var p lspChangeParams
	if err := decodeDocumentParams(params, &p, &p.TextDocument); err != nil {
		return nil, fmt.Errorf("didChange params: %w", err)
	}
	path := uriPath(p.TextDocument.URI)
	eng := cl.engine()
	text, open := eng.Buffer(path)
	for _, c := range p.ContentChanges {
		if c.Range == nil { // the whole document
			text, open = c.Text, true
			continue
		}
		if !open {
			// LSP sends didOpen, with the whole text, before any
			// didChange; an edit of a document never opened would have
			// been applied to an empty text and that fragment used in
			// place of the file.
			return nil, fmt.Errorf("didChange %s: an incremental change of a document that is not open (send textDocument/didOpen with its text first): %w", path, ctxd.ErrInvalidParams)
		}
		var err error
		if text, err = applyEdit(text, *c.Range, c.Text); err != nil {
			return nil, fmt.Errorf("didChange %s: %w", path, err)
		}
	}
	return nil, eng.SetBuffer(path, text)
}

func didClose(_ context.Context, cl *client, params json.RawMessage) (any, error) {
	var p lspDocumentParams
	if err := decodeDocumentParams(params, &p, &p.TextDocument); err != nil {
		return nil, fmt.Errorf("didClose params: %w", err)
	}
	return nil, cl.engine().CloseBuffer(uriPath(p.TextDocument.URI))
}

// applyEdit replaces r in text with repl. LSP positions count UTF-16 code
// units within a line.
func applyEdit(text string, r lspRange, repl string) (string, error) {
	start, err := offset(text, r.Start)
	if err != nil {
		return "", err
	}
	end, err := offset(text, r.End)
	if err != nil {
		return "", err
	}
	if end < start {
		return "", fmt.Errorf("range end before start: %w", ctxd.ErrInvalidParams)
	}
	return text[:start] + repl + text[end:], nil
}

// offset converts an LSP position to a byte offset in text. A character
// past the end of its line clamps to the line's end, as LSP asks.
func offset(text string, p lspPosition) (int, error) {
	i := 0
	for line := uint32(0); line < p.Line; line++ {
		j := indexByteFrom(text, i, '\n')
		if j < 0 {
			return 0, fmt.Errorf("line %d is past the end of the document: %w", p.Line, ctxd.ErrInvalidParams)
		}
		i = j + 1
	}
	var units uint32
	for i < len(text) && text[i] != '\n' && units < p.Character {
		r, size := utf8.DecodeRuneInString(text[i:])
		if r >= 0x10000 {
			units += 2
		} else {
			units++
		}
		i += size
	}
	return i, nil
}

func indexByteFrom(s string, from int, b byte) int {
	for i := from; i < len(s); i++ {
		if s[i] == b {
			return i
		}
	}
	return -1
}
