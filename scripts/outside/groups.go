package main

import "github.com/ctxd/ctxd/lang"

// importStatement returns the lines (start, end) of the import statement
// of src (in language lg) holding line l, or 0, 0.
func importStatement(lg string, src []byte, l int) (int, int) {
	for _, im := range lang.ImportsAt(lg, src) {
		if im.Start <= l && l <= im.End {
			return im.Start, im.End
		}
	}
	return 0, 0
}
