package detect

import (
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Placeholders that volatile tokens become in normalised text.
const (
	phWhen  = "⟨when⟩"  // a date, a time, or both, or a relative time
	phCount = "⟨n⟩"     // the number of a counter
	phToken = "⟨token⟩" // a session id, CSRF token, hash or cache buster
)

// Normalize applies the volatile-token rules (see the package
// documentation) to a block's text: invisible characters go, white space
// collapses to single spaces, and dates, times, counters and long
// tokens become placeholders. Figures that are not counters stay.
func Normalize(s string) string {
	s = stripInvisible(s)
	if !needsNormalize(s) {
		return s
	}
	toks := unglue(strings.Fields(s))
	out := make([]string, 0, len(toks))
	for i := 0; i < len(toks); {
		if mayBeVolatile(toks[i]) {
			if n := matchWhen(toks, i); n > 0 {
				_, _, trail := splitPunct(toks[i+n-1])
				out = appendWhen(out, trail)
				i += n
				continue
			}
			if n, prefix := matchGluedDate(toks, i); n > 0 {
				_, _, trail := splitPunct(toks[i+n-1])
				// The token made is normalised as any other, or the next
				// pass would ("2000-01-01Jan 1": the ISO date before the
				// month is found once the token is long enough).
				out = append(out, normToken(prefix+phWhen)+trail)
				i += n
				continue
			}
			if n, repl := matchCounter(toks, i, out); n > 0 {
				out = append(out, repl...)
				i += n
				continue
			}
		}
		out = append(out, normToken(toks[i]))
		i++
	}
	return strings.Join(out, " ")
}

// needsNormalize tells whether s may change under Normalize: it holds a
// digit (every date, time, counter and token rule but the relative
// words needs one), a relative word, a white space other than single
// spaces, or leading or trailing space.
func needsNormalize(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == ' ' || s[len(s)-1] == ' ' {
		return true
	}
	prevSpace := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			return true
		case c >= utf8.RuneSelf, c == '\t', c == '\n', c == '\r', c == '\f':
			return true
		case c == ' ':
			if prevSpace {
				return true
			}
		}
		prevSpace = c == ' '
	}
	low := strings.ToLower(s)
	for _, w := range relativeWords {
		if strings.Contains(low, w) {
			return true
		}
	}
	return false
}

// relativeWords are the substrings of relative times without digits.
var relativeWords = []string{"ago", "yesterday", "today", "tomorrow", "just now"}

// mayBeVolatile is a cheap test that lets most words skip the date,
// time and counter matchers: those start with a digit, a parenthesis,
// or a word of the trigger list (months, weekdays, relative words,
// counter words).
func mayBeVolatile(t string) bool {
	if t[0] == '(' {
		return true
	}
	_, core, _ := splitPunct(t)
	if core == "" {
		return false
	}
	if c := core[0]; c >= '0' && c <= '9' {
		return true
	}
	if len(core) > 12 || strings.ContainsAny(core, "/|") {
		// A month glued to the word before it: "DambrotNovember".
		return len(core) < 40 && gluedMonth(core) >= 0
	}
	var buf [12]byte
	for i := 0; i < len(core); i++ {
		b := core[i]
		if b >= 'A' && b <= 'Z' {
			b += 'a' - 'A'
		}
		buf[i] = b
	}
	return triggers[string(buf[:len(core)])] || core[0] >= utf8.RuneSelf && triggers[strings.ToLower(core)]
}

// stripInvisible removes zero-width characters and soft hyphens, which
// pages insert and remove without changing what a reader sees.
func stripInvisible(s string) string {
	if !strings.ContainsAny(s, "\u200b\u200c\u200d\u2060\ufeff\u00ad") {
		return s
	}
	return strings.Map(func(r rune) rune {
		switch r {
		case '\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad':
			return -1
		}
		return r
	}, s)
}

// appendWhen adds a date/time placeholder, merged with the previous one
// when only a connector ("at", "-", "|", ",") stands between them, so
// "Nov 23, 2026 at 10:42 AM" and "10:42 AM" normalise alike.
func appendWhen(out []string, trail string) []string {
	k := len(out)
	if k >= 2 && isConnector(out[k-1]) && strings.HasPrefix(out[k-2], phWhen) && onlyPunct(out[k-2][len(phWhen):]) {
		out = out[:k-1]
		k--
	}
	if k >= 1 && strings.HasPrefix(out[k-1], phWhen) && onlyPunct(out[k-1][len(phWhen):]) {
		out[k-1] = phWhen + trail
		return out
	}
	return append(out, phWhen+trail)
}

func isConnector(t string) bool {
	switch strings.ToLower(t) {
	case "at", "@", "-", "–", "—", "|", "·", "•", "/", "on", "um", "à", "a", "le", "am", "de":
		return true
	}
	return false
}

func onlyPunct(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// splitPunct splits a token into leading punctuation, core and
// trailing punctuation.
func splitPunct(t string) (lead, core, trail string) {
	i := 0
	for i < len(t) {
		r, n := rune(t[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(t[i:])
		}
		if !isLeadPunct(r) {
			break
		}
		i += n
	}
	j := len(t)
	for j > i {
		r, n := rune(t[j-1]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeLastRuneInString(t[i:j])
		}
		if isTrailPunct(r) {
			j -= n
			continue
		}
		// A footnote mark glued to the word: "2016.[68]".
		if k := footnoteStart(t[i:j]); k > 0 {
			j = i + k
			continue
		}
		break
	}
	return t[:i], t[i:j], t[j:]
}

// footnoteStart returns where a footnote mark such as "[68" or "[a"
// (its "]" already taken as punctuation) ends s, or 0.
func footnoteStart(s string) int {
	k := strings.LastIndexByte(s, '[')
	if k <= 0 || len(s)-k > 5 || len(s)-k < 2 {
		return 0
	}
	for _, c := range []byte(s[k+1:]) {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z') {
			return 0
		}
	}
	return k
}

func isLeadPunct(r rune) bool {
	switch r {
	case '(', '[', '{', '"', '\'', '“', '‘', '«', '<', '¿', '¡':
		return true
	}
	return false
}

func isTrailPunct(r rune) bool {
	switch r {
	case ',', '.', ';', ':', '!', '?', ')', ']', '}', '"', '\'', '”', '’', '»', '>', '…':
		return true
	}
	return false
}

// core returns the lower-cased core of toks[i], or "" past the end.
func core(toks []string, i int) string {
	if i >= len(toks) {
		return ""
	}
	_, c, _ := splitPunct(toks[i])
	return strings.ToLower(c)
}

// matchWhen returns how many tokens from i form a date, a time or a
// relative time, or 0.
func matchWhen(toks []string, i int) int {
	c := core(toks, i)
	if c == "" {
		return 0
	}
	if weekdays[c] {
		if n := matchDate(toks, i+1); n > 0 {
			return 1 + n
		}
		return 0
	}
	if n := matchDate(toks, i); n > 0 {
		return n
	}
	if n := matchTime(toks, i); n > 0 {
		return n
	}
	return matchRelative(toks, i)
}

// matchDate matches "Nov 23, 2026", "23 November 2026", "Nov 23",
// "2026-11-23", "23/11/2026", "11/23/26", "23.11.2026" and "23-Nov-2026".
func matchDate(toks []string, i int) int {
	c := core(toks, i)
	if c == "" {
		return 0
	}
	if isNumericDate(c) {
		return 1
	}
	if months[strings.TrimSuffix(c, ".")] {
		if !isDayOrRange(core(toks, i+1)) {
			return 0
		}
		if isYear(core(toks, i+2)) {
			return 3
		}
		if scaleWords[core(toks, i+2)] {
			return 0 // "May 5 million"
		}
		return 2
	}
	if isDayOrRange(c) && months[strings.TrimSuffix(core(toks, i+1), ".")] {
		if isYear(core(toks, i+2)) {
			return 3
		}
		return 2
	}
	return 0
}

// isNumericDate tells whether one token is a whole date: ISO (with an
// optional time), year-first with / or ., day or month first with /, or
// with . or - and a four-digit year, or day-month-year with a month name.
func isNumericDate(c string) bool {
	if len(c) < 5 || len(c) > 40 {
		return false
	}
	for _, sep := range []byte{'-', '/', '.'} {
		parts := strings.SplitN(c, string(sep), 3)
		if len(parts) != 3 {
			continue
		}
		a, b, rest := parts[0], parts[1], parts[2]
		if len(a) == 4 && allDigits(a) { // year first: 2026-11-23[T10:42:00Z]
			d := rest
			if k := strings.IndexAny(d, "tT "); k == 2 && sep == '-' {
				if !isClock(d[3:]) {
					return false
				}
				d = d[:2]
			}
			return isYear(a) && inRange(b, 1, 12) && inRange(d, 1, 31)
		}
		if months[a] || months[b] { // 23-Nov-2026, Nov-23-2026
			day := a
			if months[a] {
				day = b
			}
			return inRange(day, 1, 31) && (isYear(rest) || (len(rest) == 2 && allDigits(rest)))
		}
		if !inRange(a, 1, 31) || !inRange(b, 1, 31) {
			continue
		}
		if !inRange(a, 1, 12) && !inRange(b, 1, 12) {
			continue
		}
		if isYear(rest) || (sep == '/' && len(rest) == 2 && allDigits(rest)) {
			return true
		}
	}
	return false
}

// matchGluedDate matches a date whose month is glued to the word before
// it, as text of adjacent elements reads: "DambrotNovember 6, 2023". It
// returns the tokens consumed and the part of the first before the month.
func matchGluedDate(toks []string, i int) (int, string) {
	lead, c, _ := splitPunct(toks[i])
	k := gluedMonth(c)
	if k < 0 || !isDay(core(toks, i+1)) {
		return 0, ""
	}
	if isYear(core(toks, i+2)) {
		return 3, lead + c[:k]
	}
	return 2, lead + c[:k]
}

// gluedMonth returns where a capitalised English month name glued to a
// word (a lower-case letter, a digit, "/" or "|" before it) ends c, or -1.
func gluedMonth(c string) int {
	for _, m := range gluedMonths {
		k := len(c) - len(m)
		if k < 1 || c[k:] != m {
			continue
		}
		if b := c[k-1]; b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '/' || b == '|' {
			return k
		}
	}
	return -1
}

var gluedMonths = []string{"January", "February", "March", "April", "May", "June", "July", "August",
	"September", "October", "November", "December", "Jan", "Feb", "Mar", "Apr", "Jun", "Jul", "Aug",
	"Sep", "Sept", "Oct", "Nov", "Dec"}

// normEmbedded replaces ISO dates and clock times inside a token, where
// text of adjacent elements runs together: "Bockey2022-11-24",
// "09:17:332022-11-24". It returns t unchanged when there are none.
func normEmbedded(t string) string {
	if len(t) < 11 || !strings.ContainsAny(t, "-:") {
		return t
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(t); i++ {
		if t[i] < '0' || t[i] > '9' || (i > 0 && t[i-1] >= '0' && t[i-1] <= '9' && i != last) {
			continue
		}
		n := embeddedISODate(t[i:])
		if n == 0 {
			n = embeddedClock(t[i:])
		}
		if n == 0 {
			continue
		}
		b.WriteString(t[last:i])
		if !strings.HasSuffix(b.String(), phWhen) {
			b.WriteString(phWhen)
		}
		i += n - 1
		last = i + 1
	}
	if last == 0 {
		return t
	}
	b.WriteString(t[last:])
	return b.String()
}

// embeddedISODate returns the length of a YYYY-MM-DD date starting s, or 0.
func embeddedISODate(s string) int {
	if len(s) < 10 || s[4] != '-' || s[7] != '-' || !isYear(s[:4]) || !inRange(s[5:7], 1, 12) || !inRange(s[8:10], 1, 31) {
		return 0
	}
	if len(s) > 10 && s[10] >= '0' && s[10] <= '9' {
		return 0
	}
	return 10
}

// embeddedClock returns the length of an HH:MM:SS or HH:MM time starting
// s, or 0.
func embeddedClock(s string) int {
	if len(s) < 5 || s[2] != ':' || !inRange(s[:2], 0, 23) || !inRange(s[3:5], 0, 59) {
		return 0
	}
	if len(s) >= 8 && s[5] == ':' && inRange(s[6:8], 0, 59) {
		return 8
	}
	if len(s) > 5 && s[5] >= '0' && s[5] <= '9' {
		return 0
	}
	return 5
}

// matchTime matches "10:42", "10:42:05", "10:42am", "10:42 AM",
// "10 a.m.", "10:42 AM ET" and "10:42:05.123Z".
func matchTime(toks []string, i int) int {
	c := core(toks, i)
	n := 0
	switch {
	case isClock(c):
		n = 1
	case isHourAMPM(c):
		n = 1
	case len(c) <= 2 && inRange(c, 1, 12) && isAMPM(core(toks, i+1)):
		n = 2
	default:
		return 0
	}
	if n == 1 && isAMPM(core(toks, i+1)) {
		n++
	}
	if zones[core(toks, i+n)] || isOffset(core(toks, i+n)) {
		n++
	}
	return n
}

// isClock matches H:MM, H:MM:SS with optional fraction, am/pm, "h",
// and a zone suffix (Z or ±hh:mm).
func isClock(c string) bool {
	k := strings.IndexByte(c, ':')
	if k < 1 || k > 2 || !inRange(c[:k], 0, 24) || len(c) < k+3 || !inRange(c[k+1:k+3], 0, 59) {
		return false
	}
	rest := c[k+3:]
	if len(rest) >= 3 && rest[0] == ':' && inRange(rest[1:3], 0, 60) {
		rest = rest[3:]
		if len(rest) > 1 && rest[0] == '.' {
			j := 1
			for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
				j++
			}
			rest = rest[j:]
		}
	}
	switch {
	case rest == "" || rest == "h" || rest == "z" || isAMPM(rest):
		return true
	case isOffset(rest):
		return true
	}
	return false
}

// isHourAMPM matches "10am" and "9p.m".
func isHourAMPM(c string) bool {
	j := 0
	for j < len(c) && j < 2 && c[j] >= '0' && c[j] <= '9' {
		j++
	}
	return j > 0 && inRange(c[:j], 1, 12) && isAMPM(c[j:])
}

func isAMPM(c string) bool {
	switch c {
	case "am", "pm", "a.m", "p.m", "a.m.", "p.m.":
		return true
	}
	return false
}

// isOffset matches a zone offset such as +01:00, -0500, utc+1 or gmt-3.
func isOffset(c string) bool {
	c = strings.TrimPrefix(strings.TrimPrefix(c, "utc"), "gmt")
	if len(c) < 2 || (c[0] != '+' && c[0] != '-') {
		return false
	}
	c = strings.ReplaceAll(c[1:], ":", "")
	return len(c) <= 4 && allDigits(c)
}

// matchRelative matches "3 hours ago", "an hour ago", "a few minutes
// ago", "5m ago", "just now", "yesterday", "today" and "tomorrow".
func matchRelative(toks []string, i int) int {
	c := core(toks, i)
	switch c {
	case "yesterday", "today", "tomorrow":
		return 1
	case "just":
		if core(toks, i+1) == "now" {
			return 2
		}
		return 0
	}
	if core(toks, i+1) == "ago" && isCompactAge(c) {
		return 2
	}
	if !(allDigits(c) && c != "") && c != "a" && c != "an" && c != "one" && c != "few" && c != "several" {
		return 0
	}
	n := 1
	if c == "a" && core(toks, i+1) == "few" {
		n = 2
	}
	if timeUnits[core(toks, i+n)] && core(toks, i+n+1) == "ago" {
		return n + 2
	}
	return 0
}

// isCompactAge matches "5m", "3h", "2d", "1w", "4mo", "1yr", "10min".
func isCompactAge(c string) bool {
	j := 0
	for j < len(c) && c[j] >= '0' && c[j] <= '9' {
		j++
	}
	if j == 0 {
		return false
	}
	switch c[j:] {
	case "s", "m", "h", "d", "w", "y", "mo", "yr", "yrs", "min", "mins", "hr", "hrs":
		return true
	}
	return false
}

// matchCounter matches a counter: "1,234 views", "12 comments",
// "Views: 1,234", "Comments (5)" and a bare "(5)" after a word. It
// returns the tokens consumed and their replacement.
func matchCounter(toks []string, i int, out []string) (int, []string) {
	lead, c, trail := splitPunct(toks[i])
	if isCount(c) {
		if next := core(toks, i+1); counterWords[next] {
			_, w, t := splitPunct(toks[i+1])
			return 2, []string{lead + phCount, w + t}
		}
		if lead == "(" && strings.HasPrefix(trail, ")") && allDigits(c) && len(c) <= 5 && len(out) > 0 {
			prev := out[len(out)-1]
			// After a word, not after a figure or a table cell's "|":
			// "Inbox (3)", but "Net loss | (45)" is a negative number.
			if r, _ := utf8.DecodeLastRuneInString(prev); unicode.IsLetter(r) || strings.ContainsRune(":!?.", r) {
				return 1, []string{lead + phCount + trail}
			}
		}
		return 0, nil
	}
	// A word first ("Views: 1,234", "Comments (5)") needs the colon or
	// the parentheses: "like 5" alone is prose.
	if counterWords[strings.ToLower(c)] && i+1 < len(toks) {
		l2, c2, t2 := splitPunct(toks[i+1])
		if isCount(c2) && ((l2 == "" && strings.HasPrefix(trail, ":")) || (l2 == "(" && strings.HasPrefix(t2, ")"))) {
			return 2, []string{toks[i], l2 + phCount + t2}
		}
	}
	return 0, nil
}

// isCount matches a counter's number: 1234, 1,234, 1.2k, 3M, 999+.
func isCount(c string) bool {
	c = strings.TrimSuffix(c, "+")
	if c == "" {
		return false
	}
	if last := c[len(c)-1]; last == 'k' || last == 'K' || last == 'm' || last == 'M' {
		c = c[:len(c)-1]
	}
	if c == "" || c[0] < '0' || c[0] > '9' {
		return false
	}
	for i := 0; i < len(c); i++ {
		if !(c[i] >= '0' && c[i] <= '9') && c[i] != ',' && c[i] != '.' {
			return false
		}
	}
	return true
}

// normToken replaces a token's core with a placeholder when it looks
// like a session id, CSRF token, hash or cache buster, and normalises
// URLs written in the text.
func normToken(t string) string {
	lead, c, trail := splitPunct(t)
	if strings.Contains(c, "://") {
		return lead + normLink(c) + trail
	}
	if e := normEmbedded(c); e != c {
		return lead + e + trail
	}
	if len(c) < 16 {
		return t
	}
	if k := strings.IndexByte(c, '='); k > 0 && k < len(c)-1 && isVolatileValue(c[k+1:]) {
		return lead + c[:k+1] + phToken + trail
	}
	if isVolatileValue(c) {
		return lead + phToken + trail
	}
	return t
}

// isVolatileValue tells whether s looks machine-made and random: hex of
// 16 or more characters with a digit, a UUID, or a base64/base64url run
// of 24 or more characters mixing letters and digits many times.
func isVolatileValue(s string) bool {
	if len(s) < 16 {
		return false
	}
	hex, digits, letters, other, switches := true, 0, 0, 0, 0
	prevDigit := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		isD := c >= '0' && c <= '9'
		isL := (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		switch {
		case isD:
			digits++
		case isL:
			letters++
		case c == '-' || c == '_' || c == '+' || c == '/' || c == '=':
			other++
		default:
			return false
		}
		if !isD && !((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')) {
			hex = false
		}
		if i > 0 && (isD || isL) && isD != prevDigit {
			switches++
		}
		if isD || isL {
			prevDigit = isD
		}
	}
	if hex && digits > 0 {
		return true
	}
	if isUUID(s) {
		return true
	}
	return len(s) >= 24 && digits >= 3 && letters >= 6 && switches >= 4 && other <= len(s)/4
}

func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if c != '-' {
				return false
			}
			continue
		}
		if !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')) {
			return false
		}
	}
	return true
}

// trackingParams are query parameters that track the visitor or bust
// caches; links are compared without them.
var trackingParams = set("sid", "sessionid", "session_id", "session", "phpsessid", "jsessionid",
	"aspsessionid", "cfid", "cftoken", "token", "csrf", "_csrf", "csrf_token", "xsrf", "_token",
	"authenticity_token", "_", "cb", "cachebuster", "cache_buster", "nocache", "ts", "timestamp",
	"rnd", "rand", "random", "fbclid", "gclid", "dclid", "msclkid", "yclid", "igshid", "mc_cid",
	"mc_eid", "_ga", "_gl", "_hsenc", "_hsmi", "hsctatracking", "trk", "s_cid", "mkt_tok", "ref_src")

// isTrackingParam tells whether a query key is dropped from links.
func isTrackingParam(k string) bool {
	k = strings.ToLower(k)
	return trackingParams[k] || strings.HasPrefix(k, "utm_") || strings.HasPrefix(k, "aspsessionid")
}

// cleanLink makes a link comparable and keeps it usable: no fragment,
// no tracking or session parameters, no ;jsessionid path parameter.
func cleanLink(u *url.URL) string {
	v := *u
	v.Fragment, v.RawFragment = "", ""
	if i := strings.Index(strings.ToLower(v.Path), ";jsessionid="); i >= 0 {
		v.Path, v.RawPath = v.Path[:i], ""
	}
	if v.RawQuery != "" {
		parts := strings.Split(v.RawQuery, "&")
		kept := parts[:0]
		for _, p := range parts {
			k, _, _ := strings.Cut(p, "=")
			if uk, err := url.QueryUnescape(k); err == nil {
				k = uk
			}
			if p != "" && !isTrackingParam(k) {
				kept = append(kept, p)
			}
		}
		v.RawQuery = strings.Join(kept, "&")
	}
	v.ForceQuery = false // "page.html?" is "page.html"
	return v.String()
}

// normLink is the form of a link used for comparing: cleanLink, with
// token-like query values replaced by a placeholder.
func normLink(s string) string {
	if s == "" {
		return ""
	}
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	out := cleanLink(u)
	q := strings.IndexByte(out, '?')
	if q < 0 {
		return out
	}
	parts := strings.Split(out[q+1:], "&")
	for i, p := range parts {
		if k, v, ok := strings.Cut(p, "="); ok && isVolatileValue(v) {
			parts[i] = k + "=" + phToken
		}
	}
	return out[:q+1] + strings.Join(parts, "&")
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// inRange tells whether s is one or two digits (an optional ordinal
// suffix allowed) in [lo, hi].
func inRange(s string, lo, hi int) bool {
	s = trimOrdinal(s)
	if len(s) == 0 || len(s) > 2 || !allDigits(s) {
		return false
	}
	v := int(s[0] - '0')
	if len(s) == 2 {
		v = v*10 + int(s[1]-'0')
	}
	return v >= lo && v <= hi
}

func trimOrdinal(s string) string {
	for _, suf := range []string{"st", "nd", "rd", "th"} {
		if len(s) > 2 && strings.HasSuffix(s, suf) {
			return s[:len(s)-2]
		}
	}
	return s
}

func isDay(c string) bool { return inRange(c, 1, 31) }

// isDayOrRange matches a day or a range of days, as events and
// conferences are dated: "23-26" (of "23-26 March 2026", "March 23–26").
func isDayOrRange(c string) bool {
	if isDay(c) {
		return true
	}
	for _, dash := range []string{"-", "–", "—"} {
		if a, b, ok := strings.Cut(c, dash); ok {
			return isDay(a) && isDay(b)
		}
	}
	return false
}

func isYear(c string) bool {
	if len(c) != 4 || !allDigits(c) {
		return false
	}
	return c[0] == '1' && c[1] == '9' || c[0] == '2' && c[1] <= '1'
}

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// triggers are the words that may start a volatile token.
var triggers = func() map[string]bool {
	m := set("yesterday", "today", "tomorrow", "just", "a", "an", "one", "few", "several")
	for _, words := range []map[string]bool{months, weekdays, counterWords} {
		for w := range words {
			m[w] = true
			m[w+"."] = true
		}
	}
	return m
}()

var (
	months = set("jan", "january", "feb", "february", "mar", "march", "apr", "april", "may", "jun",
		"june", "jul", "july", "aug", "august", "sep", "sept", "september", "oct", "october", "nov",
		"november", "dec", "december",
		// German, French, Spanish, Italian, Dutch, Portuguese
		"januar", "februar", "märz", "mai", "juni", "juli", "oktober", "dezember",
		"janvier", "février", "mars", "avril", "juin", "juillet", "août", "septembre", "octobre",
		"novembre", "décembre", "enero", "febrero", "marzo", "abril", "mayo", "junio", "julio",
		"agosto", "septiembre", "octubre", "noviembre", "diciembre", "gennaio", "febbraio",
		"aprile", "maggio", "giugno", "luglio", "settembre", "ottobre", "dicembre", "januari",
		"februari", "maart", "mei", "augustus", "janeiro", "fevereiro", "março", "maio", "junho",
		"julho", "setembro", "outubro", "novembro", "dezembro")
	weekdays = set("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
		"mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun")
	zones = set("utc", "gmt", "z", "et", "est", "edt", "ct", "cst", "cdt", "mt", "mst", "mdt", "pt",
		"pst", "pdt", "bst", "cet", "cest", "eet", "eest", "wet", "west", "ist", "jst", "kst", "hkt",
		"sgt", "aest", "aedt", "msk")
	timeUnits = set("sec", "secs", "second", "seconds", "min", "mins", "minute", "minutes", "hr",
		"hrs", "hour", "hours", "day", "days", "week", "weeks", "wk", "wks", "month", "months", "mo",
		"mos", "year", "years", "yr", "yrs")
	scaleWords = set("million", "millions", "billion", "billions", "thousand", "trillion",
		"percent", "%", "mn", "bn", "m", "b", "k")
	// counterWords name counters of visits and reactions. "shares" and
	// "points" are left out on purpose: "2.5 million shares" and "50
	// basis points" are financial facts.
	counterWords = set("view", "views", "comment", "comments", "reply", "replies", "like", "likes",
		"reaction", "reactions", "vote", "votes", "upvotes", "downvotes", "follower", "followers",
		"subscriber", "subscribers", "reads", "visit", "visits", "visitors", "click", "clicks",
		"answer", "answers", "retweets", "reposts", "favorites", "favourites", "stars", "downloads",
		"impressions", "hits", "claps", "kommentare", "commentaires", "comentarios", "vues")
)

// unglue splits the tokens in which a date or time is glued to the text
// of a neighbouring element: a year followed by a capitalised word
// ("2024If", after "Updated: Nov 5,"), a clock time after a word
// ("O'Brien3:20", a byline before its time), and text glued to markup
// that a code sample shows ("datetime=\"2010-06-03\">June 3,
// 2010</time>" reads "June 3, 2010").
func unglue(toks []string) []string {
	var out []string
	for i, t := range toks {
		var parts []string
		if strings.ContainsAny(t, "<>") {
			parts = splitMarkup(t)
		}
		if len(parts) < 2 {
			a, b := splitGlued(t)
			if b == "" {
				if out != nil {
					out = append(out, t)
				}
				continue
			}
			parts = []string{a, b}
		}
		if out == nil {
			out = append(make([]string, 0, len(toks)+len(parts)), toks[:i]...)
		}
		for _, p := range parts {
			if a, b := splitGlued(p); b != "" {
				out = append(out, a, b)
			} else {
				out = append(out, p)
			}
		}
	}
	if out == nil {
		return toks
	}
	return out
}

// splitMarkup splits t where a tag written as text meets other text:
// before a "<" that opens a tag ("2010</time>") and after a ">" that
// closes one, when text follows ("\">June"). It returns nil when t has
// no such place.
func splitMarkup(t string) []string {
	var parts []string
	last := 0
	for k := 1; k < len(t); k++ {
		switch {
		case t[k] == '<' && k+1 < len(t) && (isASCIILetter(t[k+1]) || t[k+1] == '/') && t[k-1] != '>':
			// "2010</time>": the text ends where the tag opens.
		case t[k-1] == '>' && t[k] != '<' && k >= 2 && (t[k-2] == '"' || t[k-2] == '\'' || strings.IndexByte(t[:k-1], '<') >= 0):
			// "\">June", "<b>June": a tag closed (after an attribute's
			// quote, or opened in the token) and text follows; "3>2" and
			// "->" are no tags.
		default:
			continue
		}
		if k > last {
			parts = append(parts, t[last:k])
			last = k
		}
	}
	if parts == nil {
		return nil
	}
	return append(parts, t[last:])
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// splitGlued splits t where a date or time is glued to a word, or
// returns t and "".
func splitGlued(t string) (string, string) {
	if len(t) >= 5 && isYear(t[:4]) && t[4] >= 'A' && t[4] <= 'Z' {
		return t[:4], t[4:]
	}
	for k := 1; k < len(t); k++ {
		if t[k] < '0' || t[k] > '9' {
			continue
		}
		r, _ := utf8.DecodeLastRuneInString(t[:k])
		if !unicode.IsLetter(r) {
			return t, ""
		}
		c := t[k:]
		if len(c) >= 4 && c[1] == ':' && c[2] >= '0' && c[2] <= '5' && c[3] >= '0' && c[3] <= '9' ||
			len(c) >= 5 && c[2] == ':' && inRange(c[:2], 0, 23) && inRange(c[3:5], 0, 59) {
			return t[:k], c
		}
		return t, ""
	}
	return t, ""
}
