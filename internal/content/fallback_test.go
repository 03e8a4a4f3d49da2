package content

import (
	"reflect"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// trafilaturaRunsOf converts page with the first run's skipping on or
// off and returns the Document and trafilatura's runs.
func trafilaturaRunsOf(t *testing.T, page []byte, skip bool) (*Document, int64) {
	t.Helper()
	defer func(old bool) { fallbackFirst = old }(fallbackFirst)
	fallbackFirst = skip
	pages, runs := fallbacks.Load(), trafilaturaRuns.Load()
	d, err := HTML(page, "https://example.com/news/q3", Options{OnlyMainContent: true, IncludeLinks: true})
	if err != nil {
		t.Fatal(err)
	}
	if fallbacks.Load() == pages {
		t.Fatal("the page did not go to trafilatura; the test no longer covers that path")
	}
	return d, trafilaturaRuns.Load() - runs
}

// A page whose text lies mostly where trafilatura's cleaning removes it
// (a footer, a nav, a form) cannot pass its first run: that run is
// skipped, and the fallback run alone gives the same Document as both.
func TestTrafilaturaFirstRunSkipped(t *testing.T) {
	page := []byte(`<!doctype html><html><head><title>Example Corp</title></head><body>` +
		`<main><p>The board declared a dividend, payable on December 15.</p></main>` +
		`<footer><p>` + strings.Repeat("Example Corp, 1 Main Street, Springfield. ", 8) + `</p></footer>` +
		`</body></html>`)
	both, runs := trafilaturaRunsOf(t, page, false)
	if runs != 2 {
		t.Fatalf("without the skip trafilatura ran %d times, want 2: the page no longer needs the second run", runs)
	}
	one, runs := trafilaturaRunsOf(t, page, true)
	if runs != 1 {
		t.Errorf("trafilatura ran %d times, want 1 (the first run is bound to fail)", runs)
	}
	if !reflect.DeepEqual(one, both) {
		t.Errorf("the fallback run alone gave\n%+v\nboth runs gave\n%+v", one, both)
	}
}

// A page whose first run can pass keeps it, and needs no second one.
func TestTrafilaturaFirstRunKept(t *testing.T) {
	page := []byte(`<!doctype html><html><head><title>Example Corp</title></head><body><main>` +
		`<h1>Third quarter results</h1>` +
		`<p>The board declared a dividend on the common stock, payable on December 15 to holders ` +
		`of record at the close of business on December 1, 2026. Revenue grew in every region, led by ` +
		`services, while hardware sales were flat.</p>` +
		`<p>Margins held at last year's level and the outlook for the year is unchanged.</p>` +
		`</main><footer>© Example Corp</footer></body></html>`)
	if _, runs := trafilaturaRunsOf(t, page, true); runs != 1 {
		t.Errorf("trafilatura ran %d times, want 1 (its first run is enough here)", runs)
	}
}

// TestTrafilaturaReadabilityCandidate: trafilatura's second run weighs
// the readability pass's article as its readability candidate instead
// of running go-readability again. The article handed in here holds a
// sentence that is nowhere on the page, where trafilatura's own
// extraction finds nothing (the page's only text is its footer), so that
// sentence can come out only from the candidate passed in.
func TestTrafilaturaReadabilityCandidate(t *testing.T) {
	root, err := html.Parse(strings.NewReader(`<!doctype html><html><head><title>Example Corp</title></head><body>` +
		`<footer><p>` + strings.Repeat("Example Corp, 1 Main Street, Springfield. ", 8) + `</p></footer></body></html>`))
	if err != nil {
		t.Fatal(err)
	}
	const own = "The readability pass found this dividend notice in a block of its own"
	art, err := html.Parse(strings.NewReader(`<div><p>` + strings.Repeat(own+". ", 6) + `</p></div>`))
	if err != nil {
		t.Fatal(err)
	}
	n, _ := trafilaturaContent(root, nil, 60, findBody(art))
	if n == nil {
		t.Fatal("trafilatura gave nothing; want the candidate passed in")
	}
	if got := nodeText(n); !strings.Contains(got, own) {
		t.Errorf("trafilatura's result does not hold the readability pass's article:\n%s", got)
	}
}
