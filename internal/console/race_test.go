//go:build race

package console_test

// raceSlowdown is how much slower the race detector makes a page.
const raceSlowdown = 60
