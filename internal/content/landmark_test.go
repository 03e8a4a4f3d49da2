package content

import (
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// firstElement parses s and returns the first element of its body.
func firstElement(t *testing.T, s string) *html.Node {
	t.Helper()
	doc, err := html.Parse(strings.NewReader("<html><body>" + s + "</body></html>"))
	if err != nil {
		t.Fatal(err)
	}
	return findBody(doc).FirstChild
}

func TestLandmark(t *testing.T) {
	for _, tc := range []struct {
		el                  string
		inArticle, landmark bool
	}{
		{`<nav></nav>`, false, true},
		{`<aside></aside>`, true, true},
		{`<footer></footer>`, true, true},
		{`<header></header>`, false, true},
		{`<header></header>`, true, false},
		{`<div role="navigation"></div>`, true, true},
		{`<ul role="menu"></ul>`, true, true},
		{`<ul role="menubar"></ul>`, true, true},
		{`<div role="banner"></div>`, true, true},
		{`<div role="contentinfo"></div>`, true, true},
		{`<div role="complementary"></div>`, true, true},
		{`<form role="search"></form>`, true, true},
		{`<div role="alert"></div>`, true, true},
		{`<div role=" AlertDialog "></div>`, true, true},
		{`<div role="dialog"></div>`, true, true},
		{`<div role="main"></div>`, false, false},
		{`<div role="region"></div>`, false, false},
		{`<div class="nav"></div>`, false, false},
		{`<section></section>`, false, false},
	} {
		if got := Landmark(firstElement(t, tc.el), tc.inArticle); got != tc.landmark {
			t.Errorf("Landmark(%s, inArticle %v) = %v, want %v", tc.el, tc.inArticle, got, tc.landmark)
		}
	}
}

func TestBoilerplateName(t *testing.T) {
	for _, tc := range []struct {
		v         string
		inArticle bool
		want      bool
	}{
		{"share-bar", true, true},
		{"shareholder", true, false},
		{"shareBar", true, true},
		{"siteHeader", false, true},
		{"siteHeader", true, false},
		{"site-NAV main", true, true},
		{"col sidebar_left", true, true},
		{"cookie-consent", true, true},
		{"related_stories", true, true},
		{"comments", true, true},
		{"story-body", false, false},
		{"site-header", false, true},
		{"site-header", true, false},
		{"masthead", false, true},
		{"masthead", true, false},
		{"headers", false, false},
		{"navigation" + strings.Repeat("x", 40), false, false},
		{"", false, false},
		{"--", false, false},
	} {
		if got := BoilerplateName(tc.v, tc.inArticle); got != tc.want {
			t.Errorf("BoilerplateName(%q, inArticle %v) = %v, want %v", tc.v, tc.inArticle, got, tc.want)
		}
	}
}

// TestLandmarkRolesInArticle: blocks inside the article's container that
// say by their ARIA role that they are the site's banner, its footer or
// its search form are dropped before scoring, as navigation and menus
// are.
func TestLandmarkRolesInArticle(t *testing.T) {
	body := rulePage(`<article><div class="article-body">
<div role="banner"><p>The Daily, the town's own newspaper since 1887, brought to you every morning by our reporters.</p></div>
<p>` + strings.Repeat(ruleProse, 3) + `</p><p>` + strings.Repeat(ruleProse, 2) + `</p>
<div role="search"><p>Looking for something else, a name, a street, a place? Search our archive of stories.</p></div>
<div role="contentinfo"><p>The Daily is published by the Town Press Group, which also prints the weekly farm paper.</p></div>
</div></article>`)
	checkText(t, mainText(t, body), []string{"The council met"},
		[]string{"since 1887", "Search our archive", "Town Press Group"})
}
