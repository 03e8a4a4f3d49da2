package content

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzHTML feeds arbitrary bytes through the whole pipeline: it must never
// panic, and what it returns must be valid UTF-8.
func FuzzHTML(f *testing.F) {
	for _, seed := range []string{
		"", "<", "<html><body><p>x</p></body></html>", "<table><tr><td><table><tr><td>",
		"<pre><code class=\"language-go\">a\nb</code></pre>", "<a href=\"javascript:x\">y</a><base href=\"//\">",
		"<svg><script>alert(1)</script></svg><noscript><p>enable JavaScript</p></noscript>",
		"<div hidden><p>h</p></div><article><h1>T</h1><p>" + string([]byte{0xff, 0xfe}) + "</p></article>",
		"<ul><li><ol><li><blockquote><h2>deep</h2></blockquote></li></ol></li></ul>",
		"<div><noscript><noscript><p>" + strings.Repeat("post text, ", 30) + "</p></div><h3>Mehr zum Thema</h3><ul><li><a href=/a>a</a>",
		"<p>(<em>Source: x</em>)</p><hgroup><h1>T</h1><h2>" + strings.Repeat("sub ", 20) + "</h2></hgroup><p>Follow us on Twitter</p>",
		// Short pages that go to trafilatura and are mended from the page
		// (repair): spaces, a table, link-only paragraphs.
		string(shortPage(`<ul><li><b>0.25</b> <i>per share</i></li><li><a href="/r">Q3 results</a> <span>Nov 12</span></li></ul>`)),
		string(shortPage(`<table><tr><th>Item</th><th>Q3</th></tr><tr><td><a href="/e">EPS</a> <small>diluted</small></td><td>0.42</td></tr></table>`)),
		string(shortPage(`<p>Margins widened.</p><p><a href="/q3.pdf">Release (PDF)</a></p><p><a href="https://sec.gov/f">Filing</a></p>`)),
		string(shortPage(`<table><tr><td><table><tr><td><b>a</b> <i>b</i></td></tr></table></td><td>c</td></tr></table><pre>x  y</pre>`)),
		// A dropped block between two inline runs ends the line.
		"<article><h1>T</h1><section><span>honey.</span><div class=spacer></div><span>Stir</span></section></article>",
		// A caption of blocks, presentational inline elements.
		"<table><caption><div><h3>$390</h3><p>per hour</p></div></caption><tr><td>Part-time</td><td><b>$455</b>/hour</td></tr></table>",
		"<div><p>x</p>um i<u>ronische</u> <font>Ereignisse</font> <s>und</s></div>",
		`<table role="presentation"><tr><td><a href="/c">Deep</a></td><td>108431</td><td></td></tr><tr><th>x<ul><li>y</li></ul></th></tr></table>`,
		// Page-type paths: JSON-LD types (nested, arrays, junk), prices,
		// class words, and a grid of cards for the collection profile.
		`<script type="application/ld+json">{"@graph":[{"@type":["Product","Offer"]},{"mainEntity":{"@type":"ItemList"}}]}</script>` +
			"<ul class=\"productGrid\">" + strings.Repeat("<li class=\"card\"><a href=/p><img src=x><h3>Item</h3></a><span class=\"price\">$9.99 €5 £</span></li>", 6) + "</ul>",
		// The items region's copy: a grid in nested forms, controls in
		// its cards, a column of short card blocks beside it.
		"<div class=\"side\">" + strings.Repeat("<div><h4>Desk</h4><span>$5</span></div>", 12) + "</div><form><form><ul class=\"grid\">" +
			strings.Repeat("<li class=\"card\"><a href=/p><img src=x>Desk</a><span>$9</span><label>Qty:</label><input><button>Add</button><select><option>1</select></li>", 6) + "</ul></form>",
		`<div itemtype="https://schema.org/DiscussionForumPosting"><a href="/t/1">t</a></div>$` + "\xe2\x82",
		// A page mostly hidden (shown whole by settleHidden): hidden
		// blocks nested, side by side and around a <noscript>.
		`<div hidden><p>` + strings.Repeat("hidden words ", 40) + `<span style="display:none">in</span></p></div><div aria-hidden=true><noscript><p>` +
			strings.Repeat("n ", 120) + `</p></noscript></div><p>shown</p><div style="DISPLAY: NONE"><div hidden>x</div></div>`,
		// A script shell's <noscript> thread beside the page's header
		// or a loading line (Discourse's crawler view): posts nested in
		// posts, unclosed.
		`<header role="banner">Forums</header><section id=d-splash>Loading</section><noscript data-path="/t/1"><div itemscope itemtype="http://schema.org/DiscussionForumPosting"><p>` +
			strings.Repeat("post text, ", 30) + `<div itemscope itemtype="http://schema.org/Comment"><div itemscope itemtype=Comment><p>r</noscript><section id=main></section>`,
		// phpBB's posts: nested post blocks, a postbody without content,
		// an author line without a date, a code box without its header.
		`<div id="p1" class="post"><div id="p2" class="post"><div class="postbody"><p class="author">by <strong>x</strong> &raquo;</p>` +
			`<div class="content"><div class="codebox"><pre>c</pre></div><cite><a data-post-id=1>↑</a></cite></div></div></div></div>` +
			`<div id="p3" class="post bg1"><a href="memberlist.php?mode=viewprofile&u=2"></a><div class="postbody"><div class="content">` + strings.Repeat("post text, ", 30) + `</div></div></div>`,
		// Other engines' posts (pagetype_engines.go: XenForo 1 and 2, MyBB;
		// and the markup of the engines measured and not kept): claimed
		// blocks with and without their text, authors and dates missing.
		`<div id="p1" class="blockpost"><h2></h2><div class="postmsg postsignature">s</div></div><div id="p2" class="blockpost"><div class="postmsg"><p class="postedit">e</p></div></div>` +
			`<li id="Comment_1" class="Item"><span class="Author"></span><div class="Message">m</div></li><div id="Discussion_2" class="Item"><span class="DateCreated"></span></div>` +
			`<article id="elComment_1"><time><span class="ipsTime__long"></span></time><div data-role="commentContent"><span data-excludequote>x</span></div></article>` +
			`<article class="message" data-author=" "><article class="message-body"></article><div class="messageText"><div class="quoteExpand">q</div></div></article>` +
			`<table id="post1"><tr><td><a name="post1"></a><div id="post_message_1">v</div></td></tr></table><li class="b-post" data-node-id="1"><div class="author"></div><div class="js-post__content-text">w</div></li>` +
			`<div class="post_wrapper"><div class="poster"><h4></h4></div><div class="postinfo"><a class="smalltext"> on: </a></div><div id="msg_1">m</div></div>` +
			`<div class="post" id="post_1"><span class="post_date"><span class="post_edit">e</span></span><div id="pid_1">p</div></div>` +
			`<table id="pid1"><tr><td><em id="authorposton1">发表于 <span title="">t</span></em><div id="postmessage_1"><i class="pstatus">e</i><font class="jammer">j</font>` + strings.Repeat("post text, ", 30) + `</div></td></tr></table>`,
		// A WooCommerce grid (pagetype_platform.go): nested ul.products,
		// cards without text, a grid of two, a grid inside a card.
		`<ul class="products"><li class="product"><ul class="products"><li class="product"></li><li class="product">x</li><li class="product"><a></a></li></ul></li>` +
			`<li class="product"></li><li class="product">$1</li></ul><ul class="products"><li class="product">a</li><li class="product">b</li></ul>`,
		// A category page (pagetype_category.go): an <h1> in the header
		// and one beside a bare introduction, a grid inside a pager, the
		// page numbers after it, an <h1> after the grid.
		`<header><h1>Shop</h1></header><div><h1>Tools</h1>` + strings.Repeat("intro words ", 10) + `<a href=/x>` + strings.Repeat("link words ", 10) + `</a>` +
			`<p>` + strings.Repeat("more intro ", 10) + `</p></div><div class="pager"><ul class="grid">` + strings.Repeat(`<li class="card"><a href=/p><img src=x>Rake</a><span>$9</span></li>`, 4) +
			`</ul></div><div class="pagination"><a href=?p=2>2</a></div><h1>After</h1>`,
		// React's streamed boundaries: a slot inside its own content, a
		// duplicate slot, an unclosed fallback, nested and segment slots.
		`<!--$?--><template id="B:0"></template><p>Loading</p><div hidden id="S:0"><template id="B:0"></template><!--$?--><template id="P:1"></template></div>` +
			`<div hidden id="S:1"><div hidden id="S:0">x</div><!--/$--></div><template id="B:"></template><div hidden id="S:">y</div><div hidden id="S:0"></div>`,
	} {
		f.Add([]byte(seed), true)
	}
	f.Fuzz(func(t *testing.T, body []byte, main bool) {
		doc, err := HTML(body, "https://example.com/a/b", Options{OnlyMainContent: main, IncludeHTML: true, IncludeLinks: true})
		if err != nil {
			return
		}
		for name, s := range map[string]string{"markdown": doc.Markdown, "text": doc.Text, "title": doc.Metadata.Title} {
			if !utf8.ValidString(s) {
				t.Fatalf("%s is not valid UTF-8: %q", name, s)
			}
		}
		Classify(200, body, doc)
	})
}

// FuzzCandidates feeds arbitrary pages to the selector's candidates
// (h1 region, body without landmarks, JSON-LD product): no panic, valid
// UTF-8, one feature vector per candidate.
func FuzzCandidates(f *testing.F) {
	for _, seed := range []string{
		"", "<h1>", "<body><h1>T</h1><nav><a href=/>x</a></nav><p>text text</p></body>",
		`<script type="application/ld+json">{"@type":"Product","name":"N","offers":{"price":1.5,"availability":"http://schema.org/InStock"}}</script><h1>N</h1><p>d</p>`,
		`<script type="application/ld+json">[{"@graph":[{"@type":["Product"],"offers":[{"lowPrice":"x"}],"description":{"a":1}}]}]</script>`,
		`<script type="application/ld+json">{"@type":"Product","offers":[]}</script><main><header><h1>a</h1></header><form><input></form></main>`,
		"<div class=\"nav\"><h1>in a menu</h1></div><footer><h1>again</h1></footer>" + string([]byte{0xff}),
		// A JSON-LD description with character references, held by an
		// element of the page in lines.
		`<script type="application/ld+json">{"@type":"Product","name":"N","description":"Long enough text of the description here.\n- a- b 6&apos;0&quot;"}</script>` +
			`<h1>N</h1><div class=sheet><p>Long enough text of the description here.</p><p>- a<br>- b 6'0"</p></div>`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		cs, _, err := Candidates(body, "https://example.com/a/b")
		if err != nil {
			return
		}
		for _, c := range cs {
			if len(c.Features) != len(SelectFeatureNames) {
				t.Fatalf("%s: %d features", c.Kind, len(c.Features))
			}
			if !utf8.ValidString(c.Text) {
				t.Fatalf("%s: text is not valid UTF-8", c.Kind)
			}
		}
	})
}
