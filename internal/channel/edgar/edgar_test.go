package edgar_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"webacq/internal/channel/edgar"
	"webacq/internal/model"
)

const ua = "webacq tests ops@example.com"

// sec is a local EDGAR: files by path, with ETags, and the User-Agents seen.
type sec struct {
	mu    sync.Mutex
	files map[string]string
	etag  map[string]string
	uas   []string
	srv   *httptest.Server
}

func newSEC(t *testing.T, files map[string]string) *sec {
	s := &sec{files: files, etag: map[string]string{}}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.uas = append(s.uas, r.UserAgent())
		body, ok := s.files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if tag := s.etag[r.URL.Path]; tag != "" {
			w.Header().Set("ETag", tag)
			if r.Header.Get("If-None-Match") == tag {
				w.WriteHeader(http.StatusNotModified)
				return
			}
		}
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *sec) client(t *testing.T) *edgar.Client {
	c, err := edgar.New(s.srv.URL, s.srv.URL, ua)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

const tickers = `{"0":{"cik_str":320193,"ticker":"AAPL","title":"Apple Inc."},"1":{"cik_str":789019,"ticker":"MSFT","title":"MICROSOFT CORP"},
"2":{"cik_str":1045810,"ticker":"NVDA","title":"NVIDIA CORP"},"3":{"cik_str":1045810,"ticker":"NVDA-X","title":"NVIDIA CORP"}}`

const submissions = `{"cik":"320193","name":"Apple Inc.","filings":{"recent":{
"accessionNumber":["0000320193-23-000077","0000320193-23-000075","0000320193-23-000064","bogus"],
"filingDate":["2023-08-04","2023-08-03","2023-05-04","2023-01-01"],
"acceptanceDateTime":["2023-08-04T18:03:16.000Z","2023-08-03T16:30:21.000Z","2023-05-04T16:30:20.000Z",""],
"form":["10-Q","8-K","8-K","8-K"],
"items":["","2.02,9.01","2.02,9.01",""],
"primaryDocument":["aapl-20230701.htm","aapl-20230803.htm","aapl-20230504.htm","x.htm"],
"primaryDocDescription":["10-Q","8-K","8-K","8-K"]},"files":[]}}`

const index = `<html><body><table class="tableFile" summary="Document Format Files">
<tr><th>Seq</th><th>Description</th><th>Document</th><th>Type</th><th>Size</th></tr>
<tr><td>1</td><td>8-K</td><td><a href="/ix?doc=/Archives/edgar/data/320193/000032019323000075/aapl-20230803.htm">aapl-20230803.htm</a> iXBRL</td><td>8-K</td><td>31103</td></tr>
<tr><td>2</td><td>PRESS RELEASE</td><td><a href="/Archives/edgar/data/320193/000032019323000075/a8-kex991q3202307012023.htm">a8-kex991q3202307012023.htm</a></td><td>EX-99.1</td><td>15048</td></tr>
<tr><td>3</td><td>GRAPHIC</td><td><a href="/Archives/edgar/data/320193/000032019323000075/logo.jpg">logo.jpg</a></td><td>GRAPHIC</td><td>1</td></tr>
</table></body></html>`

func TestNewNeedsAContact(t *testing.T) {
	for _, u := range []string{"", "  ", "webacq"} {
		if _, err := edgar.New("", "", u); err == nil || !strings.Contains(err.Error(), "WEBACQ_SEC_USER_AGENT") {
			t.Errorf("User-Agent %q: %v", u, err)
		}
	}
	if _, err := edgar.New("ftp://x", "", ua); err == nil {
		t.Error("ftp base accepted")
	}
	c, err := edgar.New("", "", ua)
	if err != nil || c.DataURL != edgar.DefaultDataURL || c.WWWURL != edgar.DefaultWWWURL {
		t.Errorf("defaults: %+v %v", c, err)
	}
}

func TestResolve(t *testing.T) {
	s := newSEC(t, map[string]string{"/files/company_tickers.json": tickers})
	c := s.client(t)
	ctx := context.Background()
	for _, tc := range []struct {
		co    *model.Company
		links []string
		cik   string
	}{
		{&model.Company{CIK: "320193"}, nil, "0000320193"},
		{&model.Company{Ticker: "msft"}, nil, "0000789019"},
		{&model.Company{Name: "Apple, Inc"}, nil, "0000320193"},
		{&model.Company{Name: "nvidia corporation"}, nil, "0001045810"},
		{nil, []string{"https://example.com/x", "https://www.sec.gov/cgi-bin/browse-edgar?action=getcompany&CIK=0000320193&type=8-K"}, "0000320193"},
		{nil, []string{"https://www.sec.gov/Archives/edgar/data/1045810/000104581026000024/nvda-20260302.htm"}, "0001045810"},
	} {
		co, err := c.Resolve(ctx, tc.co, tc.links)
		if err != nil || co.CIK != tc.cik {
			t.Errorf("%+v %v: %+v %v, want %s", tc.co, tc.links, co, err, tc.cik)
		}
	}
	for _, tc := range []struct {
		co    *model.Company
		links []string
	}{
		{&model.Company{CIK: "12345678901"}, nil},
		{&model.Company{Ticker: "NOPE"}, nil},
		{nil, []string{"https://evil.example/edgar/data/320193/"}},
		{nil, nil},
	} {
		if _, err := c.Resolve(ctx, tc.co, tc.links); model.ErrorCode(err) != model.CodeBadRequest {
			t.Errorf("%+v %v: %v, want bad_request", tc.co, tc.links, err)
		}
	}
	for _, got := range s.uas {
		if got != ua {
			t.Errorf("User-Agent %q", got)
		}
	}
}

func TestFilingsAndDocuments(t *testing.T) {
	s := newSEC(t, map[string]string{
		"/submissions/CIK0000320193.json":                                                submissions,
		"/Archives/edgar/data/320193/000032019323000075/0000320193-23-000075-index.html": index,
		"/Archives/edgar/data/320193/000032019323000064/index.json": `{"directory":{"item":[{"name":"aapl-20230504.htm"},
			{"name":"a8-kex991q2202304012023.htm"},{"name":"ex99-2_001.jpg"},{"name":"FilingSummary.xml"}]}}`,
	})
	s.etag["/submissions/CIK0000320193.json"] = `"v1"`
	c := s.client(t)
	ctx := context.Background()
	sub, err := c.Filings(ctx, "320193", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if sub.Name != "Apple Inc." || sub.ETag != `"v1"` || len(sub.Filings) != 2 {
		t.Fatalf("submissions %+v", sub)
	}
	f := sub.Filings[0]
	if f.Accession != "0000320193-23-000075" || f.Form != "8-K" || strings.Join(f.Items, ",") != "2.02,9.01" ||
		f.PrimaryDoc != s.srv.URL+"/Archives/edgar/data/320193/000032019323000075/aapl-20230803.htm" || f.AcceptedAt.IsZero() {
		t.Errorf("filing %+v", f)
	}
	if got := edgar.ItemName("2.02"); got != "Item 2.02 Results of Operations and Financial Condition" {
		t.Errorf("item name %q", got)
	}
	// The same answer again is a 304.
	again, err := c.Filings(ctx, "320193", sub.ETag, "")
	if err != nil || !again.NotModified || len(again.Filings) != 0 {
		t.Errorf("conditional: %+v %v", again, err)
	}

	docs, err := c.Documents(ctx, f)
	if err != nil || len(docs) != 2 || docs[0].Type != "8-K" || docs[1].Type != "EX-99.1" ||
		docs[0].URL != s.srv.URL+"/Archives/edgar/data/320193/000032019323000075/aapl-20230803.htm" || docs[1].Name != "PRESS RELEASE" {
		t.Errorf("documents %+v %v", docs, err)
	}
	// No index page: the folder listing, exhibits known by their names.
	docs, err = c.Documents(ctx, sub.Filings[1])
	if err != nil || len(docs) != 2 || !strings.HasSuffix(docs[1].URL, "/a8-kex991q2202304012023.htm") {
		t.Errorf("documents from index.json %+v %v", docs, err)
	}
}

func TestHostileAnswers(t *testing.T) {
	huge := `{"cik":"1","name":"x","filings":{"recent":{"accessionNumber":[` + strings.Repeat(`"0000000001-23-000001",`, 2<<20) + `"x"]}}}`
	s := newSEC(t, map[string]string{
		"/submissions/CIK0000000001.json": huge,
		"/submissions/CIK0000000002.json": `{"filings":{"recent":{"accessionNumber":["0000000002-23-000001"],"form":[]}}}`,
		"/submissions/CIK0000000003.json": `{"filings":`,
		"/files/company_tickers.json":     `[1,2,3]`,
	})
	c := s.client(t)
	ctx := context.Background()
	for _, cik := range []string{"1", "2", "3", "4"} {
		if _, err := c.Filings(ctx, cik, "", ""); err == nil {
			t.Errorf("CIK %s: no error", cik)
		}
	}
	if _, err := c.Resolve(ctx, &model.Company{Ticker: "AAPL"}, nil); model.ErrorCode(err) != model.CodeUpstreamError {
		t.Errorf("broken ticker map: %v", err)
	}
}

// TestRealEDGARResponses replays the recorded SEC answers of the shared
// corpus when it is there (a fresh clone has no ../shared).
func TestRealEDGARResponses(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "..", "shared", "corpus", "edgar-feeds")
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Skipf("no corpus: %v", err)
		}
		return string(b)
	}
	s := newSEC(t, map[string]string{
		"/submissions/CIK0000320193.json": read("submissions/CIK0000320193.json"),
		"/files/company_tickers.json":     read("tickers/company_tickers.json"),
		"/Archives/edgar/data/1045810/000104581026000024/0001045810-26-000024-index.html": read("index/0001045810-26-000024-index.html"),
		"/Archives/edgar/data/1648960/000121390024004875/index.json":                      read("index/0001213900-24-004875-index.json"),
	})
	c := s.client(t)
	ctx := context.Background()
	co, err := c.Resolve(ctx, &model.Company{Ticker: "AAPL"}, nil)
	if err != nil || co.CIK != "0000320193" {
		t.Fatalf("AAPL: %+v %v", co, err)
	}
	sub, err := c.Filings(ctx, co.CIK, "", "")
	if err != nil {
		t.Fatal(err)
	}
	// 108 8-Ks and one 8-K/A; the newest 8-K is Q3 2023's results.
	if len(sub.Filings) != 109 || sub.Filings[0].Accession != "0000320193-23-000075" {
		t.Errorf("%d 8-Ks, newest %+v", len(sub.Filings), sub.Filings[0])
	}
	docs, err := c.Documents(ctx, edgar.Filing{Form: "8-K",
		IndexURL: s.srv.URL + "/Archives/edgar/data/1045810/000104581026000024/0001045810-26-000024-index.html"})
	if err != nil || len(docs) != 1 || !strings.HasSuffix(docs[0].URL, "/nvda-20260302.htm") {
		t.Errorf("NVIDIA index: %+v %v", docs, err)
	}
	docs, err = c.Documents(ctx, edgar.Filing{Form: "8-K", PrimaryDoc: s.srv.URL + "/Archives/edgar/data/1648960/000121390024004875/ea191807-8k_datchat.htm",
		IndexURL: s.srv.URL + "/Archives/edgar/data/1648960/000121390024004875/0001213900-24-004875-index.html"})
	if err != nil || len(docs) != 4 {
		t.Errorf("DatChat folder: %+v %v", docs, err)
	}
}

// TestReserveBalanced: every answer read takes the budget through Reserve
// and gives all of it back once the call returns, on success, on a 304,
// on a 404 and on answers that do not decode.
func TestReserveBalanced(t *testing.T) {
	s := newSEC(t, map[string]string{
		"/submissions/CIK0000320193.json":                                                submissions,
		"/submissions/CIK0000000003.json":                                                `{"filings":`,
		"/Archives/edgar/data/320193/000032019323000075/0000320193-23-000075-index.html": index,
		"/files/company_tickers.json":                                                    tickers,
	})
	s.etag["/submissions/CIK0000320193.json"] = `"v1"`
	c := s.client(t)
	var mu sync.Mutex
	var held, taken int64
	c.Reserve = func(_ context.Context, n int64) (func(), error) {
		mu.Lock()
		held += n
		taken++
		mu.Unlock()
		var once sync.Once
		return func() {
			once.Do(func() {
				mu.Lock()
				held -= n
				mu.Unlock()
			})
		}, nil
	}
	check := func(what string) {
		t.Helper()
		mu.Lock()
		defer mu.Unlock()
		if held != 0 {
			t.Errorf("%s: %d bytes of the budget still held", what, held)
		}
	}
	ctx := context.Background()
	sub, err := c.Filings(ctx, "320193", "", "")
	if err != nil {
		t.Fatal(err)
	}
	check("filings")
	if _, err := c.Filings(ctx, "320193", sub.ETag, ""); err != nil {
		t.Fatal(err)
	}
	check("304")
	if _, err := c.Filings(ctx, "3", "", ""); err == nil {
		t.Error("truncated submissions: no error")
	}
	check("broken JSON")
	if _, err := c.Filings(ctx, "4", "", ""); err == nil {
		t.Error("missing submissions: no error")
	}
	check("404")
	if _, err := c.Documents(ctx, sub.Filings[0]); err != nil {
		t.Fatal(err)
	}
	check("documents")
	if _, err := c.Documents(ctx, sub.Filings[1]); err == nil {
		t.Error("no index page nor index.json: no error")
	}
	check("documents 404")
	if _, err := c.Resolve(ctx, &model.Company{Ticker: "AAPL"}, nil); err != nil {
		t.Fatal(err)
	}
	check("tickers")
	mu.Lock()
	defer mu.Unlock()
	if taken < 4 {
		t.Errorf("Reserve called %d times, want one per answer read", taken)
	}
}
