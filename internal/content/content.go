// Package content turns fetched bodies (HTML, PDF, plain text, JSON, XML)
// into what agents read: markdown, plain text, links and metadata, and
// classifies whether a fetched page is usable (see Classify).
//
// Every function here is pure: no network, no database, no globals that
// change after init. An HTML page is parsed once into a tree; metadata,
// links, page signals, main-content extraction and markdown all reuse it.
package content

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Options selects what HTML produces. Callers set OnlyMainContent to true
// unless the request asks otherwise (the API default is true).
type Options struct {
	// OnlyMainContent keeps the article body and drops navigation,
	// headers, footers and sidebars. When false the whole <body> is
	// converted, minus script, style, noscript, template, svg and
	// elements a browser would not show (hidden, aria-hidden,
	// inline display:none). Both drop these before anything else.
	OnlyMainContent bool
	// IncludeHTML fills Document.HTML with the cleaned HTML that the
	// markdown was made from.
	IncludeHTML bool
	// IncludeLinks fills Document.Links with every link of the page.
	IncludeLinks bool
}

// Metadata describes a page. Empty fields were not found.
type Metadata struct {
	Title         string
	Description   string
	Language      string
	Canonical     string
	SiteName      string
	Author        string
	PublishedTime string
	Image         string
	// OpenGraph holds og:*, article:* and twitter:* meta properties,
	// keyed by property name; the first value of a repeated key wins.
	OpenGraph map[string]string
}

// Link is one hyperlink of a page. URL is absolute, without fragment-only
// targets and without javascript: or data: schemes.
type Link struct {
	URL  string
	Text string
}

// Document is the result of converting one body.
type Document struct {
	Metadata Metadata
	// Markdown is the content (main content or whole body, per Options).
	Markdown string
	// Text is the same content as plain text: one block per line.
	Text string
	// HTML is the cleaned content HTML, set only with Options.IncludeHTML.
	HTML string
	// Links lists every link of the page, deduplicated by URL, set only
	// with Options.IncludeLinks.
	Links []Link
	// PageType is the kind of page (HTML pages; PDF and plain text are
	// articles; empty for JSON and XML).
	PageType PageType
	// Confidence is the extractor's estimate, 0 to 1, of how well it
	// found the main content (see confidence.go); -1 when it does not
	// apply: the whole body was asked for, or a JSON or XML body.
	Confidence float64

	signals signals
	// textWords is the word count (countWords) of textCounted, the Text
	// it was counted on: the confidence inputs need it, and Classify
	// reuses it while Text is that text.
	textWords   int
	textCounted string
	// features and confFeatures are the models' inputs, kept for the
	// trainer (bench/pagetype).
	features     typeFeatures
	confFeatures confidenceFeatures
}

// TypeFeatures returns the page-type classifier's input for this page
// (HTML only), in the order of TypeFeatureNames.
func (d *Document) TypeFeatures() []float64 { return append([]float64(nil), d.features[:]...) }

// ConfidenceFeatures returns the confidence model's input for this page
// (HTML main content only), in the order of ConfidenceFeatureNames.
func (d *Document) ConfidenceFeatures() []float64 {
	return append([]float64(nil), d.confFeatures[:]...)
}

// signals are page facts gathered during the single parse walk that
// Classify needs and that the public fields do not carry.
type signals struct {
	isHTML       bool
	scripts      int      // <script> elements
	bodyWords    int      // visible words of <body> (no script/style/noscript/template)
	elements     int      // element nodes of the page
	noscriptText string   // text inside <noscript>, lower-cased, capped
	emptyRoot    bool     // an empty app mount point such as <div id="root"></div>
	titleTag     string   // raw <title>
	h1           string   // first <h1> text
	ldTypes      []string // JSON-LD @type values
}

// ErrEmpty reports a body with nothing to convert.
var ErrEmpty = errors.New("content: empty body")

// HTML converts an HTML page. body must already be UTF-8; pageURL is the
// final URL of the page and is used to make links and images absolute
// (a <base href> in the page takes precedence, as in browsers).
func HTML(body []byte, pageURL string, opt Options) (*Document, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, ErrEmpty
	}
	// A page that declares UTF-8 may still hold invalid bytes; nothing
	// downstream should carry them.
	if !utf8.Valid(body) {
		body = bytes.ToValidUTF8(body, []byte("\uFFFD"))
	}
	// The parser reads the page with its scripts' and style sheets'
	// text replaced: nothing reads that text (see lightBody).
	root, err := parseHTML(func() io.Reader { return lightBody(body) })
	if err != nil {
		return nil, fmt.Errorf("content: parse html: %w", err)
	}
	return fromTree(root, pageURL, opt), nil
}

// fromTree runs the pipeline on a parsed document. The tree is modified.
func fromTree(root *html.Node, pageURL string, opt Options) *Document {
	base, _ := url.Parse(pageURL)
	s := scan(root, base, opt.IncludeLinks)

	doc := &Document{Metadata: s.meta, Links: s.links, signals: s.sig, Confidence: -1}
	c := contentNode(root, s, opt, doc)
	if c.textOK {
		doc.Text = c.text
		renderMarkup(doc, c.node, opt)
	} else {
		render(doc, c.node, opt)
	}
	if !offNFC && composeOutputs(doc) {
		c.textOK = false
	}
	if c.textOK {
		doc.textWords = c.words
	} else {
		doc.textWords = countWords(doc.Text)
	}
	doc.textCounted = doc.Text
	if c.main {
		doc.confFeatures = confidenceInputs(c.node, doc.Text, doc.textWords, s.sig.bodyWords, &c.facts, c.probs)
		doc.Confidence = confidenceOf(&doc.confFeatures)
	}
	c.facts.tallies.done()
	c.facts.nodes.done()
	s.texts.done()
	return doc
}

// chosen is what contentNode picked: the tree the outputs are made from,
// whether it is the main content (not the whole body), what the
// extraction found on the way and the page-type probabilities.
type chosen struct {
	node  *html.Node
	main  bool
	facts extractFacts
	probs [len(PageTypes)]float64
	// text is textOf(node) when textOK: the selector's measure of the
	// article when the article is the choice and the steps after the
	// selector left what textOf reads of it as it was.
	text   string
	words  int // countWords(text)
	textOK bool
}

// contentNode classifies the page (doc's page type) and returns the tree
// that the outputs are made from: the main content or the whole body, per
// opt, ready to render.
func contentNode(root *html.Node, s scanResult, opt Options, doc *Document) chosen {
	var c chosen
	// The walk that counts the page's words and prices takes the body's
	// bounds for the selector's views on the way (viewBound).
	var vb *viewBound
	if opt.OnlyMainContent {
		vb = new(viewBound)
	}
	doc.features = pageFeaturesBound(root, s.base, s.sig.ldTypes, s.meta.OpenGraph["og:type"], vb, &s.texts)
	c.probs = classify(&doc.features)
	typ := argmax(c.probs[:])
	doc.PageType = PageTypes[typ]
	if textDateOn && doc.Metadata.PublishedTime == "" && (doc.PageType == TypeArticle || doc.PageType == TypeForum) {
		// No markup dates the page: the day its text shows (textdate.go),
		// read before the selector changes the tree.
		doc.Metadata.PublishedTime = textDate(root, s.sig.elements)
	}

	var node *html.Node
	var langs map[string]string
	if opt.OnlyMainContent && !offChrome && chromeOnly(findBody(root)) {
		// Every word of the page sits in its header, menus, asides and
		// footer (a script-rendered shell): there is no main content,
		// and the article would be one of those.
		node = &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	} else if opt.OnlyMainContent {
		c.facts.listing = typ == typeIndex(TypeListing)
		node, langs = mainContent(root, s.base, s.sig, s.meta.Title, &c.facts)
		if c.facts.tallies != nil {
			// The selector's peeks at its views read the words scan
			// counted (fromTree gives the list back at its end).
			c.facts.tallies.words = s.texts
		}
		var runs itemRuns // the item run, walked once for both
		k := typedContent(root, node, doc.PageType, c.probs, &runs)
		pick, text, words, measured := selectContentText(root, node, k, s.sig, c.facts.readableOK, c.probs, &runs, vb, c.facts.tallies)
		if pick == node {
			k = nil
		} else if pick != nil {
			k = pick
		}
		if k != nil {
			node, langs, c.facts.profile = k, nil, true
		} else if measured && node != nil {
			// The article stays: its text as the selector measured it
			// holds while nothing below changes what textOf reads.
			c.text, c.words, c.textOK = text, words, true
		}
		if node != nil && c.probs[typeIndex(TypeCollection)]+c.probs[typeIndex(TypeListing)] >= itemsProb && !offPagers && removePagers(node) {
			// The page numbers under a collection's or listing's items
			// (pagetype_category.go).
			c.textOK = false
		}
		if node != nil && typ == typeIndex(TypeProduct) && c.probs[typ] >= profileProb && !offDedup {
			// A product page's panels written twice (pagetype_product.go).
			dedupBlocks(node)
			c.textOK = false
		}
	}
	c.main = node != nil
	if node == nil {
		node = findBody(root)
		if node == nil {
			node = root
		}
		prune(node)
	}
	if normalizeTables(node) {
		c.textOK = false
	}
	if absolutizeWith(node, s.base, langs, s.resolved) {
		c.textOK = false
	}
	c.node = node
	if !c.textOK {
		c.text, c.words = "", 0
	}
	return c
}

// render fills doc's text, HTML and markdown from node.
func render(doc *Document, node *html.Node, opt Options) {
	doc.Text = textOf(node)
	renderMarkup(doc, node, opt)
}

// renderMarkup fills doc's HTML and markdown from node (render but the
// text).
func renderMarkup(doc *Document, node *html.Node, opt Options) {
	if opt.IncludeHTML {
		var b strings.Builder
		for c := node.FirstChild; c != nil; c = c.NextSibling {
			_ = html.Render(&b, c)
		}
		doc.HTML = b.String()
	}
	doc.Markdown = toMarkdown(node)
	if doc.Metadata.Title == "" {
		doc.Metadata.Title = firstHeading(doc.Markdown)
	}
}

func findBody(n *html.Node) *html.Node {
	if n.Type == html.ElementNode && n.Data == "body" {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if b := findBody(c); b != nil {
			return b
		}
	}
	return nil
}

// prune removes elements that never carry readable content.
func prune(n *html.Node) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		if c.Type == html.CommentNode {
			n.RemoveChild(c)
		} else if c.Type == html.ElementNode {
			switch c.Data {
			case "script", "style", "noscript", "template", "svg", "iframe", "link", "meta":
				n.RemoveChild(c)
			default:
				prune(c)
			}
		}
		c = next
	}
}

func firstHeading(md string) string {
	for line := range strings.SplitSeq(md, "\n") {
		if strings.HasPrefix(line, "# ") {
			return strings.TrimSpace(line[2:])
		}
	}
	return ""
}

// chromeOnly tells whether every word of body sits in its frame
// (frameLandmark: <nav>, <footer>, navigation and footer roles), past
// what prune removes, and there is one: a page whose server sent only
// the site's frame, the product or thread itself left to a script. (The
// scan has already removed hidden elements.) A page without any word is
// left to the pipeline as before. One walk, stopped at the first word
// outside the frame; each frame element is read until its first word,
// and only until one is found.
func chromeOnly(body *html.Node) bool {
	if body == nil {
		return false
	}
	framed := false
	var words func(n *html.Node, frame bool) bool
	words = func(n *html.Node, frame bool) bool {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				if countWords(c.Data) > 0 {
					return true
				}
			case html.ElementNode:
				if pruned(c) {
					continue
				}
				if !frame && frameLandmark(c) {
					if !framed && words(c, true) {
						framed = true
					}
					continue
				}
				if words(c, frame) {
					return true
				}
			}
		}
		return false
	}
	return !words(body, false) && framed
}

// frameLandmark tells whether n is a landmark of the site's frame that
// never holds a page's own text: a <nav> or <footer>, or the roles of
// navigation, menus and the site's footer. Headers, asides and dialogs
// sometimes do.
func frameLandmark(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Nav, atom.Footer:
		return true
	}
	switch strings.ToLower(strings.TrimSpace(attr(n, "role"))) {
	case "navigation", "menu", "menubar", "contentinfo":
		return true
	}
	return false
}
