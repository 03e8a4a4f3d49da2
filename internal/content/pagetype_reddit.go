package content

import (
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Reddit's server-rendered threads (old.reddit.com). Each post is a
// <div class="thing" data-type="link"> (the submission) or
// data-type="comment", replies nested in their parent's "child" block;
// the post's own <div class="entry"> holds its tagline (the author link
// a.author, the score "189 points") and its text in
// .usertext-body .md. The voting arrows, buttons, the sidebar and the
// "load more comments" things sit outside.

// redditThread returns the author, score and text of every submission
// and comment of body in document order, or nil unless there are a
// comment and another post.
func redditThread(body *html.Node) *html.Node {
	var things []*html.Node
	comments := 0
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			if hasClassToken(c, "thing") {
				switch attr(c, "data-type") {
				case "comment":
					comments++
					things = append(things, c)
				case "link":
					things = append(things, c)
				}
			}
			walk(c)
		}
	}
	walk(body)
	if comments == 0 || len(things) < 2 {
		return nil
	}
	thread := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	for _, t := range things {
		var entry *html.Node
		for c := t.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && hasClassToken(c, "entry") {
				entry = c
				break
			}
		}
		if entry == nil {
			continue
		}
		if head := redditTagline(firstClassed(entry, "tagline")); head != "" {
			thread.AppendChild(line(head))
		}
		if md := firstClassed(firstClassed(entry, "usertext-body"), "md"); md != nil {
			thread.AppendChild(cloneTree(md))
		}
	}
	return thread
}

// redditTagline returns a post's author and score ("name 189 points")
// from its tagline, or "".
func redditTagline(tag *html.Node) string {
	if tag == nil {
		return ""
	}
	var author, score string
	for d := range tag.Descendants() {
		if d.Type != html.ElementNode {
			continue
		}
		if author == "" && d.DataAtom == atom.A && hasClassToken(d, "author") {
			author = collapse(nodeText(d))
		}
		if score == "" && hasClassToken(d, "score") && hasClassToken(d, "unvoted") {
			score = collapse(nodeText(d))
		}
	}
	if author == "" || score == "" {
		return author
	}
	return author + " " + score
}
