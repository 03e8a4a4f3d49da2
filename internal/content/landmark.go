package content

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Landmarks are the parts of a page around its content: navigation and
// menus, asides, footers, the site's header, search forms and what is
// shown over the page. A monitor leaves them out of the region it
// watches (internal/monitor/detect, by Landmark and BoilerplateName).
// The readability pass drops the landmarks by role and <nav> before
// scoring; <aside> and <footer> it drops only from the chosen article
// (readable_clean.go): dropping them before scoring as well cost the
// wcxb-dev forum pages of half A (0.6266 to 0.6253, bench/content).

// Landmark tells whether n is a landmark by its tag or its ARIA role:
// <nav>, <aside>, <footer>, a <header> unless inArticle (n lies in an
// <article> or <main>, where a <header> holds the article's title), or
// one of landmarkRoles.
func Landmark(n *html.Node, inArticle bool) bool {
	switch n.DataAtom {
	case atom.Nav, atom.Aside, atom.Footer:
		return true
	case atom.Header:
		if !inArticle {
			return true
		}
	}
	return LandmarkRole(n)
}

// LandmarkRole tells whether the ARIA role of n names a landmark (see
// landmarkRoles).
func LandmarkRole(n *html.Node) bool {
	role := attr(n, "role")
	return role != "" && landmarkRoles[strings.ToLower(strings.TrimSpace(role))]
}

// landmarkRoles are the ARIA roles of navigation and menus, the site's
// banner and footer (contentinfo), asides (complementary), search forms,
// and alerts and dialogs shown over the page.
var landmarkRoles = map[string]bool{
	"navigation": true, "menu": true, "menubar": true, "banner": true, "contentinfo": true,
	"complementary": true, "search": true, "alert": true, "alertdialog": true, "dialog": true,
}

// BoilerplateName tells whether a class or id value holds a word that
// names page-level boilerplate: navigation, sidebars, footers, share
// bars, comments, ads, cookie notices, newsletter boxes, tickers (see
// pageBoilerWords); unless inArticle, the page's header too. Words are
// read as for the families of boilerplate inside an article (see
// wordsKinds and classWords), so "share-bar" and "shareBar" hold
// "share" and "shareholder" does not.
func BoilerplateName(v string, inArticle bool) bool {
	return classWordIn(v, pageBoilerWords) || !inArticle && classWordIn(v, pageHeaderWords)
}

// pageBoilerWords are the class and id words of page-level boilerplate.
var pageBoilerWords = newWordSet("nav", "navbar", "navigation", "menu", "menubar", "submenu",
	"sidebar", "breadcrumb", "breadcrumbs", "footer", "aside", "related", "promo", "promoted",
	"advert", "advertisement", "ads", "ad", "sponsor", "sponsored", "cookie", "cookies", "consent",
	"gdpr", "share", "sharing", "social", "comments", "comment", "disqus", "widget", "widgets",
	"popup", "modal", "newsletter", "subscribe", "signup", "skip", "toolbar", "pagination", "pager",
	"trending", "recommended", "outbrain", "taboola", "ticker")

// pageHeaderWords are the class and id words of the page's header,
// which inside an article or <main> holds the article's title instead.
var pageHeaderWords = newWordSet("header", "masthead")
