package monitor_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"webacq/internal/channel/edgar"
	"webacq/internal/channel/wire"
	"webacq/internal/content/contenttest"
	"webacq/internal/model"
	"webacq/internal/monitor"
	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

const secUA = "webacq tests ops@example.com"

// sec is a local EDGAR whose answers a test rewrites.
type sec struct {
	mu    sync.Mutex
	files map[string]string
	uas   map[string]int
	srv   *httptest.Server
}

func newSEC(t *testing.T) *sec {
	s := &sec{files: map[string]string{}, uas: map[string]int{}}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.uas[r.UserAgent()]++
		body, ok := s.files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		etag := fmt.Sprintf(`"%x"`, len(body))
		w.Header().Set("ETag", etag)
		if r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		if strings.HasSuffix(r.URL.Path, ".htm") || strings.HasSuffix(r.URL.Path, ".html") {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
		}
		fmt.Fprint(w, body)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *sec) set(path, body string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.files[path] = body
}

// filing is one row of a submissions JSON.
type filing struct{ acc, date, form, items, doc string }

func submissionsJSON(fs ...filing) string {
	cols := map[string][]string{}
	for _, f := range fs {
		cols["accessionNumber"] = append(cols["accessionNumber"], f.acc)
		cols["filingDate"] = append(cols["filingDate"], f.date)
		cols["acceptanceDateTime"] = append(cols["acceptanceDateTime"], f.date+"T16:30:00.000Z")
		cols["form"] = append(cols["form"], f.form)
		cols["items"] = append(cols["items"], f.items)
		cols["primaryDocument"] = append(cols["primaryDocument"], f.doc)
		cols["primaryDocDescription"] = append(cols["primaryDocDescription"], f.form)
	}
	b, _ := json.Marshal(map[string]any{"cik": "1234567", "name": "ACME CORP", "filings": map[string]any{"recent": cols, "files": []any{}}})
	return string(b)
}

func withEDGAR(t *testing.T, e *env, s *sec) {
	c, err := edgar.New(s.srv.URL, s.srv.URL, secUA)
	if err != nil {
		t.Fatal(err)
	}
	e.svc.EDGAR = c
}

const acmeIndex = `<html><body><table class="tableFile" summary="Document Format Files">
<tr><th>Seq</th><th>Description</th><th>Document</th><th>Type</th><th>Size</th></tr>
<tr><td>1</td><td>8-K</td><td><a href="/ix?doc=/Archives/edgar/data/1234567/000123456726000031/acme-8k.htm">acme-8k.htm</a></td><td>8-K</td><td>1</td></tr>
<tr><td>2</td><td>PRESS RELEASE</td><td><a href="/Archives/edgar/data/1234567/000123456726000031/acme-ex991.htm">acme-ex991.htm</a></td><td>EX-99.1</td><td>1</td></tr>
</table></body></html>`

const acmeExhibit = `<html><body><h1>Acme Corp Reports Third Quarter Results</h1>
<p>Revenue grew to $13.1 million, up 18 percent from a year earlier.</p><p>The board declared a quarterly dividend.</p></body></html>`

// TestEdgarChannel: a new 8-K in the submissions JSON is one changed run
// of channel edgar_8k naming its items, with the exhibit's link and text;
// the same data again is nothing.
func TestEdgarChannel(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect)
		s := newSEC(t)
		withEDGAR(t, e, s)
		rcv := &receiver{}
		hook := httptest.NewServer(rcv)
		defer hook.Close()
		withWebhook(t, e, hook.URL, "0123456789abcdef0123")
		s.set("/files/company_tickers.json", `{"0":{"cik_str":1234567,"ticker":"ACME","title":"ACME CORP"}}`)
		old := filing{"0001234567-26-000012", "2026-08-01", "8-K", "2.02,9.01", "acme-q2.htm"}
		s.set("/submissions/CIK0001234567.json", submissionsJSON(old))
		site := newSite(t)
		site.set("/ir", press("x", releasesList, "1"))
		id := e.register(t, monitor.RegisterRequest{URL: site.url("/ir"), Channels: []string{model.ChannelEdgar8K},
			Company: &model.Company{Ticker: "acme"}, DiscoveryKeywords: []string{"results"}})

		r := e.runs(t, id, 1)[0]
		if r.Outcome != model.OutcomeAnchored || r.Channel != model.ChannelEdgar8K || r.Credits != 1 ||
			!strings.Contains(r.ContentPreview, "Item 2.02 Results of Operations and Financial Condition") {
			t.Fatalf("first run %+v", r)
		}
		if n := site.hits["/ir"]; n != 0 {
			t.Errorf("a monitor of only edgar_8k fetched its page %d times", n)
		}
		if r := e.check(t, id); r.Outcome != model.OutcomeUnchanged || r.StatusCode != 304 {
			t.Errorf("same submissions: %s %d", r.Outcome, r.StatusCode)
		}

		s.set("/Archives/edgar/data/1234567/000123456726000031/0001234567-26-000031-index.html", acmeIndex)
		s.set("/Archives/edgar/data/1234567/000123456726000031/acme-ex991.htm", acmeExhibit)
		fresh := filing{"0001234567-26-000031", "2026-11-05", "8-K", "2.02,9.01", "acme-8k.htm"}
		s.set("/submissions/CIK0001234567.json", submissionsJSON(fresh, old))
		r = e.check(t, id)
		if r.Outcome != model.OutcomeChanged || r.Channel != model.ChannelEdgar8K || len(r.ChangeSignal) != 1 {
			t.Fatalf("new 8-K: %+v", r)
		}
		if to := *r.ChangeSignal[0].To; !strings.Contains(to, "Item 2.02 Results of Operations and Financial Condition") ||
			!strings.Contains(to, "Item 9.01 Financial Statements and Exhibits") {
			t.Errorf("signal %q", to)
		}
		wantLinks := []string{s.srv.URL + "/Archives/edgar/data/1234567/000123456726000031/acme-8k.htm",
			s.srv.URL + "/Archives/edgar/data/1234567/000123456726000031/acme-ex991.htm"}
		if strings.Join(r.PDFLinks, " ") != strings.Join(wantLinks, " ") {
			t.Errorf("links %v, want %v", r.PDFLinks, wantLinks)
		}
		if !strings.Contains(r.ContentPreview, "Revenue grew to $13.1 million") {
			t.Errorf("preview %q", r.ContentPreview)
		}
		p := webhookOf(t, e, r)
		if p == nil || p["channel"] != model.ChannelEdgar8K || p["outcome"] != "changed" {
			t.Errorf("webhook %v", p)
		}
		// The same data again: nothing.
		if r := e.check(t, id); r.Outcome != model.OutcomeUnchanged {
			t.Errorf("again: %s", r.Outcome)
		}
		s.mu.Lock()
		for ua := range s.uas {
			if ua != secUA {
				t.Errorf("a request to EDGAR with User-Agent %q", ua)
			}
		}
		s.mu.Unlock()
	})
}

// TestEachChannelAnchorsSeparately: the page and EDGAR give a run each per
// check; a change on one is that channel's alone.
func TestEachChannelAnchorsSeparately(t *testing.T) {
	t.Parallel()
	e := newEnv(t, store.SQLite)
	s := newSEC(t)
	withEDGAR(t, e, s)
	s.set("/submissions/CIK0001234567.json", submissionsJSON(filing{"0001234567-26-000012", "2026-08-01", "8-K", "8.01", "a.htm"}))
	site := newSite(t)
	// The page links to its EDGAR filer: the company is found there.
	site.set("/ir", press("x", releasesList+`<p><a href="https://www.sec.gov/cgi-bin/browse-edgar?action=getcompany&CIK=0001234567">SEC filings</a></p>`, "1"))
	id := e.register(t, monitor.RegisterRequest{URL: site.url("/ir"), Channels: []string{model.ChannelIRPage, model.ChannelEdgar8K}})
	rs := e.runs(t, id, 2)
	byChannel := map[string]*model.Run{}
	for _, r := range rs {
		byChannel[r.Channel] = r
	}
	if byChannel["ir_page"].Outcome != model.OutcomeAnchored || byChannel["edgar_8k"].Outcome != model.OutcomeAnchored {
		t.Fatalf("first check: %+v", rs)
	}
	site.set("/ir", press("x", strings.Replace(releasesList, `<ul class="releases">`,
		`<ul class="releases"><li><a href="/pr/q3.html">Acme reports third quarter results</a></li>`, 1), "1"))
	if _, err := e.svc.CheckNow(context.Background(), e.p, id); err != nil {
		t.Fatal(err)
	}
	rs = e.runs(t, id, 4)[:2]
	byChannel = map[string]*model.Run{}
	for _, r := range rs {
		byChannel[r.Channel] = r
	}
	if byChannel["ir_page"] == nil || byChannel["ir_page"].Outcome != model.OutcomeChanged ||
		byChannel["edgar_8k"] == nil || byChannel["edgar_8k"].Outcome != model.OutcomeUnchanged {
		t.Fatalf("second check: %+v", rs)
	}
	m, _ := e.svc.Get(context.Background(), e.p, id)
	if m.LastOutcome != model.OutcomeChanged {
		t.Errorf("monitor last outcome %s", m.LastOutcome)
	}
}

func rssFeed(items ...string) string {
	return `<?xml version="1.0"?><rss version="2.0"><channel><title>Business Wire</title>` + strings.Join(items, "") + `</channel></rss>`
}

func rssItem(id, title, date, desc string) string {
	return fmt.Sprintf(`<item><title>%s</title><link>https://www.businesswire.com/news/home/%s/en/</link><guid>%s</guid>
<pubDate>%s</pubDate><description><![CDATA[<p>%s</p>]]></description></item>`, title, id, id, date, desc)
}

// TestWireChannel: a new release about the company that carries a keyword
// alerts; others do not; a broken feed is a run error that loses nothing.
func TestWireChannel(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect)
		var mu sync.Mutex
		feed := rssFeed(rssItem("1", "Acme Corp Reports Second Quarter Results", "Sat, 01 Aug 2026 12:00:00 +0000", "Acme results."))
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprint(w, feed)
		}))
		defer srv.Close()
		setFeed := func(f string) { mu.Lock(); feed = f; mu.Unlock() }
		e.svc.Wire = wire.NewClient("webacq-test")
		e.svc.WireFeeds = map[string]string{model.ChannelBusinessWire: srv.URL + "/rss"}
		site := newSite(t)
		id := e.register(t, monitor.RegisterRequest{URL: site.url("/ir"), Channels: []string{model.ChannelBusinessWire},
			Company: &model.Company{Name: "Acme Corp"}, DiscoveryKeywords: []string{"results", "dividend"}})
		if r := e.runs(t, id, 1)[0]; r.Outcome != model.OutcomeAnchored || r.Channel != model.ChannelBusinessWire {
			t.Fatalf("first run %+v", r)
		}
		old := rssItem("1", "Acme Corp Reports Second Quarter Results", "Sat, 01 Aug 2026 12:00:00 +0000", "Acme results.")
		other := rssItem("2", "Other Inc Reports Results", "Mon, 02 Nov 2026 12:00:00 +0000", "Other results.")
		noKeyword := rssItem("3", "Acme Corp Opens a Plant", "Tue, 03 Nov 2026 12:00:00 +0000", "A new plant.")
		setFeed(rssFeed(other, noKeyword, old))
		if r := e.check(t, id); r.Outcome != model.OutcomeUnchanged {
			t.Errorf("releases of others or without keywords: %s %v", r.Outcome, r.ChangeSignal)
		}
		// A broken feed: a run error, and the next good answer still
		// reports what is new.
		setFeed(`<rss><channel><item><title>Acme Corp Declares Dividend`)
		if r := e.check(t, id); r.Outcome != model.OutcomeError || !strings.Contains(r.Error, "upstream_error") {
			t.Errorf("broken feed: %s %q", r.Outcome, r.Error)
		}
		dividend := rssItem("4", "Acme Corp Declares Quarterly Dividend", "Thu, 05 Nov 2026 12:00:00 +0000", "A dividend of $0.25.")
		setFeed(rssFeed(dividend, other, noKeyword, old))
		r := e.check(t, id)
		if r.Outcome != model.OutcomeChanged || len(r.ChangeSignal) != 1 || !strings.Contains(*r.ChangeSignal[0].To, "Declares Quarterly Dividend") ||
			!strings.Contains(r.ContentPreview, "$0.25") {
			t.Fatalf("dividend: %+v", r)
		}
		if r := e.check(t, id); r.Outcome != model.OutcomeUnchanged {
			t.Errorf("again: %s", r.Outcome)
		}
	})
}

func TestChannelRegistrationRules(t *testing.T) {
	t.Parallel()
	e := newEnv(t, store.SQLite)
	ctx := context.Background()
	for _, c := range []struct {
		req  monitor.RegisterRequest
		want string
	}{
		{monitor.RegisterRequest{URL: "http://127.0.0.1:1/a", Channels: []string{"edgar_8k"}}, "WEBACQ_SEC_USER_AGENT"},
		{monitor.RegisterRequest{URL: "http://127.0.0.1:1/b", Channels: []string{"businesswire"}, Company: &model.Company{Name: "Acme"}},
			"WEBACQ_BUSINESSWIRE_FEED_URL"},
	} {
		if _, err := e.svc.Register(ctx, e.p, c.req); model.ErrorCode(err) != model.CodeBadRequest || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want bad_request naming %s", c.req.Channels, err, c.want)
		}
	}
	e.svc.WireFeeds = map[string]string{model.ChannelGlobeNewswire: "http://127.0.0.1:1/feed"}
	if _, err := e.svc.Register(ctx, e.p, monitor.RegisterRequest{URL: "http://127.0.0.1:1/c",
		Channels: []string{"globenewswire"}}); model.ErrorCode(err) != model.CodeBadRequest || !strings.Contains(err.Error(), "company.name") {
		t.Errorf("wire without a company: %v", err)
	}
}

// TestDirectPDFComparesText: a re-saved PDF with the same text is
// unchanged; a changed line is the change.
func TestDirectPDFComparesText(t *testing.T) {
	t.Parallel()
	e := newEnv(t, store.SQLite)
	site := newSite(t)
	lines := [][]string{{"Acme Corp quarterly report"}, {"Revenue 12.4 million"}, {"Dividend 0.20 per share"}}
	site.set("/q3.pdf", string(contenttest.PDF("Report", lines)))
	id := e.register(t, monitor.RegisterRequest{URL: site.url("/q3.pdf"), Channels: []string{model.ChannelDirectPDF}})
	if r := e.runs(t, id, 1)[0]; r.Outcome != model.OutcomeAnchored {
		t.Fatalf("first run %+v", r)
	}
	site.set("/q3.pdf", string(contenttest.PDF("Report (re-saved)", lines)))
	if r := e.check(t, id); r.Outcome != model.OutcomeUnchanged {
		t.Errorf("re-saved PDF: %s %v", r.Outcome, r.ChangeSignal)
	}
	lines[2] = []string{"Dividend 0.25 per share"}
	site.set("/q3.pdf", string(contenttest.PDF("Report", lines)))
	r := e.check(t, id)
	if r.Outcome != model.OutcomeChanged || len(r.ChangeSignal) == 0 || r.ChangeSignal[0].To == nil ||
		!strings.Contains(*r.ChangeSignal[0].To, "0.25") {
		t.Errorf("changed line: %s %+v", r.Outcome, r.ChangeSignal)
	}
}

// TestRealEDGARSubmissions replays the recorded Apple submissions JSON of
// the shared corpus when it is there: without its newest 8-K, then whole.
func TestRealEDGARSubmissions(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "corpus", "edgar-feeds", "submissions", "CIK0000320193.json"))
	if err != nil {
		t.Skipf("no corpus: %v", err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	recent := doc["filings"].(map[string]any)["recent"].(map[string]any)
	forms := recent["form"].([]any)
	newest := -1
	for i, f := range forms {
		if f == "8-K" {
			newest = i
			break
		}
	}
	without := map[string]any{}
	for k, v := range recent {
		col := v.([]any)
		without[k] = append(append([]any{}, col[:newest]...), col[newest+1:]...)
	}
	doc["filings"].(map[string]any)["recent"] = without
	older, _ := json.Marshal(doc)

	e := newEnv(t, store.SQLite)
	s := newSEC(t)
	withEDGAR(t, e, s)
	s.set("/submissions/CIK0000320193.json", string(older))
	site := newSite(t)
	id := e.register(t, monitor.RegisterRequest{URL: site.url("/ir"), Channels: []string{model.ChannelEdgar8K},
		Company: &model.Company{CIK: "320193"}})
	if r := e.runs(t, id, 1)[0]; r.Outcome != model.OutcomeAnchored {
		t.Fatalf("first run %+v", r)
	}
	s.set("/submissions/CIK0000320193.json", string(raw))
	r := e.check(t, id)
	acc := recent["accessionNumber"].([]any)[newest].(string)
	if r.Outcome != model.OutcomeChanged || len(r.ChangeSignal) != 1 || !strings.Contains(*r.ChangeSignal[0].To, acc) ||
		!strings.Contains(*r.ChangeSignal[0].To, "Item 2.02 Results of Operations and Financial Condition") {
		t.Fatalf("newest 8-K: %+v", r)
	}
	if r := e.check(t, id); r.Outcome != model.OutcomeUnchanged {
		t.Errorf("again: %s", r.Outcome)
	}
}
