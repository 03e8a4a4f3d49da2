// Package detect is the change-detection core of monitors: it chooses
// the region of a page a monitor watches (Anchor), finds that region
// again in a later version of the page (Relocate) and decides whether
// it changed materially (Compare). It is pure: no network, no database.
//
// # Regions and blocks
//
// A region is one element of the page. Its content is a list of blocks
// in document order: the own text of each block element (p, li, tr,
// h1–h6, dt, dd, div, section …; text inside a nested block element
// belongs to that one; table cells join their row, separated by " | "),
// its first link (a document link such as a PDF preferred) and its first
// image or embed source, both absolute. Scripts, styles, form controls,
// dialogs and hidden elements (hidden, aria-hidden, inline
// display:none) are never part of it.
//
// Boilerplate inside the region is left out too: the page's landmarks
// (content.Landmark: nav, aside, footer, a header outside article/main,
// and the ARIA roles of navigation, menus, banner, contentinfo,
// complementary, search, alerts and dialogs, which the main content's
// extraction drops as well), and elements with a class or id word such
// as sidebar, menu, related, share, comments, cookie, ad, promo,
// newsletter or ticker (content.BoilerplateName: "share-bar" has the
// word "share", "shareholder" does not). Such an element is content
// after all when it holds <main>, or, for a class or id word, more than
// half of the page's text ("container no-sidebar" wrapping an article),
// or more than half of the region's text (an article inside an
// <aside>); and when leaving the boilerplate out would keep less than a
// quarter of the region's text, nothing is left out.
//
// Anchor chooses the region: with keywords, every block of the content
// that mentions one, with its context (see Anchor and ScopeKeywords; a
// block left out only by class words counts as content when the main
// content keeps it);
// without, the page's main content.
// Relocate finds it again by the overlap of text shingles and links,
// structure deciding between candidates of like content (see
// RelocateThreshold).
//
// # Normalisation of volatile tokens
//
// Before blocks are hashed or compared, their text goes through
// Normalize and their links through the link rules:
//
//   - White space collapses to single spaces; zero-width characters and
//     soft hyphens are dropped.
//
//   - Dates and times become one placeholder "⟨when⟩" (a date followed
//     by a time, or joined by "at", "-", "|", ",", gives one): ISO dates
//     and date-times (2026-11-23, 2026-11-23T10:42:00Z), 2026/11/23,
//     23/11/2026, 11/23/26, 23.11.2026, 23-11-2026, 23-Nov-2026,
//     "Nov 23, 2026", "November 23rd 2026", "23 November 2026", "Nov 23",
//     ranges of days "23-26 March 2026" and "March 23–26" (month names
//     in English, German, French, Spanish, Italian, Dutch and
//     Portuguese; an optional weekday before), clock times (10:42,
//     10:42:05, 10:42 AM, 10am, 10 a.m., with an optional zone such as
//     ET or +01:00), relative times ("3 hours ago", "an hour ago", "5m
//     ago", "just now", "yesterday", "today", "tomorrow"). Dates glued
//     to the text of a neighbouring element are found too: a month after
//     a lower-case letter, digit, "/" or "|" ("AuthorNovember 6, 2023"),
//     ISO dates and clock times inside a word ("Name2022-11-24"), a
//     footnote mark after the year ("2016.[68]"), and dates inside
//     markup that a code sample shows as text
//     ("<time datetime=\"2010-06-03\">June 3, 2010</time>").
//
//   - Counters keep their word and lose their number: "1,234 views",
//     "1.2K likes", "12 comments", "Views: 1,234", "Comments (5)", and
//     a bare "(5)" right after a word (not after a table cell's "|",
//     where "(45)" is a negative figure). Numbers next to other words are
//     figures and stay: "$1.2 billion", "EPS 0.45", "2.5 million shares",
//     "50 basis points", "(1,234)" in a table row, years and quarters.
//
//   - Tokens that look machine-made become "⟨token⟩": hex runs of 16
//     characters or more with a digit, UUIDs, base64 runs of 24 or more
//     mixing letters and digits, also as the value of a key=value.
//
//   - Links lose their fragment, an empty "?", a ;jsessionid path
//     parameter, and the query parameters that track or bust caches
//     (utm_*, sid, sessionid, phpsessid, jsessionid, token, csrf, _, cb,
//     ts, timestamp, rnd, fbclid, gclid, msclkid, mc_cid, _ga …); query
//     values that look machine-made become "⟨token⟩". Paths stay: a
//     hash in a path names another document.
//
//   - For relocation only, every run of digits, month and weekday names
//     and am/pm read as one word "#", so that a list whose dates all
//     moved on is still the same list.
//
// Blocks keep their real text (dates included), so signals and
// previews show what the page says; normalisation applies only where
// blocks are hashed, compared and matched.
//
// # Change
//
// Two regions are compared as multisets of normalised blocks (text,
// link, source): reordering the same items is not a change, and a new
// block identical to an existing one but for its date is a new item
// (the multiset's count grows). Added blocks are paired with removed
// ones by word overlap to report changed blocks with their old and new
// text.
package detect

import (
	"errors"
	"strings"

	"golang.org/x/net/html"
)

// Fingerprint is the watched region as stored between runs (JSON, a few
// KB; at most maxBlocks blocks and maxText bytes of text).
type Fingerprint struct {
	// Scope is ScopeKeywords when the fingerprint watches every keyword
	// block of the page; empty for one region (fingerprints stored before
	// scopes existed have it empty too, keywords or not).
	Scope    string   `json:"scope,omitempty"`
	Path     string   `json:"path"` // structural path of the region root, e.g. "html>body>main>div>ul"
	Tag      string   `json:"tag"`
	Classes  []string `json:"classes,omitempty"`
	Blocks   []Block  `json:"blocks"`             // the region's blocks in document order
	Keywords []string `json:"keywords,omitempty"` // the discovery keywords the region was chosen with (lower-cased)
	Hash     string   `json:"hash"`               // hex SHA-256 over the normalised blocks as a sorted multiset
	// Omitted are short hashes of the blocks inside the region that were
	// left out as boilerplate (a share bar, a "related" list): a block
	// that only moves between left out and kept, as when a site renames
	// its classes, is not a change.
	Omitted []string `json:"omitted,omitempty"`
	// Outside are, for a keyword scope, the short hashes of the blocks
	// that mention a keyword but lie outside the scope (in navigation, an
	// aside …): one that a class rename brings into the content moved,
	// it did not appear.
	Outside []string `json:"outside,omitempty"`
	// Boiler marks a keyword scope made of boilerplate because no block
	// of the content mentioned a keyword; without it, a page whose content
	// no longer does is watched as empty (its keyword blocks removed),
	// not as the navigation that still mentions one.
	Boiler bool `json:"boiler,omitempty"`
}

// Block is one block of a region. Text has its white space collapsed
// and keeps volatile tokens; they are normalised when blocks are hashed
// and compared.
type Block struct {
	Text string `json:"text"`
	Href string `json:"href,omitempty"` // first link (a document link preferred), absolute
	Src  string `json:"src,omitempty"`  // first img/embed/iframe/object source, absolute
}

// Region is a region found in a page.
type Region struct {
	Fingerprint *Fingerprint
	Markdown    string  // the region as markdown (the run's snapshot)
	Score       float64 // relocation score 0–100 (100 when anchored)

	root *html.Node
}

// Root returns the region's root element in the parsed page (for a
// keyword scope, the common ancestor of its parts).
func (r *Region) Root() *html.Node { return r.root }

// Lost tells whether a relocated region was not found: its score is
// under RelocateThreshold. A keyword scope is never lost: it is found by
// its keywords, and a keyword block that went away is a change.
func (r *Region) Lost() bool {
	return r.Score < RelocateThreshold && (r.Fingerprint == nil || r.Fingerprint.Scope != ScopeKeywords)
}

// Bounds of a fingerprint and of a comparison's output.
const (
	maxBlocks      = 2000
	maxText        = 256 << 10
	maxSignals     = 50
	maxSignalText  = 2000
	maxPreview     = 500
	maxPathSegs    = 48
	maxClasses     = 16
	maxKeywords    = 64
	maxPDFLinks    = 50
	maxKeywordLen  = 200
	maxMarkdownOut = 1 << 20
)

var (
	// ErrKeywordsNotFound reports that no block of the page mentions a
	// discovery keyword.
	ErrKeywordsNotFound = errors.New("detect: none of the discovery keywords appears on the page")
	// ErrNoBody reports a document without a <body>.
	ErrNoBody = errors.New("detect: the page has no body")
	// ErrNoFingerprint reports a Relocate without a previous fingerprint.
	ErrNoFingerprint = errors.New("detect: no previous fingerprint")
)

// cleanKeywords lower-cases the keywords, collapses their white space
// and drops empty and repeated ones.
func cleanKeywords(keywords []string) []string {
	var out []string
	seen := make(map[string]bool)
	for _, k := range keywords {
		k = strings.ToLower(strings.Join(strings.Fields(k), " "))
		if k == "" || len(k) > maxKeywordLen || seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, k)
		if len(out) == maxKeywords {
			break
		}
	}
	return out
}

// mentions tells whether text contains one of the cleaned keywords,
// ignoring case and white space differences.
func mentions(text string, keywords []string) bool {
	if len(keywords) == 0 || text == "" {
		return false
	}
	low := strings.ToLower(text)
	if strings.ContainsFunc(low, func(r rune) bool { return r == '\u00a0' }) {
		low = strings.Join(strings.Fields(low), " ")
	}
	for _, k := range keywords {
		if strings.Contains(low, k) {
			return true
		}
	}
	return false
}
