package content

import (
	"errors"
	"strings"
	"testing"

	"github.com/RadhiFadlillah/whatlanggo"
	dateparser "github.com/markusmobius/go-dateparser"
	"github.com/markusmobius/go-trafilatura"
	"golang.org/x/net/html"
)

// trafilaturaRunsOf converts page and returns the Document and
// trafilatura's runs.
func trafilaturaRunsOf(t *testing.T, page []byte) (*Document, int64) {
	t.Helper()
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

// TestTrafilaturaRunsOnce: trafilatura runs once a page, with its
// fallback extractors. The first page's text lies mostly in a block
// whose class trafilatura's cleaning removes (a first run without the
// fallback extractors found too little of it, and a second run was
// made), the second's in its article (a first run was enough).
func TestTrafilaturaRunsOnce(t *testing.T) {
	const notice = "The board declared a dividend, payable on December 15."
	pages := [][]byte{
		[]byte(`<!doctype html><html><head><title>Example Corp</title></head><body>` +
			`<main><p>` + notice + `</p></main>` +
			`<div class="footer"><p>` + strings.Repeat("Example Corp, 1 Main Street, Springfield. ", 8) + `</p></div>` +
			`</body></html>`),
		[]byte(`<!doctype html><html><head><title>Example Corp</title></head><body><main>` +
			`<h1>Third quarter results</h1>` +
			`<p>The board declared a dividend on the common stock, payable on December 15 to holders ` +
			`of record at the close of business on December 1, 2026. Revenue grew in every region, led by ` +
			`services, while hardware sales were flat.</p>` +
			`<p>Margins held at last year's level and the outlook for the year is unchanged.</p>` +
			`</main><footer>© Example Corp</footer></body></html>`),
	}
	for i, page := range pages {
		d, runs := trafilaturaRunsOf(t, page)
		if runs != 1 {
			t.Errorf("page %d: trafilatura ran %d times, want 1", i, runs)
		}
		if !strings.Contains(d.Text, "dividend") {
			t.Errorf("page %d: the text lost the notice:\n%s", i, d.Text)
		}
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
	n, _ := trafilaturaContent(root, nil, findBody(art))
	if n == nil {
		t.Fatal("trafilatura gave nothing; want the candidate passed in")
	}
	if got := nodeText(n); !strings.Contains(got, own) {
		t.Errorf("trafilatura's result does not hold the readability pass's article:\n%s", got)
	}
}

// TestTrafilaturaDatesOff: trafilatura runs with its date search off and
// no options of its own for it, and the date parser that search would
// call is the build's stand-in, which parses nothing (third_party/README.md:
// go-dateparser's start-up cost is left out because nothing here uses
// it). Turning the search on, or dropping the replacement without
// reading that note, fails here.
func TestTrafilaturaDatesOff(t *testing.T) {
	opts := trafilaturaOptions(nil)
	if opts.HtmlDateMode != trafilatura.Disabled || opts.HtmlDateOptions != nil || opts.HtmlDateOverride != nil {
		t.Fatalf("trafilatura's date search is on (mode %v, options %v, override %v): "+
			"go-dateparser is replaced by a stand-in that finds no date", opts.HtmlDateMode, opts.HtmlDateOptions, opts.HtmlDateOverride)
	}
	var p dateparser.Parser
	if _, err := p.Parse(&dateparser.Configuration{}, "12 August 2021"); !errors.Is(err, dateparser.ErrDisabled) {
		t.Fatalf("the linked date parser is not the stand-in (err %v): update third_party/README.md", err)
	}
}

// TestTrafilaturaLanguageUnread: trafilatura is asked for no language,
// and the language detector it calls on every text it extracts is the
// build's stand-in, which detects none (third_party/README.md:
// whatlanggo's detection is left out because nothing here reads what it
// finds; the page's language comes from its markup). Setting a target
// language, or dropping the replacement without reading that note, fails
// here.
func TestTrafilaturaLanguageUnread(t *testing.T) {
	if lang := trafilaturaOptions(nil).TargetLanguage; lang != "" {
		t.Fatalf("trafilatura is given the target language %q: whatlanggo is replaced by a stand-in that detects none, so every page would fail it", lang)
	}
	if l := whatlanggo.DetectLang("Hier ist ein Text auf Deutsch, und er ist lang genug."); l != whatlanggo.Unknown || l.Iso6391() != "" {
		t.Fatalf("the linked language detector is not the stand-in (it found %q): update third_party/README.md", l.Iso6391())
	}
}
