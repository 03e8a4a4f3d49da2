//go:build !race

package content

// raceOn tells the tests that the race detector is on (see race_on_test.go).
const raceOn = false
