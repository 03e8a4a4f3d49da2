package content

import (
	"math/bits"
	"math/rand"
	"strings"
	"testing"
)

// classWordCount is classWord counting into w.f as typeWalk once did:
// a family's first word in seen counts one.
func (w *typeWalk) classWordCount(word string, seen *uint64) {
	before := *seen
	classWord(word, seen)
	if added := *seen &^ before; added != 0 {
		w.f[fClassCart+bits.TrailingZeros64(added)]++
	}
}

// TestClassMemoAsRead: typeWalk.classes and classValue count the same
// features, and classValue gives the same item class, whether a value
// is read or found in the page's memo: values read again and again,
// past the memo's bound, give what classBits and itemClass give.
func TestClassMemoAsRead(t *testing.T) {
	parts := []string{"a", "Z", "-", "_", " ", "é", "9", "X", "col-2", "\t"}
	for h := range classHints {
		parts = append(parts, h, strings.ToUpper(h[:1])+h[1:])
	}
	rng := rand.New(rand.NewSource(11))
	var vals []string
	for range 6000 {
		var b strings.Builder
		for range 1 + rng.Intn(10) {
			b.WriteString(parts[rng.Intn(len(parts))])
		}
		vals = append(vals, b.String())
	}
	var got, want typeFeatures
	w := &typeWalk{f: &got}
	for range 3 {
		for _, v := range vals {
			if item := w.classValue(v); item != itemClass(v) {
				t.Fatalf("%q: item class %q, want %q", v, item, itemClass(v))
			}
			w.classes(v)
			seen := classBits(v)
			seen2 := seen
			for seen2 != 0 {
				want[fClassCart+bits.TrailingZeros64(seen2)]++
				seen2 &= seen2 - 1
			}
			for seen != 0 {
				want[fClassCart+bits.TrailingZeros64(seen)]++
				seen &= seen - 1
			}
		}
	}
	if got != want {
		t.Fatalf("features %v, want %v", got, want)
	}
	if len(w.classMemo) == 0 || len(w.classMemo) > classMemoMax {
		t.Fatalf("memo holds %d values (bound %d)", len(w.classMemo), classMemoMax)
	}
}
