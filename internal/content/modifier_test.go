package content

import (
	"math/rand"
	"strings"
	"testing"
)

// stateModifierFold is stateModifier as it was written first: every
// prefix compared with strings.EqualFold.
func stateModifierFold(name string) bool {
	for _, p := range stateModifiers {
		if len(name) >= len(p) && strings.EqualFold(name[:len(p)], p) {
			return true
		}
	}
	return false
}

// withoutModifiersBytes is withoutModifiers' search for a modifier as it
// was written first: byte by byte.
func withoutModifiersBytes(class string) bool {
	for i := 0; i < len(class); i++ {
		if (i == 0 || class[i-1] == ' ') && strings.IndexByte("hHwWnNeEsS", class[i]) >= 0 && stateModifierFold(class[i:]) {
			return true
		}
	}
	return false
}

// TestStateModifierAsEqualFold checks the ASCII prefix test against
// strings.EqualFold on random class strings made of the prefixes' bytes
// in both cases, separators, white space and characters that fold to
// ASCII letters (the Kelvin sign, the long s).
func TestStateModifierAsEqualFold(t *testing.T) {
	parts := []string{"h", "H", "a", "A", "s", "S", "w", "W", "i", "I", "t", "T", "n", "N", "o", "O", "e", "E",
		"b", "l", "w", "-", "_", " ", "  ", "\t", "\u017f", "\u212a", "é", "x"}
	rng := rand.New(rand.NewSource(20))
	for i := 0; i < 200000; i++ {
		var b strings.Builder
		for n := rng.Intn(12); n > 0; n-- {
			b.WriteString(parts[rng.Intn(len(parts))])
		}
		s := b.String()
		if got, want := stateModifier(s), stateModifierFold(s); got != want {
			t.Fatalf("stateModifier(%q) = %v, EqualFold says %v", s, got, want)
		}
		if got, want := withoutModifiers(s) != s, withoutModifiersBytes(s); got != want {
			t.Fatalf("withoutModifiers(%q) changed: %v, byte by byte found a modifier: %v", s, got, want)
		}
	}
	for _, s := range []string{"has-sidebar", "HAS_x", "post With-share", "show-more", "shows", "no", "enable-"} {
		if stateModifier(s) != stateModifierFold(s) {
			t.Errorf("stateModifier(%q) differs", s)
		}
	}
}
