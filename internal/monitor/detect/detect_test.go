package detect

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

const pageURL = "https://ir.example.com/investors/press/"

// release is one press release of the test IR page.
type release struct {
	title, date, pdf string
	views            int
}

// irPage holds the parts of a generated investor-relations page that
// tests vary.
type irPage struct {
	navExtra    string
	footerYear  int
	updated     string // "Updated …" line in the list header
	releases    []release
	wrapList    bool   // wrap the list in two extra divs
	listClass   string // class of the <ul>
	listFirst   bool   // put the list before the intro section
	dropList    bool   // remove the list
	replaceList string // HTML in place of the list
	replaceMain string // HTML in place of the main content
	aside       string
	table       [][]string // financial table rows in the main content
	token       string     // CSRF token in a link of the list header
}

func defaultReleases() []release {
	return []release{
		{"Acme reports third quarter 2026 earnings", "Oct 28, 2026", "/files/q3-2026-earnings.pdf", 1234},
		{"Acme declares quarterly dividend of $0.25 per share", "Sep 15, 2026", "/files/dividend-sep-2026.pdf", 310},
		{"Acme to present at investor conference", "Aug 3, 2026", "/news/conference-2026", 87},
		{"Acme reports second quarter 2026 earnings", "Jul 29, 2026", "/files/q2-2026-earnings.pdf", 2045},
	}
}

func newIRPage() *irPage {
	return &irPage{
		footerYear: 2026,
		updated:    "Updated Nov 23, 2026 10:42 AM",
		releases:   defaultReleases(),
		listClass:  "press-list",
		aside:      "Trending: Acme stock hits record high",
		token:      "9f86d081884c7d659a2feaa0c55ad015",
	}
}

func (p *irPage) html() string {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html><head><title>Press releases | Acme Corp</title>
<script>var t = Date.now();</script><style>.x{color:red}</style></head><body>
<header class="site-header"><a href="/">Acme</a><nav class="main-nav"><ul>
<li><a href="/investors/">Investors</a></li><li><a href="/investors/press/">Press releases</a></li>
<li><a href="/investors/events/">Events</a></li>` + p.navExtra + `</ul></nav></header>
<main id="content">`)
	intro := `<section class="intro"><h1>Press releases</h1><p>Read the latest news and announcements from Acme Corp, a maker of fine widgets since 1952, including earnings results and dividends.</p></section>`
	list := p.list()
	if p.dropList {
		list = ""
	}
	if p.replaceList != "" {
		list = p.replaceList
	}
	switch {
	case p.replaceMain != "":
		b.WriteString(p.replaceMain)
	case p.listFirst:
		b.WriteString(list + intro)
	default:
		b.WriteString(intro + list)
	}
	if len(p.table) > 0 && p.replaceMain == "" {
		b.WriteString(`<table class="fin"><thead><tr><th>Metric</th><th>Q3 2026</th><th>Q3 2025</th></tr></thead><tbody>`)
		for _, row := range p.table {
			b.WriteString("<tr>")
			for _, c := range row {
				b.WriteString("<td>" + c + "</td>")
			}
			b.WriteString("</tr>")
		}
		b.WriteString("</tbody></table>")
	}
	b.WriteString(`</main><aside class="sidebar"><p>` + p.aside + `</p></aside>
<footer><p>© ` + fmt.Sprint(p.footerYear) + ` Acme Corp. All rights reserved. <a href="/privacy">Privacy</a></p></footer>
</body></html>`)
	return b.String()
}

func (p *irPage) list() string {
	var b strings.Builder
	if p.wrapList {
		b.WriteString(`<div class="outer-wrap"><div class="inner-wrap">`)
	}
	b.WriteString(`<div class="news"><p class="updated">` + p.updated + ` · <a href="/investors/press/?csrf=` + p.token + `&amp;page=2">More</a></p>`)
	b.WriteString(`<ul class="` + p.listClass + `">`)
	for _, r := range p.releases {
		fmt.Fprintf(&b, `<li class="item"><a href="%s?utm_source=site&amp;sid=%s">%s</a> <span class="date">%s</span> <span class="views">%d views</span></li>`,
			r.pdf, p.token, r.title, r.date, r.views)
	}
	b.WriteString(`</ul></div>`)
	if p.wrapList {
		b.WriteString(`</div></div>`)
	}
	return b.String()
}

func parse(t testing.TB, s string) *html.Node {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func anchor(t testing.TB, s string, keywords ...string) *Region {
	t.Helper()
	r, err := Anchor(parse(t, s), pageURL, keywords)
	if err != nil {
		t.Fatalf("Anchor: %v", err)
	}
	return r
}

func relocate(t testing.TB, s string, prev *Fingerprint) *Region {
	t.Helper()
	r, err := Relocate(parse(t, s), pageURL, prev)
	if err != nil {
		t.Fatalf("Relocate: %v", err)
	}
	return r
}

// TestAnchorAroundKeywords: with keywords, every block of the content
// that mentions one is watched with its container (the press list, and
// the intro section whose paragraph mentions earnings too), not only the
// container with the most matches; navigation, asides and the footer
// are not.
func TestAnchorAroundKeywords(t *testing.T) {
	r := anchor(t, newIRPage().html(), "Earnings")
	fp := r.Fingerprint
	if fp.Scope != ScopeKeywords || fp.Path != "html>body>main" {
		t.Errorf("region = %s %s (scope %q), want every keyword block under main", fp.Path, fp.Tag, fp.Scope)
	}
	if got, want := len(fp.Blocks), 2+len(defaultReleases()); got != want {
		t.Errorf("got %d blocks, want %d (intro heading and paragraph, the releases): %+v", got, want, fp.Blocks)
	}
	for _, b := range fp.Blocks {
		if strings.Contains(b.Text, "Investors") || strings.Contains(b.Text, "Trending") || strings.Contains(b.Text, "rights reserved") {
			t.Errorf("block %q lies outside the list", b.Text)
		}
	}
	if fp.Keywords[0] != "earnings" {
		t.Errorf("keywords = %v, want lower-cased", fp.Keywords)
	}
	if !strings.Contains(r.Markdown, "third quarter 2026 earnings") || !strings.Contains(r.Markdown, "including earnings results") ||
		strings.Contains(r.Markdown, "Trending") {
		t.Errorf("markdown does not hold the list alone:\n%s", r.Markdown)
	}
	if r.Score != 100 || r.Root() == nil || len(fp.Hash) != 64 {
		t.Errorf("score %v, root %v, hash %q", r.Score, r.Root(), fp.Hash)
	}
	t.Logf("%s %v\n%s", fp.Path, fp.Classes, r.Markdown)
}

func TestAnchorErrors(t *testing.T) {
	_, err := Anchor(parse(t, newIRPage().html()), pageURL, []string{"merger"})
	if err != ErrKeywordsNotFound {
		t.Errorf("keywords nowhere: got %v, want ErrKeywordsNotFound", err)
	}
	if _, err := Relocate(parse(t, newIRPage().html()), pageURL, nil); err != ErrNoFingerprint {
		t.Errorf("nil fingerprint: got %v", err)
	}
	if _, err := Relocate(&html.Node{Type: html.DocumentNode}, pageURL, &Fingerprint{}); err != ErrNoBody {
		t.Errorf("no body: got %v", err)
	}
}

func TestAnchorWithoutKeywordsTakesMainContent(t *testing.T) {
	p := newIRPage()
	p.table = [][]string{{"Revenue", "$1.2 billion", "$1.1 billion"}, {"EPS", "0.45", "0.41"}}
	r := anchor(t, p.html())
	var all []string
	for _, b := range r.Fingerprint.Blocks {
		all = append(all, b.Text)
	}
	text := strings.Join(all, "\n")
	for _, want := range []string{"third quarter 2026 earnings", "Revenue | $1.2 billion"} {
		if !strings.Contains(text, want) {
			t.Errorf("main content lacks %q:\n%s", want, text)
		}
	}
	for _, not := range []string{"Trending", "rights reserved", "Events"} {
		if strings.Contains(text, not) {
			t.Errorf("main content holds boilerplate %q:\n%s", not, text)
		}
	}
}

// TestUnchangedAndVolatile checks that an identical page, and one whose
// dates, times, counters, tokens, aside, footer and navigation changed,
// relocate with a high score and are not a change.
func TestUnchangedAndVolatile(t *testing.T) {
	for _, keywords := range [][]string{nil, {"earnings"}} {
		base := newIRPage()
		r := anchor(t, base.html(), keywords...)

		same := relocate(t, base.html(), r.Fingerprint)
		if ch := Compare(r.Fingerprint, same.Fingerprint, keywords); ch.Changed || same.Score < 95 {
			t.Errorf("keywords %v: same page: changed %v, score %.1f", keywords, ch.Changed, same.Score)
		}
		if same.Fingerprint.Hash != r.Fingerprint.Hash {
			t.Errorf("keywords %v: same page, different hash", keywords)
		}

		v := newIRPage()
		v.updated = "Updated 3 hours ago"
		v.token = "c0ffee11223344556677889900aabbccddeeff01"
		v.aside = "Trending: Acme opens a new plant in Ohio"
		v.footerYear = 2027
		v.navExtra = `<li><a href="/investors/esg/">ESG</a></li>`
		for i := range v.releases {
			v.releases[i].views += 17 * (i + 1)
		}
		v.releases[0].date = "2026-10-28"
		v.releases[1].date = "15/09/2026"
		got := relocate(t, v.html(), r.Fingerprint)
		ch := Compare(r.Fingerprint, got.Fingerprint, keywords)
		if ch.Changed || ch.Material || got.Score < 90 {
			t.Errorf("keywords %v: volatile change: changed %v material %v score %.1f signals %s",
				keywords, ch.Changed, ch.Material, got.Score, signalText(ch.Signals))
		}
		if got.Fingerprint.Hash != r.Fingerprint.Hash {
			t.Errorf("keywords %v: volatile change altered the hash", keywords)
		}
	}
}

// TestBoilerplateChangeWithKeywordsIsNotMaterial changes the intro
// paragraph (in the main content but outside the list) and a footer
// date: outside the region with keywords.
func TestBoilerplateChangeWithKeywordsIsNotMaterial(t *testing.T) {
	base := newIRPage()
	r := anchor(t, base.html(), "earnings")
	v := newIRPage()
	v.footerYear = 2027
	v.navExtra = `<li><a href="/earnings-archive/">Earnings archive</a></li>`
	got := relocate(t, v.html(), r.Fingerprint)
	if ch := Compare(r.Fingerprint, got.Fingerprint, []string{"earnings"}); ch.Material {
		t.Errorf("navigation change is material: %s", signalText(ch.Signals))
	}
}

func TestSuppressedWithoutKeyword(t *testing.T) {
	base := newIRPage()
	r := anchor(t, base.html(), "earnings")
	v := newIRPage()
	v.releases = append([]release{{"Acme to present at widget fair", "Nov 24, 2026", "/news/fair", 0}}, v.releases...)
	got := relocate(t, v.html(), r.Fingerprint)
	ch := Compare(r.Fingerprint, got.Fingerprint, []string{"earnings"})
	if !ch.Changed || ch.Material || !ch.Suppressed {
		t.Errorf("new item without keyword: changed %v material %v suppressed %v", ch.Changed, ch.Material, ch.Suppressed)
	}
	if ch := Compare(r.Fingerprint, got.Fingerprint, nil); !ch.Material || ch.Suppressed {
		t.Errorf("new item without keywords set: material %v suppressed %v", ch.Material, ch.Suppressed)
	}
}

func TestNewPressReleaseIsMaterial(t *testing.T) {
	for _, keywords := range [][]string{nil, {"Earnings"}} {
		base := newIRPage()
		r := anchor(t, base.html(), keywords...)
		v := newIRPage()
		v.releases = append([]release{{"Acme reports fourth quarter 2026 earnings", "Nov 24, 2026", "/files/q4-2026-earnings.pdf", 3}}, v.releases...)
		got := relocate(t, v.html(), r.Fingerprint)
		if got.Score < 80 {
			t.Errorf("keywords %v: score %.1f after one new item", keywords, got.Score)
		}
		t.Logf("keywords %v: score %.1f after one new item", keywords, got.Score)
		ch := Compare(r.Fingerprint, got.Fingerprint, keywords)
		if !ch.Changed || !ch.Material || ch.Suppressed {
			t.Fatalf("keywords %v: changed %v material %v suppressed %v", keywords, ch.Changed, ch.Material, ch.Suppressed)
		}
		want := "https://ir.example.com/files/q4-2026-earnings.pdf"
		if len(ch.PDFLinks) != 1 || ch.PDFLinks[0] != want {
			t.Errorf("keywords %v: pdf links %v, want [%s]", keywords, ch.PDFLinks, want)
		}
		var text, href bool
		for _, s := range ch.Signals {
			switch {
			case s.Field == "text" && s.From == nil && s.To != nil && strings.Contains(*s.To, "fourth quarter 2026 earnings"):
				text = true
			case s.Field == "attr:href" && s.From == nil && s.To != nil && *s.To == want:
				href = true
			}
		}
		if !text || !href || len(ch.Signals) != 2 {
			t.Errorf("keywords %v: signals %s", keywords, signalText(ch.Signals))
		}
		if !strings.Contains(ch.Preview, "fourth quarter") {
			t.Errorf("preview %q", ch.Preview)
		}
	}
}

// TestSameTextNewDateIsNewItem: a dividend declared every quarter reads
// the same but for its date; the new one is an added block.
func TestSameTextNewDateIsNewItem(t *testing.T) {
	base := newIRPage()
	base.releases[1].pdf = "/news/dividend"
	r := anchor(t, base.html(), "dividend")
	v := newIRPage()
	v.releases[1].pdf = "/news/dividend"
	v.releases = append([]release{{v.releases[1].title, "Dec 15, 2026", "/news/dividend", 0}}, v.releases...)
	got := relocate(t, v.html(), r.Fingerprint)
	ch := Compare(r.Fingerprint, got.Fingerprint, []string{"dividend"})
	if !ch.Material {
		t.Errorf("repeated item with a new date: changed %v material %v", ch.Changed, ch.Material)
	}
}

func TestReorderIsNoChange(t *testing.T) {
	base := newIRPage()
	r := anchor(t, base.html())
	v := newIRPage()
	rs := v.releases
	rs[0], rs[3], rs[1] = rs[3], rs[1], rs[0]
	got := relocate(t, v.html(), r.Fingerprint)
	if ch := Compare(r.Fingerprint, got.Fingerprint, nil); ch.Changed {
		t.Errorf("reordered items: changed, signals %s", signalText(ch.Signals))
	}
}

func TestChangedTableFigureIsMaterial(t *testing.T) {
	rows := func(rev string) [][]string {
		return [][]string{{"Revenue", rev, "$1.1 billion"}, {"EPS", "0.45", "0.41"}, {"Net loss", "(1,234)", "(987)"}}
	}
	base := newIRPage()
	base.table = rows("$1.2 billion")
	r := anchor(t, base.html())
	for _, c := range []struct{ row, cell int }{{0, 1}, {1, 1}, {2, 1}} {
		v := newIRPage()
		v.table = rows("$1.2 billion")
		old := v.table[c.row][c.cell]
		v.table[c.row][c.cell] = strings.NewReplacer("2", "3", "4", "6").Replace(old)
		got := relocate(t, v.html(), r.Fingerprint)
		ch := Compare(r.Fingerprint, got.Fingerprint, nil)
		if !ch.Material {
			t.Errorf("%s → %s: not material", old, v.table[c.row][c.cell])
			continue
		}
		if len(ch.Signals) != 1 || ch.Signals[0].Field != "text" || ch.Signals[0].From == nil || ch.Signals[0].To == nil ||
			ch.Signals[0].Ratio < 0.8 || ch.Signals[0].Ratio >= 1 {
			t.Errorf("%s: signals %s", old, signalText(ch.Signals))
		}
	}
}

func TestCosmeticRestructureRelocates(t *testing.T) {
	for _, keywords := range [][]string{nil, {"earnings"}} {
		base := newIRPage()
		base.table = [][]string{{"Revenue", "$1.2 billion", "$1.1 billion"}}
		r := anchor(t, base.html(), keywords...)
		v := newIRPage()
		v.table = base.table
		v.wrapList = true
		v.listClass = "pr-items-v2"
		v.listFirst = true
		got := relocate(t, v.html(), r.Fingerprint)
		if got.Score < 80 {
			t.Errorf("keywords %v: restructured page scores %.1f", keywords, got.Score)
		}
		t.Logf("keywords %v: restructured page scores %.1f at %s", keywords, got.Score, got.Fingerprint.Path)
		if ch := Compare(r.Fingerprint, got.Fingerprint, keywords); ch.Changed {
			t.Errorf("keywords %v: restructure is a change: %s", keywords, signalText(ch.Signals))
		}
	}
}

func TestRegionGoneFails(t *testing.T) {
	unrelated := `<div class="careers"><h2>Join our team</h2><p>We are hiring engineers, designers and
	sales people in Boston, Berlin and Singapore. Competitive pay, remote friendly.</p><ul><li>Backend engineer</li>
	<li>Product designer</li><li>Account executive</li></ul></div>`
	cases := []struct {
		name     string
		keywords []string
		mod      func(*irPage)
	}{
		{"main removed", nil, func(p *irPage) { p.replaceMain = "<p>Page moved.</p>" }},
		{"main replaced", nil, func(p *irPage) { p.replaceMain = unrelated }},
	}
	for _, c := range cases {
		base := newIRPage()
		base.table = [][]string{{"Revenue", "$1.2 billion", "$1.1 billion"}}
		r := anchor(t, base.html(), c.keywords...)
		v := newIRPage()
		v.table = base.table
		c.mod(v)
		got := relocate(t, v.html(), r.Fingerprint)
		if !got.Lost() {
			t.Errorf("%s: score %.1f, not lost (%s)", c.name, got.Score, got.Fingerprint.Path)
		}
		t.Logf("%s: score %.1f", c.name, got.Score)
	}
}

func TestDocumentLinks(t *testing.T) {
	r := anchor(t, newIRPage().html(), "earnings")
	got := DocumentLinks(r.Fingerprint)
	if len(got) != 3 || got[0] != "https://ir.example.com/files/q3-2026-earnings.pdf" {
		t.Errorf("document links %v", got)
	}
}

func signalText(ss []Signal) string {
	var b strings.Builder
	str := func(p *string) string {
		if p == nil {
			return "nil"
		}
		return fmt.Sprintf("%q", *p)
	}
	for _, s := range ss {
		fmt.Fprintf(&b, "\n  %s: %s → %s (%.2f)", s.Field, str(s.From), str(s.To), s.Ratio)
	}
	return b.String()
}

func TestFingerprintJSONRoundTrip(t *testing.T) {
	r := anchor(t, newIRPage().html(), "earnings")
	data, err := json.Marshal(r.Fingerprint)
	if err != nil {
		t.Fatal(err)
	}
	var back Fingerprint
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if ch := Compare(&back, r.Fingerprint, back.Keywords); ch.Changed {
		t.Errorf("round trip changed the region: %s", signalText(ch.Signals))
	}
	got := relocate(t, newIRPage().html(), &back)
	if got.Score < 95 || got.Fingerprint.Hash != back.Hash {
		t.Errorf("relocating from the stored fingerprint: score %.1f", got.Score)
	}
	if len(data) > 4<<10 {
		t.Errorf("fingerprint of %d bytes", len(data))
	}
}

func TestCompareBounds(t *testing.T) {
	var many []Block
	for i := range 500 {
		many = append(many, Block{Text: strings.Repeat(fmt.Sprintf("earnings item %d ", i), 300), Href: fmt.Sprintf("https://x.com/%d.pdf", i)})
	}
	ch := Compare(nil, &Fingerprint{Blocks: many}, []string{"earnings"})
	if !ch.Material || len(ch.Signals) != maxSignals || len(ch.Preview) > maxPreview || len(ch.PDFLinks) != maxPDFLinks {
		t.Errorf("material %v, %d signals, preview %d bytes, %d pdf links", ch.Material, len(ch.Signals), len(ch.Preview), len(ch.PDFLinks))
	}
	for _, s := range ch.Signals {
		if s.To != nil && len(*s.To) > maxSignalText {
			t.Errorf("signal text of %d bytes", len(*s.To))
		}
	}
	if ch := Compare(&Fingerprint{Blocks: many}, nil, nil); !ch.Changed || !ch.Material || ch.Signals[0].To != nil {
		t.Errorf("everything removed: %+v", ch.Signals[0])
	}
	if ch := Compare(nil, nil, nil); ch.Changed {
		t.Error("two empty regions differ")
	}
}
