package content

import (
	"bytes"
	"math"
	"math/bits"
	"net/url"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// PageType is what kind of page a document is, as far as its main
// content goes: an article keeps its prose, a forum its posts, a product
// page its offer, a collection or listing its items.
type PageType string

// Page types, in the order of the classifier's outputs.
const (
	TypeArticle       PageType = "article"
	TypeDocumentation PageType = "documentation"
	TypeForum         PageType = "forum"
	TypeProduct       PageType = "product"
	TypeCollection    PageType = "collection" // a category or shop grid of items
	TypeListing       PageType = "listing"    // search results, job or event lists, directories
	TypeService       PageType = "service"    // a company's service, landing or about page
)

// PageTypes lists every page type in the classifier's output order.
var PageTypes = [...]PageType{TypeArticle, TypeDocumentation, TypeForum, TypeProduct, TypeCollection, TypeListing, TypeService}

// The page-type classifier is a multinomial logistic regression over
// structural features of the parsed page: schema.org types (JSON-LD and
// microdata), og:type, the URL path, counts of telling elements (code
// blocks, tables, forms, buttons, times, headings), class and id names
// of components (cart, price, post, card, admonition), prices in the
// text, link density, pagination links (rel=next/prev), and runs of
// repeated sibling blocks (card grids, post lists, results with snippets). The weights (pagetype_model.go) are trained offline by
// `go run ./bench/pagetype -train` from the labelled pages of
// ../shared/corpus/wcxb-dev; see bench/pagetype/README.md.

// feature indexes; typeFeatureNames keeps their names in the same order.
const (
	fURLBlog = iota
	fURLDate
	fURLDocs
	fURLForum
	fURLProduct
	fURLCollection
	fURLListing
	fURLService
	fURLDepth
	fURLRoot
	fURLNumID
	fURLSlugWords
	fURLQuery
	fOGArticle
	fOGProduct
	fOGWebsite
	fLDArticle
	fLDTech
	fLDForum
	fLDProduct
	fLDOffer
	fLDItemList
	fLDService
	fLDFAQ
	fLDEvent
	fLDJob
	fLDRating
	fLDBreadcrumb
	fLDWebPage
	fLDOrg
	fElements
	fBodyWords
	fParagraphs
	fParaShare
	fPre
	fCode
	fTables
	fTh
	fForms
	fInputs
	fButtons
	fSelects
	fArticles
	fTimes
	fH1
	fH2
	fH3
	fLi
	fLinks
	fLinkShare
	fImgs
	fPrices
	fDl
	fBlockquote
	fAside
	fClassCart
	fClassPrice
	fClassProduct
	fClassPost
	fClassComment
	fClassThread
	fClassCard
	fClassItem
	fClassToc
	fClassCode
	fClassAdmonition
	fClassUser
	fClassRating
	fClassQty
	fClassFilter
	fClassPager
	fClassFeature
	fClassHero
	fRunLinks
	fRunCards
	fRunPrices
	fRunTimes
	fRunPosts
	fRunSnippets
	fRuns
	fRunShare
	fParaAvgWords
	fRelNext
	nTypeFeatures
)

// TypeFeatureNames names the classifier's features in vector order.
var TypeFeatureNames = [nTypeFeatures]string{
	"url_blog", "url_date", "url_docs", "url_forum", "url_product", "url_collection", "url_listing",
	"url_service", "url_depth", "url_root", "url_numid", "url_slug_words", "url_query",
	"og_article", "og_product", "og_website",
	"ld_article", "ld_tech", "ld_forum", "ld_product", "ld_offer", "ld_itemlist", "ld_service", "ld_faq",
	"ld_event", "ld_job", "ld_rating", "ld_breadcrumb", "ld_webpage", "ld_org",
	"elements", "body_words", "paragraphs", "para_share", "pre", "code", "tables", "th", "forms", "inputs",
	"buttons", "selects", "articles", "times", "h1", "h2", "h3", "li", "links", "link_share", "imgs",
	"prices", "dl", "blockquote", "aside",
	"class_cart", "class_price", "class_product", "class_post", "class_comment", "class_thread",
	"class_card", "class_item", "class_toc", "class_code", "class_admonition", "class_user",
	"class_rating", "class_qty", "class_filter", "class_pager", "class_feature", "class_hero",
	"run_links", "run_cards", "run_prices", "run_times", "run_posts", "run_snippets", "runs", "run_share", "para_avg_words", "rel_next",
}

// typeFeatures is the classifier's input for one page.
type typeFeatures [nTypeFeatures]float64

// urlSegments maps path segments to the URL features they hint at.
var urlSegments = map[string]int{
	"blog": fURLBlog, "blogs": fURLBlog, "news": fURLBlog, "article": fURLBlog, "articles": fURLBlog,
	"post": fURLBlog, "posts": fURLBlog, "stories": fURLBlog, "story": fURLBlog, "insights": fURLBlog,
	"docs": fURLDocs, "doc": fURLDocs, "documentation": fURLDocs, "api": fURLDocs, "reference": fURLDocs,
	"manual": fURLDocs, "guide": fURLDocs, "guides": fURLDocs, "learn": fURLDocs, "tutorial": fURLDocs,
	"tutorials": fURLDocs, "wiki": fURLDocs, "sdk": fURLDocs, "developer": fURLDocs, "developers": fURLDocs,
	"dev": fURLDocs, "help": fURLDocs, "kb": fURLDocs, "support": fURLDocs, "library": fURLDocs,
	"forum": fURLForum, "forums": fURLForum, "thread": fURLForum, "threads": fURLForum, "topic": fURLForum,
	"topics": fURLForum, "t": fURLForum, "questions": fURLForum, "question": fURLForum, "q": fURLForum,
	"community": fURLForum, "discussion": fURLForum, "discussions": fURLForum, "board": fURLForum,
	"boards": fURLForum, "viewtopic.php": fURLForum, "showthread.php": fURLForum, "r": fURLForum,
	"comments": fURLForum, "discuss": fURLForum,
	"product": fURLProduct, "products": fURLProduct, "p": fURLProduct, "dp": fURLProduct, "item": fURLProduct,
	"buy": fURLProduct, "sku": fURLProduct, "ip": fURLProduct,
	"collections": fURLCollection, "collection": fURLCollection, "category": fURLCollection,
	"categories": fURLCollection, "c": fURLCollection, "shop": fURLCollection, "catalog": fURLCollection,
	"store": fURLCollection, "brand": fURLCollection, "brands": fURLCollection, "tag": fURLCollection,
	"tags": fURLCollection, "department": fURLCollection, "b": fURLCollection,
	"search": fURLListing, "jobs": fURLListing, "careers": fURLListing, "listings": fURLListing,
	"listing": fURLListing, "results": fURLListing, "events": fURLListing, "directory": fURLListing,
	"classifieds": fURLListing, "for-sale": fURLListing, "rentals": fURLListing, "homes": fURLListing,
	"s": fURLListing, "find": fURLListing,
	"services": fURLService, "service": fURLService, "solutions": fURLService, "pricing": fURLService,
	"features": fURLService, "about": fURLService, "about-us": fURLService, "contact": fURLService,
	"industries": fURLService, "what-we-do": fURLService, "platform": fURLService,
}

// urlFeatures reads the page's URL path.
func urlFeatures(u *url.URL, f *typeFeatures) {
	if u == nil {
		return
	}
	p := strings.ToLower(u.EscapedPath())
	if u.RawQuery != "" {
		f[fURLQuery] = 1
	}
	depth := 0
	last := ""
	for seg := range strings.SplitSeq(p, "/") {
		if seg == "" {
			continue
		}
		depth++
		last = seg
		if i, ok := urlSegments[seg]; ok {
			f[i] = 1
		}
		if len(seg) == 4 && (strings.HasPrefix(seg, "19") || strings.HasPrefix(seg, "20")) && digits(seg) == 4 {
			f[fURLDate] = 1
		}
		if digits(seg) >= 5 {
			f[fURLNumID] = 1
		}
	}
	if depth == 0 {
		f[fURLRoot] = 1
	}
	f[fURLDepth] = float64(min(depth, 6))
	if last != "" {
		f[fURLSlugWords] = float64(min(strings.Count(last, "-")+strings.Count(last, "_"), 12))
	}
}

func digits(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			n++
		}
	}
	return n
}

// schemaFeatures reads schema.org types (JSON-LD @type and microdata
// itemtype values, lower-cased, without the schema.org prefix).
func schemaFeature(typ string, f *typeFeatures) {
	typ = strings.ToLower(typ)
	if i := strings.LastIndexByte(typ, '/'); i >= 0 {
		typ = typ[i+1:]
	}
	switch typ {
	case "article", "newsarticle", "blogposting", "report", "reportagenewsarticle", "analysisnewsarticle",
		"opinionnewsarticle", "scholarlyarticle", "liveblogposting", "socialmediaposting":
		f[fLDArticle] = 1
	case "techarticle", "apireference", "softwaresourcecode", "softwareapplication", "howto":
		f[fLDTech] = 1
	case "discussionforumposting", "qapage", "question", "answer", "comment":
		f[fLDForum] = 1
	case "product", "productgroup", "productmodel", "individualproduct", "vehicle", "car", "book":
		f[fLDProduct] = 1
	case "offer", "aggregateoffer":
		f[fLDOffer] = 1
	case "itemlist", "collectionpage", "searchresultspage", "offercatalog", "listitem":
		f[fLDItemList] = 1
	case "service", "professionalservice", "localbusiness", "homeandconstructionbusiness", "legalservice",
		"financialservice", "medicalbusiness", "store", "autorepair", "dentist", "attorney":
		f[fLDService] = 1
	case "faqpage":
		f[fLDFAQ] = 1
	case "event", "musicevent", "sportsevent", "businessevent", "educationevent":
		f[fLDEvent] = 1
	case "jobposting":
		f[fLDJob] = 1
	case "aggregaterating", "review", "rating":
		f[fLDRating] = 1
	case "breadcrumblist":
		f[fLDBreadcrumb] = 1
	case "webpage", "aboutpage", "contactpage":
		f[fLDWebPage] = 1
	case "organization", "corporation", "website":
		f[fLDOrg] = 1
	}
}

// classHints maps words of class and id values to the class features.
// Words are split as for boilerplate (see wordsKinds), so "post-body"
// is "post" and "body".
var classHints = map[string]int{
	"cart": fClassCart, "basket": fClassCart, "addtocart": fClassCart, "checkout": fClassCart, "buy": fClassCart,
	"price": fClassPrice, "prices": fClassPrice, "pricing": fClassPrice, "amount": fClassPrice, "money": fClassPrice,
	"product": fClassProduct, "products": fClassProduct, "sku": fClassProduct, "variant": fClassProduct,
	"post": fClassPost, "posts": fClassPost, "message": fClassPost, "messages": fClassPost,
	"comment": fClassComment, "comments": fClassComment, "reply": fClassComment, "replies": fClassComment,
	"answer": fClassComment, "answers": fClassComment,
	"thread": fClassThread, "topic": fClassThread, "forum": fClassThread, "discussion": fClassThread,
	"card": fClassCard, "cards": fClassCard, "tile": fClassCard, "tiles": fClassCard, "grid": fClassCard,
	"item": fClassItem, "items": fClassItem, "result": fClassItem, "results": fClassItem, "listing": fClassItem,
	"toc": fClassToc, "sidebar": fClassToc, "sidenav": fClassToc, "navigation": fClassToc,
	"highlight": fClassCode, "hljs": fClassCode, "prism": fClassCode, "syntax": fClassCode,
	"codehilite": fClassCode, "sourcecode": fClassCode, "language": fClassCode,
	"admonition": fClassAdmonition, "callout": fClassAdmonition, "note": fClassAdmonition,
	"warning": fClassAdmonition, "tip": fClassAdmonition, "caution": fClassAdmonition, "important": fClassAdmonition,
	"user": fClassUser, "username": fClassUser, "avatar": fClassUser, "author": fClassUser, "poster": fClassUser,
	"member": fClassUser, "profile": fClassUser,
	"rating": fClassRating, "stars": fClassRating, "star": fClassRating, "review": fClassRating,
	"reviews":  fClassRating,
	"quantity": fClassQty, "qty": fClassQty, "stock": fClassQty, "availability": fClassQty,
	"filter": fClassFilter, "filters": fClassFilter, "facet": fClassFilter, "facets": fClassFilter,
	"sort": fClassFilter, "refine": fClassFilter,
	"pagination": fClassPager, "pager": fClassPager, "paging": fClassPager,
	"feature": fClassFeature, "features": fClassFeature, "benefit": fClassFeature, "benefits": fClassFeature,
	"service": fClassFeature, "services": fClassFeature, "testimonial": fClassFeature,
	"testimonials": fClassFeature, "cta": fClassFeature,
	"hero": fClassHero, "banner": fClassHero, "jumbotron": fClassHero, "masthead": fClassHero,
}

// classHintPairs is a bit set of the first two letters of classHints'
// words: most words of a page's class names are passed over by them,
// without a map lookup.
var classHintPairs = func() *pairSet {
	var p pairSet
	for w := range classHints {
		p.add(w[0], w[1])
	}
	return &p
}()

// typeWalk gathers the structural counts of a page in one walk.
type typeWalk struct {
	f         *typeFeatures
	paraWords int
	linkWords int
	words     int
	runWords  int // words inside the longest run of repeated blocks
	// vb, when not nil, receives the body's bounds for the selector's
	// views (boundBody's figures, from this walk's texts and elements).
	vb *viewBound
	// texts gives the texts' countWords, from scan's when it has them.
	texts textCounts
	// classMemo holds the classFacts of the long class and id values read.
	classMemo map[string]classFacts
}

// subtree is what a block holds, for judging runs of repeated siblings.
type subtree struct {
	words, linkWords, links, imgs, heads, prices, times int
}

func (w *typeWalk) walk(n *html.Node, inLink, inP bool) subtree {
	var st subtree
	// A run of consecutive siblings with the same tag and class.
	var runTag atom.Atom
	var runClass string
	var runN, runLinks, runCards, runPrices, runTimes, runPosts, runSnippets, runWords int
	flush := func() {
		if runN >= 3 {
			f := w.f
			f[fRunLinks] = max(f[fRunLinks], float64(runLinks))
			f[fRunCards] = max(f[fRunCards], float64(runCards))
			f[fRunPrices] = max(f[fRunPrices], float64(runPrices))
			f[fRunTimes] = max(f[fRunTimes], float64(runTimes))
			f[fRunPosts] = max(f[fRunPosts], float64(runPosts))
			f[fRunSnippets] = max(f[fRunSnippets], float64(runSnippets))
			if runCards*10 >= runN*6 {
				f[fRuns]++
			}
			if runLinks >= 3 && runWords > w.runWords {
				w.runWords = runWords
			}
		}
		runN, runLinks, runCards, runPrices, runTimes, runPosts, runSnippets, runWords = 0, 0, 0, 0, 0, 0, 0, 0
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		switch c.Type {
		case html.TextNode:
			k := w.texts.words(c.Data)
			st.words += k
			w.words += k
			if inLink {
				w.linkWords += k
				st.linkWords += k
			}
			if inP {
				w.paraWords += k
			}
			// Most texts hold no '$' and no byte of 0x80 or more: no
			// price and nothing more for the bound to read, told once.
			some := dollarOrHigh(c.Data)
			if w.vb != nil {
				w.vb.textOf(c.Data, k, some)
			}
			if some {
				p := pricesIn(c.Data)
				st.prices += p
				w.f[fPrices] += float64(p)
			}
			continue
		case html.ElementNode:
		default:
			continue
		}
		a := typeAttrsOf(c)
		cst := w.element(c, &a, inLink, inP)
		class := a.item
		if !a.itemRead {
			class = itemClass(a.class)
		}
		st.words += cst.words
		st.linkWords += cst.linkWords
		st.links += cst.links
		st.imgs += cst.imgs
		st.heads += cst.heads
		st.prices += cst.prices
		st.times += cst.times
		if c.DataAtom != runTag || class != runClass {
			flush()
			runTag, runClass = c.DataAtom, class
		}
		runN++
		runWords += cst.words
		if cst.links > 0 {
			runLinks++
			if cst.imgs > 0 || cst.heads > 0 {
				runCards++
			}
		}
		if cst.prices > 0 {
			runPrices++
		}
		if cst.times > 0 {
			runTimes++
		}
		if cst.words >= 30 && cst.links*10 < cst.words {
			runPosts++
		}
		if cst.links > 0 && cst.words-cst.linkWords >= 8 {
			runSnippets++
		}
	}
	flush()
	return st
}

// typeAttrs are the attributes of an element the type walk reads for
// every element, read in one pass (attr's first of each key).
type typeAttrs struct {
	class, id, itemtype string
	// item is itemClass(class) once itemRead: element reads it with
	// the class's features.
	item     string
	itemRead bool
}

func typeAttrsOf(n *html.Node) typeAttrs {
	var a typeAttrs
	var seen uint8
	for _, at := range n.Attr {
		if at.Namespace != "" {
			continue
		}
		switch at.Key {
		case "class":
			if seen&1 == 0 {
				a.class, seen = at.Val, seen|1
			}
		case "id":
			if seen&2 == 0 {
				a.id, seen = at.Val, seen|2
			}
		case "itemtype":
			if seen&4 == 0 {
				a.itemtype, seen = at.Val, seen|4
			}
		}
	}
	return a
}

func (w *typeWalk) element(n *html.Node, a *typeAttrs, inLink, inP bool) subtree {
	f := w.f
	f[fElements]++
	if w.vb != nil {
		w.vb.element(n.DataAtom)
	}
	switch n.DataAtom {
	case atom.P:
		f[fParagraphs]++
		inP = true
	case atom.Pre:
		f[fPre]++
	case atom.Code:
		if n.Parent == nil || n.Parent.DataAtom != atom.Pre {
			f[fCode]++
		}
	case atom.Table:
		f[fTables]++
	case atom.Th:
		f[fTh]++
	case atom.Form:
		f[fForms]++
	case atom.Input:
		if t := attr(n, "type"); t != "hidden" {
			f[fInputs]++
		}
	case atom.Button:
		f[fButtons]++
	case atom.Select:
		f[fSelects]++
	case atom.Article:
		f[fArticles]++
	case atom.Time:
		f[fTimes]++
	case atom.H1:
		f[fH1]++
	case atom.H2:
		f[fH2]++
	case atom.H3, atom.H4:
		f[fH3]++
	case atom.Li:
		f[fLi]++
	case atom.A:
		f[fLinks]++
		inLink = true
		if relNext(n) {
			f[fRelNext] = 1
		}
	case atom.Img:
		f[fImgs]++
	case atom.Dl:
		f[fDl]++
	case atom.Blockquote:
		f[fBlockquote]++
	case atom.Aside:
		f[fAside]++
	case atom.Script:
		if t := attr(n, "type"); strings.EqualFold(strings.TrimSpace(t), "application/ld+json") {
			if w.vb != nil {
				w.vb.walk(n) // what boundBody reads here
			}
			return subtree{}
		}
	}
	if a.itemtype != "" {
		for t := range strings.FieldsSeq(a.itemtype) {
			schemaFeature(t, f)
		}
	}
	if a.class != "" {
		a.item, a.itemRead = w.classValue(a.class), true
	}
	if a.id != "" {
		w.classes(a.id)
	}
	st := w.walk(n, inLink, inP)
	switch n.DataAtom {
	case atom.A:
		st.links++
	case atom.Img, atom.Picture:
		st.imgs++
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		st.heads++
	case atom.Time:
		st.times++
	}
	return st
}

// classes counts the component names of one class or id value; each
// family counts once per element.
func (w *typeWalk) classes(v string) {
	if len(v) < classMemoMin {
		w.count(classBits(v))
		return
	}
	w.count(w.classRead(v).bits)
}

// classValue is classes for a class value, returning its itemClass.
func (w *typeWalk) classValue(v string) string {
	m := w.classRead(v)
	w.count(m.bits)
	return m.item
}

// classFacts are what typeWalk reads in a class or id value: the
// class-hint families (classBits) and the item class (itemClass).
type classFacts struct {
	bits uint64
	item string
}

// classRead returns v's classFacts; long values (a platform's class
// lists) come back element after element, and each is read once a page.
func (w *typeWalk) classRead(v string) classFacts {
	if len(v) < classMemoMin {
		return classFacts{classBits(v), itemClass(v)}
	}
	if m, ok := w.classMemo[v]; ok {
		return m
	}
	m := classFacts{classBits(v), itemClass(v)}
	if w.classMemo == nil {
		w.classMemo = classMemos.Get().(map[string]classFacts)
	}
	if len(w.classMemo) < classMemoMax {
		w.classMemo[v] = m
	}
	return m
}

// count counts the families of seen.
func (w *typeWalk) count(seen uint64) {
	for seen != 0 {
		j := bits.TrailingZeros64(seen)
		seen &= seen - 1
		w.f[fClassCart+j]++
	}
}

// classMemoMin is the shortest class or id value that typeWalk.classes
// looks up before reading it (shorter ones cost less to read than to
// look up); classMemoMax bounds what a page keeps.
const (
	classMemoMin = 6
	classMemoMax = 4096
)

// classMemos keeps the pages' emptied classMemo maps for the next.
var classMemos = sync.Pool{New: func() any { return make(map[string]classFacts) }}

// done gives the walk's memo back, emptied.
func (w *typeWalk) done() {
	if w.classMemo != nil {
		clear(w.classMemo)
		classMemos.Put(w.classMemo)
		w.classMemo = nil
	}
}

// classBits returns the class-hint features named by the words of v,
// each once, as bits from fClassCart.
func classBits(v string) uint64 {
	var seen uint64
	start := -1
	prev := uint8(0) // letterKind of the byte before i
	for i := 0; i < len(v); i++ {
		k := letterKind[v[i]]
		if k != 0 {
			if start < 0 {
				start = i
			} else if k == upperLetter && prev != upperLetter {
				classWord(v[start:i], &seen)
				start = i
			}
		} else if start >= 0 {
			classWord(v[start:i], &seen)
			start = -1
		}
		prev = k
	}
	if start >= 0 {
		classWord(v[start:], &seen)
	}
	return seen
}

// letterKind tells ASCII letters, upper-case ones apart, for classes.
var letterKind = func() (t [256]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = lowerLetter
		t[c-'a'+'A'] = upperLetter
	}
	return t
}()

const (
	lowerLetter = 1 + iota
	upperLetter
)

// classWord sets in seen the bit of the class hint word names, if any.
func classWord(word string, seen *uint64) {
	// Most words are passed over by their first two letters, before
	// the word is lower-cased.
	if len(word) < 2 || len(word) > 16 || !classHintPairs.has(word[0]|0x20, word[1]|0x20) {
		return
	}
	var buf [16]byte
	for i := 0; i < len(word); i++ {
		buf[i] = word[i] | 0x20
	}
	i, ok := classHints[string(buf[:len(word)])]
	if !ok {
		return
	}
	*seen |= uint64(1) << uint(i-fClassCart)
}

// prices counts amounts of money in s: a currency sign next to a digit.
//
// Every text of the page is read here, and most hold no sign: the bytes
// that may start one ($, and the first bytes of £ ¥ and € ₹) are found
// with IndexByte, each searched again only once passed, instead of
// testing every byte.
func prices(s string) int {
	if !dollarOrHigh(s) {
		return 0 // no sign can start here: most texts, read once
	}
	return pricesIn(s)
}

// pricesIn is prices for a text s of which dollarOrHigh is true.
func pricesIn(s string) int {
	n := 0
	next := [3]int{-1, -1, -1} // the next '$', 0xC2 and 0xE2 at or after i; -1 unknown
	for i := 0; i < len(s); i++ {
		at := len(s)
		for k, b := range [3]byte{'$', 0xC2, 0xE2} {
			if next[k] < i && next[k] != len(s) {
				if j := strings.IndexByte(s[i:], b); j >= 0 {
					next[k] = i + j
				} else {
					next[k] = len(s)
				}
			}
			at = min(at, next[k])
		}
		if at == len(s) {
			break
		}
		i = at
		var sign int // bytes of the sign at i
		switch c := s[i]; {
		case c == '$':
			sign = 1
		case c == 0xC2 && i+1 < len(s) && (s[i+1] == 0xA3 || s[i+1] == 0xA5): // £ ¥
			sign = 2
		case c == 0xE2 && i+2 < len(s) && s[i+1] == 0x82 && (s[i+2] == 0xAC || s[i+2] == 0xB9): // € ₹
			sign = 3
		default:
			continue
		}
		after := i + sign
		for after < len(s) && s[after] == ' ' {
			after++
		}
		before := i - 1
		for before >= 0 && s[before] == ' ' {
			before--
		}
		if after < len(s) && s[after] >= '0' && s[after] <= '9' || before >= 0 && s[before] >= '0' && s[before] <= '9' {
			n++
		}
		i += sign - 1
	}
	return n
}

// dollarOrHigh tells whether s holds a '$' or a byte of 0x80 or more,
// eight bytes at a time.
func dollarOrHigh(s string) bool {
	i := 0
	for ; len(s)-i >= 8; i += 8 {
		x := load8(s[i : i+8])
		if x&highBits != 0 || zeroBytes(x^0x2424242424242424) != 0 {
			return true
		}
	}
	for ; i < len(s); i++ {
		if s[i] == '$' || s[i] >= 0x80 {
			return true
		}
	}
	return false
}

// pageFeatures computes the classifier's input for the page under root
// (scanned: scripts but JSON-LD, styles and hidden nodes are gone).
func pageFeatures(root *html.Node, pageURL *url.URL, ldTypes []string, ogType string) typeFeatures {
	return pageFeaturesBound(root, pageURL, ldTypes, ogType, nil, nil)
}

// pageFeaturesBound is pageFeatures, with the body's bounds for the
// selector's views (boundBody) put in vb when vb is not nil, from the
// same walk. vb is left as it is when the page has no body. texts, when
// not nil, are the texts scan counted (scanResult.texts): their counts
// are taken rather than counted again; the caller gives the list back
// to textLists (done) once the selector has read it too.
func pageFeaturesBound(root *html.Node, pageURL *url.URL, ldTypes []string, ogType string, vb *viewBound, texts *textCounts) typeFeatures {
	var f typeFeatures
	urlFeatures(pageURL, &f)
	switch og := strings.ToLower(ogType); {
	case og == "":
	case strings.Contains(og, "article") || og == "blog":
		f[fOGArticle] = 1
	case strings.Contains(og, "product"):
		f[fOGProduct] = 1
	case og == "website":
		f[fOGWebsite] = 1
	}
	for _, t := range ldTypes {
		schemaFeature(t, &f)
	}
	for n := range root.Descendants() {
		if n.Type == html.ElementNode && n.DataAtom == atom.Link && relNext(n) {
			f[fRelNext] = 1
			break
		}
		if n.DataAtom == atom.Body {
			break
		}
	}
	w := &typeWalk{f: &f, vb: vb}
	if texts != nil {
		// The caller gives the list back (the selector's peeks read it
		// too).
		w.texts = *texts
	}
	if body := findBody(root); body != nil {
		w.walk(body, false, false)
	}
	w.done()
	if w.words > 0 {
		f[fParaShare] = float64(w.paraWords) / float64(w.words)
		f[fLinkShare] = float64(w.linkWords) / float64(w.words)
		f[fRunShare] = float64(w.runWords) / float64(w.words)
	}
	if f[fParagraphs] > 0 {
		f[fParaAvgWords] = math.Log1p(float64(w.paraWords) / f[fParagraphs])
	}
	f[fBodyWords] = float64(w.words)
	// Counts go in on a log scale: a page of 400 links is not ten times
	// the listing a page of 40 is.
	for i := fElements; i <= fRuns; i++ {
		if i == fParaShare || i == fLinkShare {
			continue
		}
		f[i] = math.Log1p(f[i])
	}
	return f
}

// relNext tells whether a link or anchor points to the next or previous
// page of a paginated list.
func relNext(n *html.Node) bool {
	rel := attr(n, "rel")
	if rel == "" {
		return false // most links: no lower-casing, no iterator
	}
	for w := range strings.FieldsSeq(strings.ToLower(rel)) {
		if w == "next" || w == "prev" {
			return true
		}
	}
	return false
}

// classify returns the probability of each page type.
func classify(f *typeFeatures) [len(PageTypes)]float64 {
	var p [len(PageTypes)]float64
	hi := math.Inf(-1)
	for k := range p {
		s := typeBias[k]
		for i, x := range f {
			s += typeWeights[k][i] * (x - featureMean[i]) / featureScale[i]
		}
		p[k] = s
		hi = max(hi, s)
	}
	sum := 0.0
	for k := range p {
		p[k] = math.Exp(p[k] - hi)
		sum += p[k]
	}
	for k := range p {
		p[k] /= sum
	}
	return p
}

func argmax(p []float64) int {
	k := 0
	for i, x := range p {
		if x > p[k] {
			k = i
		}
	}
	return k
}

// addTypes records the @type values of one JSON-LD object.
func (r *jsonLD) addTypes(v any) {
	switch t := v.(type) {
	case string:
		if len(r.types) < 32 {
			r.types = append(r.types, t)
		}
	case []any:
		for _, e := range t {
			r.addTypes(e)
		}
	}
}

// PageTypeFeatures returns the page-type classifier's input for an HTML
// page and the probabilities it gives, without extracting the main
// content: what bench/pagetype's feature work needs (-fast), at the cost
// of a parse and a scan.
func PageTypeFeatures(body []byte, pageURL string) ([]float64, []float64, error) {
	_, _, f, p, err := parseClassified(body, pageURL)
	if err != nil {
		return nil, nil, err
	}
	return f[:], p[:], nil
}

// parseClassified parses and scans a page and classifies it, for the
// tools that look at one step of the pipeline (PageTypeFeatures,
// Candidates).
func parseClassified(body []byte, pageURL string) (*html.Node, scanResult, typeFeatures, [len(PageTypes)]float64, error) {
	if !utf8.Valid(body) {
		body = bytes.ToValidUTF8(body, []byte("\uFFFD"))
	}
	root, err := ParseHTML(body)
	if err != nil {
		return nil, scanResult{}, typeFeatures{}, [len(PageTypes)]float64{}, err
	}
	base, _ := url.Parse(pageURL)
	s := scan(root, base, false)
	f := pageFeatures(root, s.base, s.sig.ldTypes, s.meta.OpenGraph["og:type"])
	return root, s, f, classify(&f), nil
}
