package config

import (
	"strings"
	"testing"
	"time"
)

// A reservation TTL under the minimum is refused with the minimum named;
// longer ones, shorter than the longest call included, are taken: live
// nodes renew their holds.
func TestReservationTTL(t *testing.T) {
	for _, v := range []string{"999ms", "1ns"} {
		_, err := Load(env("WEBACQ_RESERVATION_TTL", v))
		if err == nil || !strings.Contains(err.Error(), "WEBACQ_RESERVATION_TTL") || !strings.Contains(err.Error(), "at least 1s") {
			t.Errorf("%s: got %v, want an error naming the setting and its minimum 1s", v, err)
		}
	}
	for v, want := range map[string]time.Duration{"1s": time.Second, "90s": 90 * time.Second, "2h": 2 * time.Hour, "0": 0} {
		c, err := Load(env("WEBACQ_RESERVATION_TTL", v))
		if err != nil || c.ReservationTTL != want {
			t.Errorf("%s: got %v, %v; want %v", v, c, err, want)
		}
	}
}
