// Package cmem reports and trims the C heap (glibc's malloc), which holds
// the tree-sitter parsers' trees: the Go runtime's statistics do not see it.
package cmem
