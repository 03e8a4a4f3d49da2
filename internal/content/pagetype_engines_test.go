package content

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
)

// enginePost writes post i (1-based) of a thread in an engine's default
// markup: author member<i>, date "Jan <i>, 2024", text "Post<i>: …",
// and around it the engine's chrome (profile, counters, signature,
// controls) that the thread leaves out.
var enginePosts = map[string]func(i int) string{
	"xenforo": func(i int) string {
		quote := ""
		if i == 3 {
			quote = `<blockquote class="bbCodeBlock bbCodeBlock--expandable bbCodeBlock--quote"><div class="bbCodeBlock-title">member1 said:</div><div class="bbCodeBlock-content"><div class="bbCodeBlock-expandContent">QuotedText</div><div class="bbCodeBlock-expandLink"><a role="button">Click to expand...</a></div></div></blockquote>`
		}
		return fmt.Sprintf(`<article class="message message--post js-post" data-author="member%d" data-content="post-%d" id="js-post-%d"><div class="message-inner">
<div class="message-cell message-cell--user"><section class="message-user"><h4 class="message-name"><a class="username" href="/members/member%d.%d/">member%d</a></h4><h5 class="userTitle">Well-known member</h5><dl class="pairs"><dt>Joined</dt><dd>Sep 3, 2012</dd><dt>Messages</dt><dd>7%d</dd></dl></section></div>
<div class="message-cell message-cell--main"><header class="message-attribution"><ul class="message-attribution-main"><li><a href="/threads/t.1/post-%d"><time class="u-dt" datetime="2024-01-0%dT10:00:00+0000">Jan %d, 2024</time></a></li></ul><ul class="message-attribution-opposite"><li>#%d</li></ul></header>
<div class="message-content"><div class="message-userContent"><article class="message-body js-selectToQuote"><div class="bbWrapper">%sPost%d: %s</div></article></div>
<div class="message-lastEdit">Last edited: Jan 9, 2024</div><aside class="message-signature"><div class="bbWrapper">Signature%d</div></aside></div>
<footer class="message-footer"><div class="message-actionBar"><a>Report</a> <a>Like</a> <a>Reply</a></div></footer></div></div></article>`, i, 100+i, 100+i, i, i, i, i, 100+i, i, i, i, quote, i, engineWords, i)
	},
	"mybb": func(i int) string {
		return fmt.Sprintf(`<div class="post classic" style="" id="post_%d"><div class="post_author"><div class="author_information"><strong><span class="largetext"><a href="member.php?action=profile&amp;uid=%d">member%d</a></span></strong><br><span class="smalltext">Junior Member</span></div>
<div class="author_statistics">Posts: 7%d<br>Joined: Sep 2012</div></div>
<div class="post_content"><div class="post_head"><div class="float_right"><strong><a href="showthread.php?tid=1&amp;pid=%d#pid%d">#%d</a></strong></div><span class="post_date">Jan %d, 2024 <span class="post_edit" id="edited_by_%d"><span class="edited_post">(This post was last modified: Jan 9, 2024 by member%d.)</span></span></span></div>
<div class="post_body scaleimages" id="pid_%d">Post%d: %s</div><div class="signature scaleimages">Signature%d</div></div>
<div class="post_controls"><div class="postbit_buttons author_buttons float_left"><a href="#">Website</a> <a href="#">Find</a></div><div class="postbit_buttons post_management_buttons float_right"><a href="#">Quote</a></div></div></div>`, 100+i, i, i, i, 100+i, 100+i, i, i, 100+i, i, 100+i, i, engineWords, i)
	},
}

// engineWords is a post's text after its "Post<i>:" label.
const engineWords = "the lamp is brighter than the old one and the fan stays quiet in the small room, so I would buy it again."

// enginePage is a thread of four posts in the engine's markup, in a
// page with a header, a menu and a footer.
func enginePage(name string) string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><title>Which projector - Board</title></head><body>
<div id="header"><a href="/">Board index</a> <a href="/search">Search</a> <a href="/login">Login</a></div>
<h1>Which projector</h1><div class="pagination">Page 1 of 1</div><div id="posts">`)
	for i := 1; i <= 4; i++ {
		b.WriteString(enginePosts[name](i))
		b.WriteString("\n")
	}
	b.WriteString(`</div><div id="footer">Powered by the board</div></body></html>`)
	return b.String()
}

// TestEngineThreads: each engine's thread is every post in order, each
// its author, date and text, without the profile, counters, signature,
// edit notes and controls. It fails for an engine that engineThread
// does not read.
func TestEngineThreads(t *testing.T) {
	for name := range enginePosts {
		t.Run(name, func(t *testing.T) {
			root, err := html.Parse(strings.NewReader(enginePage(name)))
			if err != nil {
				t.Fatal(err)
			}
			k := engineThread(findBody(root))
			if k == nil {
				t.Fatal("no thread")
			}
			text := textOf(k)
			for i := 1; i <= 4; i++ {
				date := fmt.Sprintf("Jan %d, 2024", i)
				checkText(t, text, []string{fmt.Sprintf("member%d\n%s\n", i, date), fmt.Sprintf("Post%d: the lamp", i)}, nil)
			}
			checkText(t, text, nil, []string{"Signature", "Posts:", "Joined", "Registered", "Last edited", "Edited by", "last modified",
				"Click to expand", "Board index", "Powered by", "Reply With Quote", "\nQuote\n", "Flag", "Level 3", "本帖最后由", "x1z9q", "Re: Which"})
			if strings.Index(text, "Post1:") > strings.Index(text, "Post4:") {
				t.Errorf("posts out of order:\n%s", text)
			}
		})
	}
}

// TestEngineForumPages: a page of each kept engine's thread, through the
// whole pipeline, is typed forum and gives every post in order.
func TestEngineForumPages(t *testing.T) {
	for _, name := range []string{"xenforo", "mybb"} {
		text := forumText(t, enginePage(name))
		for i := 1; i <= 4; i++ {
			checkText(t, text, []string{fmt.Sprintf("member%d\nJan %d, 2024\n", i, i), fmt.Sprintf("Post%d: the lamp", i)}, []string{"Signature"})
		}
	}
}

// TestEngineNestedBounded: claimed blocks nested 400 deep without a
// text (hostile markup; the parser stops at 512), 100 times over, cost
// one pass, and the posts after them are still read.
func TestEngineNestedBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<html><body>`)
	for range 100 {
		b.WriteString(strings.Repeat(`<li class="message" data-author="x">x`, 400))
		b.WriteString(strings.Repeat(`</li>`, 400))
	}
	for i := 2; i <= 3; i++ {
		b.WriteString(enginePosts["xenforo"](i))
	}
	b.WriteString(`</body></html>`)
	root, err := html.Parse(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	var k *html.Node
	if d := spent(func() { k = engineThread(findBody(root)) }); d > 2*time.Second {
		t.Errorf("engineThread took %v of CPU", d)
	}
	if k == nil {
		t.Fatal("no thread")
	}
	checkText(t, textOf(k), []string{"member2", "Post2:", "member3", "Post3:"}, nil)
}
