package content

import (
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
)

// TestVariantCopies: a section a site builder writes once per screen
// size, each copy under its own class, is in the text once; a block the
// page repeats under one class (a promotion between stories) stays.
func TestVariantCopies(t *testing.T) {
	section := `<h2>How much does a remodel cost?</h2><p>` + strings.Repeat(ruleProse, 2) + `</p><p>Costs vary with the size of the kitchen, the finishes and the region.</p>`
	promo := `<div class="deal-box"><p>Stop overpaying for your phone plan: our deals expert finds the week's deepest discounts on internet, TV and mobile plans every Friday morning.</p><p>Sign up today.</p></div>`
	body := `<html><head><title>Remodel costs</title></head><body>
<nav><ul><li><a href="/">Home</a></li><li><a href="/blog">Blog</a></li></ul></nav>
<main><div class="post">
<div class="variant hide-mobile">` + section + `</div>
<div class="variant hide-desktop">` + section + `</div>
<p>` + strings.Repeat(ruleProse, 3) + `</p>` + promo + `<p>` + strings.Repeat(ruleProse, 2) + `</p>` + promo + `
</div></main>
<footer><p>Copyright 2025</p></footer></body></html>`
	text := mainText(t, body)
	if n := strings.Count(text, "Costs vary with the size"); n != 1 {
		t.Errorf("the section is in the text %d times, want once:\n%s", n, text)
	}
	if n := strings.Count(text, "Stop overpaying"); n != 2 {
		t.Errorf("the promotion is in the text %d times, want twice:\n%s", n, text)
	}
}

// TestVariantCopiesBounded: the walk is linear in the page: a hostile
// page of many copies, deep chains and long text stays fast.
func TestVariantCopiesBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("<body>")
	block := "<p>" + strings.Repeat("word ", 30) + "</p>"
	for i := 0; i < 50000; i++ {
		b.WriteString(`<div class="v` + string(rune('a'+i%2)) + `">` + strings.Repeat("<div>", 10) + block + strings.Repeat("</div>", 10) + "</div>")
	}
	b.WriteString(strings.Repeat("<div>", 500) + strings.Repeat(block, 2000) + strings.Repeat("</div>", 500))
	b.WriteString("</body>")
	root, err := html.Parse(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	dropVariantCopies(findBody(root))
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("dropVariantCopies took %v", d)
	}
	// Every copy is compared with the first: the 25,000 under its class
	// stay, the 25,000 under the other go; the deep chain's paragraphs
	// are not blocks the rule removes.
	if n := strings.Count(nodeText(root), strings.Repeat("word ", 30)); n != 25000+2000 {
		t.Errorf("%d copies left, want %d", n, 25000+2000)
	}
}
