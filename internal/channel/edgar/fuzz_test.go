package edgar

import (
	"bytes"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzEdgarIndex: parseIndex of any page is deterministic, lists at most
// one document per four <td> of the page, each of type 8-K, 8-K/A or
// EX-99…, with an http(s) URL with a host and a trimmed description of at most three
// bytes per byte of the page (a NUL becomes U+FFFD).
func FuzzEdgarIndex(f *testing.F) {
	f.Add([]byte(indexSeed))
	for _, seed := range []string{
		"",
		"<table><tr><td>1<td>x<td><a href=/a.htm>a</a><td>EX-99.1</table>",
		`<tr><td>1</td><td>d</td><td><a href="/ix?doc=/Archives/x.htm">x</a></td><td>8-k</td></tr>`,
		`<table><tr><td>1</td><td>d</td><td><a href="javascript:alert(1)">x</a></td><td>8-K</td></tr></table>`,
		`<table><tr><td></td><td></td><td><a href="%zz">x</a></td><td>EX-99</td></tr></table>`,
		"<table>" + strings.Repeat("<tr><td><td><td><a href=x><td>ex-99", 50) + "</table>",
		"<table>" + strings.Repeat("<table><tr><td>", 300) + "</table>",
		"<a href=/a>" + strings.Repeat("<b><i><a href=/b><td>", 40),
	} {
		f.Add([]byte(seed))
	}
	const base = "https://www.sec.gov/Archives/edgar/data/1/000000000123000001/0000000001-23-000001-index.html"
	f.Fuzz(func(t *testing.T, body []byte) {
		docs := parseIndex(body, base)
		if again := parseIndex(body, base); !reflect.DeepEqual(docs, again) {
			t.Fatalf("not deterministic: %+v then %+v", docs, again)
		}
		if n := bytes.Count(bytes.ToLower(body), []byte("<td")) / 4; len(docs) > n {
			t.Fatalf("%d documents from %d cells", len(docs), 4*n)
		}
		for _, d := range docs {
			if d.Type != "8-K" && d.Type != "8-K/A" && !strings.HasPrefix(d.Type, "EX-99") {
				t.Fatalf("document of type %q", d.Type)
			}
			if u, err := url.Parse(d.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				t.Fatalf("document URL %q is not an http(s) URL with a host: %v", d.URL, err)
			}
			if len(d.Name) > 3*len(body) || d.Name != strings.TrimSpace(d.Name) {
				t.Fatalf("description %q from a page of %d bytes", d.Name, len(body))
			}
		}
	})
}

// FuzzEdgarJSON feeds the same bytes to the three JSON readers of EDGAR's
// answers. Each is deterministic and keeps what it promises: 8-K filings
// with a valid accession and URLs under the company's folder, newest
// first, no more than the body can spell out, valid UTF-8; tickers with a
// ten-digit CIK under their upper-case ticker and their normalised name;
// from a folder listing, the primary document and EX-99 exhibits with
// plain file names under the folder.
func FuzzEdgarJSON(f *testing.F) {
	f.Add([]byte(submissionsSeed))
	f.Add([]byte(tickersSeed))
	f.Add([]byte(directorySeed))
	for _, seed := range []string{
		"", "null", "[1,2,3]", `{"filings":`,
		`{"filings":{"recent":{"accessionNumber":["0000000002-23-000001"],"form":[]}}}`,
		`{"filings":{"recent":{"accessionNumber":["0000000002-23-000001"],"filingDate":["x"],"form":[" 8-K "],"items":[",,2.02, ,"],` +
			`"primaryDocument":["../x?y"],"primaryDocDescription":["\u00e9\ud800"],"acceptanceDateTime":["2023-08-04T18:03:16Z"]}}}`,
		`{"name":"\xff\xfe","filings":{"recent":{"accessionNumber":["0000000002-23-000001","0000000002-23-000002"],"filingDate":["2023","2024"],"form":["8-K/A","8-K"]}}}`,
		`{"0":{"cik_str":"00000000001","ticker":"a","title":"The Inc."},"x":{"cik_str":1},"1":{"cik_str":-1,"ticker":"b"}}`,
		`{"directory":{"item":[{"name":"ex99.htm"},{"name":"a/ex99-1.htm"},{"name":"EX-99_12x.PDF"},{"name":"ex99.htm?x"}]}}`,
	} {
		f.Add([]byte(seed))
	}
	const (
		cik    = "0000320193"
		www    = "https://www.sec.gov"
		folder = www + "/Archives/edgar/data/320193/000032019323000075/"
	)
	f.Fuzz(func(t *testing.T, body []byte) {
		name, filings, err := parseSubmissions(body, cik, www)
		name2, filings2, err2 := parseSubmissions(body, cik, www)
		if name != name2 || !reflect.DeepEqual(filings, filings2) || (err == nil) != (err2 == nil) {
			t.Fatalf("submissions not deterministic")
		}
		if err != nil && (name != "" || filings != nil) {
			t.Fatalf("an error (%v) with a result", err)
		}
		// Decoding turns a byte into at most three (a stray byte into U+FFFD).
		if !utf8.ValidString(name) || len(name) > 3*len(body) {
			t.Fatalf("name %q", name)
		}
		// An accession spells out in 22 bytes at least.
		if len(filings) > len(body)/22 {
			t.Fatalf("%d filings from %d bytes", len(filings), len(body))
		}
		prefix := www + "/Archives/edgar/data/320193/"
		for i, f := range filings {
			if !accessionRE.MatchString(f.Accession) || (f.Form != "8-K" && f.Form != "8-K/A") {
				t.Fatalf("filing %+v", f)
			}
			folder := prefix + strings.ReplaceAll(f.Accession, "-", "") + "/"
			if f.IndexURL != folder+f.Accession+"-index.html" {
				t.Fatalf("index URL %q", f.IndexURL)
			}
			if f.PrimaryDoc != "" && (!strings.HasPrefix(f.PrimaryDoc, folder) || strings.ContainsAny(f.PrimaryDoc[len(folder):], "/\\?#")) {
				t.Fatalf("primary document %q outside %s", f.PrimaryDoc, folder)
			}
			if !utf8.ValidString(f.Description) || !utf8.ValidString(f.FiledAt) || len(f.Description) > 3*len(body) {
				t.Fatalf("description %q, date %q", f.Description, f.FiledAt)
			}
			for _, it := range f.Items {
				if it == "" || it != strings.TrimSpace(it) || strings.Contains(it, ",") {
					t.Fatalf("item %q", it)
				}
			}
			if i > 0 && filings[i-1].FiledAt < f.FiledAt {
				t.Fatalf("filings not newest first: %q before %q", filings[i-1].FiledAt, f.FiledAt)
			}
		}

		tickers, names, err := parseTickers(body)
		tickers2, names2, _ := parseTickers(body)
		if !reflect.DeepEqual(tickers, tickers2) || !reflect.DeepEqual(names, names2) {
			t.Fatalf("tickers not deterministic")
		}
		if err != nil && (tickers != nil || names != nil) {
			t.Fatalf("an error (%v) with a result", err)
		}
		for k, co := range tickers {
			if len(co.CIK) != 10 || PadCIK(co.CIK) != co.CIK || co.Ticker != k || strings.ToUpper(k) != k {
				t.Fatalf("ticker %q: %+v", k, co)
			}
		}
		for k, co := range names {
			if k == "" || normName(co.Name) != k || PadCIK(co.CIK) != co.CIK {
				t.Fatalf("name %q: %+v", k, co)
			}
		}
		// A row spells out in 18 bytes at least: "0":{"cik_str":1},
		if len(tickers) > len(body)/18 || len(names) > len(body)/18 {
			t.Fatalf("%d tickers, %d names from %d bytes", len(tickers), len(names), len(body))
		}

		filing := Filing{Form: "8-K", PrimaryDoc: folder + "a.htm"}
		docs, err := parseDirectory(body, folder, filing)
		docs2, err2 := parseDirectory(body, folder, filing)
		if !reflect.DeepEqual(docs, docs2) || (err == nil) != (err2 == nil) {
			t.Fatalf("directory not deterministic")
		}
		if err != nil {
			if docs != nil {
				t.Fatalf("an error (%v) with documents", err)
			}
			return
		}
		if len(docs) == 0 || docs[0] != (Document{Type: "8-K", URL: filing.PrimaryDoc}) {
			t.Fatalf("documents %+v do not start with the primary document", docs)
		}
		// An exhibit's entry spells out in 15 bytes at least: {"name":"ex99.htm"}.
		if len(docs)-1 > len(body)/15 {
			t.Fatalf("%d documents from %d bytes", len(docs), len(body))
		}
		for _, d := range docs[1:] {
			if !strings.HasPrefix(d.Type, "EX-99.") || !strings.HasPrefix(d.URL, folder) ||
				strings.ContainsAny(d.URL[len(folder):], "/\\?#") || !utf8.ValidString(d.URL) {
				t.Fatalf("exhibit %+v", d)
			}
		}
	})
}

const indexSeed = `<html><body><table class="tableFile" summary="Document Format Files">
<tr><th>Seq</th><th>Description</th><th>Document</th><th>Type</th><th>Size</th></tr>
<tr><td>1</td><td>8-K</td><td><a href="/ix?doc=/Archives/edgar/data/320193/000032019323000075/aapl-20230803.htm">aapl-20230803.htm</a> iXBRL</td><td>8-K</td><td>31103</td></tr>
<tr><td>2</td><td>PRESS&nbsp;RELEASE</td><td><a href="/Archives/edgar/data/320193/000032019323000075/a8-kex991q3202307012023.htm">a8-kex991q3202307012023.htm</a></td><td>EX-99.1</td><td>15048</td></tr>
<tr><td>3</td><td>GRAPHIC</td><td><a href="/Archives/edgar/data/320193/000032019323000075/logo.jpg">logo.jpg</a></td><td>GRAPHIC</td><td>1</td></tr>
</table></body></html>`

const submissionsSeed = `{"cik":"320193","name":"Apple Inc.","filings":{"recent":{
"accessionNumber":["0000320193-23-000077","0000320193-23-000075","0000320193-23-000064","bogus"],
"filingDate":["2023-08-04","2023-08-03","2023-05-04","2023-01-01"],
"acceptanceDateTime":["2023-08-04T18:03:16.000Z","2023-08-03T16:30:21.000Z","2023-05-04T16:30:20.000Z",""],
"form":["10-Q","8-K","8-K","8-K"],
"items":["","2.02,9.01","2.02,9.01",""],
"primaryDocument":["aapl-20230701.htm","aapl-20230803.htm","aapl-20230504.htm","x.htm"],
"primaryDocDescription":["10-Q","8-K","8-K","8-K"]},"files":[]}}`

const tickersSeed = `{"0":{"cik_str":320193,"ticker":"AAPL","title":"Apple Inc."},"1":{"cik_str":789019,"ticker":"MSFT","title":"MICROSOFT CORP"},
"2":{"cik_str":1045810,"ticker":"NVDA","title":"NVIDIA CORP"},"3":{"cik_str":1045810,"ticker":"NVDA-X","title":"NVIDIA CORP"}}`

const directorySeed = `{"directory":{"item":[{"name":"aapl-20230504.htm"},
{"name":"a8-kex991q2202304012023.htm"},{"name":"ex99-2_001.jpg"},{"name":"FilingSummary.xml"}]}}`

func TestIndexKeepsWebLinksOnly(t *testing.T) {
	row := func(href string) string {
		return `<tr><td>1</td><td>d</td><td><a href="` + href + `">x</a></td><td>EX-99.1</td></tr>`
	}
	page := "<table>" + row("javascript:alert(1)") + row("file:///etc/passwd") + row("data:text/html,x") +
		row("//other.example/a.htm") + row("/Archives/a.htm") + "</table>"
	docs := parseIndex([]byte(page), "https://www.sec.gov/Archives/x/index.html")
	var urls []string
	for _, d := range docs {
		urls = append(urls, d.URL)
	}
	want := []string{"https://other.example/a.htm", "https://www.sec.gov/Archives/a.htm"}
	if !reflect.DeepEqual(urls, want) {
		t.Errorf("documents %q, want %q", urls, want)
	}
}
