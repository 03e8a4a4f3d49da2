// Package edgar reads SEC EDGAR for the edgar_8k discovery channel
// (DECISIONS.md, Monitors): it finds a company's CIK from a CIK, a ticker,
// a name or the links of its investor-relations page; it lists the
// company's 8-K filings from the submissions JSON with a conditional
// request; and it finds a filing's primary document and its EX-99 exhibits
// from the filing index.
//
// Every request carries the operator's descriptive User-Agent and waits
// for a slot of a rate limit the caller shares across nodes (SEC fair
// access: at most 10 requests per second). Every answer is read with a
// size bound.
package edgar

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"webacq/internal/content"
	"webacq/internal/model"
)

// Default base URLs (WEBACQ_EDGAR_DATA_URL, WEBACQ_EDGAR_WWW_URL).
const (
	DefaultDataURL = "https://data.sec.gov"
	DefaultWWWURL  = "https://www.sec.gov"
)

// Size bounds of what EDGAR answers: a submissions JSON of the largest
// filers is a few MB, the ticker map under 1 MB, an index page tens of KB.
const (
	maxSubmissions = 32 << 20
	maxTickers     = 16 << 20
	maxIndex       = 4 << 20
	requestTimeout = 30 * time.Second
	tickersTTL     = 24 * time.Hour
)

// Client reads EDGAR. Safe for concurrent use.
type Client struct {
	DataURL, WWWURL string
	// UserAgent names the operator with a contact, as SEC asks
	// (WEBACQ_SEC_USER_AGENT, e.g. "Example Corp ops@example.com").
	UserAgent string
	// Wait blocks until the next request may go (the shared rate limit);
	// nil does not wait.
	Wait func(ctx context.Context) error
	// HTTP sends the requests; EDGAR's URLs are the operator's settings,
	// not the caller's, so it need not be the SSRF-guarded client.
	HTTP *http.Client
	// Reserve, when set, takes bytes of the node's memory budget before an
	// answer is read (twice its declared length, else twice its bound) and
	// returns the func that gives them back.
	Reserve func(ctx context.Context, bytes int64) (release func(), err error)

	mu        sync.Mutex
	tickers   map[string]Company // by upper-case ticker
	byName    map[string]Company // by normalised name
	tickersAt time.Time
}

// New checks the settings and returns a client. A User-Agent without a
// contact is refused: SEC blocks anonymous clients.
func New(dataURL, wwwURL, userAgent string) (*Client, error) {
	userAgent = strings.TrimSpace(userAgent)
	if userAgent == "" {
		return nil, errors.New("edgar: the edgar_8k channel needs WEBACQ_SEC_USER_AGENT, a name and contact email " +
			"(e.g. \"Example Corp ops@example.com\"), as SEC's fair-access policy asks")
	}
	if !strings.Contains(userAgent, "@") {
		return nil, errors.New("edgar: WEBACQ_SEC_USER_AGENT must include a contact email (e.g. \"Example Corp ops@example.com\")")
	}
	c := &Client{DataURL: strings.TrimRight(orDefault(dataURL, DefaultDataURL), "/"),
		WWWURL: strings.TrimRight(orDefault(wwwURL, DefaultWWWURL), "/"), UserAgent: userAgent,
		HTTP: &http.Client{Timeout: requestTimeout}}
	for _, u := range []string{c.DataURL, c.WWWURL} {
		p, err := url.Parse(u)
		if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return nil, fmt.Errorf("edgar: %q is not an absolute http(s) URL", u)
		}
	}
	return c, nil
}

func orDefault(v, d string) string {
	if strings.TrimSpace(v) == "" {
		return d
	}
	return strings.TrimSpace(v)
}

// Company is an EDGAR filer.
type Company struct {
	CIK    string // ten digits, zero-padded
	Ticker string
	Name   string
}

// PadCIK zero-pads a CIK to ten digits; "" when cik is not 1–10 digits.
func PadCIK(cik string) string {
	cik = strings.TrimLeft(strings.TrimSpace(cik), "0")
	if cik == "" || len(cik) > 10 || strings.Trim(cik, "0123456789") != "" {
		return ""
	}
	return strings.Repeat("0", 10-len(cik)) + cik
}

// get reads one answer of at most limit bytes, conditionally when etag or
// lastModified are given. A 304 answers notModified. The budget taken for
// the answer (see Reserve) stays taken until the caller calls done, after
// it has decoded the body: decoding costs as much as reading.
func (c *Client) get(ctx context.Context, u, etag, lastModified string, limit int64) (body []byte, h http.Header, notModified bool, done func(), err error) {
	done = func() {}
	body, h, notModified, err = c.read(ctx, u, etag, lastModified, limit, &done)
	if err != nil {
		done()
		done = func() {}
	}
	return body, h, notModified, done, err
}

// read is get's request; *done receives the budget's release.
func (c *Client) read(ctx context.Context, u, etag, lastModified string, limit int64, done *func()) (body []byte, h http.Header, notModified bool, err error) {
	if c.Wait != nil {
		if err := c.Wait(ctx); err != nil {
			return nil, nil, false, err
		}
	}
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, nil, false, fmt.Errorf("edgar: %w", err)
	}
	req.Header.Set("User-Agent", c.UserAgent)
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	if lastModified != "" {
		req.Header.Set("If-Modified-Since", lastModified)
	}
	// The transport asks for gzip and inflates it; the bound below applies
	// to the inflated bytes, so a gzip bomb stops at the bound.
	res, err := c.HTTP.Do(req)
	if err != nil {
		return nil, nil, false, model.Wrap(model.CodeUpstreamError, err, "EDGAR did not answer")
	}
	defer res.Body.Close()
	switch {
	case res.StatusCode == http.StatusNotModified:
		return nil, res.Header, true, nil
	case res.StatusCode == http.StatusTooManyRequests || res.StatusCode == http.StatusForbidden:
		// SEC answers 403 to clients over the limit or without a User-Agent.
		return nil, res.Header, false, model.Errorf(model.CodeRateLimited, "EDGAR refused the request (HTTP %d): over SEC's rate limit "+
			"or an unaccepted WEBACQ_SEC_USER_AGENT", res.StatusCode)
	case res.StatusCode == http.StatusNotFound:
		return nil, res.Header, false, model.Errorf(model.CodeNotFound, "EDGAR has no %s", u)
	case res.StatusCode != http.StatusOK:
		return nil, res.Header, false, model.Errorf(model.CodeUpstreamError, "EDGAR answered HTTP %d for %s", res.StatusCode, u)
	}
	if c.Reserve != nil {
		n := limit
		if res.ContentLength >= 0 && !res.Uncompressed {
			n = min(res.ContentLength, limit)
		}
		release, err := c.Reserve(ctx, 2*n)
		if err != nil {
			return nil, nil, false, err
		}
		*done = release
	}
	body, err = io.ReadAll(io.LimitReader(res.Body, limit+1))
	if err != nil {
		return nil, nil, false, model.Wrap(model.CodeUpstreamError, err, "reading EDGAR's answer")
	}
	if int64(len(body)) > limit {
		return nil, nil, false, model.Errorf(model.CodeUpstreamError, "EDGAR's answer for %s is larger than %d MB", u, limit>>20)
	}
	return body, res.Header, false, nil
}

// loadTickers reads files/company_tickers.json, at most once a day.
func (c *Client) loadTickers(ctx context.Context) error {
	c.mu.Lock()
	fresh := c.tickers != nil && time.Since(c.tickersAt) < tickersTTL
	c.mu.Unlock()
	if fresh {
		return nil
	}
	body, _, _, done, err := c.get(ctx, c.WWWURL+"/files/company_tickers.json", "", "", maxTickers)
	if err != nil {
		return err
	}
	defer done()
	tickers, names, err := parseTickers(body)
	if err != nil {
		return err
	}
	c.mu.Lock()
	c.tickers, c.byName, c.tickersAt = tickers, names, time.Now()
	c.mu.Unlock()
	return nil
}

// parseTickers reads EDGAR's ticker map: companies by ticker and by
// normalised name, the first row of each winning.
func parseTickers(body []byte) (tickers, names map[string]Company, err error) {
	var raw map[string]struct {
		CIK    json.Number `json:"cik_str"`
		Ticker string      `json:"ticker"`
		Title  string      `json:"title"`
	}
	if err := json.Unmarshal(body, &raw); err != nil {
		return nil, nil, model.Wrap(model.CodeUpstreamError, err, "EDGAR's ticker map is not valid JSON")
	}
	tickers, names = make(map[string]Company, len(raw)), make(map[string]Company, len(raw))
	// Map keys are row numbers; the first row of a CIK is its main ticker.
	rows := make([]int, 0, len(raw))
	index := make(map[int]string, len(raw))
	for k := range raw {
		n, err := strconv.Atoi(k)
		if err != nil {
			continue
		}
		rows, index[n] = append(rows, n), k
	}
	sort.Ints(rows)
	for _, n := range rows {
		r := raw[index[n]]
		co := Company{CIK: PadCIK(r.CIK.String()), Ticker: strings.ToUpper(r.Ticker), Name: r.Title}
		if co.CIK == "" {
			continue
		}
		if _, ok := tickers[co.Ticker]; !ok {
			tickers[co.Ticker] = co
		}
		if k := normName(co.Name); k != "" {
			if _, ok := names[k]; !ok {
				names[k] = co
			}
		}
	}
	return tickers, names, nil
}

// corporate suffixes dropped when names are compared.
var suffixes = map[string]bool{"inc": true, "incorporated": true, "corp": true, "corporation": true, "co": true,
	"company": true, "ltd": true, "limited": true, "plc": true, "llc": true, "lp": true, "sa": true, "nv": true, "ag": true,
	"se": true, "holdings": true, "group": true, "the": true}

// normName folds a company name for comparison: "Apple Inc." and "APPLE
// INC" are the same company.
func normName(s string) string {
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127)
	})
	out := words[:0]
	for _, w := range words {
		if !suffixes[w] {
			out = append(out, w)
		}
	}
	return strings.Join(out, " ")
}

// cikInLink finds a CIK in a link to EDGAR: browse-edgar?CIK=…, the
// Archives path, or a company search.
var cikInLink = regexp.MustCompile(`(?i)(?:[?&]cik=|/edgar/data/)0*([0-9]{1,10})\b`)

// Resolve finds the company a monitor follows: the CIK given, else the
// ticker, else the name (from the ticker map), else an EDGAR link among the
// page's links. It answers bad_request when none of them names a company.
func (c *Client) Resolve(ctx context.Context, want *model.Company, pageLinks []string) (Company, error) {
	if want != nil && want.CIK != "" {
		cik := PadCIK(want.CIK)
		if cik == "" {
			return Company{}, model.Errorf(model.CodeBadRequest, "company.cik must be 1 to 10 digits")
		}
		return Company{CIK: cik, Ticker: strings.ToUpper(want.Ticker), Name: want.Name}, nil
	}
	if want != nil && (want.Ticker != "" || want.Name != "") {
		if err := c.loadTickers(ctx); err != nil {
			return Company{}, err
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		if want.Ticker != "" {
			if co, ok := c.tickers[strings.ToUpper(strings.TrimSpace(want.Ticker))]; ok {
				return co, nil
			}
		}
		if want.Name != "" {
			if co, ok := c.byName[normName(want.Name)]; ok {
				return co, nil
			}
		}
		return Company{}, model.Errorf(model.CodeBadRequest, "EDGAR knows no company with ticker %q or name %q: give company.cik",
			want.Ticker, want.Name)
	}
	for _, l := range pageLinks {
		u, err := url.Parse(l)
		if err != nil || !strings.HasSuffix(strings.ToLower(u.Hostname()), "sec.gov") {
			continue
		}
		if m := cikInLink.FindStringSubmatch(u.Path + "?" + u.RawQuery); m != nil {
			if cik := PadCIK(m[1]); cik != "" {
				return Company{CIK: cik}, nil
			}
		}
	}
	return Company{}, model.Errorf(model.CodeBadRequest,
		"the edgar_8k channel needs the company: give company {cik, ticker or name} at registration (the page links to no EDGAR filer)")
}

// Filing is one 8-K of a company.
type Filing struct {
	Accession   string    `json:"accession"` // 0000320193-23-000075
	Form        string    `json:"form"`      // 8-K or 8-K/A
	FiledAt     string    `json:"filed_at"`  // filing date, YYYY-MM-DD
	AcceptedAt  time.Time `json:"accepted_at,omitzero"`
	Items       []string  `json:"items"`       // item numbers, "2.02"
	PrimaryDoc  string    `json:"primary_doc"` // URL of the primary document
	IndexURL    string    `json:"index_url"`   // URL of the filing's index page
	Description string    `json:"description,omitempty"`
}

// Submissions is a company's 8-K filings, newest first, with the
// validators of the answer for the next conditional request.
type Submissions struct {
	Name         string
	Filings      []Filing
	ETag         string
	LastModified string
	NotModified  bool
}

// Filings reads the company's submissions JSON (conditionally, with the
// validators of the previous answer) and returns its 8-K filings from the
// recent list.
func (c *Client) Filings(ctx context.Context, cik, etag, lastModified string) (*Submissions, error) {
	cik = PadCIK(cik)
	if cik == "" {
		return nil, model.Errorf(model.CodeBadRequest, "not a CIK")
	}
	body, h, notModified, done, err := c.get(ctx, c.DataURL+"/submissions/CIK"+cik+".json", etag, lastModified, maxSubmissions)
	if err != nil {
		return nil, err
	}
	defer done()
	out := &Submissions{NotModified: notModified, ETag: etag, LastModified: lastModified}
	if h != nil {
		if v := h.Get("ETag"); v != "" {
			out.ETag = v
		}
		if v := h.Get("Last-Modified"); v != "" {
			out.LastModified = v
		}
	}
	if notModified {
		return out, nil
	}
	if out.Name, out.Filings, err = parseSubmissions(body, cik, c.WWWURL); err != nil {
		return nil, err
	}
	return out, nil
}

// parseSubmissions reads the 8-K filings of a submissions JSON, newest
// first, with the company's name; cik is ten digits, wwwURL the base of
// the filings' URLs.
func parseSubmissions(body []byte, cik, wwwURL string) (name string, filings []Filing, err error) {
	var doc struct {
		Name    string `json:"name"`
		Filings struct {
			Recent struct {
				Accession   []string `json:"accessionNumber"`
				FilingDate  []string `json:"filingDate"`
				Acceptance  []string `json:"acceptanceDateTime"`
				Form        []string `json:"form"`
				Items       []string `json:"items"`
				PrimaryDoc  []string `json:"primaryDocument"`
				PrimaryDesc []string `json:"primaryDocDescription"`
			} `json:"recent"`
		} `json:"filings"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return "", nil, model.Wrap(model.CodeUpstreamError, err, "EDGAR's submissions JSON is not valid")
	}
	r := doc.Filings.Recent
	n := len(r.Accession)
	for _, l := range [][]string{r.FilingDate, r.Form} {
		if len(l) != n {
			return "", nil, model.Errorf(model.CodeUpstreamError, "EDGAR's submissions JSON has columns of different lengths")
		}
	}
	at := func(l []string, i int) string {
		if i < len(l) {
			return l[i]
		}
		return ""
	}
	cikNum := strings.TrimLeft(cik, "0")
	for i := 0; i < n; i++ {
		form := strings.TrimSpace(r.Form[i])
		if form != "8-K" && form != "8-K/A" {
			continue
		}
		acc := strings.TrimSpace(r.Accession[i])
		if !accessionRE.MatchString(acc) {
			continue
		}
		folder := wwwURL + "/Archives/edgar/data/" + cikNum + "/" + strings.ReplaceAll(acc, "-", "") + "/"
		f := Filing{Accession: acc, Form: form, FiledAt: r.FilingDate[i], IndexURL: folder + acc + "-index.html",
			Description: strings.TrimSpace(at(r.PrimaryDesc, i))}
		if t, err := time.Parse(time.RFC3339, at(r.Acceptance, i)); err == nil {
			f.AcceptedAt = t.UTC()
		}
		if doc := strings.TrimSpace(at(r.PrimaryDoc, i)); doc != "" && !strings.ContainsAny(doc, "/\\?#") {
			f.PrimaryDoc = folder + doc
		}
		for _, it := range strings.Split(at(r.Items, i), ",") {
			if it = strings.TrimSpace(it); it != "" {
				f.Items = append(f.Items, it)
			}
		}
		filings = append(filings, f)
	}
	sort.SliceStable(filings, func(a, b int) bool { return filings[a].FiledAt > filings[b].FiledAt })
	return doc.Name, filings, nil
}

var accessionRE = regexp.MustCompile(`^[0-9]{10}-[0-9]{2}-[0-9]{6}$`)

// Document is one document of a filing.
type Document struct {
	Type string // 8-K, EX-99.1…
	URL  string
	Name string // the description, when the index gives one
}

// Documents reads a filing's index page and returns its documents of
// interest: the primary document and the EX-99 exhibits (press releases,
// earnings exhibits). Without a usable index page it falls back to the
// folder's index.json, recognising exhibits by their file names.
func (c *Client) Documents(ctx context.Context, f Filing) ([]Document, error) {
	body, _, _, done, err := c.get(ctx, f.IndexURL, "", "", maxIndex)
	if err == nil {
		docs := parseIndex(body, f.IndexURL)
		done()
		if len(docs) > 0 {
			return docs, nil
		}
	} else if model.ErrorCode(err) != model.CodeNotFound {
		return nil, err
	}
	folder := f.IndexURL[:strings.LastIndex(f.IndexURL, "/")+1]
	body, _, _, done, err = c.get(ctx, folder+"index.json", "", "", maxIndex)
	if err != nil {
		return nil, err
	}
	defer done()
	return parseDirectory(body, folder, f)
}

// parseDirectory reads a filing folder's index.json: the filing's primary
// document and the EX-99 exhibits, recognised by their file names.
func parseDirectory(body []byte, folder string, f Filing) ([]Document, error) {
	var dir struct {
		Directory struct {
			Item []struct {
				Name string `json:"name"`
			} `json:"item"`
		} `json:"directory"`
	}
	if err := json.Unmarshal(body, &dir); err != nil {
		return nil, model.Wrap(model.CodeUpstreamError, err, "EDGAR's filing index is not valid JSON")
	}
	var docs []Document
	if f.PrimaryDoc != "" {
		docs = append(docs, Document{Type: f.Form, URL: f.PrimaryDoc})
	}
	for _, it := range dir.Directory.Item {
		if m := exhibitName.FindStringSubmatch(it.Name); m != nil && !strings.ContainsAny(it.Name, "/\\?#") {
			docs = append(docs, Document{Type: "EX-99." + m[1], URL: folder + it.Name})
		}
	}
	return docs, nil
}

// exhibitName recognises an EX-99 exhibit's file name: ex99-1, ex991,
// ex-99_1, d123dex991.
var exhibitName = regexp.MustCompile(`(?i)ex-?99[-_.]?([0-9]{0,2})[^/]*\.(?:htm|html|txt|pdf)$`)

// parseIndex reads the "Document Format Files" table of a filing index
// page: rows of Seq, Description, Document (a link), Type, Size.
func parseIndex(body []byte, base string) []Document {
	doc, err := content.ParseHTML(body)
	if err != nil {
		return nil
	}
	baseURL, err := url.Parse(base)
	if err != nil {
		return nil
	}
	var docs []Document
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.DataAtom == atom.Tr {
			var cells []*html.Node
			for td := n.FirstChild; td != nil; td = td.NextSibling {
				if td.Type == html.ElementNode && td.DataAtom == atom.Td {
					cells = append(cells, td)
				}
			}
			if len(cells) >= 4 {
				typ := strings.ToUpper(strings.TrimSpace(text(cells[3])))
				href := firstHref(cells[2])
				if href != "" && (strings.HasPrefix(typ, "EX-99") || typ == "8-K" || typ == "8-K/A") {
					// The primary document is linked through the inline
					// XBRL viewer: /ix?doc=/Archives/…
					if u, err := url.Parse(href); err == nil {
						if d := u.Query().Get("doc"); strings.HasPrefix(u.Path, "/ix") && strings.HasPrefix(d, "/Archives/") {
							href = d
						}
					}
					// Only web links: the URLs are fetched and listed in
					// the run (a javascript: link is not a document).
					if u, err := baseURL.Parse(href); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
						docs = append(docs, Document{Type: typ, URL: u.String(), Name: strings.TrimSpace(text(cells[1]))})
					}
				}
			}
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return docs
}

func text(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.Join(strings.Fields(strings.ReplaceAll(b.String(), "\u00a0", " ")), " ")
}

func firstHref(n *html.Node) string {
	if n.Type == html.ElementNode && n.DataAtom == atom.A {
		for _, a := range n.Attr {
			if a.Key == "href" {
				return strings.TrimSpace(a.Val)
			}
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if h := firstHref(c); h != "" {
			return h
		}
	}
	return ""
}

// itemNames are the 8-K items in words (Form 8-K, General Instructions).
var itemNames = map[string]string{
	"1.01": "Entry into a Material Definitive Agreement",
	"1.02": "Termination of a Material Definitive Agreement",
	"1.03": "Bankruptcy or Receivership",
	"1.04": "Mine Safety - Reporting of Shutdowns and Patterns of Violations",
	"1.05": "Material Cybersecurity Incidents",
	"2.01": "Completion of Acquisition or Disposition of Assets",
	"2.02": "Results of Operations and Financial Condition",
	"2.03": "Creation of a Direct Financial Obligation or an Obligation under an Off-Balance Sheet Arrangement of a Registrant",
	"2.04": "Triggering Events That Accelerate or Increase a Direct Financial Obligation or an Obligation under an Off-Balance Sheet Arrangement",
	"2.05": "Costs Associated with Exit or Disposal Activities",
	"2.06": "Material Impairments",
	"3.01": "Notice of Delisting or Failure to Satisfy a Continued Listing Rule or Standard; Transfer of Listing",
	"3.02": "Unregistered Sales of Equity Securities",
	"3.03": "Material Modification to Rights of Security Holders",
	"4.01": "Changes in Registrant's Certifying Accountant",
	"4.02": "Non-Reliance on Previously Issued Financial Statements or a Related Audit Report or Completed Interim Review",
	"5.01": "Changes in Control of Registrant",
	"5.02": "Departure of Directors or Certain Officers; Election of Directors; Appointment of Certain Officers; Compensatory Arrangements of Certain Officers",
	"5.03": "Amendments to Articles of Incorporation or Bylaws; Change in Fiscal Year",
	"5.04": "Temporary Suspension of Trading Under Registrant's Employee Benefit Plans",
	"5.05": "Amendment to Registrant's Code of Ethics, or Waiver of a Provision of the Code of Ethics",
	"5.06": "Change in Shell Company Status",
	"5.07": "Submission of Matters to a Vote of Security Holders",
	"5.08": "Shareholder Director Nominations",
	"6.01": "ABS Informational and Computational Material",
	"6.02": "Change of Servicer or Trustee",
	"6.03": "Change in Credit Enhancement or Other External Support",
	"6.04": "Failure to Make a Required Distribution",
	"6.05": "Securities Act Updating Disclosure",
	"6.06": "Static Pool",
	"7.01": "Regulation FD Disclosure",
	"8.01": "Other Events",
	"9.01": "Financial Statements and Exhibits",
}

// ItemName describes an 8-K item in words: "Item 2.02 Results of Operations
// and Financial Condition"; an unknown number is kept as given.
func ItemName(item string) string {
	if n, ok := itemNames[item]; ok {
		return "Item " + item + " " + n
	}
	return "Item " + item
}
