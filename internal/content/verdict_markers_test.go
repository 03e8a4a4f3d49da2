package content

import (
	"math/rand"
	"strings"
	"testing"
)

// bodyMarkersLowered is what Classify did before bodyMarkers: the three
// hint sets over lowerPrefix.
func bodyMarkersLowered(body []byte) int {
	lower := lowerPrefix(body, markerScanBytes)
	found := 0
	if captchaHints.inBytes(lower) {
		found |= captchaMarker
	}
	if blockedHints.inBytes(lower) {
		found |= blockedMarker
	}
	if rateLimitHints.inBytes(lower) {
		found |= rateLimitMarker
	}
	return found
}

// TestBodyMarkersAsLowered: one pass over the body, in any ASCII case,
// finds the markers the lower-cased copy held, on generated bodies with
// the markers in mixed case, near misses ('?' for '_', control bytes
// for '-' and ' '), the two characters that lower-case to ASCII, broken
// characters and the cut at markerScanBytes.
func TestBodyMarkersAsLowered(t *testing.T) {
	var pieces []string
	for _, l := range [][]string{captchaMarkers, blockedMarkers, rateLimitMarkers} {
		for _, m := range l {
			pieces = append(pieces, m, strings.ToUpper(m), m[:len(m)/2], m[len(m)/2:])
		}
	}
	pieces = append(pieces, "cf?chl?opt", "error\x001020", "access\x00denied", "too\rmany requests",
		"\u0130", "\u212a", "\u212aa", "\u0130ncapsula", "\xe2\x84", "\xc4", "\xff", "é", "ß", "A", "K", "I", " ", "<p>")
	r := rand.New(rand.NewSource(7))
	cases := [][]byte{
		nil,
		[]byte("Access Denied"),
		[]byte("ACCESS \u212aDENIED"),
		[]byte("BLOC\u212aED BY"),
		[]byte("a\u212aamai reference"),
		[]byte("request unsuccessful. \u0130ncapsula"),
		[]byte("request unsuccessful. incapsula \u0130"),
		[]byte("Error 1015 Too Many Requests"),
		[]byte("cf?chl?opt forbidde"),
		append([]byte(strings.Repeat("a", markerScanBytes-3)), "forbidden"...),
		append([]byte(strings.Repeat("a", markerScanBytes-9)), "forbidden"...),
	}
	for range 20000 {
		var b []byte
		for range r.Intn(10) {
			p := pieces[r.Intn(len(pieces))]
			if r.Intn(3) == 0 {
				// Mixed case.
				q := []byte(p)
				for i := range q {
					if r.Intn(2) == 0 && 'a' <= q[i] && q[i] <= 'z' {
						q[i] -= 'a' - 'A'
					}
				}
				p = string(q)
			}
			b = append(b, p...)
		}
		cases = append(cases, b)
	}
	for _, b := range cases {
		if got, want := bodyMarkers(b), bodyMarkersLowered(b); got != want {
			t.Fatalf("bodyMarkers(%q) = %b, want %b", b, got, want)
		}
	}
}
