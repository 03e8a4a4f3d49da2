package mcp

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"webacq/internal/primitive"
)

func TestTokens(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		text string
		want int
	}{
		{"", 0}, {"abcd", 1}, {"abcde", 2}, {strings.Repeat("x", 80_000), 20_000},
		{"日本語", 3},                   // 9 bytes: CJK counts its bytes
		{strings.Repeat("é", 10), 5}, // 20 bytes
	} {
		if got := Tokens(c.text); got != c.want {
			t.Errorf("Tokens(%.20q) = %d, want %d", c.text, got, c.want)
		}
	}
}

// capped is a capped result decoded, with its marker.
type capped struct {
	Cut *cutMarker `json:"cut"`
}

func capOf(t *testing.T, tool string, v any, maxTokens int) (string, capped) {
	t.Helper()
	b, err := capResult(tool, v, maxTokens)
	if err != nil {
		t.Fatal(err)
	}
	if Tokens(string(b)) > maxTokens {
		t.Fatalf("%s: %d tokens, cap %d", tool, Tokens(string(b)), maxTokens)
	}
	if !json.Valid(b) || !utf8.Valid(b) {
		t.Fatalf("%s: capped result is not valid JSON in UTF-8", tool)
	}
	var c capped
	json.Unmarshal(b, &c)
	return string(b), c
}

func bigPages(n, size int) []primitive.GyrePage {
	var pages []primitive.GyrePage
	for i := range n {
		pages = append(pages, primitive.GyrePage{URL: fmt.Sprintf("http://127.0.0.1/p%d", i), Title: fmt.Sprint("Page ", i),
			Markdown: strings.Repeat(fmt.Sprintf("Line %d of page %d says \"hello\" <b>.\n", i, i), size/36), StatusCode: 200, Tier: "http"})
	}
	return pages
}

func TestCapKeepsWholePagesInOrder(t *testing.T) {
	t.Parallel()
	res := &primitive.GyreResult{StartURL: "http://127.0.0.1/p0", TotalPages: 30, Pages: bigPages(30, 10_000),
		Errors: []primitive.GyreError{{URL: "http://127.0.0.1/x", Error: "not found", Code: "http_status"}}}
	text, c := capOf(t, "svc_gyre", res, DefaultMaxTokens)
	var got primitive.GyreResult
	json.Unmarshal([]byte(text), &got)
	k := len(got.Pages)
	if k < 5 || k >= 30 || !reflect.DeepEqual(got.Pages, res.Pages[:k]) {
		t.Fatalf("kept %d pages, want the first ones whole", k)
	}
	if got.TotalPages != 30 || len(got.Errors) != 1 || got.StartURL != res.StartURL {
		t.Fatalf("the envelope changed: %+v", got)
	}
	if c.Cut == nil || c.Cut.LeftOut != 30-k || c.Cut.MaxTokens != DefaultMaxTokens || len(c.Cut.TextCut) != 0 {
		t.Fatalf("marker %+v", c.Cut)
	}
	var want []string
	for _, p := range res.Pages[k:] {
		want = append(want, p.URL)
	}
	if !reflect.DeepEqual(c.Cut.URLs, want) || c.Cut.URLsNotListed != 0 {
		t.Fatalf("urls %v, want %v", c.Cut.URLs, want)
	}
	for _, s := range []string{fmt.Sprintf("%d pages left out", 30-k), "svc_fetch", `"async": true`, "POST /api/v1/gyre", "maxTokens"} {
		if !strings.Contains(c.Cut.Message, s) {
			t.Errorf("message %q lacks %q", c.Cut.Message, s)
		}
	}
	if !strings.HasPrefix(text, `{"cut":`) {
		t.Errorf("the marker is not first: %.40s", text)
	}
	if strings.Contains(text, `\u003c`) {
		t.Error("HTML was escaped")
	}

	// More tokens keep more pages; a result under the cap is left whole.
	text2, _ := capOf(t, "svc_gyre", res, 2*DefaultMaxTokens)
	var got2 primitive.GyreResult
	json.Unmarshal([]byte(text2), &got2)
	if len(got2.Pages) <= k {
		t.Fatalf("maxTokens %d kept %d pages, %d kept %d", 2*DefaultMaxTokens, len(got2.Pages), DefaultMaxTokens, k)
	}
	small := &primitive.GyreResult{StartURL: "http://127.0.0.1/", TotalPages: 2, Pages: bigPages(2, 1000)}
	whole, c := capOf(t, "svc_gyre", small, DefaultMaxTokens)
	want0, _ := encodeJSON(small)
	if whole != string(want0) || c.Cut != nil {
		t.Fatal("a result under the cap was changed")
	}
}

func TestCapCutsAPageThatAloneIsTooLarge(t *testing.T) {
	t.Parallel()
	// CJK counts its bytes: 100,000 characters are 300,000 bytes.
	md := strings.Repeat("日本語のテキスト。", 100_000/9)
	res := &primitive.GyreResult{StartURL: "http://127.0.0.1/", TotalPages: 3, Pages: []primitive.GyrePage{
		{URL: "http://127.0.0.1/a", Title: "A", Markdown: md, Tier: "http"}, {URL: "http://127.0.0.1/b", Markdown: "b"},
		{URL: "http://127.0.0.1/c", Markdown: "c"}}}
	text, c := capOf(t, "svc_gyre", res, DefaultMaxTokens)
	var got primitive.GyreResult
	json.Unmarshal([]byte(text), &got)
	if len(got.Pages) != 1 || c.Cut.LeftOut != 2 || len(c.Cut.TextCut) != 1 || c.Cut.TextCut[0].Path != "pages[0].markdown" ||
		!reflect.DeepEqual(c.Cut.URLs, []string{"http://127.0.0.1/b", "http://127.0.0.1/c"}) {
		t.Fatalf("pages %d, marker %+v", len(got.Pages), c.Cut)
	}
	kept, _, ok := strings.Cut(got.Pages[0].Markdown, "\n\n[cut: ")
	if !ok || !strings.HasPrefix(md, kept) || utf8.RuneCountInString(kept)+c.Cut.TextCut[0].CharsLeftOut != utf8.RuneCountInString(md) {
		t.Fatalf("cut page: %d characters kept, %d said left out, of %d", utf8.RuneCountInString(kept), c.Cut.TextCut[0].CharsLeftOut,
			utf8.RuneCountInString(md))
	}
	if Tokens(text) < DefaultMaxTokens*9/10 {
		t.Errorf("only %d tokens used of %d", Tokens(text), DefaultMaxTokens)
	}
}

func TestCapFetchSearchMapExtract(t *testing.T) {
	t.Parallel()
	md, html := strings.Repeat("word ", 60_000), strings.Repeat("<p>x</p>", 30_000)
	links := make([]string, 5000)
	for i := range links {
		links[i] = fmt.Sprintf("http://127.0.0.1/l%d", i)
	}
	page := &primitive.FetchResult{URL: "http://127.0.0.1/", Title: "Big", Markdown: &md, HTML: &html, Links: links, Tier: "http"}
	text, c := capOf(t, "svc_fetch", page, DefaultMaxTokens)
	var got primitive.FetchResult
	json.Unmarshal([]byte(text), &got)
	if got.Title != "Big" || got.Markdown == nil || !strings.Contains(*got.Markdown, "[cut: ") || c.Cut == nil || len(c.Cut.TextCut) == 0 ||
		!strings.Contains(c.Cut.Message, "POST /api/v1/fetch") {
		t.Fatalf("fetch marker %+v", c.Cut)
	}

	var hits []primitive.SearchHit
	for i := range 10 {
		m := strings.Repeat(fmt.Sprintf("result %d ", i), 2000)
		hits = append(hits, primitive.SearchHit{URL: fmt.Sprintf("http://127.0.0.1/r%d", i), Title: "R", Page: &primitive.FetchResult{Markdown: &m}})
	}
	text, c = capOf(t, "svc_search", &primitive.SearchResult{Query: "q", Provider: "local", Results: hits}, DefaultMaxTokens)
	var sr primitive.SearchResult
	json.Unmarshal([]byte(text), &sr)
	if k := len(sr.Results); k == 0 || k == 10 || c.Cut.LeftOut != 10-k || len(c.Cut.URLs) != 10-k || c.Cut.URLs[0] != hits[k].URL {
		t.Fatalf("search kept %d, marker %+v", k, c.Cut)
	}

	var ml []primitive.MapLink
	for _, l := range links {
		ml = append(ml, primitive.MapLink{URL: l + strings.Repeat("/deeper", 20), Source: "page"})
	}
	text, c = capOf(t, "svc_map", &primitive.MapResult{URL: "http://127.0.0.1/", Links: ml, Total: 9000, Returned: 5000}, DefaultMaxTokens)
	var mr primitive.MapResult
	json.Unmarshal([]byte(text), &mr)
	if mr.Returned != len(mr.Links) || !mr.Truncated || mr.Total != 9000 || c.Cut.LeftOut != 5000-len(mr.Links) || len(c.Cut.URLs) != 0 {
		t.Fatalf("map: returned %d of %d links, truncated %v, marker %+v", mr.Returned, len(mr.Links), mr.Truncated, c.Cut)
	}

	var data []map[string]any
	for i := range 3000 {
		data = append(data, map[string]any{"name": fmt.Sprint("item ", i), "description": strings.Repeat("d", 100)})
	}
	text, c = capOf(t, "svc_extract", &primitive.ExtractResult{URL: "http://127.0.0.1/", Found: true, Data: data, Model: "m"}, MinMaxTokens)
	var er primitive.ExtractResult
	json.Unmarshal([]byte(text), &er)
	if len(er.Data) == 0 || c.Cut.LeftOut != 3000-len(er.Data) || !er.Found {
		t.Fatalf("extract kept %d, marker %+v", len(er.Data), c.Cut)
	}
}

// A crawl whose errors alone are over the cap still returns pages first.
func TestCapErrorsGiveWayToPages(t *testing.T) {
	t.Parallel()
	res := &primitive.GyreResult{StartURL: "http://127.0.0.1/", TotalPages: 3, Pages: bigPages(3, 2000)}
	for i := range 5000 {
		res.Errors = append(res.Errors, primitive.GyreError{URL: fmt.Sprintf("http://127.0.0.1/missing/%d", i), Error: "robots.txt disallows it", Code: "robots"})
	}
	text, c := capOf(t, "svc_gyre", res, DefaultMaxTokens)
	var got primitive.GyreResult
	json.Unmarshal([]byte(text), &got)
	if len(got.Pages) != 3 || len(got.Errors) == 0 || len(got.Errors) == 5000 || len(c.Cut.TextCut) != 1 ||
		c.Cut.TextCut[0].Path != "errors" || c.Cut.TextCut[0].ItemsLeftOut != 5000-len(got.Errors) {
		t.Fatalf("pages %d, errors %d, marker %+v", len(got.Pages), len(got.Errors), c.Cut)
	}
}

func TestMaxTokensArgument(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args, rest string
		want       int
		err        string
	}{
		{``, ``, 20_000, ""},
		{`{"url":"u"}`, `{"url":"u"}`, 20_000, ""},
		{`{"url":"u","maxTokens":5000}`, `{"url":"u"}`, 5000, ""},
		{`{"MaxTokens":5000,"url":"u"}`, `{"url":"u"}`, 5000, ""},
		{`{"maxTokens":null,"url":"u"}`, `{"url":"u"}`, 20_000, ""},
		{`{"maxTokens":1.5}`, ``, 0, `field "maxTokens" must be a whole number, not 1.5`},
		{`{"maxTokens":"9"}`, ``, 0, `field "maxTokens" must be a whole number, not a string`},
		{`{"maxTokens":999}`, ``, 0, "maxTokens must be between 1000 and 100000"},
		{`{"maxTokens":100001}`, ``, 0, "maxTokens must be between 1000 and 100000"},
		{`[1]`, `[1]`, 20_000, ""},
	} {
		rest, n, err := takeMaxTokens(json.RawMessage(c.args), DefaultMaxTokens)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want %q", c.args, err, c.err)
			}
			continue
		}
		if err != nil || string(rest) != c.rest || n != c.want {
			t.Errorf("%s: %s %d %v, want %s %d", c.args, rest, n, err, c.rest, c.want)
		}
	}
}

// BenchmarkCapLargeCrawl caps a crawl of 1,000 pages of about 10 KB of
// markdown each (about 10 MB of JSON) to the default:
//
//	go test -run '^$' -bench CapLargeCrawl -benchmem ./internal/mcp
func BenchmarkCapLargeCrawl(b *testing.B) {
	res := &primitive.GyreResult{StartURL: "http://127.0.0.1/p0", TotalPages: 1000, Pages: bigPages(1000, 10_000)}
	for b.Loop() {
		if _, err := capResult("svc_gyre", res, DefaultMaxTokens); err != nil {
			b.Fatal(err)
		}
	}
}

func TestScanner(t *testing.T) {
	t.Parallel()
	doc := ` { "a" : [1, {"b":"}]\"[{"}, -2.5e+3, null] ,"\u00e9\"":"x\\","c":{"d":[[],{}]},"e":true } `
	ms, err := objectInOrder([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	var want map[string]json.RawMessage
	json.Unmarshal([]byte(doc), &want)
	for _, m := range ms {
		keys = append(keys, m.key)
		if string(m.raw) != string(want[m.key]) {
			t.Errorf("%s: %s, want %s", m.key, m.raw, want[m.key])
		}
	}
	if !reflect.DeepEqual(keys, []string{"a", `é"`, "c", "e"}) {
		t.Fatalf("keys %q", keys)
	}
	items, err := arrayItems(ms[0].raw)
	if err != nil || len(items) != 4 || string(items[1]) != `{"b":"}]\"[{"}` || string(items[2]) != "-2.5e+3" {
		t.Fatalf("items %q %v", items, err)
	}
	for _, bad := range []string{``, `{`, `{"a"`, `{"a":`, `{"a":1`, `{"a" 1}`, `[1 2]`, `{"a":"x}`, `{1:2}`} {
		if _, err := objectInOrder([]byte(bad)); err == nil {
			if _, err := arrayItems([]byte(bad)); err == nil {
				t.Errorf("%q: no error", bad)
			}
		}
	}
}

// A page of an async crawl (job_id, pages, next) is capped like a crawl,
// and its marker warns that next may skip the pages left out.
func TestCapAsyncCrawlPage(t *testing.T) {
	t.Parallel()
	job := map[string]any{"job_id": "j1", "status": "completed", "totalPages": 30, "pages": bigPages(30, 10_000), "next": "c30"}
	text, c := capOf(t, "svc_gyre", job, DefaultMaxTokens)
	var got struct{ Pages []primitive.GyrePage }
	json.Unmarshal([]byte(text), &got)
	if len(got.Pages) == 0 || c.Cut.LeftOut != 30-len(got.Pages) || !strings.Contains(c.Cut.Message, "smaller limit") {
		t.Fatalf("kept %d, marker %+v", len(got.Pages), c.Cut)
	}
}
