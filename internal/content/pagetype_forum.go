package content

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Forum threads and Q&A pages. A thread is every post in order (author,
// date, text), while the readability pass keeps the one post that reads
// most like an article, often the first. Forum software says which
// blocks are posts: schema.org microdata marks each one with an item
// type (DiscussionForumPosting, Comment, Question, Answer), or a JSON-LD
// block lists them with their text.

// postTypes are the schema.org item types of a post in a thread.
var postTypes = []string{"DiscussionForumPosting", "Comment", "Question", "Answer"}

// postType returns the post type of the schema.org item n, or "" when n
// is not an item of a post type.
func postType(n *html.Node) string {
	if n.Type != html.ElementNode {
		return ""
	}
	if _, ok := attrOK(n, "itemscope"); !ok {
		return ""
	}
	for t := range strings.FieldsSeq(attr(n, "itemtype")) {
		if t = t[strings.LastIndexAny(t, "/#")+1:]; slices.Contains(postTypes, t) {
			return t
		}
	}
	return ""
}

// post is one post of a thread with the parts its microdata names.
type post struct {
	node   *html.Node
	kind   string       // its post type
	author *html.Node   // itemprop="author"
	text   []*html.Node // itemprop="text" or "articleBody"
	inner  bool         // holds other posts
}

// markedPosts returns the posts under n in document order. A property
// belongs to the nearest enclosing item, so the text of a reply nested in
// a post is the reply's, not the post's.
func markedPosts(n *html.Node) []*post {
	var posts []*post
	var walk func(n *html.Node, scope *post, inScope bool)
	walk = func(n *html.Node, scope *post, inScope bool) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			if scope != nil && inScope {
				switch attr(c, "itemprop") {
				case "author":
					if scope.author == nil {
						scope.author = c
					}
				case "text", "articleBody":
					scope.text = append(scope.text, c)
				}
			}
			s, in := scope, inScope
			if t := postType(c); t != "" {
				// A comment on a question or an answer (Stack
				// Exchange's notes under each) is not an answer.
				if t == "Comment" && scope != nil && (scope.kind == "Question" || scope.kind == "Answer") {
					continue
				}
				if scope != nil {
					scope.inner = true
				}
				s = &post{node: c, kind: t}
				posts = append(posts, s)
				in = true
			} else if _, ok := attrOK(c, "itemscope"); ok {
				in = false
			}
			walk(c, s, in)
		}
	}
	walk(n, nil, false)
	return posts
}

// forumContent returns the thread of the page root as a detached copy,
// or nil when the page marks up fewer than two posts, in its markup
// (markedThread) or in JSON-LD (ldThread).
func forumContent(root, body, art *html.Node) *html.Node {
	var thread *html.Node
	marks := mayMarkPosts(body)
	if marks {
		thread = markedThread(body)
	}
	if thread == nil && marks {
		// A platform's own markup of its posts (pagetype_phpbb.go): the whole
		// thread, first post included.
		if !offPhpBB {
			if thread = phpbbThread(body); thread != nil {
				prune(thread)
				return thread
			}
		}
		// Other engines' own post markup (pagetype_engines.go).
		if thread = engineThread(body); thread != nil {
			prune(thread)
			return thread
		}
	}
	lds := ldPosts(root)
	if thread == nil {
		thread = ldThread(lds)
		if thread == nil {
			return nil
		}
	} else {
		if !offLDFirst {
			firstFromLD(thread, body, lds)
		}
	}
	// The first post often stands apart: described in JSON-LD while the
	// replies carry microdata. The readability article is then that post:
	// it shares little with the thread, while an article that holds the
	// thread (the posts with their cards and buttons) adds nothing.
	if art != nil {
		a, t := textOf(art), textOf(thread)
		// shared(a, t) and shared(t, a) from one bag of t's words.
		bag := newArtBag(t)
		in, n := bag.overlap(a)
		if shareOf(in, n) < 0.5 && shareOf(in, bag.n) < 0.5 {
			thread.InsertBefore(cloneTree(art), thread.FirstChild)
		}
	}
	prune(thread)
	return thread
}

// mayMarkPosts tells whether an element under body has what the walks
// of markedThread, phpbbThread and engineThread look for in a post: an
// itemscope attribute (postType), a data-author attribute (XenForo's
// posts) or a class value holding "post" (phpBB's and MyBB's posts; any
// value holding the token holds the bytes). Without any, the three find
// no post, and forumContent skips them: on a page that is no forum, most
// of those the selector judges, the one walk here costs a fraction of
// their three (the engines' walk read every element's class tokens).
// The walk is iterative: nesting is the page's.
func mayMarkPosts(body *html.Node) bool {
	for d := body.FirstChild; d != nil; d = nextWithin(d, body) {
		if d.Type == html.ElementNode {
			for _, a := range d.Attr {
				switch a.Key {
				case "itemscope", "data-author":
					return true
				case "class":
					if holdsPost(a.Val) {
						return true
					}
				}
			}
		}
	}
	return false
}

// holdsPost tells whether v holds "post" (strings.Contains): it jumps
// from 'p' to 'p' with IndexByte, which few class names hold, instead of
// testing every byte.
func holdsPost(v string) bool {
	for i := 0; i+4 <= len(v); i++ {
		k := strings.IndexByte(v[i:len(v)-3], 'p')
		if k < 0 {
			return false
		}
		i += k
		if v[i+1:i+4] == "ost" {
			return true
		}
	}
	return false
}

// firstFromLD puts first in the marked thread the posts that the page's
// JSON-LD describes (lds) and the thread lacks, when the page shows
// them: XenForo marks the replies with microdata and describes the
// first post in JSON-LD only (a thread's later pages describe the first
// post too, without showing it).
func firstFromLD(thread, body *html.Node, lds []ldPost) {
	if len(lds) == 0 {
		return
	}
	have := shingles(textOf(thread))
	var shown map[[3]string]struct{}
	first := thread.FirstChild
	for _, p := range lds {
		if shareIn(p.text, have) >= 0.5 {
			continue
		}
		if shown == nil {
			shown = shingles(textOf(body))
		}
		if shareIn(p.text, shown) >= 0.5 {
			lead := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
			appendLDPost(lead, p)
			thread.InsertBefore(lead, first)
		}
	}
}

// markedThread returns the author and text of every post the page marks
// up, in order, or nil when it marks fewer than two.
func markedThread(body *html.Node) *html.Node {
	posts := markedPosts(body)
	if len(posts) < 2 {
		return nil
	}
	thread := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	for _, p := range posts {
		switch {
		case len(p.text) > 0:
			if p.author != nil {
				thread.AppendChild(line(authorName(p.author)))
			}
			for _, t := range p.text {
				thread.AppendChild(cloneTree(t))
			}
		case !p.inner:
			thread.AppendChild(cloneTree(p.node))
		}
	}
	return thread
}

// authorName is the name of an author property: its own name property
// when it is an item (a Person), else its text.
func authorName(n *html.Node) string {
	var name *html.Node
	var find func(n *html.Node)
	find = func(n *html.Node) {
		for c := n.FirstChild; c != nil && name == nil; c = c.NextSibling {
			if c.Type == html.ElementNode {
				if attr(c, "itemprop") == "name" {
					name = c
					return
				}
				find(c)
			}
		}
	}
	find(n)
	if name != nil {
		if v, ok := attrOK(name, "content"); ok {
			return v
		}
		n = name
	}
	return collapse(nodeText(n))
}

// line is a paragraph holding s.
func line(s string) *html.Node {
	p := &html.Node{Type: html.ElementNode, Data: "p", DataAtom: atom.P}
	p.AppendChild(&html.Node{Type: html.TextNode, Data: s})
	return p
}

// shared is the share of the words of a that b holds too, each word of b
// counted once (its bag of lower-cased words, read word by word: no
// lower-cased copy of either text).
func shared(a, b string) float64 {
	in, n := newArtBag(b).overlap(a)
	return shareOf(in, n)
}

// shingles returns the runs of three words of s (lower-cased, split at
// spaces).
func shingles(s string) map[[3]string]struct{} {
	set := make(map[[3]string]struct{})
	var w [3]string
	n := 0
	for f := range strings.FieldsSeq(strings.ToLower(s)) {
		w[0], w[1], w[2] = w[1], w[2], f
		if n++; n >= 3 {
			set[w] = struct{}{}
		}
	}
	return set
}

// shareIn is the share of the runs of three words of a that set holds;
// 1 when a has none.
func shareIn(a string, set map[[3]string]struct{}) float64 {
	var w [3]string
	n, in := 0, 0
	for f := range strings.FieldsSeq(strings.ToLower(a)) {
		w[0], w[1], w[2] = w[1], w[2], f
		if n++; n >= 3 {
			if _, ok := set[w]; ok {
				in++
			}
		}
	}
	if n < 3 {
		return 1
	}
	return float64(in) / float64(n-2)
}

// ldPost is a post a JSON-LD block of the page describes.
type ldPost struct {
	author, text string
}

// ldPosts returns the author and text of every post the page's JSON-LD
// blocks describe, in the order written.
func ldPosts(root *html.Node) []ldPost {
	var posts []ldPost
	var add func(v any)
	add = func(v any) {
		switch v := v.(type) {
		case []any:
			for _, e := range v {
				add(e)
			}
		case map[string]any:
			if text := ldPostText(v); text != "" {
				posts = append(posts, ldPost{author: ldName(v["author"]), text: text})
			}
			// Replies sit under comment, acceptedAnswer or
			// suggestedAnswer; sorted keys keep them in a fixed order.
			for _, k := range slices.Sorted(maps.Keys(v)) {
				if k != "author" {
					add(v[k])
				}
			}
		}
	}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			if c.DataAtom == atom.Script {
				if strings.EqualFold(strings.TrimSpace(attr(c, "type")), "application/ld+json") {
					var v any
					if json.Unmarshal([]byte(nodeText(c)), &v) == nil {
						add(v)
					}
				}
				continue
			}
			walk(c)
		}
	}
	walk(root)
	return posts
}

// appendLDPost appends the author and the lines of the text of p to
// thread.
func appendLDPost(thread *html.Node, p ldPost) {
	if p.author != "" {
		thread.AppendChild(line(p.author))
	}
	for l := range strings.SplitSeq(p.text, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			thread.AppendChild(line(l))
		}
	}
}

// ldThread returns the author and text of every post a JSON-LD block of
// the page describes, in the order written, or nil when fewer than two
// have a text.
func ldThread(posts []ldPost) *html.Node {
	if len(posts) < 2 {
		return nil
	}
	thread := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	for _, p := range posts {
		appendLDPost(thread, p)
	}
	return thread
}

// ldPostText returns the text of a JSON-LD object of a post type, or "".
func ldPostText(o map[string]any) string {
	if !ldIsPost(o["@type"]) {
		return ""
	}
	for _, k := range []string{"text", "articleBody"} {
		if t, ok := o[k].(string); ok && strings.TrimSpace(t) != "" {
			return html.UnescapeString(t)
		}
	}
	return ""
}

// ldIsPost tells whether a JSON-LD @type names a post type.
func ldIsPost(t any) bool {
	switch t := t.(type) {
	case string:
		return slices.Contains(postTypes, t)
	case []any:
		for _, e := range t {
			if ldIsPost(e) {
				return true
			}
		}
	}
	return false
}
