package tree

// minifiedIndexBytes is how much of a minified text (lang.Minified) the
// lexical index reads.
const minifiedIndexBytes = 16 << 10
