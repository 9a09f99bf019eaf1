//go:build race

package secrets

// raceEnabled: the race detector is on (the equivalence tests scan less).
const raceEnabled = true
