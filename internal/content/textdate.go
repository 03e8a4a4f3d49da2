package content

import (
	"regexp"
	"strings"
	"time"
	"unicode"

	htmldate "github.com/markusmobius/go-htmldate"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// textDateOn switches textDate on (issue 20, date2; bench/content
// README, "Issue 20, date2"). Off: the rule failed the half rule and
// stays here switched off. SetTextDate sets it (bench/metadata -textdate);
// set it before converting pages, never while pages are converted.
var textDateOn = false

// SetTextDate switches the text-date rule (textDate) on or off.
func SetTextDate(on bool) { textDateOn = on }

// textDateMaxElements bounds the pages textDate reads: go-htmldate clones
// the tree twice and renders it once, so a very large page is left alone.
const textDateMaxElements = 20000

// textDateMaxSource bounds the text a date is read from, in bytes: a
// byline or a date line is short; a notice or a paragraph that holds a
// date is not the page's date.
const textDateMaxSource = 100

// textDateMaxShare is how far into the body's text, as a share of it, a
// date may start: a byline sits before or at the top of the content; a
// date in the references or at the foot is not the page's.
const textDateMaxShare = 0.5

// textDateNow is the fetch time a date may not pass (a variable for the
// tests).
var textDateNow = time.Now

// machineDate is a date written for programs (an ISO timestamp with its
// time, or YYYYMMDD): go-htmldate reads those from attributes and metas,
// which date modified pages as often as published ones.
var machineDate = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}[T ]\d|^\d{8}$`)

// textDate is the publication day, YYYY-MM-DD, that go-htmldate's fast
// search (no go-dateparser) finds in the page's text, or "" when it
// finds none or the gates refuse it. It is called only on pages that
// the markup does not date and that the classifier calls an article or
// a forum thread, before the selector changes the tree (go-htmldate
// clones what it reads). Gates: the date is not after now; its source
// is text a reader sees (not a URL, an image's name, or a machine
// timestamp from an attribute) of at most textDateMaxSource bytes; and
// that text starts in the first half of the body's text, outside a
// footer, aside, nav, or a sidebar, related, comment or widget block.
func textDate(root *html.Node, elements int) string {
	if elements > textDateMaxElements {
		return ""
	}
	now := textDateNow()
	r, err := htmldate.FromDocument(root, htmldate.Options{
		// A URL without a date: go-htmldate would answer the page's URL's
		// day first (and look for the canonical link's when none is
		// given), which is not text a reader sees.
		URL:                 "about:blank",
		UseOriginalDate:     true,
		SkipExtensiveSearch: true,
		MaxDate:             now,
	})
	if err != nil || r.IsZero() || r.DateTime.After(now) {
		return ""
	}
	src := strings.Join(strings.Fields(r.SrcString), " ")
	if src == "" || len(src) > textDateMaxSource || strings.Contains(src, "://") || strings.HasPrefix(src, "/") || strings.HasPrefix(src, "www.") || machineDate.MatchString(src) {
		return ""
	}
	if !dateInBody(root, src) {
		return ""
	}
	return r.DateTime.Format("2006-01-02")
}

// dateInBody reports whether src (white space normalised) starts in the
// first textDateMaxShare of the visible text of the body, in a text node
// outside the page's chrome.
// One walk: the body's text is joined with white space collapsed, each
// text node's start offset kept.
func dateInBody(root *html.Node, src string) bool {
	body := findBody(root)
	if body == nil {
		return false
	}
	const maxPrefix = 40
	if len(src) > maxPrefix {
		src = src[:maxPrefix]
		for len(src) > 0 && src[len(src)-1]&0xC0 == 0x80 {
			src = src[:len(src)-1] // not inside a rune
		}
		if len(src) > 0 && src[len(src)-1] >= 0xC0 {
			src = src[:len(src)-1]
		}
	}
	var b strings.Builder
	type start struct {
		at   int
		node *html.Node
	}
	var starts []start
	space := true // collapse leading white space
	const maxText = 4 << 20
	var walk func(n *html.Node, depth int)
	walk = func(n *html.Node, depth int) {
		if depth > 512 || b.Len() > maxText {
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				starts = append(starts, start{b.Len(), c})
				for _, r := range c.Data {
					if unicode.IsSpace(r) {
						if !space {
							b.WriteByte(' ')
							space = true
						}
						continue
					}
					b.WriteRune(r)
					space = false
				}
			case html.ElementNode:
				switch c.DataAtom {
				case atom.Script, atom.Style, atom.Noscript, atom.Template:
					continue
				}
				walk(c, depth+1)
			}
		}
	}
	walk(body, 0)
	text := b.String()
	at := strings.Index(text, src)
	if at < 0 || float64(at) > textDateMaxShare*float64(len(text)) {
		return false
	}
	var node *html.Node
	for _, s := range starts {
		if s.at > at {
			break
		}
		node = s.node
	}
	return node != nil && !inChrome(node, body)
}

// chromeWords mark a block of the page's chrome by class or id.
var chromeWords = []string{"sidebar", "footer", "widget", "related", "comment", "recommend", "popular", "trending"}

// inChrome reports whether n sits in a footer, aside or nav, or in an
// element whose class or id names a sidebar, footer, widget, related or
// comment block, below stop.
func inChrome(n, stop *html.Node) bool {
	for p := n.Parent; p != nil && p != stop; p = p.Parent {
		if p.Type != html.ElementNode {
			continue
		}
		switch p.DataAtom {
		case atom.Footer, atom.Aside, atom.Nav:
			return true
		}
		for _, a := range p.Attr {
			if a.Namespace != "" || (a.Key != "class" && a.Key != "id") {
				continue
			}
			v := strings.ToLower(a.Val)
			for _, w := range chromeWords {
				if strings.Contains(v, w) {
					return true
				}
			}
		}
	}
	return false
}
