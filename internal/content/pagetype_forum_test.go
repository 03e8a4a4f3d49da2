package content

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
)

// threadPage is a forum thread marked up with schema.org microdata: a
// first post whose text reads like an article (its text marked or not),
// then short replies, each with an author, a vote widget and a signature
// outside its text.
func threadPage(firstMarked bool) string {
	prop := ` itemprop="text"`
	if !firstMarked {
		prop = ""
	}
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><title>Which projector after the RS2?</title></head><body>
<header><nav><a href="/">Forums</a> <a href="/new">New posts</a></nav></header>
<main><h1>Which projector after the RS2?</h1>
<div class="thread" itemscope itemtype="https://schema.org/DiscussionForumPosting">
<article class="message"><div class="user" itemprop="author" itemscope itemtype="https://schema.org/Person"><a href="/u/joseph"><span itemprop="name">JosephF</span></a> <span>410 posts</span></div>
<div class="body"` + prop + `><p>I have a quite old projector in my basement theater that has been wonderful for me, but the time has come to look at a replacement that can handle 4K, and I would like to hear what owners recommend.</p>
<p>I mostly watch movies, car racing and other sports, and I am not much of a gamer, so input lag matters less to me than black levels and brightness.</p></div>
<div class="votes"><button>Like</button> <button>Share</button> 12 reactions</div></article>`)
	for i := 1; i <= 4; i++ {
		fmt.Fprintf(&b, `<article class="message" itemprop="comment" itemscope itemtype="https://schema.org/Comment">
<div class="user" itemprop="author" itemscope itemtype="https://schema.org/Person"><a href="/u/r%d"><span itemprop="name">Replier%d</span></a> <span>%d posts</span></div>
<div class="body" itemprop="text">Reply%d: I went from an older model to the newer one and the picture is brighter.</div>
<div class="votes"><button>Like</button> <button>Share</button> %d reactions</div><div class="signature">Signature%d: my setup</div></article>`, i, i, 100*i, i, i, i)
	}
	b.WriteString(`</div></main><aside><h3>Similar threads</h3><ul><li><a href="/t/1">Best budget projector</a></li></ul></aside>
<footer><a href="/help">Help</a></footer></body></html>`)
	return b.String()
}

// forumText converts page as a forum thread and returns its main text.
func forumText(t *testing.T, page string) string {
	t.Helper()
	doc, err := HTML([]byte(page), "https://forum.example/threads/which-projector.123/", Options{OnlyMainContent: true})
	if err != nil {
		t.Fatal(err)
	}
	if doc.PageType != TypeForum {
		t.Fatalf("page type %s, want forum", doc.PageType)
	}
	return doc.Text
}

func TestForumKeepsEveryPost(t *testing.T) {
	text := forumText(t, threadPage(true))
	for _, want := range []string{"JosephF", "time has come", "black levels"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	for i := 1; i <= 4; i++ {
		for _, want := range []string{fmt.Sprintf("Replier%d", i), fmt.Sprintf("Reply%d:", i)} {
			if !strings.Contains(text, want) {
				t.Errorf("text lacks %q:\n%s", want, text)
			}
		}
	}
	for _, bad := range []string{"reactions", "Signature", "posts", "Similar threads", "Help"} {
		if strings.Contains(text, bad) {
			t.Errorf("text kept %q:\n%s", bad, text)
		}
	}
}

// TestForumFirstPostUnmarked: when only the replies are marked up and
// the readability article is the first post, it goes before them.
func TestForumFirstPostUnmarked(t *testing.T) {
	root, err := html.Parse(strings.NewReader(threadPage(false)))
	if err != nil {
		t.Fatal(err)
	}
	body := findBody(root)
	art := findClass(body, "body")
	k := forumContent(root, body, cloneTree(art))
	if k == nil {
		t.Fatal("no thread")
	}
	text := textOf(k)
	first := strings.Index(text, "time has come")
	reply := strings.Index(text, "Reply1:")
	if first < 0 || reply < 0 || first > reply {
		t.Errorf("want the first post, then the replies:\n%s", text)
	}
}

// findClass returns the first element under n of class c.
func findClass(n *html.Node, c string) *html.Node {
	for k := n.FirstChild; k != nil; k = k.NextSibling {
		if k.Type == html.ElementNode && attr(k, "class") == c {
			return k
		}
		if f := findClass(k, c); f != nil {
			return f
		}
	}
	return nil
}

// ldThreadPage is a thread whose posts only JSON-LD describes: the page
// shows each post beside a long author card, with no microdata.
func ldThreadPage() string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><title>Routes between devices</title>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"DiscussionForumPosting","headline":"Routes between devices",
"author":{"@type":"Person","name":"luizjr4"},"text":"I have many routes saved on my laptop.\nCan I open them in the app on my phone?",
"comment":[`)
	for i := 1; i <= 3; i++ {
		if i > 1 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"@type":"Comment","author":{"@type":"Person","name":"Helper%d"},"text":"Answer%d: save them as favorites and they show on every device."}`, i, i)
	}
	b.WriteString(`]}</script></head><body><nav><a href="/">Community</a> <a href="/latest">Latest</a></nav><main><h1>Routes between devices</h1>`)
	fmt.Fprintf(&b, `<div class="entry"><div class="card">Rank Platinum Partner, 25.8k posts, 4.6k solutions, 14 badges, 40.8k reputation, member since 2012</div>
<div class="words"><p>I have many routes saved on my laptop.</p><p>Can I open them in the app on my phone?</p></div><div class="tools">Quote Reply Report Share</div></div>`)
	for i := 1; i <= 3; i++ {
		fmt.Fprintf(&b, `<div class="entry"><div class="card">Rank Platinum Partner, 25.8k posts, 4.6k solutions, 14 badges, 40.8k reputation, member since 2012, %d followers</div>
<div class="words">Answer%d: save them as favorites and they show on every device.</div><div class="tools">Quote Reply Report Share</div></div>`, i, i)
	}
	b.WriteString(`</main><footer><a href="/help">Help</a></footer></body></html>`)
	return b.String()
}

func TestForumFromJSONLD(t *testing.T) {
	text := forumText(t, ldThreadPage())
	for _, want := range []string{"luizjr4", "routes saved on my laptop", "Helper1", "Answer1:", "Helper3", "Answer3:"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	// The readability article (the entries with their cards) holds the
	// thread's place on the page: it does not go before the thread.
	if strings.Contains(text, "reputation") {
		t.Errorf("text kept the author cards:\n%s", text)
	}
}

// replyThread is a thread whose replies carry Comment microdata while
// the first post, shown above them without markup, is described in
// JSON-LD only (XenForo's markup). When shown is false the page is the
// thread's second page: the JSON-LD still describes the first post, but
// the page does not show it.
func replyThread(shown bool) string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><title>Which projector after the RS2?</title>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"DiscussionForumPosting","headline":"Which projector after the RS2?",
"mainEntity":{"@type":"DiscussionForumPosting","author":{"@type":"Person","name":"JosephF"},
"text":"My old projector has been wonderful for years, but the time has come to look at a replacement that can handle 4K.\n\nI mostly watch movies and car racing."}}</script>
</head><body><main><h1>Which projector after the RS2?</h1>`)
	if shown {
		b.WriteString(`<article class="message"><div class="user">JosephF</div><div class="words">My old projector has been wonderful for years, but the time has come to look at a replacement that can handle 4K.<br><br>I mostly watch movies and car racing.</div></article>`)
	}
	b.WriteString(`<article class="message" itemscope itemtype="https://schema.org/Comment"><div class="user" itemprop="author" itemscope itemtype="https://schema.org/Person"><span itemprop="name">Replier1</span></div>
<div itemprop="text">Reply1: the newer model has a much brighter picture and deeper blacks in a dark room.</div></article>
<article class="message" itemscope itemtype="https://schema.org/Comment"><div class="user" itemprop="author" itemscope itemtype="https://schema.org/Person"><span itemprop="name">Replier2</span></div>
<div itemprop="text">Reply2: agreed, mine replaced a bulb model last spring.</div></article>
</main></body></html>`)
	return b.String()
}

// forumOf returns the text of the forum profile's thread of page, with
// no readability article beside it.
func forumOf(t *testing.T, page string) string {
	t.Helper()
	root, err := html.Parse(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	k := forumContent(root, findBody(root), nil)
	if k == nil {
		t.Fatal("no thread")
	}
	return textOf(k)
}

// TestForumFirstPostFromJSONLD: the post the JSON-LD describes and the
// microdata leaves out goes first when the page shows it, and not when
// it does not.
func TestForumFirstPostFromJSONLD(t *testing.T) {
	text := forumOf(t, replyThread(true))
	first := strings.Index(text, "the time has come")
	reply := strings.Index(text, "Reply1:")
	if first < 0 || reply < 0 || first > reply || !strings.Contains(text, "JosephF") {
		t.Errorf("want the first post with its author, then the replies:\n%s", text)
	}
	if text := forumOf(t, replyThread(false)); strings.Contains(text, "time has come") {
		t.Errorf("the first post of another page was added:\n%s", text)
	}
}

// TestForumSkipsCommentsOnAnswers: on a Q&A page the comments under the
// question and each answer (Comment items inside them) are not posts,
// while the replies of a discussion (Comment items of a
// DiscussionForumPosting) are.
func TestForumSkipsCommentsOnAnswers(t *testing.T) {
	page := `<!doctype html><html><head><title>Why is RAID not a backup?</title></head><body>
<div itemprop="mainEntity" itemscope itemtype="https://schema.org/Question"><h1 itemprop="name">Why is RAID not a backup?</h1>
<div itemprop="text"><p>Question: my disks are mirrored, so why do people say I still need a backup?</p></div>
<ul><li itemprop="comment" itemscope itemtype="https://schema.org/Comment"><span itemprop="text">Note1: this is off topic here.</span> <span itemprop="author" itemscope itemtype="https://schema.org/Person"><span itemprop="name">Commenter1</span></span></li></ul>
<div itemprop="acceptedAnswer" itemscope itemtype="https://schema.org/Answer"><div itemprop="text"><p>Answer1: a mirror copies a deleted or corrupted file to both disks at once.</p></div>
<ul><li itemprop="comment" itemscope itemtype="https://schema.org/Comment"><span itemprop="text">Note2: will a backup refuse to copy a corrupt file?</span></li></ul></div>
<div itemprop="suggestedAnswer" itemscope itemtype="https://schema.org/Answer"><div itemprop="text"><p>Answer2: RAID guards against a failed disk, not against mistakes.</p></div></div>
</div></body></html>`
	text := forumOf(t, page)
	for _, want := range []string{"Question: my disks", "Answer1:", "Answer2:"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	for _, bad := range []string{"Note1", "Note2", "Commenter1"} {
		if strings.Contains(text, bad) {
			t.Errorf("text kept the comment %q:\n%s", bad, text)
		}
	}
	// A discussion's replies are Comment items of the first post.
	disc := strings.NewReplacer("schema.org/Question", "schema.org/DiscussionForumPosting", `itemprop="acceptedAnswer" itemscope itemtype="https://schema.org/Answer"`, `itemprop="comment" itemscope itemtype="https://schema.org/Comment"`,
		`itemprop="suggestedAnswer" itemscope itemtype="https://schema.org/Answer"`, `itemprop="comment" itemscope itemtype="https://schema.org/Comment"`).Replace(page)
	text = forumOf(t, disc)
	for _, want := range []string{"Question: my disks", "Note1", "Answer1:", "Answer2:"} {
		if !strings.Contains(text, want) {
			t.Errorf("discussion: text lacks %q:\n%s", want, text)
		}
	}
}

// TestForumFirstPostBounded: 20,000 marked posts and 20,000 JSON-LD
// posts, half of them shown without markup, take a few linear walks.
func TestForumFirstPostBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<html><head><script type="application/ld+json">[`)
	for i := 0; i < 20000; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"@type":"DiscussionForumPosting","text":"opening post number %d of the thread"}`, i)
	}
	b.WriteString(`]</script></head><body>`)
	for i := 0; i < 20000; i++ {
		if i%2 == 0 {
			fmt.Fprintf(&b, `<div>opening post number %d of the thread</div>`, i)
		}
		fmt.Fprintf(&b, `<div itemscope itemtype="https://schema.org/Comment"><div itemprop="text">reply number %d says hello there</div></div>`, i)
	}
	b.WriteString(`</body></html>`)
	root, err := html.Parse(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	var k *html.Node
	if d := spent(func() { k = forumContent(root, findBody(root), nil) }); d > 10*time.Second {
		t.Errorf("forumContent took %v of CPU", d)
	}
	if k == nil {
		t.Fatal("no thread")
	}
	text := textOf(k)
	if !strings.Contains(text, "opening post number 8 of") || strings.Contains(text, "opening post number 7 of") {
		t.Errorf("want the shown JSON-LD posts only:\n%.300s", text)
	}
}

// phpbbPage is a phpBB thread in the prosilver style, without schema.org
// markup: each post a <div id="p…" class="post">, its author in the
// profile column with the post count and join date, its date in the
// author line, its text in div.content (a code box, a quote), the
// signature below. old writes phpBB 3.0's author line ("by <name> »
// <date>", the name a plain profile link).
func phpbbPage(old bool) string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><title>Turning off all LEDs - Board</title></head><body>
<div id="wrap"><div class="headerbar"><a href="./index.php">Board index</a> <a href="./faq.php">FAQ</a> <a href="./ucp.php?mode=login">Login</a></div>
<div id="page-body"><h2 class="topic-title"><a href="./viewtopic.php?t=1">Turning off all LEDs</a></h2>
<div class="pagination">4 posts &bull; Page 1 of 1</div>`)
	for i := 1; i <= 4; i++ {
		user := fmt.Sprintf(`<a href="./memberlist.php?mode=viewprofile&amp;u=%d" class="username">member%d</a>`, i, i)
		author := fmt.Sprintf(`<a href="./viewtopic.php?p=%d#p%d">Wed Dec 27, 2023 10:0%d am</a>`, 100+i, 100+i, i)
		if old {
			user = fmt.Sprintf(`<a href="./memberlist.php?mode=viewprofile&amp;u=%d">member%d</a>`, i, i)
			author = fmt.Sprintf(`<a href="./viewtopic.php?p=%d#p%d"><img src="icon_post_target.gif" alt="Post"></a>by <strong>%s</strong> &raquo; Wed Dec 27, 2023 10:0%d am`, 100+i, 100+i, user, i)
		}
		quote := ""
		if i == 3 {
			quote = `<blockquote><div><cite><a href="./memberlist.php?mode=viewprofile&amp;u=1">member1</a> wrote: <a href="./viewtopic.php?p=101#p101" data-post-id="101">↑</a><span class="responsive-hide">Wed Dec 27, 2023 10:01 am</span></cite>QuotedText from the first post</div></blockquote>`
		}
		fmt.Fprintf(&b, `<div id="p%d" class="post has-profile bg%d"><div class="inner">
<dl class="postprofile"><dt>%s</dt><dd class="profile-posts"><strong>Posts:</strong> 91%d</dd><dd class="profile-joined"><strong>Joined:</strong> Sun Dec 28, 2014 3:02 pm</dd></dl>
<div class="postbody"><div id="post_content%d"><h3><a href="#p%d">Re: Turning off all LEDs</a></h3>
<p class="author">%s</p>
<div class="content">%sPost%d: the power and activity lights can be turned off from the config file of the firmware, and the network lights need another setting on the newer board.<br>
<div class="codebox"><p>Code: <a href="#">Select all</a></p><pre><code>dtparam=act_led_trigger=none</code></pre></div></div>
<div id="sig%d" class="signature">Signature%d: my setup</div></div></div></div></div>
<hr class="divider">`, 100+i, i%2+1, user, i, 100+i, 100+i, author, quote, i, 100+i, i)
	}
	b.WriteString(`</div><div class="copyright">Powered by phpBB</div></div></body></html>`)
	return b.String()
}

// TestForumPhpBB: a phpBB thread is every post in order, each its
// author, date and text, without the profile column, the "Re:" heading,
// the signature, the code box's "Select all" and a quote's date; in
// 3.0's author line as in 3.3's.
func TestForumPhpBB(t *testing.T) {
	for _, old := range []bool{false, true} {
		text := forumText(t, phpbbPage(old))
		for i := 1; i <= 4; i++ {
			checkText(t, text, []string{fmt.Sprintf("member%d\nWed Dec 27, 2023 10:0%d am\n", i, i), fmt.Sprintf("Post%d:", i)}, nil)
		}
		checkText(t, text, []string{"dtparam=act_led_trigger=none", "member1 wrote:", "QuotedText"},
			[]string{"Posts:", "Joined:", "Re: Turning", "Signature", "Select all", "↑", "by member", "Board index"})
		if strings.Index(text, "Post1:") > strings.Index(text, "Post4:") {
			t.Errorf("old=%v: posts out of order:\n%s", old, text)
		}
	}
}

// TestPhpbbNestedBounded: post-like blocks nested 400 deep without a
// postbody (hostile markup; the parser stops at 512), 100 times over,
// cost one pass, not one per level, and the posts after them are still
// read.
func TestPhpbbNestedBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<html><body>`)
	for range 100 {
		b.WriteString(strings.Repeat(`<div id="p1" class="post">x`, 400))
		b.WriteString(strings.Repeat(`</div>`, 400))
	}
	for i := 2; i <= 3; i++ {
		fmt.Fprintf(&b, `<div id="p%d" class="post"><div class="postbody"><p class="author">date%d</p><div class="content">text%d</div></div></div>`, i, i, i)
	}
	b.WriteString(`</body></html>`)
	root, err := html.Parse(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	var k *html.Node
	if d := spent(func() { k = phpbbThread(findBody(root)) }); d > 2*time.Second {
		t.Errorf("phpbbThread took %v of CPU", d)
	}
	if k == nil {
		t.Fatal("no thread")
	}
	checkText(t, textOf(k), []string{"date2", "text2", "date3", "text3"}, nil)
}

// crawlerShell is a script shell of forum software (Discourse) as the
// HTTP tier fetches it: a theme's header with the site's name, an empty
// mount point, and the thread in a <noscript> view for clients without
// scripts, each post marked DiscussionForumPosting or Comment. rendered
// puts the thread in the mount point as well, as the browser tier sees
// it.
func crawlerShell(rendered bool) string {
	return crawlerShellWith(rendered, `<div class="preloader-image"></div>`, true)
}

// crawlerShellWith is crawlerShell with splash inside the loading screen
// (Discourse's section#d-splash: an image, or a "Loading" line) and the
// theme's header beside the <noscript> or not.
func crawlerShellWith(rendered bool, splash string, header bool) string {
	var posts strings.Builder
	for i := 1; i <= 3; i++ {
		kind, prop := "DiscussionForumPosting", ""
		if i > 1 {
			kind, prop = "Comment", ` itemprop='comment'`
		}
		fmt.Fprintf(&posts, `<div id='post_%d'%s itemscope itemtype='http://schema.org/%s' class='topic-body crawler-post'>
<div class='crawler-post-meta'><span class="creator" itemprop="author" itemscope itemtype="http://schema.org/Person"><a itemprop="url" href='/u/user%d'><span itemprop='name'>user%d</span></a></span>
<time itemprop='datePublished' datetime='2024-11-08T20:42:42Z'>November 8, 2024, 8:42pm</time></div>
<div class='post' itemprop='text'><p>Post%d: the resolver in the container points at the host's stub address, which is not reachable from the container's own network namespace, so name lookups fail until a user-defined network is used.</p></div>
</div>`, i, prop, kind, i, i, i)
	}
	thread := `<div id="main-outlet" class="wrap" role="main"><div id="topic-title"><h1><a href="/t/resolver/1">Confusing resolver structure</a></h1></div>` +
		posts.String() + `</div>`
	main := ""
	if rendered {
		main = thread
	}
	themeHeader := ""
	if header {
		themeHeader = `<header class="header"><nav><a href="/">Community Forums</a> <a href="/docs">Docs</a> <a href="/get">Get the app</a></nav>
<div class="hero-text"><h1>Community Forums</h1><p>Share and learn in the community.</p></div></header>`
	}
	return `<!doctype html><html><head><title>Confusing resolver structure - Community Forums</title>
<meta name="generator" content="Discourse 2026.2.0-latest"></head><body>
<section id="d-splash">` + splash + `</section>
<noscript data-path="/t/resolver/1"><header><a href="/">Community Forums</a></header>` + thread + `</noscript>
` + themeHeader + `
<section id='main'>` + main + `</section>
<form id='hidden-login-form' method="post" action="/login" style="display: none;"><input name="username"></form>
</body></html>`
}

// TestForumCrawlerView: a script shell's <noscript> view of a thread is
// read when the page's own header stands beside it (Discourse under a
// theme's custom header), every post once; when the thread is rendered
// beside it (the browser tier), the <noscript> copy stays out.
func TestForumCrawlerView(t *testing.T) {
	text := forumText(t, crawlerShell(false))
	checkText(t, text, []string{"Post1:", "Post2:", "Post3:", "user2"}, []string{"Share and learn"})
	for i := 1; i <= 3; i++ {
		if n := strings.Count(text, fmt.Sprintf("Post%d:", i)); n != 1 {
			t.Errorf("Post%d: %d times, want 1:\n%s", i, n, text)
		}
	}
	text = forumText(t, crawlerShell(true))
	for i := 1; i <= 3; i++ {
		if n := strings.Count(text, fmt.Sprintf("Post%d:", i)); n != 1 {
			t.Errorf("rendered: Post%d: %d times, want 1:\n%s", i, n, text)
		}
	}
}

// TestNoscriptBesideChrome: beside the page's header, a <noscript> of
// prose that is not a marked thread stays out (the header is no reason
// to read a "please enable JavaScript" notice or a second copy).
func TestNoscriptBesideChrome(t *testing.T) {
	page := `<html><head><title>Budget approved</title></head><body>
<header><a href="/">The Daily</a> <span>News of the valley since 1901</span></header>
<noscript><p>` + strings.Repeat("Please enable JavaScript in your browser to read the news of the valley. ", 4) + `</p></noscript>
<div id="main"><article><h1>Budget approved</h1><p>` + strings.Repeat(ruleProse, 3) + `</p></article></div></body></html>`
	checkText(t, mainText(t, page), []string{"The council met"}, []string{"enable JavaScript"})
}

// TestForumCrawlerViewBesideSplash: the <noscript> view of a thread is
// read beside the shell's loading screen, whose only text is a short
// line ("Loading"), with or without a theme's header; a rendered thread
// beside it still keeps the <noscript> copy out, and a sibling with more
// than a line of text (a rendered page's own content) keeps it out too.
func TestForumCrawlerViewBesideSplash(t *testing.T) {
	splash := `<div class="preloader-text-wrapper"><div class="preloader-text">Loading</div></div>`
	for _, header := range []bool{false, true} {
		text := forumText(t, crawlerShellWith(false, splash, header))
		for i := 1; i <= 3; i++ {
			if n := strings.Count(text, fmt.Sprintf("Post%d:", i)); n != 1 {
				t.Errorf("header %v: Post%d: %d times, want 1:\n%s", header, i, n, text)
			}
		}
		text = forumText(t, crawlerShellWith(true, splash, header))
		for i := 1; i <= 3; i++ {
			if n := strings.Count(text, fmt.Sprintf("Post%d:", i)); n != 1 {
				t.Errorf("header %v, rendered: Post%d: %d times, want 1:\n%s", header, i, n, text)
			}
		}
	}
	long := `<div class="intro">` + strings.Repeat("Welcome to the community forums of the project. ", 3) + `</div>`
	text := forumText(t, crawlerShellWith(false, long, false))
	if strings.Contains(text, "Post1:") {
		t.Errorf("beside a sibling of prose the <noscript> view was read:\n%s", text)
	}
}
