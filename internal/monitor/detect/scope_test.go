package detect

import (
	"strings"
	"testing"
)

// TestKeywordBlocksInClassWordedArticle: the article's body sits in a
// wrapper whose class has a boilerplate word ("article-and-aside"), and
// the page's menus, sidebar and footer hold more text than the article,
// so the word is not overruled for the page. The main-content region
// keeps the body all the same; the keyword scope watches its keyword
// paragraphs too, so removing one alerts. A share bar inside the article
// that the main-content region leaves out stays out of the scope.
func TestKeywordBlocksInClassWordedArticle(t *testing.T) {
	var chrome strings.Builder
	for i := range 12 {
		chrome.WriteString(`<li><a href="/section/` + string(rune('a'+i)) + `">Section of the site number ` + string(rune('a'+i)) + ` with its many stories and reports</a></li>`)
	}
	page := func(second, share string) string {
		return `<html><body><header><nav><ul>` + chrome.String() + `</ul></nav></header>
<main><div class="headline"><h1>A new vaccine against malaria passes its last trial</h1><p>By our health correspondent</p></div>
<div class="article-and-aside"><div class="article-body">
<p>Researchers reported on Tuesday that the vaccine prevented three quarters of infections among children in four countries over two seasons of transmission.</p>
` + second + `
<p>Health ministries in the region said they would decide on a national roll-out after the regulator publishes its review early next year.</p>
<p>The trial enrolled more than four thousand children between five months and three years old, and followed them for eighteen months.</p>
<div class="share-bar"><a href="https://social.example/share">` + share + `</a></div>
</div></div></main>
<aside><ul>` + chrome.String() + `</ul></aside>
<footer><p>` + strings.Repeat("About us, contact, advertising, terms of use, privacy policy and cookie settings of the newspaper. ", 8) + `</p></footer>
</body></html>`
	}
	second := `<p>The vaccine needs three doses and a booster a year later, which the authors call the main hurdle for clinics far from cities.</p>`
	base := page(second, "Share this vaccine story")
	first := anchor(t, base, "vaccine")
	if !strings.Contains(signalTexts(first.Fingerprint.Blocks), "three doses") {
		t.Fatalf("the article's keyword paragraphs are not watched: %q", signalTexts(first.Fingerprint.Blocks))
	}
	_, ch := check(t, page("", "Share this vaccine story"), first.Fingerprint)
	if !ch.Material || !removedText(ch.Signals, "three doses") {
		t.Errorf("a keyword paragraph removed from the article: material %v, signals %s", ch.Material, signalText(ch.Signals))
	}
	_, ch = check(t, page(second, "Share this vaccine story with a friend"), first.Fingerprint)
	if ch.Changed {
		t.Errorf("a changed share bar counted as a change: %s", signalText(ch.Signals))
	}
}
