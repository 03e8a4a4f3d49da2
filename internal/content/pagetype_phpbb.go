package content

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// phpBB threads. phpBB writes no schema.org markup; its styles (prosilver
// and those built on it, 3.0 to 3.3) write each post as a
// <div id="p<number>" class="post …"> holding a postbody, in which a
// <p class="author"> gives the date (3.0: "by <name> » <date>"; 3.3 a
// <time>) and a <div class="content"> the text; the author's name is a
// link with class "username" (or "username-coloured"), or, in 3.0, a
// link to memberlist.php?mode=viewprofile. The signature, the profile
// (post count, join date) and the "Re: <title>" heading sit outside the
// content.

// phpbbThread returns the author, date and text of every phpBB post of
// body, in order, or nil when there are fewer than two.
func phpbbThread(body *html.Node) *html.Node {
	var posts []*html.Node
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			if numberedID(attr(c, "id"), "p") && hasClassToken(c, "post") {
				// Posts do not nest: a post-like block without a
				// postbody and its content is not walked again, so
				// nested blocks cost one pass over the page.
				if pb := firstClassed(c, "postbody"); pb != nil && firstClassed(pb, "content") != nil {
					posts = append(posts, c)
				}
				continue
			}
			walk(c)
		}
	}
	walk(body)
	if len(posts) < 2 {
		return nil
	}
	thread := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	for _, p := range posts {
		pb := firstClassed(p, "postbody")
		name := phpbbAuthor(p)
		if name != "" {
			thread.AppendChild(line(name))
		}
		if d := phpbbDate(firstClassed(pb, "author"), name); d != "" {
			thread.AppendChild(line(d))
		}
		text := cloneTree(firstClassed(pb, "content"))
		phpbbTidy(text)
		thread.AppendChild(text)
	}
	return thread
}

// phpbbAuthor returns the name of the author of post p, or "".
func phpbbAuthor(p *html.Node) string {
	var profile *html.Node
	for d := range p.Descendants() {
		if d.Type != html.ElementNode || d.DataAtom != atom.A {
			continue
		}
		if hasClassToken(d, "username") || hasClassToken(d, "username-coloured") {
			if name := collapse(nodeText(d)); name != "" {
				return name
			}
		}
		if profile == nil && strings.Contains(attr(d, "href"), "mode=viewprofile") && collapse(nodeText(d)) != "" {
			profile = d
		}
	}
	if profile != nil {
		return collapse(nodeText(profile))
	}
	return ""
}

// phpbbDate returns the date of a post's author line (its <time>, the
// part after the last "»", or the line when it does not name the
// author), or "".
func phpbbDate(author *html.Node, name string) string {
	if author == nil {
		return ""
	}
	for d := range author.Descendants() {
		if d.Type == html.ElementNode && d.DataAtom == atom.Time {
			return collapse(nodeText(d))
		}
	}
	t := collapse(nodeText(author))
	if i := strings.LastIndex(t, "»"); i >= 0 {
		return strings.TrimSpace(t[i+len("»"):])
	}
	if name != "" && strings.Contains(t, name) {
		return ""
	}
	return t
}

// phpbbTidy removes from a post's text the controls phpBB writes into
// it: a code box's "Code: Select all" line and, in a quote's "<name>
// wrote:", the jump arrow and the quoted post's date.
func phpbbTidy(text *html.Node) {
	var drop []*html.Node
	for d := range text.Descendants() {
		if d.Type != html.ElementNode {
			continue
		}
		switch {
		case hasClassToken(d, "codebox"):
			for c := d.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == html.ElementNode {
					if c.DataAtom == atom.P {
						drop = append(drop, c)
					}
					break
				}
			}
		case d.DataAtom == atom.Cite:
			for c := d.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == html.ElementNode && (attr(c, "data-post-id") != "" || hasClassToken(c, "responsive-hide")) {
					drop = append(drop, c)
				}
			}
		}
	}
	for _, d := range drop {
		if d.Parent != nil {
			d.Parent.RemoveChild(d)
		}
	}
}

// firstClassed returns the first element under n (n excluded) whose
// class holds the token c, or nil.
func firstClassed(n *html.Node, c string) *html.Node {
	if n == nil {
		return nil
	}
	for d := range n.Descendants() {
		if d.Type == html.ElementNode && hasClassToken(d, c) {
			return d
		}
	}
	return nil
}

// hasClassToken reports whether n's class attribute holds the token c.
func hasClassToken(n *html.Node, c string) bool {
	return hasToken(attr(n, "class"), c)
}
