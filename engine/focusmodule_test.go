package engine

import (
	"fmt"
	"strings"
	"testing"
)

// pyImports returns n module imports of a Python package, one a line,
// naming no request word of the tests.
func pyImports(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "from ._part%d import piece%d\n", i, i)
	}
	return b.String()
}

// TestFocusModuleInsertionLines: the lines a change to module-level code
// follows are visible in a focus view of a large file. A change that uses
// something new imports it next to the file's imports (httpx's "Prefer
// Content-Length ..." added an import after the last of _content.py's,
// which its focus view hid while it showed the one the focused function
// uses), and a statement added before a module-level one the request
// matches follows the blank lines above it (httpx's _status_codes.py,
// whose `for code in codes:` loop was shown without the two blank lines
// the change was inserted at). CommonJS imports are import lines:
// express's `var fs = require('fs')` statement and its `, mime =
// require('mime')` lines, where commits add a require.
func TestFocusModuleInsertionLines(t *testing.T) {
	for _, tc := range []struct {
		name, path, first string
		skip, n           int // lines checked: n from skip past first
		src, request      string
	}{
		{"python import head", "net/content.py", "from ._part11 import piece11", 0, 2,
			"\"\"\"Request content.\"\"\"\nimport inspect\nimport warnings\nfrom typing import Any\n\nfrom ._streams import ByteStream, IteratorStream\n" + pyImports(12) +
				filler("python", 30) +
				"\n\ndef encode_content(content: Any):\n    \"\"\"Encode a request's content as a stream with its headers.\"\"\"\n    if isinstance(content, bytes):\n        length = str(len(content))\n        return {\"Content-Length\": length}, ByteStream(content)\n    return {\"Transfer-Encoding\": \"chunked\"}, IteratorStream(content)\n" +
				strings.ReplaceAll(filler("python", 30), "_helper", "_mixer"),
			"prefer Content-Length over Transfer-Encoding chunked when encoding the content"},
		{"blank lines above a module statement", "net/status.py", "    LOOP_DETECTED = 508, \"Loop Detected\"", 1, 5,
			"\"\"\"Status codes.\"\"\"\nfrom enum import IntEnum\n" + filler("python", 30) +
				"\n\nclass codes(IntEnum):\n    NOT_EXTENDED = 510, \"Not Extended\"\n" + pyEnum(70) + "    LOOP_DETECTED = 508, \"Loop Detected\"\n\n\n# Include lower-case styles for compatibility with requests.\nfor code in codes:\n    setattr(codes, code._name_.lower(), int(code))\n" +
				strings.ReplaceAll(filler("python", 30), "_helper", "_mixer"),
			"drop the lower-case styles kept for compatibility"},
		{"commonjs require head", "lib/response.js", "var http = require('http')", 0, 5,
			"'use strict';\n\n/**\n * Module dependencies.\n */\n\nvar http = require('http')\n  , path = require('path')\n  , send = require('send')\n  , basename = path.basename\n  , extname = path.extname;\n" + jsFiller(40, "helper") +
				"\n/**\n * Stream a file as the response.\n */\nres.sendFile = function sendFile(file, options) {\n  var stream = send(this.req, file, options);\n  stream.pipe(this);\n  return this;\n};\n" +
				jsFiller(30, "mixer"),
			"pass the options of res.sendFile on to send"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkLinesShownFrom(t, tc.path, tc.first, tc.skip, tc.n, tc.src, tc.request)
		})
	}
}

// pyEnum returns n members of a Python enum, naming no request word of
// the tests.
func pyEnum(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "    KIND_%d = %d, \"Kind %d\"\n", i, 600+i, i)
	}
	return b.String()
}
