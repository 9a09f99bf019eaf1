//go:build race

package treesitter

// raceEnabled: the race detector slows pure Go several times; heavy corpus
// tests check a sample.
const raceEnabled = true
