//go:build !race

package scripttest

// raceEnabled: see race_test.go.
const raceEnabled = false
