package content

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// An arena's chunks go back zeroed: a node handed out after done holds
// nothing of the page before.
func TestNodeArenaGivesBackZeroed(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1)) // the pool kept through the test
	var page html.Node
	a := new(nodeArena)
	for i := 0; i < 3*nodeChunk+5; i++ {
		k := a.node()
		if !zeroNode(k) {
			t.Fatalf("node %d not zeroed: %+v", i, k)
		}
		k.Parent, k.FirstChild, k.Data, k.DataAtom = &page, &page, "p", atom.P
		k.Attr = []html.Attribute{{Key: "class", Val: "x"}}
	}
	if len(a.chunks) != 4 {
		t.Fatalf("%d chunks for %d nodes, want 4", len(a.chunks), 3*nodeChunk+5)
	}
	a.done()
	if len(a.chunks) != 0 || a.cur != nil || a.left != 0 {
		t.Fatalf("after done: %d chunks, %d left", len(a.chunks), a.left)
	}
	var nilArena *nodeArena
	nilArena.done()
	b := new(nodeArena)
	for i := 0; i < 8*nodeChunk; i++ {
		if k := b.node(); !zeroNode(k) {
			t.Fatalf("node %d of the next arena holds %+v", i, k)
		}
	}
}

// A conversion gives the readability pass's copies and maps back, and
// the next page takes them: with the collector off, a second conversion
// of a long article allocates at least the copy's nodes less than it
// does when nothing is given back (reuseCopies off), and its output is
// the same.
func TestConversionReusesCopies(t *testing.T) {
	if raceOn {
		t.Skip("sync.Pool drops some of what is put back under the race detector")
	}
	var b strings.Builder
	b.WriteString("<html><head><title>Long</title></head><body><nav><a href=/>Home</a></nav><article><h1>Long</h1>")
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&b, "<p>Paragraph %d, with <a href=\"/p/%d\">a link</a>, <em>some</em> words, and a comma or two, to read as prose.</p>\n", i, i)
	}
	b.WriteString("</article><footer>Footer</footer></body></html>")
	body := []byte(b.String())
	opt := Options{OnlyMainContent: true, IncludeLinks: true}
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	bytesOf := func() (uint64, *Document) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		doc, err := HTML(body, "https://example.org/long", opt)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		return after.TotalAlloc - before.TotalAlloc, doc
	}
	// The least of five runs: TotalAlloc counts what other goroutines
	// of the test binary allocate meanwhile, which only adds.
	least := func() (uint64, *Document) {
		bytesOf() // the pools filled, or emptied
		m, doc := bytesOf()
		for range 4 {
			if n, _ := bytesOf(); n < m {
				m = n
			}
		}
		return m, doc
	}
	reused, doc := least()
	reuseCopies = false
	defer func() { reuseCopies = true }()
	fresh, doc2 := least()
	if doc.Markdown != doc2.Markdown || doc.Text != doc2.Text {
		t.Fatal("outputs differ with and without reuse")
	}
	// The article's copy is about 1,800 nodes of 104 bytes (each
	// paragraph a <p>, an <a>, an <em>, five texts and the line break
	// after it).
	if saved := int64(fresh) - int64(reused); saved < 1500*104 {
		t.Errorf("allocated %d bytes reusing, %d not: %d less, want at least %d", reused, fresh, saved, 1500*104)
	}
}

func zeroNode(k *html.Node) bool {
	return k.Parent == nil && k.FirstChild == nil && k.LastChild == nil && k.PrevSibling == nil && k.NextSibling == nil &&
		k.Type == 0 && k.DataAtom == 0 && k.Data == "" && k.Namespace == "" && k.Attr == nil
}

// mayMarkPosts holds on every page whose posts one of forumContent's
// three walks reads (microdata, phpBB, XenForo, MyBB), and not on a page
// without what they look for, where the three find no thread; the walk
// is bounded on deep nesting.
func TestMayMarkPosts(t *testing.T) {
	for name, page := range map[string]string{
		"microdata": threadPage(true), "phpbb": phpbbPage(false), "phpbb old": phpbbPage(true),
		"xenforo": enginePage("xenforo"), "mybb": enginePage("mybb"),
	} {
		_, body := parseBody(t, page)
		if !mayMarkPosts(body) {
			t.Errorf("%s: mayMarkPosts false on a thread", name)
		}
		if markedThread(body) == nil && phpbbThread(body) == nil && engineThread(body) == nil {
			t.Errorf("%s: no walk finds the thread", name)
		}
	}
	plain := `<html><body><div class="navheader"><a href="a.html">Prev</a></div><div class="sect1" id="x"><h2 class="title">Title</h2>` +
		strings.Repeat(`<p class="para">Words of the manual, <code class="literal">code</code>.</p>`, 50) +
		`<article><p>An article element.</p></article><ul><li id="post_1">A numbered item</li><li id="p2">Another</li></ul></div></body></html>`
	_, body := parseBody(t, plain)
	if mayMarkPosts(body) {
		t.Error("mayMarkPosts true on a page without posts")
	}
	// Each mark alone lets the walks run.
	for _, mark := range []string{`itemscope`, `data-author="x"`, `class="postbit"`} {
		_, body := parseBody(t, `<html><body><div><span `+mark+`>a</span></div></body></html>`)
		if !mayMarkPosts(body) {
			t.Errorf("mayMarkPosts false with %s", mark)
		}
	}
	deep := "<html><body>" + strings.Repeat("<div>", 500) + "<span class=post id=p1>x</span></body></html>"
	_, body = parseBody(t, deep)
	if !mayMarkPosts(body) {
		t.Error("mayMarkPosts false under deep nesting")
	}
}

// bodyMarkers finds every marker at every offset of a body, in any
// case, between letters that make the common pairs its window moves on,
// and at the body's end, as the lowered copy does.
func TestBodyMarkersEveryOffset(t *testing.T) {
	fill := "the rest of the access reference verification re"
	for _, l := range [][]string{captchaMarkers, blockedMarkers, rateLimitMarkers} {
		for _, m := range l {
			for _, w := range []string{m, strings.ToUpper(m)} {
				for off := 0; off <= 24; off++ {
					for _, b := range []string{fill[:off] + w, fill[:off] + w + fill, w[:len(w)-1] + fill[:off] + w[1:]} {
						if got, want := bodyMarkers([]byte(b)), bodyMarkersLowered([]byte(b)); got != want {
							t.Fatalf("bodyMarkers(%q) = %b, want %b", b, got, want)
						}
					}
				}
			}
		}
	}
}

// Conversions running at once, as a crawl's are, each take and give back
// their own chunks and maps: every page converts to what it does alone.
func TestConcurrentConversionsReuse(t *testing.T) {
	pages := []string{threadPage(true), phpbbPage(false), enginePage("xenforo"), enginePage("mybb")}
	for i := 0; i < 4; i++ {
		var b strings.Builder
		b.WriteString("<html><head><title>Page</title></head><body><nav><a href=/>Home</a></nav><article><h1>Page</h1>")
		for j := 0; j < 40+30*i; j++ {
			fmt.Fprintf(&b, "<p>Paragraph %d of page %d, with <a href=\"/p/%d\">a link</a>, <em>some</em> words, and a comma.</p>", j, i, j)
		}
		b.WriteString("</article></body></html>")
		pages = append(pages, b.String())
	}
	opt := Options{OnlyMainContent: true, IncludeLinks: true}
	want := make([]string, len(pages))
	for i, p := range pages {
		doc, err := HTML([]byte(p), "https://example.org/p", opt)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = doc.Markdown + "\x00" + doc.Text
	}
	errs := make(chan string, 8*len(pages))
	done := make(chan struct{})
	for g := 0; g < 8; g++ {
		go func() {
			defer func() { done <- struct{}{} }()
			for r := 0; r < 5; r++ {
				for k := range pages {
					i := (k + g) % len(pages)
					doc, err := HTML([]byte(pages[i]), "https://example.org/p", opt)
					if err != nil || doc.Markdown+"\x00"+doc.Text != want[i] {
						errs <- fmt.Sprintf("page %d differs when converted with others", i)
						return
					}
				}
			}
		}()
	}
	for g := 0; g < 8; g++ {
		<-done
	}
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
