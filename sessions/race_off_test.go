//go:build !race

package sessions

// raceEnabled reports a -race build, whose JSON and hashing run several
// times slower.
const raceEnabled = false
