package store_test

import (
	"testing"
	"time"

	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

func TestSavePageKeepsBetterCopy(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		f := newSearchFixture(t, dialect)
		const u = "https://a.test/report"
		save := func(quality int, markdown string, at time.Time) {
			t.Helper()
			err := f.s.SavePage(ctx, &store.Page{WorkspaceID: f.ws, URL: u, Variant: "v", FinalURL: u, Status: 200,
				Tier: "http", Title: "Report", ContentHash: markdown, Markdown: markdown, Result: []byte(`{}`),
				FetchedAt: at, Quality: quality})
			if err != nil {
				t.Fatal(err)
			}
		}
		stored := func() string {
			t.Helper()
			p, err := f.s.FreshPage(ctx, f.ws, u, "v", time.Time{})
			if err != nil || p == nil {
				t.Fatalf("FreshPage: %v, %v", p, err)
			}
			return p.Markdown
		}

		save(8, "The good copy about walruses.", f.now.Add(-2*time.Hour))
		save(4, "A thin copy about narwhals.", f.now.Add(-time.Hour))
		if got := stored(); got != "The good copy about walruses." {
			t.Errorf("after a worse copy: stored %q, want the better one", got)
		}
		if got := f.search(f.ws, "narwhals", 10, time.Time{}); len(got) != 0 {
			t.Errorf("the worse copy is in the index: %v", urls(got))
		}
		if got := f.search(f.ws, "walruses", 10, time.Time{}); len(got) != 1 {
			t.Errorf("the better copy left the index: %v", urls(got))
		}

		// A copy as good replaces it: the latest wins among equals.
		save(8, "A fresh good copy about belugas.", f.now)
		if got := stored(); got != "A fresh good copy about belugas." {
			t.Errorf("after an equal copy: stored %q, want the latest", got)
		}
		if got := f.search(f.ws, "walruses", 10, time.Time{}); len(got) != 0 {
			t.Errorf("the replaced copy is still in the index: %v", urls(got))
		}
		save(9, "A better copy about orcas.", f.now)
		if got := stored(); got != "A better copy about orcas." {
			t.Errorf("after a better copy: stored %q", got)
		}
	})
}

func TestSearchPagesOnePagePerKey(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		f := newSearchFixture(t, dialect)
		save := func(url, final, key string, quality int, markdown string, at time.Time) {
			t.Helper()
			err := f.s.SavePage(ctx, &store.Page{WorkspaceID: f.ws, URL: url, Variant: "v", FinalURL: final, Key: key,
				Status: 200, Tier: "http", Title: "Capybara", ContentHash: "h", Markdown: markdown, Result: []byte(`{}`),
				FetchedAt: at, Quality: quality})
			if err != nil {
				t.Fatal(err)
			}
		}
		// /old redirects to /new: two rows, one page, shown at its final URL.
		save("https://a.test/old", "https://a.test/new", "k-new", 8, "Capybara facts, the full article.", f.now.Add(-time.Hour))
		save("https://a.test/new", "https://a.test/new", "k-new", 4, "Capybara facts, thin.", f.now)
		hits := f.search(f.ws, "capybara", 10, time.Time{})
		if len(hits) != 1 || hits[0].URL != "https://a.test/new" {
			t.Fatalf("got %v, want one hit at the final URL", urls(hits))
		}
		// The better copy stands for the page, though older.
		if !hits[0].FetchedAt.Equal(f.now.Add(-time.Hour)) {
			t.Errorf("hit from the copy fetched %v, want the better one", hits[0].FetchedAt)
		}

		// Without a key, the final URL is the page.
		save("http://b.test/a", "http://b.test/c", "", 8, "Capybara elsewhere.", f.now)
		save("http://b.test/b", "http://b.test/c", "", 8, "Capybara elsewhere.", f.now)
		if got := urls(f.search(f.ws, "capybara elsewhere", 10, time.Time{})); len(got) != 1 || got[0] != "http://b.test/c" {
			t.Errorf("same final URL: got %v, want one hit", got)
		}
	})
}

func TestSearchPagesLeavesOutErrorStatuses(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		f := newSearchFixture(t, dialect)
		for _, status := range []int{200, 204, 301, 399, 400, 401, 404, 410, 451, 500} {
			u := "https://a.test/" + time.Duration(status).String()
			err := f.s.SavePage(ctx, &store.Page{WorkspaceID: f.ws, URL: u, Variant: "v", FinalURL: u, Status: status,
				Tier: "http", Title: "Status page", ContentHash: "h", Markdown: "The page of the ocelot.",
				Result: []byte(`{}`), FetchedAt: f.now})
			if err != nil {
				t.Fatal(err)
			}
		}
		if got := f.search(f.ws, "ocelot", 20, time.Time{}); len(got) != 4 {
			t.Errorf("got %v, want the 4 pages under status 400", urls(got))
		}
	})
}
