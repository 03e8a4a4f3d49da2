package content

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// ruleProse is a paragraph long enough to make its block the article.
const ruleProse = "The council met on Tuesday to discuss the new budget, which funds the library, the parks and the roads for the next three years. "

// rulePage wraps an article body in the chrome of a typical site.
func rulePage(article string) string {
	return `<html><head><title>Budget approved</title></head><body>
<nav><ul><li><a href="/">Home</a></li><li><a href="/news">News</a></li><li><a href="/sport">Sport</a></li></ul></nav>
<div id="main">` + article + `</div>
<div class="sidebar"><h3>Most read</h3><ul><li><a href="/a">Storm hits coast</a></li><li><a href="/b">Team wins cup</a></li></ul></div>
<footer><p>Copyright 2025 The Daily</p></footer></body></html>`
}

func mainText(t *testing.T, body string) string {
	t.Helper()
	doc, err := HTML([]byte(body), "https://news.example.org/2025/budget", Options{OnlyMainContent: true})
	if err != nil {
		t.Fatal(err)
	}
	return doc.Text
}

func checkText(t *testing.T, text string, want, unwanted []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("text lacks %q:\n%s", w, text)
		}
	}
	for _, u := range unwanted {
		if strings.Contains(text, u) {
			t.Errorf("text keeps %q:\n%s", u, text)
		}
	}
}

// TestRelatedBlocks: lists of related stories and teasers of other posts
// inside the article container are dropped, whatever else their class
// says ("article-related"); the article's own wrapper stays even when
// its class mentions related posts, and so do blocks whose names only
// look alike.
func TestRelatedBlocks(t *testing.T) {
	body := rulePage(`<article><div class="entry-content has-related-posts">
<p>` + strings.Repeat(ruleProse, 3) + `</p>
<div class="article-related"><h4>Read more</h4><ul><li><a href="/x">Storm damage in the north</a></li><li><a href="/y">Schools reopen</a></li></ul></div>
<p>` + strings.Repeat(ruleProse, 2) + `</p>
<div class="relative-position"><p>The library will open on Sundays from next spring, a first for the town.</p></div>
<section id="relatedPosts"><p>Council elections: who stands where, and what the parties promise this year.</p></section>
<article class="teaser"><h3><a href="/2025/roads">Roads plan delayed again</a></h3><p>Work will not start before May.</p></article>
</div></article>`)
	checkText(t, mainText(t, body),
		[]string{"The council met", "The library will open"},
		[]string{"Storm damage", "Council elections", "Roads plan delayed", "Work will not start"})
}

func TestWordsKinds(t *testing.T) {
	for v, want := range map[string]boilerKind{
		"related-articles": kindRelated, "relatedPosts": kindRelated, "jp-relatedposts": kindRelated,
		"most-read": kindRelated, "mostRead": kindRelated, "more_stories box": kindRelated,
		"relative": 0, "unrelated": 0, "has-related-posts": 0, "post with-share": 0, "mostly readable": 0, "article body": 0,
	} {
		if got := wordsKinds(v); got != want {
			t.Errorf("wordsKinds(%q) = %v, want %v", v, got, want)
		}
	}
}

// TestHiddenClasses: blocks that a stylesheet hides by class (popups,
// screen-reader labels, print-only notes) stay out of the article; blocks
// hidden only at some screen sizes stay in, and so does a body whose class
// hides only its label (Drupal's "field--label-hidden", on every field).
func TestHiddenClasses(t *testing.T) {
	body := rulePage(`<article>
<div class="field field--name-body field--label-hidden"><div class="field__item">
<p>` + strings.Repeat(ruleProse, 3) + `</p>
<div class="modal hidden"><p>Subscribe to our newsletter today and never miss a story, it is free.</p></div>
<div class="notice is-hidden"><p>Your session has expired, please sign in again to keep reading.</p></div>
<p><span class="sr-only">Image caption:</span> Residents queued outside the town hall, and the meeting ran late.</p>
<div class="print-only"><p>Printed from news.example.org, the daily paper of the valley, all rights reserved.</p></div>
<p class="d-none d-md-block">The mayor, who chaired the session, thanked the staff for their long work on the plan.</p>
<p class="hidden-xs">Two members voted against it, saying the roads needed more money than the parks did.</p>
<p>` + strings.Repeat(ruleProse, 2) + `</p>
</div></div></article>`)
	checkText(t, mainText(t, body),
		[]string{"The council met", "Residents queued", "The mayor, who chaired", "Two members voted"},
		[]string{"Subscribe to our newsletter", "session has expired", "Image caption", "Printed from"})
}

func TestHidingClass(t *testing.T) {
	for v, want := range map[string]bool{
		"hidden": true, "modal is-hidden": true, "vjs-hidden": true, "sr-only": true, "d-none": true,
		"d-none d-md-block": false, "hidden md:block": false, "hidden-xs": false, "field--label-hidden": false,
		"overflow-hidden": false, "lazy-hidden": false, "visible-lg hidden": false, "content": false,
	} {
		if got := hidingClass(v); got != want {
			t.Errorf("hidingClass(%q) = %v, want %v", v, got, want)
		}
	}
}

// TestLinkOnlyParagraphs: a paragraph that is only a link within the
// site ("Read more") is dropped; links to documents and to other sites
// are content and stay, inside the article and in a block just after it
// (an investor-relations release and its PDF).
func TestLinkOnlyParagraphs(t *testing.T) {
	body := rulePage(`<article><div class="entry-content">
<p>` + strings.Repeat(ruleProse, 3) + `</p>
<p><a href="/2025/storm-damage">Storm damage in the north: what we know</a></p>
<div><p><a href="/files/q3-results.pdf">Download the release (PDF)</a></p></div>
<p><a href="https://stats.example.com/budget-2025">The full budget tables of the statistics office</a></p>
<p><a href="https://twitter.com/thedaily">Follow us on Twitter for more</a></p>
<p>` + strings.Repeat(ruleProse, 2) + `</p>
</div>
<div class="downloads"><a href="https://news.example.org/files/budget-2025.xlsx">Budget 2025 figures (XLSX)</a></div>
</article>`)
	checkText(t, mainText(t, body),
		[]string{"The council met", "Download the release (PDF)", "The full budget tables", "Budget 2025 figures (XLSX)"},
		[]string{"Storm damage", "Follow us on Twitter"})
}

func TestClassifyLink(t *testing.T) {
	const host = "example.org"
	for href, want := range map[string]linkKind{
		"/news/a": linkSame, "b.html": linkSame, "#top": linkSame, "https://www.example.org/x": linkSame,
		"https://blog.example.org/x": linkSame, "/q3.PDF?dl=1": linkDoc, "https://cdn.other.net/r.xlsx": linkDoc,
		"https://other.net/report": linkOther, "mailto:desk@example.org": linkOther,
		"https://www.facebook.com/daily": linkSocial, "https://x.com/daily": linkSocial,
	} {
		if got := classifyLink(href, host); got != want {
			t.Errorf("classifyLink(%q) = %v, want %v", href, got, want)
		}
	}
}

// TestPageWrappersAndPopups: a wrapper named like a footer that holds
// most of the page is not dropped as a footer; a modal or a cookie
// banner next to the article stays out of it; a class that states a
// condition of the block ("has-related-posts") is not its name.
func TestPageWrappersAndPopups(t *testing.T) {
	modal := `<div class="modal disclosures-modal"><div class="modal__body">` +
		strings.Repeat("<p>Disclosures: the authors report grants, personal fees and other support, outside the submitted work, from several companies.</p>", 3) +
		`</div></div>`
	body := `<html><head><title>Budget approved</title></head><body>
<div class="cookie-consent"><p>We use cookies to improve your experience, to measure the audience and to show you offers.</p></div>
<div class="above-footer"><div class="post-content"><article class="has-related-posts">
<p>` + strings.Repeat(ruleProse, 3) + `</p><p>` + strings.Repeat(ruleProse, 3) + `</p><p>` + strings.Repeat(ruleProse, 3) + `</p>
</article>` + modal + `</div></div>
<footer><p>Copyright 2025 The Daily</p></footer></body></html>`
	checkText(t, mainText(t, body),
		[]string{"The council met"},
		[]string{"Disclosures:", "We use cookies", "Copyright"})
}

// TestMetadataLines: dates, bylines, category labels, breadcrumbs, tag
// lists and author boxes inside the article container are dropped, even
// when their class also says "article"; a word inside a sentence that
// carries such a class stays.
func TestMetadataLines(t *testing.T) {
	body := rulePage(`<article class="article">
<div class="article__breadcrumbs"><span>Home</span> / <span>Local politics</span></div>
<div class="entry-meta"><span class="posted-on">Posted on <time>2 May 2025</time></span> <span class="byline">by Ann Lee</span></div>
<p>` + strings.Repeat(ruleProse, 3) + `</p>
<p>The vote followed a debate on <a class="meta-loc" href="/places/riverside">Riverside</a> and the old mill, which the council will sell.</p>
<p>` + strings.Repeat(ruleProse, 2) + `</p>
<div class="article-tags"><span>Tags:</span> <span>Budget</span>, <span>Council</span></div>
<div class="author-bio"><p>Ann Lee covers the town hall for The Daily. Before that she reported on schools and transport for ten years.</p></div>
</article>`)
	checkText(t, mainText(t, body),
		[]string{"The council met", "debate on Riverside and the old mill"},
		[]string{"Local politics", "Posted on", "by Ann Lee", "Tags:", "covers the town hall"})
}

// TestCallsToAction: newsletter boxes, subscription and paywall notes,
// affiliate disclosures and ad slots (by name, or a line that only says
// "Advertisement") inside the article are dropped.
func TestCallsToAction(t *testing.T) {
	body := rulePage(`<article><div class="entry-content">
<p>` + strings.Repeat(ruleProse, 3) + `</p>
<div class="wp-block-newsletter"><strong>Get the morning briefing</strong><p>Sign up for our newsletter and get the news in your inbox.</p></div>
<p class="aawp-disclosure">This post contains affiliate links; we earn a commission on purchases.</p>
<div class="ad-slot"><span>Anzeige</span></div>
<p>- Advertisement -</p>
<p>` + strings.Repeat(ruleProse, 2) + `</p>
<div class="paywall-notice"><p>To read the full story, please subscribe: 5 dollars a week, cancel anytime.</p></div>
<div class="infobox article-contact"><p>Contact the reporter: Ann Lee, town hall desk, 555 0100.</p></div>
</div></article>`)
	checkText(t, mainText(t, body),
		[]string{"The council met"},
		[]string{"morning briefing", "Sign up", "affiliate links", "Anzeige", "Advertisement", "please subscribe",
			"Contact the reporter"})
}

// TestPhotoCredits: credit lines of photos (by class, or a short line of
// its own that starts "Foto:", "Photo by", "©") are dropped; the caption
// itself, a credit that is part of it (inside the <figcaption>) and a
// sentence that mentions a photo stay.
func TestPhotoCredits(t *testing.T) {
	body := rulePage(`<article><div class="entry-content">
<p>` + strings.Repeat(ruleProse, 3) + `</p>
<figure><img src="/hall.jpg" alt=""><figcaption>The town hall on Tuesday evening. <span class="photo-credit">Jane Roe / The Daily</span></figcaption></figure>
<p>Foto: Max Muster / dpa</p>
<div class="image-legend"><p>© 2025 Example Images</p></div>
<p class="photo-credit">Mill photo: Ray Doe / The Daily</p>
<p>(<em>Source: Riivka</em>)</p>
<p>Photo: the mayor said the picture of the old mill, taken in 1950, shows why the building must be saved and sold to the town.</p>
<p>` + strings.Repeat(ruleProse, 2) + `</p>
</div></article>`)
	checkText(t, mainText(t, body),
		[]string{"The council met", "The town hall on Tuesday evening.", "Jane Roe", "the mayor said the picture"},
		[]string{"Max Muster", "Example Images", "Ray Doe", "Riivka", "()"})
}

// TestLeadOutsideBody: the lead paragraph set apart in the article's
// header joins the article, first; a "lede" photo with its caption and
// a link-heavy teaser do not.
func TestLeadOutsideBody(t *testing.T) {
	body := rulePage(`<article>
<header class="entry-header"><h1>Budget approved</h1>
<figure class="lede"><img src="/hall.jpg" alt=""><figcaption>The town hall, where the meeting took place on a rainy evening.</figcaption></figure>
<div class="entry-excerpt"><p>After a six-hour debate the council approved a three-year budget that favours libraries and parks.</p></div>
</header>
<div class="entry-content"><p>` + strings.Repeat(ruleProse, 3) + `</p><p>` + strings.Repeat(ruleProse, 2) + `</p></div>
</article>`)
	text := mainText(t, body)
	checkText(t, text, []string{"After a six-hour debate", "The council met"}, []string{"rainy evening"})
	if strings.Index(text, "After a six-hour debate") > strings.Index(text, "The council met") {
		t.Errorf("lead after the body:\n%s", text)
	}

	// A wrapper named for the lead holds its byline and a caption too:
	// only the lead joins.
	body = rulePage(`<div class="standfirst-wrapper"><div class="standfirst">
<p>After a six-hour debate the council approved a three-year budget that favours libraries and parks.</p>
<p>by <a rel="author" href="/profile/ann">Ann Lee</a> (reporting) and Bo Chan (photography)</p></div>
<figcaption class="caption">Main image: the town hall at night. Photograph: Bo Chan</figcaption></div>
<article><div class="entry-content"><p>` + strings.Repeat(ruleProse, 3) + `</p><p>` + strings.Repeat(ruleProse, 2) + `</p></div></article>`)
	checkText(t, mainText(t, body), []string{"After a six-hour debate", "The council met"}, []string{"Ann Lee", "Main image"})

	// The subtitle an <hgroup> sets under the title is the lead too.
	body = rulePage(`<article><header><hgroup><h3>Town hall</h3><h1>Budget approved</h1>
<h2>After a six-hour debate the council approved a three-year budget that favours libraries.</h2></hgroup></header>
<div class="entry-content"><p>` + strings.Repeat(ruleProse, 3) + `</p><p>` + strings.Repeat(ruleProse, 2) + `</p></div></article>`)
	checkText(t, mainText(t, body), []string{"After a six-hour debate", "The council met"}, nil)
}

// TestForumPosts: the posts of a forum thread, each an <article> with
// its author's links, are the content, not teasers of other posts.
func TestForumPosts(t *testing.T) {
	post := func(user, text string) string {
		return `<article class="message"><header><h4 class="message-name"><a href="/members/` + user + `">` + user +
			`</a></h4></header><div class="message-content"><p>` + text + `</p></div></article>`
	}
	body := rulePage(`<div class="thread">` +
		post("ann", "Patch notes 4.47: "+strings.Repeat(ruleProse, 4)) +
		post("bob", "Thanks for the update. "+strings.Repeat("The new quest line works well on my side, and the boss fight is much fairer now. ", 6)) +
		`</div>`)
	checkText(t, mainText(t, body), []string{"Patch notes 4.47", "Thanks for the update"}, nil)
}

// TestSoftHyphensAndRuby: soft hyphens (shown only at a line break) and
// ruby readings (set above the text) do not split words in the text.
func TestSoftHyphensAndRuby(t *testing.T) {
	body := rulePage(`<article><p>` + strings.Repeat(ruleProse, 3) + `</p>
<p>Die Stadt&shy;ent&shy;wicklung braucht Geld, sagte der Bürgermeister am Dienstag im Rathaus.</p>
<p>東京の<ruby>漢<rp>(</rp><rt>かん</rt><rp>)</rp>字<rt>じ</rt></ruby>を学ぶ人が増えています。` + strings.Repeat("新しい予算が承認されました。", 5) + `</p>
<p>` + strings.Repeat(ruleProse, 2) + `</p></article>`)
	for _, only := range []bool{true, false} {
		doc, err := HTML([]byte(body), "https://news.example.org/", Options{OnlyMainContent: only})
		if err != nil {
			t.Fatal(err)
		}
		checkText(t, doc.Text, []string{"Stadtentwicklung braucht", "東京の漢字を学ぶ"}, []string{"\u00ad", "かん"})
		checkText(t, doc.Markdown, []string{"Stadtentwicklung braucht", "東京の漢字を学ぶ"}, []string{"\u00ad", "かん"})
	}
}

// TestNavInArticle: a <nav> inside the article container (section links,
// "back to the list") is navigation, not text of the article.
func TestNavInArticle(t *testing.T) {
	body := rulePage(`<article><div class="article-body">
<nav class="article-links"><ul><li><a href="/budget/schools">Schools in the budget</a></li><li><a href="/budget/roads">Roads in the budget</a></li></ul></nav>
<p>` + strings.Repeat(ruleProse, 3) + `</p><p>` + strings.Repeat(ruleProse, 2) + `</p>
<div class="news-backlink-wrap"><a href="/news">Back to all news of the town</a></div>
</div></article>`)
	checkText(t, mainText(t, body), []string{"The council met"}, []string{"Schools in the budget", "Back to all news"})
}

// TestEmbeddedPosts: a post embedded from a social network stays in the
// article, even inside a block named "social-embed".
func TestEmbeddedPosts(t *testing.T) {
	body := rulePage(`<article><div class="entry-content">
<p>` + strings.Repeat(ruleProse, 3) + `</p>
<div class="social-embed"><blockquote class="twitter-tweet"><p lang="en">The budget passed tonight, a good day for our libraries and parks.</p>&mdash; Mayor Lee (@mayorlee) <a href="https://twitter.com/mayorlee/status/1">May 2, 2025</a></blockquote></div>
<blockquote class="instagram-media"><p>Our new reading room opens in June, come and see it with your family.</p></blockquote>
<p>` + strings.Repeat(ruleProse, 2) + `</p>
</div></article>`)
	checkText(t, mainText(t, body), []string{"The budget passed tonight", "Our new reading room"}, nil)
}

// TestRelatedLabels: a heading that announces other stories ("Mehr zum
// Thema", "You might also like", "À lire aussi:") goes with the links
// under it, up to the first block of prose; "See also" and a sentence
// that starts like a label stay.
func TestRelatedLabels(t *testing.T) {
	body := rulePage(`<article><div class="entry-content">
<p>` + strings.Repeat(ruleProse, 3) + `</p>
<h2>Mehr zum Thema</h2><div><ul class="no-bullet"><li><a href="/a">Storm damage in the north</a></li><li><a href="/b">Schools reopen</a></li></ul></div>
<p>` + strings.Repeat(ruleProse, 2) + `</p>
<p><strong>You might also like:</strong></p><p><a href="/c">Roads plan delayed again</a></p><p><a href="/d">Budget cuts explained</a></p>
<p>Read more about the budget in the council's minutes, which are open to everyone at the town hall.</p>
<h3>À lire aussi :</h3><ul><li><a href="/e">Le marché de Noël</a></li></ul>
<h2>See also</h2><ul><li><a href="/f">Council tax history</a></li></ul>
<section><span class="headline">Zum Weiterlesen</span><ul class="list"><li><a href="/g">Der Haushalt im Detail</a></li></ul></section>
<div style="font-weight:bold">About the author</div><div class="saboxplugin-wrap"><p>Ann Lee covers the town hall for The Daily.</p></div>
</div></article>`)
	checkText(t, mainText(t, body),
		[]string{"The council met", "Read more about the budget", "See also", "Council tax history"},
		[]string{"Mehr zum Thema", "Storm damage", "Schools reopen", "might also like", "Roads plan", "Budget cuts",
			"lire aussi", "marché de Noël", "Weiterlesen", "Haushalt im Detail", "About the author", "Ann Lee covers"})
}

// TestCallsToActionInProse: paragraphs that ask the reader to follow the
// site on social networks or to subscribe go; a paragraph about an app in
// the stores and one that names a network in passing stay.
func TestCallsToActionInProse(t *testing.T) {
	body := rulePage(`<article><div class="entry-content">
<p>` + strings.Repeat(ruleProse, 3) + `</p>
<p>The mayor announced the plan on Twitter on Monday, before the meeting began in the evening.</p>
<p>The town's new app is in the App Store and on Google Play: download it to see when the library opens.</p>
<p>` + strings.Repeat(ruleProse, 2) + `</p>
<p><strong>Follow The Daily on Twitter and Instagram @TheDaily and on Facebook.</strong></p>
<p>Síguenos en Telegram, Instagram, Facebook y Twitter</p>
<p>To view the full story, please subscribe to <a href="/subscribe">The Daily</a>.</p>
</div></article>`)
	checkText(t, mainText(t, body),
		[]string{"The council met", "announced the plan on Twitter", "download it to see when"},
		[]string{"Follow The Daily", "Síguenos", "please subscribe"})
}

// TestNoscriptPost: a post that a script renders from a template, with
// the same post in <noscript> for clients without scripts (Blogger), is
// read from the <noscript>; a rendered copy beside it is not doubled, and
// a "please enable JavaScript" notice stays out.
func TestNoscriptPost(t *testing.T) {
	post := `<p>` + strings.Repeat(ruleProse, 3) + `</p><p>The vote was seven to two.</p>`
	body := rulePage(`<div class="post"><h2>Budget approved</h2><div class="post-body">
<script type="text/template">` + post + `</script>
<noscript>` + post + `</noscript>
</div></div><noscript><p>Please enable JavaScript to comment.</p></noscript>`)
	text := mainText(t, body)
	checkText(t, text, []string{"The council met", "seven to two"}, []string{"enable JavaScript"})

	rendered := rulePage(`<div class="post"><h2>Budget approved</h2><div class="post-body">` + post +
		`<noscript>` + post + `</noscript></div></div>`)
	if text := mainText(t, rendered); strings.Count(text, "seven to two") != 1 {
		t.Errorf("rendered post with its <noscript> copy: want it once:\n%s", text)
	}
}

// TestCreditsBesideImages: a block that holds a picture and its credit
// is the picture, not a credit line; a link alone in a table cell (an
// infobox's "Coat of arms") is the table's data, not a link-only
// paragraph.
func TestCreditsBesideImages(t *testing.T) {
	body := rulePage(`<article><div class="entry-content">
<p>` + strings.Repeat(ruleProse, 3) + `</p>
<div class="wp-block-image"><figure><img src="/mill.jpg" alt="The mill"><figcaption>Photo by Joan Roe</figcaption></figure></div>
<table class="infobox"><tr><th><div><a href="/wiki/Coat_of_arms">Coat of arms here</a></div></th><td><div><a href="/wiki/Statute">Statute of Westminster adopted</a></div></td></tr></table>
<p>` + strings.Repeat(ruleProse, 2) + `</p>
</div></article>`)
	doc, err := HTML([]byte(body), "https://news.example.org/2025/budget", Options{OnlyMainContent: true})
	if err != nil {
		t.Fatal(err)
	}
	checkText(t, doc.Text, []string{"Photo by Joan Roe", "Coat of arms here", "Statute of Westminster adopted"}, nil)
	if !strings.Contains(doc.Markdown, "/mill.jpg") {
		t.Errorf("the picture is gone:\n%s", doc.Markdown)
	}
}

// TestHostileNoscripts: a chain of nested <noscript> tags (whose raw
// text runs to the end of the page) and thousands of sibling ones cost a
// bounded number of parses of each byte, and the post never comes out
// more than once per <noscript> weighed.
func TestHostileNoscripts(t *testing.T) {
	post := `<p>` + strings.Repeat(ruleProse, 3) + `</p>`
	nested := rulePage(`<div class="post">` + strings.Repeat("<noscript>", 20000) + post + `</div>`)
	before := noscriptsWeighed.Load()
	if text := mainText(t, nested); strings.Count(text, "The council met") > 3 {
		t.Errorf("nested <noscript> chain: want the post once at most:\n%.500s", text)
	}
	if n := noscriptsWeighed.Load() - before; n > 1 {
		t.Errorf("nested <noscript> chain: %d weighed (each parses the rest of the page), want 1", n)
	}
	siblings := rulePage(`<div class="post">` + strings.Repeat("<noscript>"+post+"</noscript>", 2000) + `</div>`)
	before = noscriptsWeighed.Load()
	doc, err := HTML([]byte(siblings), "https://news.example.org/", Options{OnlyMainContent: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(doc.Text, "The council met"); n > 3*maxNoscriptTries {
		t.Errorf("%d copies of the post from 2,000 <noscript> siblings; want at most %d", n/3, maxNoscriptTries)
	}
	if n := noscriptsWeighed.Load() - before; n > maxNoscriptTries {
		t.Errorf("2,000 <noscript> siblings: %d weighed (each against all its siblings), want at most %d", n, maxNoscriptTries)
	}
}

// TestStreamedBoundaries: a page streamed by React's server renderer
// sends its article later, hidden (<div hidden id="S:0">), with a script
// that moves it into its placeholder (<template id="B:0">) over the
// fallback; a segment fills its placeholder (<template id="P:1">) the
// same way. The article is read in its place, the fallback is not; a
// hidden "S:" block with no placeholder stays hidden, and a placeholder
// whose content never came keeps its fallback.
func TestStreamedBoundaries(t *testing.T) {
	body := `<html><head><title>Budget approved</title></head><body>
<nav><ul><li><a href="/">Home</a></li><li><a href="/news">News</a></li></ul></nav>
<main><!--$?--><template id="B:0"></template><div class="skeleton"><p>Loading the story, please wait a moment while it arrives.</p></div><!--/$--></main>
<footer><p>Copyright 2025 The Daily</p></footer>
<div hidden id="S:0"><article><h1>Budget approved</h1><p>` + strings.Repeat(ruleProse, 3) + `</p><template id="P:1"></template>
<!--$?--><template id="B:2"></template><p>The minutes of the meeting list every speaker and every vote of the evening.</p><!--/$--></article></div>
<script>$RC("B:0","S:0")</script>
<div hidden id="S:1"><p>The vote was seven to two, and the mayor signed the budget the same evening in the town hall.</p></div>
<script>$RS("S:1","P:1")</script>
<div hidden id="S:7"><p>A hidden block that nothing shows.</p></div>
</body></html>`
	text := mainText(t, body)
	checkText(t, text, []string{"The council met", "seven to two", "minutes of the meeting"}, []string{"Loading the story", "nothing shows"})
	if i, j := strings.Index(text, "The council met"), strings.Index(text, "seven to two"); i > j {
		t.Errorf("the segment is not in its place:\n%s", text)
	}
}

// A page of thousands of unclosed placeholders in one parent (hostile:
// each boundary's fallback is found by walking its later siblings) costs
// a bounded number of steps, and past maxStreamSlots a placeholder is
// left as it is: its hidden block stays hidden.
func TestStreamedBoundariesBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<html><body><main><p>` + ruleProse + `</p>`)
	n := 4 * maxStreamSlots
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `<!--$?--><template id="B:%d"></template><span>wait %d</span>`, i, i)
	}
	b.WriteString(`</main>`)
	fmt.Fprintf(&b, `<div hidden id="S:0"><p>The first block arrives and takes its place.</p></div>`)
	fmt.Fprintf(&b, `<div hidden id="S:%d"><p>A block past the bound stays hidden.</p></div>`, n-1)
	b.WriteString(`</body></html>`)
	root, err := html.Parse(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	sc := walkPage(root, nil, false)
	if sc.fallbackSteps > maxFallbackSteps {
		t.Errorf("fallback looked at %d siblings, want at most %d", sc.fallbackSteps, maxFallbackSteps)
	}
	if len(sc.streamed) != 1 {
		t.Errorf("%d hidden blocks taken, want 1 (the other's placeholder is past the bound)", len(sc.streamed))
	}
	text := nodeText(root)
	if !strings.Contains(text, "takes its place") || strings.Contains(text, "past the bound") {
		t.Errorf("want the first block shown and the last one hidden:\n%.300s", text)
	}
}

// TestLeadJoinedOnce: a lead named as such ("article-intro") that sits
// beside the article's block and joins it as a sibling is not copied a
// second time as the lead found outside the block.
func TestLeadJoinedOnce(t *testing.T) {
	intro := "Not every corner of a house gets full sun, but plenty of plants thrive in the shade of a hallway."
	body := `<html><head><title>Plants for the shade</title></head><body>
<nav><ul><li><a href="/">Home</a></li><li><a href="/garden">Garden</a></li></ul></nav>
<div class="list-sc"><div class="article-intro"><p>` + intro + `</p><p>Here are the plants to try.</p></div>
<div class="list-items">` + strings.Repeat("<p>"+strings.Repeat(ruleProse, 3)+"</p>", 4) + `</div></div>
<footer><p>Copyright 2025 The Garden</p></footer></body></html>`
	text := mainText(t, body)
	checkText(t, text, []string{intro, "The council met"}, nil)
	if n := strings.Count(text, intro); n != 1 {
		t.Errorf("the lead is in the text %d times, want once:\n%s", n, text)
	}
}
