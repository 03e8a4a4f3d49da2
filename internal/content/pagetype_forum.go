package content

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Forum threads and Q&A pages. A thread is every post in order (author,
// date, text), while the readability pass keeps the one post that reads
// most like an article, often the first. Forum software says which
// blocks are posts: schema.org microdata marks each one with an item
// type (DiscussionForumPosting, Comment, Question, Answer).

// postTypes are the schema.org item types of a post in a thread.
var postTypes = []string{"DiscussionForumPosting", "Comment", "Question", "Answer"}

// isPost tells whether n is a schema.org item of a post type.
func isPost(n *html.Node) bool {
	if n.Type != html.ElementNode {
		return false
	}
	if _, ok := attrOK(n, "itemscope"); !ok {
		return false
	}
	for t := range strings.FieldsSeq(attr(n, "itemtype")) {
		t = t[strings.LastIndexAny(t, "/#")+1:]
		for _, p := range postTypes {
			if t == p {
				return true
			}
		}
	}
	return false
}

// post is one post of a thread with the parts its microdata names.
type post struct {
	node   *html.Node
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
			if isPost(c) {
				if scope != nil {
					scope.inner = true
				}
				s = &post{node: c}
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

// forumContent returns the thread under body as a detached copy, or nil
// when the page has no run of posts. Posts are the items the page marks
// up (markedThread) or, without markup, the run of repeated blocks of
// prose (unmarkedThread).
func forumContent(body, art *html.Node) *html.Node {
	thread := markedThread(body)
	if thread == nil {
		thread = unmarkedThread(body, art)
	}
	if thread == nil {
		return nil
	}
	// The first post often stands apart: described in JSON-LD while the
	// replies carry microdata, or a question above a run of answers. The
	// readability article is then that post.
	if art != nil && shared(textOf(art), textOf(thread)) < 0.5 {
		thread.InsertBefore(cloneTree(art), thread.FirstChild)
	}
	prune(thread)
	return thread
}

// markedThread returns the author and text of every post the page marks
// up, in order, or nil when it marks fewer than two.
func markedThread(body *html.Node) *html.Node {
	posts := markedPosts(body)
	if len(posts) < 2 {
		return nil
	}
	thread := &html.Node{Type: html.ElementNode, Data: "div"}
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
// counted once.
func shared(a, b string) float64 {
	have := make(map[string]int)
	for w := range strings.FieldsSeq(strings.ToLower(b)) {
		have[w]++
	}
	n, in := 0, 0
	for w := range strings.FieldsSeq(strings.ToLower(a)) {
		n++
		if have[w] > 0 {
			have[w]--
			in++
		}
	}
	if n == 0 {
		return 1
	}
	return float64(in) / float64(n)
}

// unmarkedThread returns the thread of a page without post markup: the
// run of repeated blocks of prose (postRun), and of each block only its
// body, the part that most posts have and that holds most of their
// words (not the author's card, counters or buttons beside it).
func unmarkedThread(body, art *html.Node) *html.Node {
	items, words := postRun(body)
	if len(items) < 2 || art != nil && words < countWords(nodeText(art)) {
		return nil
	}
	key := bodyKey(items)
	thread := &html.Node{Type: html.ElementNode, Data: "div"}
	for _, it := range items {
		if key == "" {
			thread.AppendChild(cloneTree(it))
			continue
		}
		for _, b := range outermost(it, key) {
			thread.AppendChild(cloneTree(b))
		}
	}
	return thread
}

// keys names an element for grouping: its tag with each of its class
// names, so that rows whose classes alternate (bg1, bg2) still group.
func keys(n *html.Node) []string {
	cls := strings.Fields(attr(n, "class"))
	if len(cls) == 0 {
		return []string{n.Data + "."}
	}
	ks := make([]string, len(cls))
	for i, c := range cls {
		ks[i] = n.Data + "." + c
	}
	return ks
}

// hasKey tells whether key is one of n's keys.
func hasKey(n *html.Node, key string) bool {
	tag, cls, _ := strings.Cut(key, ".")
	if n.Type != html.ElementNode || n.Data != tag {
		return false
	}
	if cls == "" {
		return strings.TrimSpace(attr(n, "class")) == ""
	}
	return hasToken(attr(n, "class"), cls)
}

// run is a group of sibling elements sharing a key.
type run struct {
	parent      *html.Node
	key         string
	items, good int
	words       int
}

// postRun returns the run of posts under body and the words it holds:
// of the groups of at least two siblings sharing a key, most of them
// prose (15 words or more, under half of them in links), the one with
// the most words, or the finest group nested in it that holds at least
// half of its words (a page's two columns are a run too, whose posts
// are inside one of them).
func postRun(body *html.Node) ([]*html.Node, int) {
	var runs []*run
	var walk func(n *html.Node) (words, linkWords int)
	walk = func(n *html.Node) (words, linkWords int) {
		var groups map[string]*run
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.TextNode {
				k := countWords(c.Data)
				words += k
				if n.DataAtom == atom.A {
					linkWords += k
				}
				continue
			}
			if c.Type != html.ElementNode {
				continue
			}
			cw, cl := walk(c)
			if c.DataAtom == atom.A {
				cl = cw
			}
			words += cw
			linkWords += cl
			if cw == 0 {
				continue
			}
			if groups == nil {
				groups = make(map[string]*run)
			}
			for _, k := range keys(c) {
				g := groups[k]
				if g == nil {
					g = &run{parent: n, key: k}
					groups[k] = g
				}
				g.items++
				g.words += cw
				if cw >= 15 && cl*2 < cw {
					g.good++
				}
			}
		}
		for _, g := range groups {
			if g.items >= 2 && g.good*10 >= g.items*6 {
				runs = append(runs, g)
			}
		}
		return words, linkWords
	}
	walk(body)
	var best *run
	for _, r := range runs {
		if best == nil || r.words > best.words {
			best = r
		}
	}
	if best == nil {
		return nil, 0
	}
	// runs are in post-order: a run nested in best comes before it.
	fine := best
	for _, r := range runs {
		if r.words*2 >= best.words && r != best && inside(r.parent, best.parent) && depth(r.parent) > depth(fine.parent) {
			fine = r
		}
	}
	var items []*html.Node
	for c := fine.parent.FirstChild; c != nil; c = c.NextSibling {
		if hasKey(c, fine.key) {
			items = append(items, c)
		}
	}
	return items, fine.words
}

// inside tells whether n is a strict descendant of a.
func inside(n, a *html.Node) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if p == a {
			return true
		}
	}
	return false
}

// depth counts n's ancestors.
func depth(n *html.Node) int {
	d := 0
	for p := n.Parent; p != nil; p = p.Parent {
		d++
	}
	return d
}

// bodyKey returns the key of the posts' bodies: of the blocks of prose
// (under half of their words in links) found in at least half of items,
// the smallest that holds at least 80 % of the words the largest one
// holds; "" if none.
func bodyKey(items []*html.Node) string {
	type seen struct{ last, items, words, linkWords int }
	sigs := make(map[string]*seen)
	open := make(map[string]int) // keys of the ancestors in the item
	var walk func(n *html.Node, item int, inLink bool) (int, int)
	walk = func(n *html.Node, item int, inLink bool) (w, lw int) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.TextNode {
				k := countWords(c.Data)
				w += k
				if inLink {
					lw += k
				}
				continue
			}
			if c.Type != html.ElementNode {
				continue
			}
			ks := keys(c)
			for _, k := range ks {
				open[k]++
			}
			cw, cl := walk(c, item, inLink || c.DataAtom == atom.A)
			w += cw
			lw += cl
			for _, k := range ks {
				open[k]--
				if open[k] > 0 {
					continue
				}
				s := sigs[k]
				if s == nil {
					s = &seen{last: -1}
					sigs[k] = s
				}
				if s.last != item {
					s.last = item
					s.items++
				}
				s.words += cw
				s.linkWords += cl
			}
		}
		return w, lw
	}
	for i, it := range items {
		walk(it, i, false)
	}
	largest := 0
	for _, s := range sigs {
		if s.items*2 >= len(items) && s.linkWords*2 < s.words && s.words > largest {
			largest = s.words
		}
	}
	best, bestWords := "", 0
	for k, s := range sigs {
		if s.items*2 >= len(items) && s.linkWords*2 < s.words && s.words*10 >= largest*8 && (best == "" || s.words < bestWords || s.words == bestWords && k < best) {
			best, bestWords = k, s.words
		}
	}
	return best
}

// outermost returns the elements under n with key that are not inside
// another one, in document order.
func outermost(n *html.Node, key string) []*html.Node {
	var out []*html.Node
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		if hasKey(c, key) {
			out = append(out, c)
		} else {
			out = append(out, outermost(c, key)...)
		}
	}
	return out
}
