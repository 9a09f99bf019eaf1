//go:build !unix

package index

import "os"

// mapFile reads the file: no mapping here.
func mapFile(path string) ([]byte, error) { return os.ReadFile(path) }
