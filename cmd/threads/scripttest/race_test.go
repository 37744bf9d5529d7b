//go:build race

package scripttest

// raceEnabled: this test binary has the race detector, and so does the
// command it builds for the scripts (it ran in this process before it
// moved here, race-checked with it).
const raceEnabled = true
