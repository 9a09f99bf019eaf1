//go:build race

package tokens

// raceEnabled: tests under the race detector run ten times slower and
// take smaller samples.
const raceEnabled = true
