package gather

import (
	"fmt"
)

// minifiedIndexBytes is how much of a minified text (lang.Minified) the
// lexical index reads.
const minifiedIndexBytes = 16 << 10

// minifiedStub is the one line a prompt shows for a minified file.
func minifiedStub(size int64, lines int) string {
	unit := "lines"
	if lines == 1 {
		unit = "line"
	}
	return fmt.Sprintf("[minified or very-long-line file: %d bytes on %d %s; content left out]", size, lines, unit)
}
