//go:build race

package content

// raceOn tells the tests that the race detector is on: sync.Pool then
// drops some of what is put back, on purpose.
const raceOn = true
