package content

import (
	"fmt"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/text/unicode/norm"
)

// Issue 20, meta: the title, author and publication date that fetch
// answers, measured by bench/metadata (bench/content/README.md, "Issue
// 20, meta"). None of these rules met issue 20's half rule (half B's
// gain under 80 % of half A's, or a corpus down), so each is off unless
// switched on (SetMetaRule, bench/metadata -on). They are not among
// SetRuleOff's families, which are the rules kept.
var (
	// metaTitleOn: confirmedH1, the page's <h1> when a declared title
	// confirms it. wcxb-dev's titles gain (exact A +0.171, B +0.202) but
	// readability's fall (A -0.117, B -0.164): its expected titles keep
	// og:title's site name.
	metaTitleOn bool
	// metaAuthorOn: firstAuthor, "By " and stray punctuation off, the
	// site's own name yields to a byline. B gains 35-40 % of A's gain.
	metaAuthorOn bool
	// metaDateOn: Highwire citation dates, <abbr itemprop=datePublished
	// title>, urlDay, when no other markup dates the page. B gains 33 %
	// of A's gain.
	metaDateOn bool
	// metaModifiedOn: the modified date when the page has no other;
	// measured on half A only (+0.008 same day, +14 false dates on
	// wcxb-dev), never on B.
	metaModifiedOn bool
)

// metaSwitches names meta's rules for SetMetaRule.
var metaSwitches = map[string]*bool{
	"metatitle":    &metaTitleOn,
	"metaauthor":   &metaAuthorOn,
	"metadate":     &metaDateOn,
	"metamodified": &metaModifiedOn,
}

// SetMetaRule switches one of issue 20 meta's rules (metatitle,
// metaauthor, metadate, metamodified) on or off, for bench/metadata;
// set it before converting pages, never while pages are converted.
func SetMetaRule(name string, on bool) error {
	p, ok := metaSwitches[name]
	if !ok {
		return fmt.Errorf("content: no meta rule %q", name)
	}
	*p = on
	return nil
}

// maxH1s is the most <h1> texts a page keeps for the title, and
// maxTitleKey the longest title (bytes) compared with them: longer ones
// are not titles, and comparing stays cheap on hostile pages.
const (
	maxH1s      = 4
	maxTitleKey = 512
)

// titleKey is a title or a name as compared: NFC, lower case, typographic
// quotes and dashes folded to ASCII ones, white space collapsed.
func titleKey(s string) string {
	if !norm.NFC.IsNormalString(s) {
		s = norm.NFC.String(s)
	}
	s = strings.Map(func(r rune) rune {
		switch r {
		case '‘', '’', '‚', '‛', '′', '`', '´':
			return '\''
		case '“', '”', '„', '‟', '″', '«', '»':
			return '"'
		case '‐', '‑', '‒', '–', '—', '―', '−':
			return '-'
		}
		return unicode.ToLower(r)
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// keySeparators are titleSeparators as titleKey writes them (dashes
// folded), and " • ".
var keySeparators = []string{" | ", " - ", " · ", " :: ", " » ", " / ", " • ", " : "}

// confirmedH1 returns the first of the page's <h1> texts (logos and the
// site's name left out, see h1Logo) that one of the declared titles
// confirms: the title is the heading, or the heading and another part
// around a title separator ("What is X? | Site", "Site | What is X?").
// A page's visible heading, confirmed so, is its title without the
// site's name and without a JSON-LD headline written for search engines.
// "" when no heading is confirmed.
func confirmedH1(h1s, declared, sites []string) string {
	var siteKeys []string
	for _, s := range sites {
		if k := titleKey(clean(s)); k != "" {
			siteKeys = append(siteKeys, k)
		}
	}
	var keys []string
	for _, d := range declared {
		if d = clean(d); d != "" && len(d) <= maxTitleKey {
			keys = append(keys, titleKey(d))
		}
	}
	for _, h := range h1s {
		hk := titleKey(h)
		if hk == "" || len(hk) > maxTitleKey {
			continue
		}
		site := false
		for _, s := range siteKeys {
			site = site || s == hk
		}
		if site {
			continue
		}
		for _, k := range keys {
			if k == hk {
				return h
			}
			for _, sep := range keySeparators {
				if strings.HasPrefix(k, hk+sep) || strings.HasSuffix(k, sep+hk) {
					return h
				}
			}
		}
	}
	return ""
}

// h1Logo tells whether an <h1> is the site's logo rather than the
// page's heading: it holds a link to the site's root page (a theme's
// masthead). It looks at 256 nodes of the heading at most.
func h1Logo(n *html.Node, base *url.URL) bool {
	steps := 0
	for d := n.FirstChild; d != nil && steps < 256; d = nextWithin(d, n) {
		steps++
		if d.Type == html.ElementNode && d.DataAtom == atom.A {
			if href := strings.TrimSpace(attr(d, "href")); href != "" {
				if u := resolve(base, href); u != nil && (u.Path == "" || u.Path == "/") && u.RawQuery == "" && u.Fragment == "" {
					return true
				}
			}
		}
	}
	return false
}

// bylineName cleans an author as pages write it: a leading "By " (any
// case, "By:"), and punctuation left at either end by a template
// (", USA TODAY", "Nicolas Perriault —") taken off; "" when nothing
// that names anyone is left.
func bylineName(s string) string {
	s = clean(s)
	for range 2 {
		low := strings.ToLower(s)
		if strings.HasPrefix(low, "by ") || strings.HasPrefix(low, "by:") {
			s = strings.TrimSpace(s[3:])
		}
		s = strings.TrimFunc(s, func(r rune) bool {
			return unicode.IsSpace(r) || r == ',' || r == ';' || r == '|' || r == ':' || r == '·' || r == '•' || unicode.Is(unicode.Pd, r)
		})
	}
	for _, r := range s {
		if unicode.IsLetter(r) {
			return s
		}
	}
	return ""
}

// siteAuthor tells whether an author is the site itself: its name (as
// og:site_name, the publisher or application-name give it) or, letters
// and digits alone, a label of its host ("GitHub" on
// resources.github.com). Such a byline names no one; pages put it where
// their template wants an author.
func siteAuthor(author string, sites []string, base *url.URL) bool {
	k := titleKey(author)
	if k == "" {
		return false
	}
	for _, s := range sites {
		if titleKey(clean(s)) == k {
			return true
		}
	}
	if base == nil {
		return false
	}
	compact := func(s string) string {
		return strings.Map(func(r rune) rune {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				return unicode.ToLower(r)
			}
			return -1
		}, s)
	}
	ak := compact(author)
	if utf8.RuneCountInString(ak) < 3 {
		return false
	}
	labels := strings.Split(strings.ToLower(base.Hostname()), ".")
	for i, l := range labels {
		if i == len(labels)-1 || l == "www" {
			continue // the top-level domain
		}
		if compact(l) == ak {
			return true
		}
	}
	return false
}

// firstAuthor returns the first candidate that names someone once
// cleaned (bylineName), not a URL, and not the site itself (siteAuthor)
// when a later candidate names someone else: a template's author field
// filled with the site's name ("Instructables") yields to the byline's
// rel=author link ("MixmasterFred"). The site's name is the author when
// nothing else is (a company's blog signs its posts so).
func firstAuthor(cands []string, sites []string, base *url.URL) string {
	site := ""
	for _, c := range cands {
		a := bylineName(c)
		if a == "" || urlLike(a) {
			continue
		}
		if siteAuthor(a, sites, base) {
			if site == "" {
				site = a
			}
			continue
		}
		return a
	}
	return site
}

// urlDay returns the day a page's URL path dates it by, as
// "YYYY-MM-DD": three segments /2025/12/19/ (a blog's permalink), or a
// segment that starts with 2025-12-19. "" when the path holds none, or
// a day before 1990 or a month or day out of range.
func urlDay(u *url.URL) string {
	if u == nil {
		return ""
	}
	segs := strings.Split(u.Path, "/")
	if len(segs) > 64 {
		segs = segs[:64]
	}
	num := func(s string, n int) (int, bool) {
		if len(s) != n {
			return 0, false
		}
		v := 0
		for i := 0; i < n; i++ {
			if s[i] < '0' || s[i] > '9' {
				return 0, false
			}
			v = v*10 + int(s[i]-'0')
		}
		return v, true
	}
	day := func(y, m, d string) string {
		yi, ok1 := num(y, 4)
		mi, ok2 := num(m, 2)
		di, ok3 := num(d, 2)
		if !ok1 || !ok2 || !ok3 || yi < 1990 || yi > 2100 || mi < 1 || mi > 12 || di < 1 || di > 31 {
			return ""
		}
		return y + "-" + m + "-" + d
	}
	for i := range segs {
		if i+2 < len(segs) {
			if d := day(segs[i], segs[i+1], segs[i+2]); d != "" {
				return d
			}
		}
		if s := segs[i]; len(s) >= 10 && s[4] == '-' && s[7] == '-' && (len(s) == 10 || s[10] == '-' || s[10] == '_') {
			if d := day(s[:4], s[5:7], s[8:10]); d != "" {
				return d
			}
		}
	}
	return ""
}

// urlLike tells whether an author is a link rather than a name: a URL
// ("https://www.facebook.com/x", article:author's usual value) or one
// without its scheme ("www.facebook.com/x").
func urlLike(s string) bool {
	if strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "www.") {
		return true
	}
	return !strings.ContainsAny(s, " \t") && strings.Contains(s, "/") && strings.Contains(s, ".")
}

// itempropDate is the date of an element marked itemprop="datePublished"
// that has no datetime or content attribute: an <abbr>'s title (the
// hAtom way, <abbr itemprop="datePublished" title="2025-12-19T15:18:00-05:00">).
// An element's text is not read: pages mark every comment's date so.
func itempropDate(n *html.Node) string {
	if n.DataAtom != atom.Abbr {
		return ""
	}
	if v := strings.TrimSpace(attr(n, "title")); v != "" && len(v) <= 64 {
		return v
	}
	return ""
}
