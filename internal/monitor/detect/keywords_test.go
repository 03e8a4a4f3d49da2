package detect

import (
	"errors"
	"strings"
	"testing"
)

// check relocates prev in page s and compares, as a monitor's run does.
func check(t *testing.T, s string, prev *Fingerprint) (*Region, Change) {
	t.Helper()
	r := relocate(t, s, prev)
	return r, Compare(prev, r.Fingerprint, prev.Keywords)
}

// removedText tells whether a signal reports the text holding want as
// removed (to: null).
func removedText(signals []Signal, want string) bool {
	for _, s := range signals {
		if s.Field == "text" && s.To == nil && s.From != nil && strings.Contains(*s.From, want) {
			return true
		}
	}
	return false
}

// TestKeywordGoneIsError: when no block of the page mentions a keyword
// any more, relocation answers ErrKeywordsNotFound (the run is an error),
// for a keyword scope and for a region stored before scopes existed.
func TestKeywordGoneIsError(t *testing.T) {
	r := anchor(t, newIRPage().html(), "quarter")
	v := newIRPage()
	v.dropList = true
	if _, err := Relocate(parse(t, v.html()), pageURL, r.Fingerprint); !errors.Is(err, ErrKeywordsNotFound) {
		t.Errorf("keyword scope: got %v, want ErrKeywordsNotFound", err)
	}
	legacy := legacyFingerprint(t, "quarter")
	if _, err := Relocate(parse(t, v.html()), pageURL, legacy); !errors.Is(err, ErrKeywordsNotFound) {
		t.Errorf("stored region: got %v, want ErrKeywordsNotFound", err)
	}
}

// legacyFingerprint is a fingerprint as stored before scopes existed:
// the press list alone, with its keywords.
func legacyFingerprint(t *testing.T, keyword string) *Fingerprint {
	t.Helper()
	p := readPage(parse(t, newIRPage().html()), pageURL)
	for i := range p.elems {
		if p.elems[i].node.Data == "ul" && attr(p.elems[i].node, "class") == "press-list" {
			return p.fingerprint(int32(i), cleanKeywords([]string{keyword}))
		}
	}
	t.Fatal("no press list")
	return nil
}

// TestKeywordBlockRemovedIsMaterial: a removed block that mentions a
// keyword is a material change with a removal signal, while the keyword
// remains elsewhere on the page; so is the whole list going.
func TestKeywordBlockRemovedIsMaterial(t *testing.T) {
	base := newIRPage()
	r := anchor(t, base.html(), "earnings")
	v := newIRPage()
	v.releases = v.releases[:3] // the second quarter release goes
	got, ch := check(t, v.html(), r.Fingerprint)
	if got.Lost() || !ch.Material || ch.Suppressed || !removedText(ch.Signals, "second quarter 2026 earnings") {
		t.Errorf("one release removed: lost %v material %v suppressed %v signals %s",
			got.Lost(), ch.Material, ch.Suppressed, signalText(ch.Signals))
	}
	v = newIRPage()
	v.dropList = true // "earnings" remains in the intro
	got, ch = check(t, v.html(), r.Fingerprint)
	if got.Lost() || !ch.Material || !removedText(ch.Signals, "third quarter 2026 earnings") {
		t.Errorf("list removed: lost %v (score %.1f) material %v signals %s",
			got.Lost(), got.Score, ch.Material, signalText(ch.Signals))
	}
	// A stored region (before scopes) follows the same rule.
	legacy := legacyFingerprint(t, "earnings")
	v = newIRPage()
	v.releases = v.releases[:3]
	_, ch = check(t, v.html(), legacy)
	if !ch.Material || !removedText(ch.Signals, "second quarter 2026 earnings") {
		t.Errorf("stored region, one release removed: material %v signals %s", ch.Material, signalText(ch.Signals))
	}
	// A removed block without a keyword stays suppressed.
	v = newIRPage()
	v.releases = append(v.releases[:2:2], v.releases[3])
	_, ch = check(t, v.html(), r.Fingerprint)
	if !ch.Changed || ch.Material {
		t.Errorf("release without keyword removed: changed %v material %v", ch.Changed, ch.Material)
	}
}

// TestNewKeywordBlockBesideAnother: where the keyword occurs in several
// regions (the intro and the list), a new paragraph carrying it next to
// the intro paragraph is material, though the list holds more matches.
func TestNewKeywordBlockBesideAnother(t *testing.T) {
	intro := `<p>Read the latest news and announcements from Acme Corp, a maker of fine widgets since 1952, including earnings results and dividends.</p>`
	base := newIRPage().html()
	r := anchor(t, base, "earnings")
	v := strings.Replace(base, intro, intro+`<p>Our earnings call for the fourth quarter takes place on January 28.</p>`, 1)
	if v == base {
		t.Fatal("intro paragraph not found")
	}
	_, ch := check(t, v, r.Fingerprint)
	if !ch.Material || ch.Suppressed {
		t.Errorf("new keyword paragraph: changed %v material %v signals %s", ch.Changed, ch.Material, signalText(ch.Signals))
	}
}

// TestReanchorNeverNarrows is the case: the list is restructured
// into one card, the monitor anchors afresh on it, the list comes back,
// and from then on new releases are still seen.
func TestReanchorNeverNarrows(t *testing.T) {
	base := newIRPage()
	r := anchor(t, base.html(), "earnings")
	card := newIRPage()
	card.replaceList = `<div class="card"><h3>Latest</h3><p><a href="/files/q3-2026-earnings.pdf">Acme reports third quarter 2026 earnings</a></p></div>`
	_, ch := check(t, card.html(), r.Fingerprint)
	if !ch.Material {
		t.Errorf("restructure to one card: material %v signals %s", ch.Material, signalText(ch.Signals))
	}
	// Anchored afresh on the one-card layout (after relocation_failed).
	r = anchor(t, card.html(), "earnings")
	restored := newIRPage()
	got, ch := check(t, restored.html(), r.Fingerprint)
	if !ch.Material {
		t.Errorf("list restored: material %v", ch.Material)
	}
	fp := got.Fingerprint
	for _, rel := range []string{"Acme reports fourth quarter 2026 earnings", "Acme reports full year 2026 earnings"} {
		v := newIRPage()
		v.releases = append([]release{{rel, "Jan 28, 2027", "/files/" + strings.ReplaceAll(rel, " ", "-") + ".pdf", 1}}, v.releases...)
		restored = v
		got, ch = check(t, v.html(), fp)
		if !ch.Material || got.Lost() {
			t.Errorf("%q: lost %v material %v signals %s", rel, got.Lost(), ch.Material, signalText(ch.Signals))
		}
		fp = got.Fingerprint
	}
	if n := len(fp.Blocks); n < len(restored.releases) {
		t.Errorf("watch narrowed to %d blocks, page holds %d releases", n, len(restored.releases))
	}
}

// TestKeywordScopeNoiseIsQuiet: dates, counters, tokens, the aside and a
// cosmetic restructure (wrappers, renamed classes, list moved first)
// raise no material change on a keyword scope.
func TestKeywordScopeNoiseIsQuiet(t *testing.T) {
	r := anchor(t, newIRPage().html(), "earnings")
	v := newIRPage()
	v.updated = "Updated Nov 24, 2026 9:05 AM"
	v.token = "0e1f2a3b4c5d6e7f8091a2b3c4d5e6f7"
	v.aside = "Trending: Acme earnings beat estimates"
	v.footerYear = 2027
	for i := range v.releases {
		v.releases[i].views += 17
	}
	v.wrapList, v.listClass, v.listFirst = true, "news-items", true
	got, ch := check(t, v.html(), r.Fingerprint)
	if got.Lost() || ch.Material {
		t.Errorf("noise: lost %v (score %.1f) material %v signals %s", got.Lost(), got.Score, ch.Material, signalText(ch.Signals))
	}
}

// TestKeywordLeftOnlyInNavigation: the content's keyword blocks go while
// the menu still says "Press releases": they are removed (material), not
// found again in the menu.
func TestKeywordLeftOnlyInNavigation(t *testing.T) {
	r := anchor(t, newIRPage().html(), "press")
	if r.Fingerprint.Boiler {
		t.Fatal("anchored on the menu although the content mentions the keyword")
	}
	v := newIRPage()
	v.replaceMain = "<p>Our site is being rebuilt. Come back soon.</p>"
	got, ch := check(t, v.html(), r.Fingerprint)
	if got.Lost() || !ch.Material || !removedText(ch.Signals, "Press releases") {
		t.Errorf("keyword left in the menu only: lost %v material %v signals %s", got.Lost(), ch.Material, signalText(ch.Signals))
	}
}
