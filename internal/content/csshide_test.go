package content

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
)

// sheetHidden runs the sheets of page on its tree and returns the ids of
// the elements they mark hidden, in document order.
func sheetHidden(t *testing.T, page string) []string {
	t.Helper()
	body := []byte(page)
	cuts := rawCuts(body)
	root, err := parseHTML(func() io.Reader { return cutBody(body, cuts) })
	if err != nil {
		t.Fatal(err)
	}
	before := map[*html.Node]bool{}
	for d := root; d != nil; d = nextWithin(d, root) {
		if d.Type == html.ElementNode && Hidden(d) {
			before[d] = true
		}
	}
	sheetHide(root, parseSheets(styleSheets(body, cuts)))
	var ids []string
	for d := root; d != nil; d = nextWithin(d, root) {
		if d.Type == html.ElementNode && Hidden(d) && !before[d] {
			ids = append(ids, attr(d, "id"))
		}
	}
	return ids
}

var sheetArticle = `<main><h1>Title</h1><p id="p">` +
	strings.Repeat(`A paragraph of the article that a reader sees on any screen, long enough to be the content of the page and more than the menu holds. `, 4) +
	`A paragraph of the article that a reader sees on any screen, long enough to be the content of the page and more than the menu holds.</p></main>`

func TestSheetHide(t *testing.T) {
	page := func(css, body string) string {
		return "<!doctype html><html><head><style>" + css + "</style></head><body>" + body + sheetArticle + "</body></html>"
	}
	menu := `<div id="menu" class="menu mobile-nav">Home Shop About Contact</div>`
	cases := []struct {
		name, page string
		want       []string
	}{
		{"display none", page(`.menu{display:none}`, menu), []string{"menu"}},
		{"visibility hidden", page(`#menu { visibility : hidden }`, menu), []string{"menu"}},
		{"comment and descendant", page(`/* x */ body .mobile-nav{color:red;display:none;}`, menu), []string{"menu"}},
		{"no rule", page(`.menu{color:red}`, menu), nil},
		{"phone only", page(`@media (max-width: 767px){.menu{display:none}}`, menu), nil},
		{"desktop", page(`@media screen and (min-width: 1024px){.menu{display:none}}`, menu), []string{"menu"}},
		{"range", page(`@media (width >= 64em){.menu{display:none}}`, menu), []string{"menu"}},
		{"print", page(`@media print{.menu{display:none}}`, menu), nil},
		{"print sheet", `<html><head><style media="print">.menu{display:none}</style></head><body>` + menu + sheetArticle + `</body></html>`, nil},
		{"later shows", page(`.menu{display:none} .menu{display:block}`, menu), nil},
		{"open class shows", page(`.menu{display:none} .menu.open{display:flex}`, `<div id="menu" class="menu open">Home Shop</div>`), nil},
		{"open class absent", page(`.menu{display:none} .menu.open{display:flex}`, menu), []string{"menu"}},
		{"more specific shows", page(`#menu{display:block} .menu{display:none}`, menu), nil},
		{"important wins", page(`.menu{display:none!important} #menu{display:block}`, menu), []string{"menu"}},
		{"inline style shows", page(`.menu{display:none}`, `<div id="menu" class="menu" style="display:block">Home</div>`), nil},
		{"important beats inline", page(`.menu{display:none !important}`, `<div id="menu" class="menu" style="display:block">Home</div>`), []string{"menu"}},
		{"hover", page(`.menu:hover{display:none} .x::before{display:none}`, menu), nil},
		{"no-js", page(`.no-js .menu{display:none}`, `<div class="no-js">`+menu+`</div>`), nil},
		{"child combinator", page(`nav > .menu{display:none}`, `<nav id="n">`+menu+`</nav>`), []string{"menu"}},
		{"child combinator misses", page(`header > .menu{display:none}`, `<header><div>`+menu+`</div></header>`), nil},
		{"sibling", page(`.toggle + .menu{display:none}`, `<span class="toggle">≡</span>`+menu), []string{"menu"}},
		{"group", page(`.a, .menu , .b{display:none}`, menu), []string{"menu"}},
		{"attribute", page(`[data-drawer]{display:none}`, `<div id="d" data-drawer="cart">Your cart is empty</div>`), []string{"d"}},
		{"tab panel", page(`.panel{display:none}`, `<div id="t" role="tabpanel" class="panel">Specifications</div>`), nil},
		{"aria-controls panel", page(`.panel{display:none}`, `<button aria-controls="t">Specs</button><div id="t" class="panel">Specifications</div>`), nil},
		{"accordion", page(`.body{display:none}`, `<div id="t" class="accordion-body body">Answer</div>`), nil},
		{"body and html", page(`html, body{display:none}`, menu), nil},
		{"supports", page(`@supports (display:grid){.menu{display:none}}`, menu), []string{"menu"}},
		{"keyframes skipped", page(`@keyframes x{from{display:none}} .menu{color:red}`, menu), nil},
		{"nesting", page(`.menu{color:red; &.x{display:block} display:none}`, menu), []string{"menu"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := sheetHidden(t, c.page); !slices.Equal(got, c.want) {
				t.Errorf("hidden %q, want %q", got, c.want)
			}
		})
	}
}

// A page whose article the sheets hide until a script shows it is left
// whole: marking it would make settleHidden show every hidden element.
func TestSheetHideSentHidden(t *testing.T) {
	page := `<html><head><style>.app{display:none}</style></head><body><div id="app" class="app">` + sheetArticle + `</div><div>Footer</div></body></html>`
	if got := sheetHidden(t, page); got != nil {
		t.Errorf("hidden %q, want none", got)
	}
}

// Through the pipeline: the menu a sheet hides leaves the whole-body
// text, and the article stays (sheetMode switched on for the test).
func TestSheetHidePipeline(t *testing.T) {
	defer func(m int) { sheetMode = m }(sheetMode)
	page := `<html><head><style>.mobile-menu{display:none}</style></head><body><div class="mobile-menu">Zebrawords menu</div>` + sheetArticle + `</body></html>`
	for _, mode := range []int{0, 1} {
		sheetMode = mode
		doc, err := HTML([]byte(page), "https://example.com/", Options{})
		if err != nil {
			t.Fatal(err)
		}
		if has := strings.Contains(doc.Text, "Zebrawords"); has != (mode == 0) {
			t.Errorf("mode %d: menu in text %v", mode, has)
		}
		if !strings.Contains(doc.Text, "A paragraph of the article") {
			t.Errorf("mode %d: article lost: %q", mode, doc.Text)
		}
	}
}

func TestMediaHolds(t *testing.T) {
	for q, want := range map[string]bool{
		"":                                    true,
		"screen":                              true,
		"all and (min-width:768px)":           true,
		"only screen and (max-width: 1279px)": false,
		"(min-width: 768px) and (max-width: 1440px)": true,
		"print, (min-width: 1200px)":                 true,
		"print":                                      false,
		"not print":                                  false,
		"(orientation: portrait)":                    false,
		"(prefers-reduced-motion: reduce)":           false,
		"(min-width: 80em)":                          true,
		"(min-width: 81em)":                          false,
		"(1024px <= width)":                          true,
		"(width < 1280px)":                           false,
		"(max-width: calc(100px))":                   false,
		"screen and (":                               false,
	} {
		if got := mediaHolds(q); got != want {
			t.Errorf("mediaHolds(%q) = %v, want %v", q, got, want)
		}
	}
}

// Hostile sheets stay bounded: a 10 MB sheet (512 KB read), 100,000
// rules (4,096 kept), deep @media nesting, unclosed blocks, long
// selector chains on a deep tree and many siblings.
func TestSheetHideHostile(t *testing.T) {
	var css strings.Builder
	for css.Len() < 10<<20 {
		css.WriteString(".a .b .c .d .e .f .g .h div{display:none} div ~ div ~ div ~ p{display:block}\n")
	}
	many := strings.Repeat(".x{display:none}", 100_000)
	deep := strings.Repeat("@media screen{", 10_000) + ".m{display:none}"
	open := strings.Repeat("{[(\"", 50_000)
	var tree strings.Builder
	tree.WriteString("<html><head>")
	for _, s := range []string{css.String(), many, deep, open} {
		tree.WriteString("<style>" + s + "</style>")
	}
	tree.WriteString("</head><body>")
	tree.WriteString(strings.Repeat("<div class=a>", 400))
	tree.WriteString(strings.Repeat("<div class=x>cell</div>", 20_000))
	tree.WriteString(strings.Repeat("</div>", 400))
	tree.WriteString("</body></html>")
	body := []byte(tree.String())
	start := time.Now()
	cuts := rawCuts(body)
	sheets := styleSheets(body, cuts)
	total := 0
	for _, s := range sheets {
		total += len(s)
	}
	if total > maxSheetBytes {
		t.Errorf("read %d bytes of CSS, at most %d", total, maxSheetBytes)
	}
	rules := parseSheets(sheets)
	if len(rules) > maxSheetRules {
		t.Errorf("%d rules kept, at most %d", len(rules), maxSheetRules)
	}
	root, err := parseHTML(func() io.Reader { return cutBody(body, cuts) })
	if err != nil {
		t.Fatal(err)
	}
	sheetHide(root, rules)
	// Each sheet alone, the later ones included.
	for _, s := range []string{many, deep, open} {
		sheetHide(root, parseSheets([]string{s[:min(len(s), maxSheetBytes)]}))
	}
	limit := 5 * time.Second
	if raceOn {
		limit *= 10
	}
	if d := time.Since(start); d > limit {
		t.Errorf("hostile sheets took %v", d)
	}
}

func FuzzSheet(f *testing.F) {
	for _, s := range []string{
		`.menu{display:none}`, `@media (min-width:768px){#a > .b + p ~ i{visibility:hidden!important}}`,
		`a:not(.x){display:none} [data-x="}"]{display:block}`, `/* } */ .x{content:"{";display:none}`,
		`@supports not (display:grid){.y{display:none}}`, `.a{&.b{display:none}}`, `\31 0{display:none}`,
		`.md\:hidden{display:none}`, `{{{{`, `@media`, `.a .b .c{display:none`,
	} {
		f.Add(s)
	}
	page := []byte(`<html><body><nav class="menu x"><a id="a" class="b">x</a><p class="md:hidden">y</p></nav>` +
		`<div data-x="}" class="a"><div class="b"><i class="c">z</i></div></div></body></html>`)
	f.Fuzz(func(t *testing.T, css string) {
		rules := parseSheets([]string{css})
		if len(rules) > maxSheetRules {
			t.Fatalf("%d rules", len(rules))
		}
		root, err := html.Parse(bytes.NewReader(page))
		if err != nil {
			t.Fatal(err)
		}
		sheetHide(root, rules)
		mediaHolds(css)
		subjectKey(css)
		usableSelector(css)
	})
}
