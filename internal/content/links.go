package content

import (
	"net/url"
	"path"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// siteHost is a host name lower-cased, without port and "www.".
func siteHost(h string) string {
	h = strings.ToLower(h)
	if i := strings.LastIndexByte(h, ':'); i >= 0 && !strings.Contains(h[i:], "]") {
		h = h[:i]
	}
	return strings.TrimPrefix(h, "www.")
}

// docExtensions are the file types of documents a page links to as
// content: a release in PDF, figures in a spreadsheet.
var docExtensions = map[string]bool{
	".pdf": true, ".doc": true, ".docx": true, ".xls": true, ".xlsx": true, ".xlsm": true, ".ppt": true,
	".pptx": true, ".csv": true, ".zip": true, ".odt": true, ".ods": true, ".odp": true, ".rtf": true,
	".epub": true,
}

// docLink tells whether href points to a document file.
func docLink(href string) bool {
	// Called for every link each time a text is measured: no allocation.
	href = strings.TrimSpace(href)
	// Up to the first '?' or '#': two IndexByte calls cost less than
	// IndexAny's byte-set loop.
	if i := strings.IndexByte(href, '?'); i >= 0 {
		href = href[:i]
	}
	if i := strings.IndexByte(href, '#'); i >= 0 {
		href = href[:i]
	}
	ext := path.Ext(href)
	if len(ext) < 3 || len(ext) > 5 {
		return false
	}
	var b [5]byte
	for i := 0; i < len(ext); i++ {
		c := ext[i]
		if isUpper(c) {
			c += 'a' - 'A'
		}
		b[i] = c
	}
	return docExtensions[string(b[:len(ext)])]
}

// socialHosts are sites whose links in an article are share buttons or
// "follow us" calls, not references.
var socialHosts = []string{"facebook.com", "twitter.com", "x.com", "instagram.com", "linkedin.com",
	"pinterest.com", "whatsapp.com", "wa.me", "t.me", "telegram.me", "xing.com", "reddit.com",
	"tumblr.com", "vk.com", "threads.net", "tiktok.com", "flipboard.com", "bsky.app", "mastodon.social"}

// linkKind classifies a link of a page on host: to a document, to the
// same site (relative, same host or a subdomain of it, in-page), to a
// social network, or to another site.
type linkKind int

const (
	linkSame linkKind = iota
	linkDoc
	linkSocial
	linkOther
)

func classifyLink(href, host string) linkKind {
	href = strings.TrimSpace(href)
	if docLink(href) {
		return linkDoc
	}
	u, err := url.Parse(href)
	if err != nil {
		return linkSame
	}
	if u.Host == "" {
		switch strings.ToLower(u.Scheme) {
		case "", "http", "https":
			return linkSame
		}
		return linkOther // mailto:, tel:
	}
	h := siteHost(u.Host)
	for _, s := range socialHosts {
		if h == s || strings.HasSuffix(h, "."+s) {
			return linkSocial
		}
	}
	if host == "" || h == host || strings.HasSuffix(h, "."+host) || strings.HasSuffix(host, "."+h) {
		return linkSame
	}
	return linkOther
}

// linkOnly tells whether the text of n is (almost) all link text, and
// what the links point to: any document, any other site.
func linkOnly(n *html.Node, host string) (only, doc, other bool) {
	var total, linked int
	var links []string
	var visit func(*html.Node, bool)
	visit = func(n *html.Node, inLink bool) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				l := len(strings.TrimSpace(c.Data))
				total += l
				if inLink {
					linked += l
				}
			case html.ElementNode:
				in := inLink
				if c.DataAtom == atom.A {
					if href := attr(c, "href"); href != "" {
						links = append(links, href)
					}
					in = true
				}
				visit(c, in)
			}
		}
	}
	visit(n, false)
	if total == 0 || float64(linked) < 0.9*float64(total) {
		return false, false, false
	}
	// Links are parsed only for the paragraphs that are all links.
	for _, href := range links {
		switch classifyLink(href, host) {
		case linkDoc:
			doc = true
		case linkOther:
			other = true
		}
	}
	return true, doc, other
}

// dropLinkOnly removes paragraphs of the article that are nothing but
// a link within the site ("Read more: ...", another story's title set as
// a paragraph, "Comments (5)"). Paragraphs that link a document or
// another site stay: on an investor-relations page the link to the PDF
// is the content. A link of one or two words ("Next", "Top") may be a
// control of the page itself and stays too.
func dropLinkOnly(art *html.Node, host string) {
	removeTags(art, func(n *html.Node) bool {
		if n.DataAtom != atom.P || inTableCell(n) {
			return false
		}
		only, doc, other := linkOnly(n, host)
		if only && !doc && !other && len(strings.Fields(nodeText(n))) >= 3 {
			traceClean(art, "link-only paragraph", n)
			return true
		}
		return false
	})
}

// docBlock tells whether n is a short block that links documents and
// little else: "Download the release (PDF)" after the body.
func docBlock(n *html.Node, host string) bool {
	if textStats(n, nil).length > 300 {
		return false
	}
	only, doc, _ := linkOnly(n, host)
	return only && doc
}

// inTableCell tells whether n is inside a table cell: a link there is
// the table's data (an infobox's "Coat of arms"), not a paragraph.
func inTableCell(n *html.Node) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		switch p.DataAtom {
		case atom.Td, atom.Th:
			return true
		case atom.Table:
			return false
		}
	}
	return false
}
