//go:build race

package testutil

// RaceEnabled reports a test binary built with -race.
const RaceEnabled = true
