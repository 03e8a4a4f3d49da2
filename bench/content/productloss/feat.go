package main

import (
	"fmt"
	"sort"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// featTally counts, for each structural feature, the words of our
// units that the reference holds and those it lacks, by page (-feat).
type featTally struct {
	gold, noise map[string]int // page → words
}

var feats = map[string]*featTally{}

func addFeat(f, page string, words int, gold bool) {
	t := feats[f]
	if t == nil {
		t = &featTally{gold: map[string]int{}, noise: map[string]int{}}
		feats[f] = t
	}
	if gold {
		t.gold[page] += words
	} else {
		t.noise[page] += words
	}
}

// unitFeats names the structural features of a unit that is ours.
func unitFeats(n *html.Node) []string {
	var fs []string
	seen := map[string]bool{}
	add := func(f string) {
		if !seen[f] {
			seen[f] = true
			fs = append(fs, f)
		}
	}
	for a := n; a != nil && a.Type == html.ElementNode && a.DataAtom != atom.Body; a = a.Parent {
		role, _ := attr(a, "role")
		role = strings.ToLower(role)
		switch a.DataAtom {
		case atom.Dialog:
			add("dialog element")
		case atom.Button:
			add("button")
		case atom.Label:
			add("label")
		case atom.Select, atom.Option:
			add("select")
		case atom.Summary:
			add("summary")
		case atom.Details:
			if _, open := attr(a, "open"); !open {
				add("details closed")
			}
		case atom.Form:
			add("form")
		case atom.Fieldset:
			add("fieldset")
		case atom.Aside:
			add("aside")
		case atom.Table:
			add("table")
		case atom.Blockquote:
			add("blockquote")
		case atom.Figure:
			add("figure")
		}
		if c, _ := attr(a, "class"); c != "" {
			lc := strings.ToLower(c)
			for _, k := range []string{"carousel", "swiper", "slick", "splide", "owl-", "glide", "flickity", "slider"} {
				if strings.Contains(lc, k) {
					add("carousel class")
					break
				}
			}
			if strings.Contains(lc, "faq") {
				add("faq class")
			}
			if strings.Contains(lc, "review") {
				add("review class")
			}
			if strings.Contains(lc, "tooltip") || strings.Contains(lc, "tool-tip") || strings.Contains(lc, "popover") {
				add("tooltip class")
			}
			for _, f := range strings.Fields(lc) {
				switch f {
				case "sr-only", "visually-hidden", "visuallyhidden", "screen-reader-text", "screen-reader-only", "sr-text", "u-visually-hidden", "a11y-hidden", "is-visually-hidden", "hidden-visually", "offscreen", "assistive-text", "show-for-sr", "element-invisible", "vh", "a-offscreen":
					add("sr-only class")
				}
			}
		}
		if strings.Contains(a.Data, "tooltip") || strings.Contains(a.Data, "tool-tip") || strings.Contains(a.Data, "popover") {
			add("tooltip class")
		}
		if _, ok := attr(a, "popover"); ok {
			add("popover attr")
		}
		switch a.DataAtom {
		case atom.Del, atom.S:
			add("del/s")
		case atom.Nav:
			add("nav")
		case atom.Header:
			add("header")
		case atom.Footer:
			add("footer")
		case atom.Dl:
			add("dl")
		case atom.Ul, atom.Ol:
			add("list")
		case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
			add("heading")
		}
		switch role {
		case "tooltip":
			add("role tooltip")
		case "navigation":
			add("role navigation")
		case "dialog", "alertdialog":
			add("role dialog")
		case "complementary":
			add("role complementary")
		case "region":
			add("role region")
		case "alert", "status", "log":
			add("role alert/status")
		case "tablist", "tab":
			add("role tab")
		case "tabpanel":
			add("role tabpanel")
		case "listbox", "option", "combobox", "menu", "menuitem":
			add("role listbox/menu")
		case "group":
			add("role group")
		}
		if v, ok := attr(a, "aria-modal"); ok && v == "true" {
			add("aria-modal")
		}
		if v, ok := attr(a, "aria-roledescription"); ok {
			add("roledescription " + strings.ToLower(v))
		}
		if v, ok := attr(a, "aria-live"); ok && v != "off" {
			add("aria-live")
		}
		if _, ok := attr(a, "aria-hidden"); ok {
			add("aria-hidden attr")
		}
		if v, ok := attr(a, "itemtype"); ok {
			v = strings.ToLower(v)
			i := strings.LastIndex(v, "/")
			add("itemtype " + v[i+1:])
		}
		if v, ok := attr(a, "itemprop"); ok {
			v = strings.ToLower(v)
			if v == "review" || v == "aggregaterating" || v == "offers" || v == "description" || v == "name" {
				add("itemprop " + v)
			}
		}
		if v, ok := attr(a, "style"); ok {
			v = strings.ToLower(strings.ReplaceAll(v, " ", ""))
			if strings.Contains(v, "position:fixed") {
				add("style fixed")
			}
		}
		if _, ok := attr(a, "data-nosnippet"); ok {
			add("data-nosnippet")
		}
		if v, _ := attr(a, "aria-label"); v != "" && a == n {
			add("has aria-label")
		}
	}
	return fs
}

func printFeats() {
	type row struct {
		f            string
		g, x, pg, px int
	}
	var rows []row
	for f, t := range feats {
		r := row{f: f}
		for _, w := range t.gold {
			r.g += w
		}
		for _, w := range t.noise {
			r.x += w
		}
		for _, w := range t.gold {
			if w >= 10 {
				r.pg++
			}
		}
		for _, w := range t.noise {
			if w >= 10 {
				r.px++
			}
		}
		rows = append(rows, r)
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].x > rows[j].x })
	fmt.Println("\nour units by feature: words in the reference (pages ≥ 10) / not (pages ≥ 10)")
	for _, r := range rows {
		var ps []string
		for p, w := range feats[r.f].noise {
			if w >= 10 {
				ps = append(ps, fmt.Sprintf("%s:%d/%d", p, feats[r.f].gold[p], w))
			}
		}
		sort.Strings(ps)
		fmt.Printf("  %-30s gold %6d (%2d)  noise %6d (%2d)  %s\n", r.f, r.g, r.pg, r.x, r.px, strings.Join(ps, " "))
	}
}
