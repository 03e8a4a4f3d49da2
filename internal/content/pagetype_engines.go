package content

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Forum engines other than phpBB (pagetype_phpbb.go) that write their
// posts in their own markup, the same from site to site, and no
// schema.org posts: XenForo and MyBB. (Readers of FluxBB, Vanilla,
// Invision, vBulletin, SMF and Discuz were measured and not kept: see
// bench/content/README.md, forum4.) Each engine names a post block by its attributes
// (cheap, no walk) and finds in it the post's text, author and date, as
// the engine's default templates write them.

// engine is one forum engine's post markup.
type engine struct {
	name string
	off  *bool // the engine's switch (rulesoff.go)
	// claims reports whether the element n is, by its own attributes, one
	// of the engine's post blocks; its subtree is then not walked again.
	claims func(n *html.Node) bool
	// text returns the post's text element, or nil when p is not a post.
	text   func(p *html.Node) *html.Node
	author func(p *html.Node) string
	date   func(p *html.Node) string
	// drop reports whether an element of the text is one of the engine's
	// controls (an expander, an edit note) rather than the post's words.
	drop func(n *html.Node) bool
}

// maxEnginePosts bounds the posts one thread reads.
const maxEnginePosts = 2000

// engines are tried on every element, in this order.
var engines = []*engine{xenforoEngine, mybbEngine}

// engineThread returns the author, date and text of every post of the
// engine with the most posts in body, in order, or nil when no engine
// has two posts or more.
func engineThread(body *html.Node) *html.Node {
	posts := make([][]*html.Node, len(engines))
	texts := make([][]*html.Node, len(engines))
	total := 0
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil && total < maxEnginePosts; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			claimed := false
			for i, e := range engines {
				if *e.off || !e.claims(c) {
					continue
				}
				// Posts do not nest: a claimed block is not walked again,
				// post or not, so nested blocks cost one pass.
				claimed = true
				if t := e.text(c); t != nil {
					posts[i] = append(posts[i], c)
					texts[i] = append(texts[i], t)
					total++
				}
				break
			}
			if !claimed {
				walk(c)
			}
		}
	}
	walk(body)
	best := -1
	for i := range engines {
		if len(posts[i]) >= 2 && (best < 0 || len(posts[i]) > len(posts[best])) {
			best = i
		}
	}
	if best < 0 {
		return nil
	}
	e := engines[best]
	thread := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	for j, p := range posts[best] {
		if name := e.author(p); name != "" {
			thread.AppendChild(line(name))
		}
		if d := e.date(p); d != "" {
			thread.AppendChild(line(d))
		}
		text := cloneTree(texts[best][j])
		if e.drop != nil {
			dropMatching(text, e.drop)
		}
		thread.AppendChild(text)
	}
	return thread
}

// dropMatching removes from n every element (n excluded) that drop
// reports.
func dropMatching(n *html.Node, drop func(*html.Node) bool) {
	var out []*html.Node
	for d := range n.Descendants() {
		if d.Type == html.ElementNode && drop(d) {
			out = append(out, d)
		}
	}
	for _, d := range out {
		if d.Parent != nil {
			d.Parent.RemoveChild(d)
		}
	}
}

// firstMatch returns the first element under n (n excluded) that ok
// reports, or nil.
func firstMatch(n *html.Node, ok func(*html.Node) bool) *html.Node {
	if n == nil {
		return nil
	}
	for d := range n.Descendants() {
		if d.Type == html.ElementNode && ok(d) {
			return d
		}
	}
	return nil
}

// textIn returns the collapsed text of n, or "" when n is nil.
func textIn(n *html.Node) string {
	if n == nil {
		return ""
	}
	return collapse(nodeText(n))
}

// numberedID reports whether id is prefix followed by one digit or more.
func numberedID(id, prefix string) bool {
	rest, ok := strings.CutPrefix(id, prefix)
	if !ok || rest == "" {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if rest[i] < '0' || rest[i] > '9' {
			return false
		}
	}
	return true
}

// timeText returns the text of the first <time> under n, or "".
func timeText(n *html.Node) string {
	return textIn(firstMatch(n, func(d *html.Node) bool { return d.DataAtom == atom.Time }))
}

// XenForo 2: each post an <article class="message …" data-author="<name>">,
// its date the <time> of header.message-attribution, its text the
// div.bbWrapper of article.message-body (the signature is another
// bbWrapper, in aside.message-signature); a quote's "Click to expand..."
// is div.bbCodeBlock-expandLink. XenForo 1: <li class="message"
// data-author="<name>">, the text blockquote.messageText, the date
// span.DateTime (abbr.DateTime when recent), a quote's expander
// div.quoteExpand and its jump link a.AttributionLink, and the end
// marker div.messageTextEndMarker.
var xenforoEngine = &engine{
	name: "xenforo",
	off:  &offXenForo,
	claims: func(n *html.Node) bool {
		return (n.DataAtom == atom.Article || n.DataAtom == atom.Li) && hasClassToken(n, "message") && attr(n, "data-author") != ""
	},
	text: func(p *html.Node) *html.Node {
		if t := firstClassed(firstClassed(p, "message-body"), "bbWrapper"); t != nil {
			return t
		}
		return firstClassed(p, "messageText")
	},
	author: func(p *html.Node) string { return collapse(attr(p, "data-author")) },
	date: func(p *html.Node) string {
		if t := timeText(firstClassed(p, "message-attribution")); t != "" {
			return t
		}
		return textIn(firstClassed(firstClassed(p, "messageMeta"), "DateTime"))
	},
	drop: func(n *html.Node) bool {
		for _, c := range []string{"bbCodeBlock-expandLink", "quoteExpand", "AttributionLink", "messageTextEndMarker"} {
			if hasClassToken(n, c) {
				return true
			}
		}
		return false
	},
}

// MyBB 1.8: each post a <div class="post …" id="post_<n>">, the author
// the link in span.largetext of div.author_information, the date
// span.post_date (its span.post_edit left out), the text
// div#pid_<n>.
var mybbEngine = &engine{
	name: "mybb",
	off:  &offMyBB,
	claims: func(n *html.Node) bool {
		return hasClassToken(n, "post") && numberedID(attr(n, "id"), "post_")
	},
	text: func(p *html.Node) *html.Node {
		return firstMatch(p, func(d *html.Node) bool { return numberedID(attr(d, "id"), "pid_") })
	},
	author: func(p *html.Node) string {
		info := firstClassed(p, "author_information")
		if l := firstClassed(info, "largetext"); l != nil {
			return textIn(l)
		}
		return textIn(firstMatch(info, func(d *html.Node) bool { return d.DataAtom == atom.A }))
	},
	date: func(p *html.Node) string {
		d := firstClassed(p, "post_date")
		if d == nil {
			return ""
		}
		c := cloneTree(d)
		dropMatching(c, func(n *html.Node) bool { return hasClassToken(n, "post_edit") })
		return textIn(c)
	},
}
