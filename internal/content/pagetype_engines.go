package content

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Forum engines other than phpBB (pagetype_phpbb.go) that write their
// posts in their own markup, the same from site to site, and no
// schema.org posts. Each engine names a post block by its attributes
// (cheap, no walk) and finds in it the post's text, author and date, as
// the engine's default templates write them.

// engine is one forum engine's post markup.
type engine struct {
	name string
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
var engines = []*engine{fluxbbEngine, vanillaEngine, invisionEngine, xenforoEngine, vbulletinEngine, smfEngine, mybbEngine, discuzEngine}

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
				if !e.claims(c) {
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

// FluxBB (and PunBB 1.2, which it continues): each post a
// <div id="p<n>" class="blockpost …">; its number and permalinked date
// in the <h2>, the author in the left column's <dt> (with the title,
// join date and post count in <dd>s), the text in div.postmsg, the
// "Last edited by" note in p.postedit, the signature in a second
// div.postmsg that is also div.postsignature.
var fluxbbEngine = &engine{
	name: "fluxbb",
	claims: func(n *html.Node) bool {
		return numberedID(attr(n, "id"), "p") && hasClassToken(n, "blockpost")
	},
	text: func(p *html.Node) *html.Node {
		return firstMatch(p, func(d *html.Node) bool {
			return hasClassToken(d, "postmsg") && !hasClassToken(d, "postsignature")
		})
	},
	author: func(p *html.Node) string {
		left := firstClassed(p, "postleft")
		return textIn(firstMatch(left, func(d *html.Node) bool { return d.DataAtom == atom.Dt }))
	},
	date: func(p *html.Node) string {
		h := firstMatch(p, func(d *html.Node) bool { return d.DataAtom == atom.H2 })
		return textIn(firstMatch(h, func(d *html.Node) bool { return d.DataAtom == atom.A }))
	},
	drop: func(n *html.Node) bool { return hasClassToken(n, "postedit") },
}

// Vanilla: the discussion's opening post a <div id="Discussion_<n>"
// class="Item …">, each comment an <li id="Comment_<n>" class="Item …">;
// the author's name the last link of span.Author (the first is the
// photo), the date the <time> of span.DateCreated, the text
// div.Message.
var vanillaEngine = &engine{
	name: "vanilla",
	claims: func(n *html.Node) bool {
		id := attr(n, "id")
		return hasClassToken(n, "Item") && (numberedID(id, "Discussion_") || numberedID(id, "Comment_"))
	},
	text: func(p *html.Node) *html.Node { return firstClassed(p, "Message") },
	author: func(p *html.Node) string {
		a := firstClassed(p, "Author")
		if a == nil {
			return ""
		}
		name := ""
		for d := range a.Descendants() {
			if d.Type == html.ElementNode && d.DataAtom == atom.A {
				if t := textIn(d); t != "" {
					name = t
				}
			}
		}
		if name == "" {
			name = textIn(a)
		}
		return name
	},
	date: func(p *html.Node) string {
		d := firstClassed(p, "DateCreated")
		if t := timeText(d); t != "" {
			return t
		}
		return textIn(d)
	},
}

// Invision Community (IPS 4 and 5): each post an
// <article id="elComment_<n>">; the text the element with
// data-role="commentContent", the author h3.cAuthorPane_author (4) or
// h3.ipsEntry__username (5), the date the post's first <time> (5 writes
// a long and a short form in it: the long one).
var invisionEngine = &engine{
	name: "invision",
	claims: func(n *html.Node) bool {
		return n.DataAtom == atom.Article && numberedID(attr(n, "id"), "elComment_")
	},
	text: func(p *html.Node) *html.Node {
		return firstMatch(p, func(d *html.Node) bool { return attr(d, "data-role") == "commentContent" })
	},
	author: func(p *html.Node) string {
		return textIn(firstMatch(p, func(d *html.Node) bool {
			return hasClassToken(d, "cAuthorPane_author") || hasClassToken(d, "ipsEntry__username")
		}))
	},
	date: func(p *html.Node) string {
		t := firstMatch(p, func(d *html.Node) bool { return d.DataAtom == atom.Time })
		if long := firstClassed(t, "ipsTime__long"); long != nil {
			return textIn(long)
		}
		return textIn(t)
	},
	// The edit note ("Edited <date> by <name>", marked to be left out of
	// quotes) and a long quote's "Expand" control.
	drop: func(n *html.Node) bool {
		return hasKey(n, "data-excludequote") || attr(n, "data-action") == "expandTruncate"
	},
}

// hasKey reports whether n carries the attribute key, with any value.
func hasKey(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Key == key {
			return true
		}
	}
	return false
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

// vBulletin 3: each post a <table id="post<n>"> (in div#edit<n>), the
// author a.bigusername, the date the text beside <a name="post<n>"> in
// the header row, the text div#post_message_<n>. vBulletin 4: <li
// id="post_<n>" class="postcontainer …">, the author a.username, the
// date span.date, the text div#post_message_<n> (the signature in
// div.after_content). vBulletin 5: <li class="b-post …"
// data-node-id="<n>">, the author div.author's link, the date the first
// <time>, the text div.js-post__content-text.
var vbulletinEngine = &engine{
	name: "vbulletin",
	claims: func(n *html.Node) bool {
		id := attr(n, "id")
		switch {
		case n.DataAtom == atom.Table && numberedID(id, "post"):
			return true
		case numberedID(id, "post_") && hasClassToken(n, "postcontainer"):
			return true
		}
		return hasClassToken(n, "b-post") && attr(n, "data-node-id") != ""
	},
	text: func(p *html.Node) *html.Node {
		return firstMatch(p, func(d *html.Node) bool {
			return numberedID(attr(d, "id"), "post_message_") || hasClassToken(d, "js-post__content-text")
		})
	},
	author: func(p *html.Node) string {
		if a := firstMatch(p, func(d *html.Node) bool {
			return d.DataAtom == atom.A && (hasClassToken(d, "bigusername") || hasClassToken(d, "username"))
		}); a != nil {
			return textIn(a)
		}
		au := firstClassed(p, "author")
		return textIn(firstMatch(au, func(d *html.Node) bool { return d.DataAtom == atom.A }))
	},
	date: func(p *html.Node) string {
		if d := textIn(firstClassed(p, "date")); d != "" {
			return d
		}
		if t := timeText(p); t != "" {
			return t
		}
		anchor := firstMatch(p, func(d *html.Node) bool {
			return d.DataAtom == atom.A && numberedID(attr(d, "name"), "post")
		})
		if anchor != nil && anchor.Parent != nil {
			return textIn(anchor.Parent)
		}
		return ""
	},
}

// Simple Machines (SMF 2.0, 2.1): each post a div.post_wrapper, the
// author the link of div.poster's <h4>, the date div.smalltext of
// div.keyinfo (2.0: "« Reply #1 on: <date> »") or a.smalltext of
// div.postinfo (2.1), the text div#msg_<n>.
var smfEngine = &engine{
	name:   "smf",
	claims: func(n *html.Node) bool { return hasClassToken(n, "post_wrapper") },
	text: func(p *html.Node) *html.Node {
		return firstMatch(p, func(d *html.Node) bool { return numberedID(attr(d, "id"), "msg_") })
	},
	author: func(p *html.Node) string {
		h := firstMatch(firstClassed(p, "poster"), func(d *html.Node) bool { return d.DataAtom == atom.H4 })
		if a := firstMatch(h, func(d *html.Node) bool { return d.DataAtom == atom.A && textIn(d) != "" }); a != nil {
			return textIn(a)
		}
		return textIn(h)
	},
	date: func(p *html.Node) string {
		box := firstClassed(p, "keyinfo")
		if box == nil {
			box = firstClassed(p, "postinfo")
		}
		d := textIn(firstClassed(box, "smalltext"))
		if _, after, ok := strings.Cut(d, " on: "); ok {
			d = after
		}
		return strings.TrimSpace(strings.Trim(d, "«» "))
	},
}

// MyBB 1.8: each post a <div class="post …" id="post_<n>">, the author
// the link in span.largetext of div.author_information, the date
// span.post_date (its span.post_edit left out), the text
// div#pid_<n>.
var mybbEngine = &engine{
	name: "mybb",
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

// Discuz! X: each post a <table id="pid<n>">, the author a.xw1, the
// date em#authorposton<n> (after its "posted on" word), the text
// td#postmessage_<n>; the edit note i.pstatus and the anti-copy noise
// of font.jammer and span.jammer are left out.
var discuzEngine = &engine{
	name: "discuz",
	claims: func(n *html.Node) bool {
		return n.DataAtom == atom.Table && numberedID(attr(n, "id"), "pid")
	},
	text: func(p *html.Node) *html.Node {
		return firstMatch(p, func(d *html.Node) bool { return numberedID(attr(d, "id"), "postmessage_") })
	},
	author: func(p *html.Node) string {
		return textIn(firstMatch(p, func(d *html.Node) bool { return d.DataAtom == atom.A && hasClassToken(d, "xw1") }))
	},
	date: func(p *html.Node) string {
		em := firstMatch(p, func(d *html.Node) bool { return numberedID(attr(d, "id"), "authorposton") })
		if s := firstMatch(em, func(d *html.Node) bool { return attr(d, "title") != "" }); s != nil {
			return collapse(attr(s, "title"))
		}
		d := textIn(em)
		// The date begins at its first digit.
		if i := strings.IndexAny(d, "0123456789"); i > 0 {
			d = d[i:]
		}
		return d
	},
	drop: func(n *html.Node) bool { return hasClassToken(n, "pstatus") || hasClassToken(n, "jammer") },
}
