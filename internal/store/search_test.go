package store_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

// searchFixture is a store with one workspace and a helper to save pages.
type searchFixture struct {
	t   *testing.T
	s   *store.Store
	ws  string
	now time.Time
}

func newSearchFixture(t *testing.T, dialect string) *searchFixture {
	s := storetest.Open(t, dialect)
	w, err := s.CreateWorkspace(ctx, "search", 0, false)
	if err != nil {
		t.Fatal(err)
	}
	return &searchFixture{t: t, s: s, ws: w.ID, now: time.Now().UTC().Truncate(time.Second)}
}

func (f *searchFixture) workspace(name string) string {
	f.t.Helper()
	w, err := f.s.CreateWorkspace(ctx, name, 0, false)
	if err != nil {
		f.t.Fatal(err)
	}
	return w.ID
}

func (f *searchFixture) save(ws, url, variant, title, markdown string, at time.Time) {
	f.t.Helper()
	err := f.s.SavePage(ctx, &store.Page{
		WorkspaceID: ws, URL: url, Variant: variant, FinalURL: url, Status: 200, Tier: "http",
		Title: title, ContentHash: "h", Markdown: markdown, Result: []byte(`{}`), FetchedAt: at,
	})
	if err != nil {
		f.t.Fatal(err)
	}
}

func (f *searchFixture) search(ws, q string, limit int, since time.Time) []store.PageHit {
	f.t.Helper()
	hits, err := f.s.SearchPages(ctx, ws, q, limit, since)
	if err != nil {
		f.t.Fatalf("SearchPages(%q): %v", q, err)
	}
	return hits
}

func urls(hits []store.PageHit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.URL)
	}
	return out
}

func TestSearchPagesRanking(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		f := newSearchFixture(t, dialect)
		f.save(f.ws, "https://a.test/body", "v", "Gardening notes",
			"Some text about tomatoes. The borrow checker is mentioned here once, in passing, among many other words about soil and water.", f.now)
		f.save(f.ws, "https://a.test/title", "v", "The borrow checker explained",
			"A guide to the borrow checker: how the borrow checker reasons about lifetimes and references.", f.now)
		f.save(f.ws, "https://a.test/other", "v", "Cooking", "Nothing relevant: pasta, salt, water.", f.now)

		hits := f.search(f.ws, "borrow checker", 10, time.Time{})
		if got := urls(hits); len(got) != 2 || got[0] != "https://a.test/title" || got[1] != "https://a.test/body" {
			t.Fatalf("got %v, want the title match first, then the body match", got)
		}
		if hits[0].Rank <= hits[1].Rank {
			t.Errorf("ranks %v, %v: want the first higher", hits[0].Rank, hits[1].Rank)
		}
		h := hits[0]
		if h.Title != "The borrow checker explained" || !h.FetchedAt.Equal(f.now) {
			t.Errorf("hit = %+v", h)
		}
		if !strings.Contains(strings.ToLower(h.Snippet), "borrow checker") || strings.Contains(h.Snippet, "\n") {
			t.Errorf("snippet %q: want the matching words on one line", h.Snippet)
		}

		// Case does not matter; every word must appear.
		if got := urls(f.search(f.ws, "BORROW Tomatoes", 10, time.Time{})); len(got) != 1 || got[0] != "https://a.test/body" {
			t.Errorf("two words: got %v", got)
		}
		// Quoted words are a phrase.
		if got := f.search(f.ws, `"checker borrow"`, 10, time.Time{}); len(got) != 0 {
			t.Errorf("reversed phrase: got %v, want nothing", urls(got))
		}
		if got := f.search(f.ws, `"borrow checker is mentioned"`, 10, time.Time{}); len(got) != 1 {
			t.Errorf("phrase: got %v, want the body page", urls(got))
		}
		// or accepts either side; -word excludes.
		if got := f.search(f.ws, "pasta or tomatoes", 10, time.Time{}); len(got) != 2 {
			t.Errorf("or: got %v, want two pages", urls(got))
		}
		if got := urls(f.search(f.ws, "water -pasta", 10, time.Time{})); len(got) != 1 || got[0] != "https://a.test/body" {
			t.Errorf("negation: got %v, want the body page", got)
		}
		if got := f.search(f.ws, "-pasta", 10, time.Time{}); len(got) != 0 {
			t.Errorf("only a negation: got %v, want nothing", urls(got))
		}
	})
}

func TestSearchPagesSnippet(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		f := newSearchFixture(t, dialect)
		md := "# Animals\n\n" + strings.Repeat("Filler words about nothing in particular. ", 40) +
			"\n\n## Rodents\n\nThe **capybara** is the largest living `rodent`, native to [South America](https://x.test/sa).\n\n" +
			strings.Repeat("More filler text follows on. ", 40)
		f.save(f.ws, "https://a.test/", "v", "Animals", md, f.now)
		hits := f.search(f.ws, "capybara", 5, time.Time{})
		if len(hits) != 1 {
			t.Fatalf("got %d hits", len(hits))
		}
		s := hits[0].Snippet
		if !strings.Contains(s, "The capybara is the largest living rodent, native to South America.") {
			t.Errorf("snippet %q: want the matching sentence without markdown", s)
		}
		if len(s) > 600 {
			t.Errorf("snippet of %d bytes: want a short one", len(s))
		}
	})
}

func TestSearchPagesWorkspaceIsolation(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		f := newSearchFixture(t, dialect)
		other := f.workspace("other")
		text := "Quarterly results of Zyxwidget Corporation"
		f.save(f.ws, "https://mine.test/", "v", "Zyxwidget", text, f.now)
		f.save(other, "https://theirs.test/", "v", "Zyxwidget", text, f.now)
		f.save(other, "https://mine.test/", "v", "Zyxwidget", text+" secretword", f.now)
		f.save(other, "https://theirs.test/only", "v", "Private", "secretword", f.now)

		hits := f.search(f.ws, "zyxwidget", 20, time.Time{})
		if got := urls(hits); len(got) != 1 || got[0] != "https://mine.test/" {
			t.Fatalf("mine: got %v, want only my page", got)
		}
		if got := f.search(f.ws, "secretword", 20, time.Time{}); len(got) != 0 {
			t.Fatalf("a word only in the other workspace's pages: got %v", urls(got))
		}
		if got := f.search(other, "zyxwidget", 20, time.Time{}); len(got) != 2 {
			t.Fatalf("theirs: got %v, want their two pages", urls(got))
		}
		if got := f.search("no-such-workspace", "zyxwidget", 20, time.Time{}); len(got) != 0 {
			t.Fatalf("unknown workspace: got %v", urls(got))
		}
	})
}

func TestSearchPagesFollowsUpsertsAndDeletes(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		f := newSearchFixture(t, dialect)
		f.save(f.ws, "https://a.test/", "v", "Old heading", "The original aardvark text.", f.now.Add(-time.Hour))
		if got := f.search(f.ws, "aardvark", 10, time.Time{}); len(got) != 1 {
			t.Fatalf("before update: got %v", urls(got))
		}
		f.save(f.ws, "https://a.test/", "v", "New heading", "The rewritten platypus text.", f.now)
		if got := f.search(f.ws, "aardvark", 10, time.Time{}); len(got) != 0 {
			t.Errorf("old text still matches: %v", urls(got))
		}
		if got := f.search(f.ws, "old heading", 10, time.Time{}); len(got) != 0 {
			t.Errorf("old title still matches: %v", urls(got))
		}
		hits := f.search(f.ws, "platypus heading", 10, time.Time{})
		if len(hits) != 1 || hits[0].Title != "New heading" || !hits[0].FetchedAt.Equal(f.now) {
			t.Fatalf("new text: got %+v", hits)
		}

		// A URL kept in two variants is one hit: its newest matching copy.
		f.save(f.ws, "https://a.test/", "w", "Variant heading", "Platypus in another variant.", f.now.Add(time.Minute))
		hits = f.search(f.ws, "platypus", 10, time.Time{})
		if len(hits) != 1 || hits[0].Title != "Variant heading" {
			t.Fatalf("two variants: got %+v, want one hit from the newer copy", hits)
		}

		// Pruned pages leave the index.
		if _, err := f.s.PrunePages(ctx, f.now.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if got := f.search(f.ws, "platypus", 10, time.Time{}); len(got) != 0 {
			t.Fatalf("after prune: got %v", urls(got))
		}
	})
}

func TestSearchPagesHostileQueries(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		f := newSearchFixture(t, dialect)
		f.save(f.ws, "https://a.test/", "v", "Operators (and) punctuation",
			`C++ and "quoted" words: foo-bar, title:value, x*y, café, naïve, 日本語 テキスト, emoji 🚀 rocket; NEAR AND OR NOT.`, f.now)
		queries := []string{
			`"`, `""`, `"unterminated phrase`, `*`, `foo*`, `*foo`, `OR`, `AND`, `NOT`, `NEAR`, `or or or`,
			`-`, `--`, `- -`, `-foo`, `foo -`, `:`, `title:value`, `markdown:foo`, `{title}: foo`, `(`, `)`, `(foo OR`,
			`NEAR(foo bar, 2)`, `^foo`, `foo + bar`, `'`, `\`, `\"`, `%`, `_`, `;DROP TABLE pages;--`,
			`' OR '1'='1`, `$1`, `?`, `@@`, `&`, `|`, `!`, `<->`, `foo <-> bar`, `foo & !bar`,
			"日本語", "café", "🚀", "\x00", "a\x00b", "\xff\xfe", "   ", "",
			strings.Repeat("word ", 2000), strings.Repeat(`"a" OR `, 500), strings.Repeat("(", 500),
		}
		for _, q := range queries {
			if _, err := f.s.SearchPages(ctx, f.ws, q, 10, time.Time{}); err != nil {
				t.Errorf("SearchPages(%.40q): %v", q, err)
			}
		}
		for _, q := range []string{`title:value`, `"quoted"`, `x*y`, `foo-bar`, `C++`, `(punctuation)`,
			`日本語`, `café`, `naïve`, `rocket 🚀`, `near and or not`, `"NEAR" "AND"`} {
			if got := f.search(f.ws, q, 10, time.Time{}); len(got) != 1 {
				t.Errorf("SearchPages(%q) = %v, want the page", q, urls(got))
			}
		}
	})
}

func TestSearchPagesSinceAndLimit(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		f := newSearchFixture(t, dialect)
		for i := range 12 {
			f.save(f.ws, fmt.Sprintf("https://a.test/%d", i), "v", fmt.Sprintf("Page %d", i),
				"Common marmoset facts.", f.now.Add(-time.Duration(i)*time.Hour))
		}
		if got := f.search(f.ws, "marmoset", 3, time.Time{}); len(got) != 3 {
			t.Errorf("limit 3: got %d hits", len(got))
		}
		if got := f.search(f.ws, "marmoset", 0, time.Time{}); len(got) != 10 {
			t.Errorf("limit 0: got %d hits, want the default 10", len(got))
		}
		if got := f.search(f.ws, "marmoset", 1000, time.Time{}); len(got) != 12 {
			t.Errorf("limit 1000: got %d hits, want all 12", len(got))
		}
		hits := f.search(f.ws, "marmoset", 20, f.now.Add(-150*time.Minute))
		if len(hits) != 3 {
			t.Fatalf("since 2.5 h ago: got %v, want pages 0, 1, 2", urls(hits))
		}
		for _, h := range hits {
			if h.FetchedAt.Before(f.now.Add(-150 * time.Minute)) {
				t.Errorf("%s fetched %v, before since", h.URL, h.FetchedAt)
			}
		}
		// Equal relevance: the newest first.
		if hits[0].URL != "https://a.test/0" {
			t.Errorf("equal ranks: got %v first, want the newest", hits[0].URL)
		}
	})
}

// BenchmarkSearchPages measures a search of a common word over 2,000 pages
// of about 3 KB in the searching workspace and as many in another one.
func BenchmarkSearchPages(b *testing.B) {
	words := strings.Fields("the of and page market report revenue quarter growth product customer team data search " +
		"service price annual result company share policy update news press release investor guidance")
	for _, d := range storetest.Dialects {
		b.Run(d, func(b *testing.B) {
			s := storetest.Open(b, d)
			var ws []string
			for _, name := range []string{"mine", "theirs"} {
				w, err := s.CreateWorkspace(ctx, name, 0, false)
				if err != nil {
					b.Fatal(err)
				}
				ws = append(ws, w.ID)
			}
			now := time.Now().UTC()
			for i := range 4000 {
				var md strings.Builder
				for j := range 450 {
					md.WriteString(words[(i*7+j*13+j*j)%len(words)])
					md.WriteByte(' ')
				}
				err := s.SavePage(ctx, &store.Page{WorkspaceID: ws[i%2], URL: fmt.Sprintf("https://s.test/%d", i), Variant: "v",
					Status: 200, Tier: "http", Title: fmt.Sprintf("Report %d", i), Markdown: md.String(), Result: []byte(`{}`),
					FetchedAt: now})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for b.Loop() {
				hits, err := s.SearchPages(ctx, ws[0], "quarter revenue", 10, time.Time{})
				if err != nil || len(hits) != 10 {
					b.Fatalf("%d hits, %v", len(hits), err)
				}
			}
		})
	}
}
