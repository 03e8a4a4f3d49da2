package content

import (
	"math/rand"
	"strings"
	"testing"
)

// TestTextCountsWords: the counts handed on are countWords's whatever
// the texts asked, in order or not, and a walk that meets scan's texts
// in order counts none of them again.
func TestTextCountsWords(t *testing.T) {
	texts := []string{"", "a", "a b", "一二三", "\v", "x y z", "a  b", "b a"}
	rng := rand.New(rand.NewSource(9))
	for range 2000 {
		var tc textCounts
		for range rng.Intn(8) {
			s := texts[rng.Intn(len(texts))]
			tc.list = append(tc.list, textCount{s, countWords(s)})
		}
		for range rng.Intn(10) {
			s := texts[rng.Intn(len(texts))]
			if got, want := tc.words(s), countWords(s); got != want {
				t.Fatalf("words(%q) = %d, want %d", s, got, want)
			}
		}
	}
	tc := textCounts{list: []textCount{{"a b", 2}, {"c", 1}}}
	tc.words("a b")
	tc.words("other")
	tc.words("c")
	if tc.next != 2 {
		t.Errorf("next = %d after the texts in order, want 2", tc.next)
	}
}

// TestPageFeaturesScanTexts: the page-type walk with scan's counts gives
// the features it gives counting every text, on random pages with the
// texts scan counts and then removes (hidden, svg, rt), those it does
// not count and leaves (a <title> in the body, JSON-LD), noscript it
// parses, streamed blocks it moves and soft hyphens it takes out; and
// on a plain page it takes every count from scan.
func TestPageFeaturesScanTexts(t *testing.T) {
	rng := rand.New(rand.NewSource(13))
	extras := []string{`<div hidden>hidden words</div>`, `<span style="display:none">x y</span>`,
		`<svg><text>in svg</text></svg>`, `<ruby>漢<rt>kan</rt></ruby>`, `<title>a title in the body</title>`,
		`<script type="application/ld+json">{"a": "b c"}</script>`, `<noscript><p>no script text</p></noscript>`,
		`<template id="B:0"></template><!--$?--><p>fallback</p><!--/$-->`, `<div hidden id="S:0"><p>streamed words</p></div>`,
		"soft\u00adhyphen", `<p aria-hidden="true">aria</p>`, `<style>p{}</style>`, `<!-- a comment -->`}
	for range 400 {
		page := boundPage(rng)
		for k := rng.Intn(5); k > 0; k-- {
			at := strings.Index(page, "<body>") + len("<body>")
			if j := strings.LastIndex(page, "</"); rng.Intn(2) == 0 && j > at {
				at = j
			}
			page = page[:at] + extras[rng.Intn(len(extras))] + page[at:]
		}
		root, _ := parseBody(t, page)
		s := scan(root, nil, false)
		got := pageFeaturesBound(root, nil, nil, "", nil, &s.texts)
		want := pageFeatures(root, nil, nil, "")
		if got != want {
			t.Fatalf("features with scan's counts %v, counted %v\n%s", got, want, page)
		}
	}
	root, _ := parseBody(t, `<html><body><p>one two</p><div hidden>gone</div><p>three <b>four</b></p></body></html>`)
	s := scan(root, nil, false)
	if len(s.texts.list) != 3 {
		t.Fatalf("scan kept %d texts, want 3: %+v", len(s.texts.list), s.texts.list)
	}
	w := &typeWalk{f: new(typeFeatures), texts: s.texts}
	w.walk(findBody(root), false, false)
	if w.texts.next != 3 || w.words != 4 {
		t.Errorf("the walk took %d counts of 3 and %d words, want 3 and 4", w.texts.next, w.words)
	}
}
