package content

import (
	"bytes"
	"strings"
)

// Verdict says whether fetched content is usable. The fetch "auto" tier
// escalates to a real browser on VerdictCaptcha, VerdictBlocked and
// VerdictJSRequired.
type Verdict string

// Verdicts, from worst to best.
const (
	VerdictCaptcha    Verdict = "captcha"     // a bot challenge stands in front of the page
	VerdictBlocked    Verdict = "blocked"     // the server refused us (access denied)
	VerdictJSRequired Verdict = "js_required" // an empty shell that renders with JavaScript
	VerdictSoft404    Verdict = "soft_404"    // a 2xx page that says "not found"
	VerdictThin       Verdict = "thin"        // fewer than thinWords words of content
	VerdictOK         Verdict = "ok"
)

const (
	// thinWords is the least main-content text, in words, of a usable page.
	thinWords = 50
	// shortPageWords bounds the visible text of pages that are only a
	// challenge, an error notice or a JavaScript shell; real articles that
	// merely embed a captcha widget or mention "404" are longer.
	shortPageWords = 200
	// markerScanBytes bounds the part of the body searched for markers.
	markerScanBytes = 256 << 10
)

// Challenge pages of bot-protection services. Each marker alone is
// enough on a short page or with a refusing status.
var captchaMarkers = []string{
	"cf-chl-", "cf_chl_opt", "/cdn-cgi/challenge-platform/h/", "cf-browser-verification",
	"<title>just a moment...</title>", "checking your browser before accessing",
	"challenges.cloudflare.com/turnstile", "cf-turnstile",
	"hcaptcha.com/1/api.js", "class=\"h-captcha\"",
	"google.com/recaptcha/api.js", "class=\"g-recaptcha\"", "recaptcha/api2",
	"captcha-delivery.com", "geo.captcha-delivery", // DataDome
	"px-captcha", "perimeterx", "_pxappid", // PerimeterX / HUMAN
	"awswaf.com/captcha", "verify you are human", "are you a robot", "i'm not a robot",
	"/errors/validatecaptcha", // Amazon's robot check, served with 503
}

// Notices of refused access, matched against the lower-cased body.
var blockedMarkers = []string{
	"access denied", "access to this page has been denied", "you don't have permission to access",
	"you do not have permission to access", "you have been blocked", "sorry, you have been blocked",
	"error 1020", "request blocked", "request unsuccessful. incapsula", "_incapsula_resource",
	"akamai reference", "reference #18.",
	"unusual traffic from your computer", "automated queries", "bot detected", "forbidden",
	"the owner of this website has banned", "blocked by",
}

// Notices of rate limiting. With a 429 or 503 they are the site asking for
// a slower pace, which a browser would be told as well; only a 2xx page
// that is nothing but such a notice is a block.
var rateLimitMarkers = []string{
	"too many requests", "rate limit exceeded", "error 1015",
}

// Phrases that JavaScript-only pages print in <noscript>.
var jsMarkers = []string{
	"enable javascript", "javascript is required", "requires javascript", "javascript enabled",
	"turn on javascript", "javascript is disabled", "activate javascript", "enable js",
	"need javascript", "javascript must be enabled", "support javascript",
}

// Titles and headings of "not found" pages.
var notFoundMarkers = []string{
	"404", "not found", "page not found", "doesn't exist", "does not exist", "no longer available",
	"cannot be found", "can't be found", "couldn't find", "could not be found", "nicht gefunden",
	"no encontrada", "introuvable", "non trovata", "niet gevonden", "не найдена",
}

// Classify judges a fetched page from its status code, raw body and
// converted document (doc may be nil when conversion failed). The rules,
// first match wins:
//
//   - captcha: a bot-challenge marker (Cloudflare challenge, Turnstile,
//     hCaptcha, reCAPTCHA, DataDome, PerimeterX, AWS WAF, Amazon) on a page
//     with little visible text (< 200 words) or with status 401/403/429/503.
//   - blocked: status 401/403, status 503 with an access-denied notice, or
//     any other page but a 429 or 503 whose only content is an access-denied
//     or rate-limit notice (< 200 words). A 429 without a challenge is never
//     blocked, nor a 503 without a challenge or an access-denied notice:
//     they are the site's rate limit and outage, for the caller to hear as
//     such, and a browser would meet them too.
//   - js_required: little main text (< 50 words) while the page has
//     scripts and an empty mount point (<div id="root|app|__next">),
//     a <noscript> asking for JavaScript, or almost no body text at all.
//   - soft_404: a 2xx page whose title or first <h1> says not found/404
//     and whose text is short (< 200 words).
//   - thin: fewer than 50 words of main text.
//   - ok otherwise.
func Classify(statusCode int, body []byte, doc *Document) Verdict {
	var sig signals
	var mainWords int
	if doc != nil {
		sig = doc.signals
		if doc.Text == doc.textCounted {
			mainWords = doc.textWords
		} else {
			mainWords = countWords(doc.Text)
		}
	} else {
		// Without a document the body's own words are the main text. A
		// document's body is never counted: that would copy and scan the
		// whole HTML for a number thrown away.
		mainWords = countWords(string(body))
	}
	pageWords := mainWords
	if sig.isHTML {
		pageWords = sig.bodyWords
	}
	refusing := statusCode == 401 || statusCode == 403 || statusCode == 429 || statusCode == 503
	short := pageWords < shortPageWords

	if refusing || short {
		found := bodyMarkers(body)
		if found&captchaMarker != 0 {
			return VerdictCaptcha
		}
		denied := found&blockedMarker != 0
		switch {
		case statusCode == 429:
		case statusCode == 401 || statusCode == 403:
			return VerdictBlocked
		case statusCode == 503:
			if denied {
				return VerdictBlocked
			}
		case short && (denied || found&rateLimitMarker != 0) && noticeOnly(doc):
			return VerdictBlocked
		}
	}

	if sig.isHTML && mainWords < thinWords && sig.scripts > 0 {
		noscriptJS := containsAnyString(sig.noscriptText, jsMarkers)
		if sig.emptyRoot || noscriptJS || sig.bodyWords < 10 {
			return VerdictJSRequired
		}
	}

	if sig.isHTML && statusCode >= 200 && statusCode < 300 && short {
		t := strings.ToLower(sig.titleTag + " \n " + sig.h1)
		if containsAnyString(t, notFoundMarkers) {
			return VerdictSoft404
		}
	}

	if mainWords < thinWords {
		return VerdictThin
	}
	return VerdictOK
}

// noticeOnly tells whether a short page's title or heading is itself the
// refusal, so that an article merely mentioning "access denied" is spared.
func noticeOnly(doc *Document) bool {
	if doc == nil || !doc.signals.isHTML {
		return true
	}
	t := strings.ToLower(doc.signals.titleTag + " \n " + doc.signals.h1 + " \n " + firstLine(doc.Text))
	return containsAnyString(t, blockedMarkers) || containsAnyString(t, rateLimitMarkers) ||
		containsAnyString(t, []string{"blocked", "denied", "error"})
}

func lowerPrefix(b []byte, n int) []byte {
	if len(b) > n {
		b = b[:n]
	}
	return bytes.ToLower(b)
}

// The marker sets bodyMarkers reports.
const (
	captchaMarker = 1 << iota
	blockedMarker
	rateLimitMarker
	allMarkers = captchaMarker | blockedMarker | rateLimitMarker
)

// bodyMarkers tells which of the marker lists (captchaMarkers,
// blockedMarkers, rateLimitMarkers) occur in the lower-cased first
// markerScanBytes of body, as captchaHints, blockedHints and
// rateLimitHints find them in lowerPrefix(body, markerScanBytes): in one
// pass over body itself, without lower-casing a copy of it.
//
// The markers are ASCII, lower-case and longer than a byte. bytes.ToLower
// maps every character of more than a byte, and every byte of a broken
// one, to bytes of 0x80 or more but for two characters, U+0130 ('i') and
// U+212A ('k'): so without these a marker occurs in the lower-cased body
// exactly where the body holds it with A-Z in any case. A body holding
// one of the two is read as before.
func bodyMarkers(body []byte) int {
	if len(body) > markerScanBytes {
		body = body[:markerScanBytes]
	}
	if bytes.Contains(body, []byte("\u0130")) || bytes.Contains(body, []byte("\u212a")) {
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
	// The markers' occurrences are found as Wu and Manber's search does:
	// a window of the shortest marker's length (markerScan.min) slides
	// along body, and the two bytes at its end, A-Z lowered, tell how far
	// it may move without passing an occurrence's first bytes (shift);
	// where it may not move, the markers whose first min bytes end in
	// those two are compared at the window's start. Most windows move
	// several bytes at a time, where a test at every byte read each
	// common pair of letters that starts a marker.
	m := &markerScan
	found := 0
	for i := m.min - 1; i < len(body); {
		blk := uint16(foldAZ[body[i-1]])<<8 | uint16(foldAZ[body[i]])
		if s := m.shift[blk]; s > 0 {
			i += int(s)
			continue
		}
		start := i - m.min + 1
		for _, k := range m.byBlock[blk] {
			if found&k.set == 0 && len(body)-start >= len(k.word) && lowerIs(body[start:start+len(k.word)], k.word) {
				if found |= k.set; found == allMarkers {
					return found
				}
			}
		}
		i++
	}
	return found
}

// foldAZ maps A-Z to a-z and every other byte to itself.
var foldAZ = func() (t [256]byte) {
	for c := range t {
		t[c] = byte(c)
		if 'A' <= c && c <= 'Z' {
			t[c] = byte(c) + 'a' - 'A'
		}
	}
	return t
}()

// markerScan holds the markers for bodyMarkers: min is the shortest
// marker's length; for each pair of bytes (lower case), shift is how far
// the window may move when its last two bytes are the pair: min-1 for a
// pair in no marker's first min bytes, else min minus the pair's end in
// the marker nearest the end (0: the pair ends a marker's first min
// bytes, and byBlock lists those markers).
var markerScan = func() (m struct {
	min     int
	shift   [1 << 16]uint8
	byBlock map[uint16][]setWord
}) {
	lists := []struct {
		set   int
		words []string
	}{{captchaMarker, captchaMarkers}, {blockedMarker, blockedMarkers}, {rateLimitMarker, rateLimitMarkers}}
	m.min = 255
	for _, l := range lists {
		for _, w := range l.words {
			if len(w) < 2 || strings.ToLower(w) != w || !isASCII(w) {
				panic("content: a marker bodyMarkers cannot read: " + w)
			}
			m.min = min(m.min, len(w))
		}
	}
	for i := range m.shift {
		m.shift[i] = uint8(m.min - 1)
	}
	m.byBlock = make(map[uint16][]setWord)
	for _, l := range lists {
		for _, w := range l.words {
			for q := 2; q <= m.min; q++ {
				blk := uint16(w[q-2])<<8 | uint16(w[q-1])
				m.shift[blk] = min(m.shift[blk], uint8(m.min-q))
			}
			blk := uint16(w[m.min-2])<<8 | uint16(w[m.min-1])
			m.byBlock[blk] = append(m.byBlock[blk], setWord{w, l.set})
		}
	}
	return m
}()

// lowerIs tells whether b with A-Z lower-cased is w.
func lowerIs(b []byte, w string) bool {
	if len(b) != len(w) {
		return false
	}
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != w[i] {
			return false
		}
	}
	return true
}

// isASCII tells whether s holds bytes under 0x80 only.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// setWord is a marker and the set it belongs to.
type setWord struct {
	word string
	set  int
}

// The marker lists as sets matched in one pass over the body each: a
// page under 200 words gets up to 256 KB of it searched, and a search
// per marker (21 of challenges alone) read it dozens of times.
var (
	captchaHints   = newHints(captchaMarkers...)
	blockedHints   = newHints(blockedMarkers...)
	rateLimitHints = newHints(rateLimitMarkers...)
)

func containsAnyString(s string, markers []string) bool {
	for _, m := range markers {
		if strings.Contains(s, m) {
			return true
		}
	}
	return false
}
