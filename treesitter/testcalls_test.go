//go:build cgo && !notreesitter

package treesitter

import (
	"strings"
	"testing"
)

// TestTestCallViews: a test file's bodies and signatures views keep every
// describe and it title, collapsing each test's body on its own (they
// used to collapse the whole suite into one line), the outline lists the
// tests, and a kept line keeps its test whole at the focus levels.
func TestTestCallViews(t *testing.T) {
	body := "    const a = 1;\n    const b = 2;\n    const c = a + b;\n    expect(c).toBe(3); // %s\n"
	it := func(call, title, marker string) string {
		return "  " + call + "('" + title + "', () => {\n" + strings.Replace(body, "%s", marker, 1) + "  });\n"
	}
	tests := []struct {
		name, lang, src string
		titles          []string // lines every view keeps
		marker          string   // a body line of a test: hidden at Signatures, kept whole when focused
		kinds           map[string]string
	}{
		{
			name: "mocha nested",
			lang: "javascript",
			src: "'use strict'\nvar assert = require('assert')\n\ndescribe('res', function(){\n  describe('.redirect(url)', function(){\n    it('should default to a 302 redirect', function(done){\n      var x = 1\n      var y = 2\n      assert.equal(x + y, 3) // redirectMarker\n      done()\n    })\n  })\n\n  before(function(){\n    this.app = 1\n    this.b = 2\n    this.c = 3\n    this.d = 4\n  })\n" +
				"  it('should encode the url', function (done) {\n    var a = 1\n    var b = 2\n    assert.ok(a < b)\n    done()\n  })\n})\n",
			titles: []string{"describe('res', function(){", "  describe('.redirect(url)', function(){", "    it('should default to a 302 redirect', function(done){", "  it('should encode the url', function (done) {"},
			marker: "redirectMarker",
			kinds:  map[string]string{"res": "suite", ".redirect(url)": "suite", "should default to a 302 redirect": "test", "should encode the url": "test"},
		},
		{
			name: "vitest each and only",
			lang: "typescript",
			src: "import { describe, it, test, expect } from 'vitest';\n\ndescribe.only('math', () => {\n" + it("it", "adds", "addMarker") + it("test.skip", "subtracts", "subMarker") +
				"  test.each([[1, 2]])('pairs %i %i', (a: number, b: number) => {\n    const s = a + b;\n    const d = b - a;\n    expect(s).toBe(3);\n    expect(d).toBe(1);\n  });\n});\n",
			titles: []string{"describe.only('math', () => {", "  it('adds', () => {", "  test.skip('subtracts', () => {", "  test.each([[1, 2]])('pairs %i %i', (a: number, b: number) => {"},
			marker: "addMarker",
			kinds:  map[string]string{"math": "suite", "adds": "test", "subtracts": "test", "pairs %i %i": "test"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			src := []byte(tc.src)
			for _, level := range []Level{Bodies, Signatures} {
				v, err := Render(ctx, tc.lang, src, level, Options{})
				if err != nil {
					t.Fatalf("%s: %v", level, err)
				}
				for _, title := range tc.titles {
					if !strings.Contains(v.Text, title+" /*") && !strings.Contains(v.Text, title+"\n") {
						t.Errorf("%s view lost %q:\n%s", level, title, v.Text)
					}
				}
				if level == Signatures && strings.Contains(v.Text, tc.marker) {
					t.Errorf("signatures view keeps the test body %q:\n%s", tc.marker, v.Text)
				}
			}
			fs, err := Symbols(ctx, tc.lang, src)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, s := range fs.Symbols {
				got[s.Name] = s.Kind
			}
			for name, kind := range tc.kinds {
				if got[name] != kind {
					t.Errorf("symbol %q is %q, want %q (symbols %v)", name, got[name], kind, got)
				}
			}
			line := 0
			for i, l := range strings.Split(tc.src, "\n") {
				if strings.Contains(l, tc.marker) {
					line = i + 1
				}
			}
			v, err := Render(ctx, tc.lang, src, FocusOnly, Options{KeepLines: []int{line}})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(v.Text, tc.marker) || strings.Contains(v.Text, tc.titles[len(tc.titles)-1]) {
				t.Errorf("focus-only view at line %d does not keep just the test around it:\n%s", line, v.Text)
			}
		})
	}
}
