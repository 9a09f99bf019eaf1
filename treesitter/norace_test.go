//go:build !race

package treesitter

const raceEnabled = false
