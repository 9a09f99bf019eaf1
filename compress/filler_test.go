package compress

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctxd/ctxd"
	"github.com/ctxd/ctxd/tokens"
)

func TestIsFiller(t *testing.T) {
	tests := []struct {
		line string
		want bool
	}{
		{"", true},
		{"import os", true},
		{"from __future__ import annotations", true},
		{"from ._models import (", true},
		{"    Headers,", true},
		{"    Cookies as C,", true},
		{")", true},
		{"package gin", true},
		{"\t\"net/http\"", true},
		{"\tjson \"encoding/json\"", true},
		{"const path = require('path')", true},
		{"import { defineConfig } from 'vite'", true},
		{"} from './utils'", true},
		{"# Copyright 2024", true},
		{"// Package gin implements", true},
		{"'use strict'", true},
		{"DEFAULT_MAX_REDIRECTS = 20", false},
		{"def build_environ(scope):", false},
		{"func New() *Engine {", false},
		{"    return environ", false},
		{"module.exports = app", false},
		{"x", true},
		{"\"a string\" + b", false},
	}
	for _, tt := range tests {
		if got := isFiller(tt.line); got != tt.want {
			t.Errorf("isFiller(%q) = %v, want %v", tt.line, got, tt.want)
		}
	}
}

// TestFitFillerCutIsHeader fits one large file at a presence line's
// budget: when the head and tail that fit show only imports and the file's
// last line, or no whole line fits, the file is placed as its header
// alone (path and the count of its lines), cheaper than the cut; when they
// show code, the cut stays. On
// main the imports-only cut was placed (httpx/_config.py: 56 tokens of
// "import os", "import typing" and "DEFAULT_MAX_REDIRECTS = 20").
func TestFitFillerCutIsHeader(t *testing.T) {
	var imports, code strings.Builder
	imports.WriteString("from __future__ import annotations\n\nimport os\nimport typing\nimport ssl\nimport warnings\n\n")
	for i := range 40 {
		fmt.Fprintf(&code, "def handler_%d(request, response):\n    response.status = request.compute_status_code(%d)\n    return response.finish(request, status_code=response.status, headers=response.headers)\n\n", i, i)
	}
	c := counter(t)
	for _, tt := range []struct {
		name, content string
		header        bool
	}{
		{"imports and last line", imports.String() + code.String() + "DEFAULT_MAX_REDIRECTS = 20\n", true},
		{"code at the head", code.String() + "DEFAULT_MAX_REDIRECTS = 20\n", false},
		{"code at the tail", imports.String() + code.String() + "app = create_app()\napp.run()\n", false},
		// No whole line fits: the header, not a half line.
		{"one long line", strings.Repeat("var a=compute(1,2);", 2000) + "\n", true},
	} {
		chunk := ctxd.Chunk{Source: "httpx/_config.py", ChunkType: ctxd.ChunkFile, Content: tt.content}
		for _, budget := range []int{50, 64} {
			got, err := Fit(t.Context(), []ctxd.Chunk{chunk}, Options{Budget: budget, Counter: c, Render: render})
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Chunks) != 1 {
				t.Fatalf("%s %d: %d chunks placed", tt.name, budget, len(got.Chunks))
			}
			ch := got.Chunks[0]
			lines := strings.Split(strings.TrimSuffix(ch.Content, "\n"), "\n")
			isHeader := len(lines) == 1 && tokens.IsMarker(lines[0])
			if isHeader != tt.header {
				t.Errorf("%s %d: header only %v, want %v:\n%s", tt.name, budget, isHeader, tt.header, ch.Content)
			}
			if n := c.Count(render(ch)); n > budget || n != ch.Tokens {
				t.Errorf("%s %d: rendered %d tokens, Tokens %d", tt.name, budget, n, ch.Tokens)
			}
			if isHeader {
				n := strings.Count(tt.content, "\n")
				if len(ch.Elided) != 1 || ch.Elided[0] != (ctxd.LineRange{Start: 1, End: n}) {
					t.Errorf("%s %d: elided %v, want 1-%d", tt.name, budget, ch.Elided, n)
				}
			}
		}
	}
}
