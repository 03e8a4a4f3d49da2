package primitive

import (
	"cmp"
	"context"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"webacq/internal/content"
	"webacq/internal/fetch"
	"webacq/internal/model"
)

// Limits of the map primitive.
const (
	MapDefaultLimit   = 5000
	MapMaxLimit       = 30000
	MapDefaultTimeout = 30000  // milliseconds
	MapMaxTimeout     = 120000 // milliseconds
	mapMaxSearchBytes = 500

	// mapMaxPages bounds the pages the link walk requests.
	mapMaxPages = 200
	// mapWorkers is the number of pages or sitemaps fetched at once.
	mapWorkers = 4
)

// Sources of a MapLink.
const (
	MapSourceSitemap = "sitemap" // a page URL listed in a sitemap or feed
	MapSourcePage    = "page"    // a link on a fetched page, or a fetched page itself
	MapSourceRobots  = "robots"  // a sitemap file that robots.txt names
)

// MapRequest is the body of POST /api/v1/map and the arguments of the MCP
// svc_map tool.
type MapRequest struct {
	URL               string `json:"url" jsonschema:"the site to map: an absolute http or https URL whose host bounds the map"`
	Limit             *int   `json:"limit,omitempty" jsonschema:"the most links to return, from 1 to 30000; default 5000"`
	Search            string `json:"search,omitempty" jsonschema:"words that rank links: links whose path or title contain more of them come first; no link is dropped"`
	IncludeSubdomains bool   `json:"includeSubdomains,omitempty" jsonschema:"also map the subdomains of the site's host"`
	SitemapOnly       bool   `json:"sitemapOnly,omitempty" jsonschema:"list only what robots.txt and the sitemaps name, without fetching pages"`
	Timeout           *int   `json:"timeout,omitempty" jsonschema:"milliseconds after which map returns what it has found so far, from 1 to 120000; default 30000"`
}

// Validate checks r and fills its defaults. checkURL is the fetch client's
// URL policy (fetch.Client.CheckURL); its errors, forbidden_url included, are
// returned as they are. Other bad input is a bad_request.
func (r *MapRequest) Validate(checkURL func(string) (*url.URL, error)) error {
	if strings.TrimSpace(r.URL) == "" {
		return model.Errorf(model.CodeBadRequest, "url is required")
	}
	if checkURL == nil {
		checkURL = fetch.CheckURL
	}
	u, err := checkURL(r.URL)
	if err != nil {
		return err
	}
	r.URL = u.String()
	if r.Limit == nil {
		v := MapDefaultLimit
		r.Limit = &v
	} else if *r.Limit < 1 || *r.Limit > MapMaxLimit {
		return model.Errorf(model.CodeBadRequest, "limit must be between 1 and %d", MapMaxLimit)
	}
	if r.Timeout == nil {
		v := MapDefaultTimeout
		r.Timeout = &v
	} else if *r.Timeout < 1 || *r.Timeout > MapMaxTimeout {
		return model.Errorf(model.CodeBadRequest, "timeout must be between 1 and %d milliseconds", MapMaxTimeout)
	}
	r.Search = strings.TrimSpace(r.Search)
	if len(r.Search) > mapMaxSearchBytes {
		return model.Errorf(model.CodeBadRequest, "search must be at most %d bytes", mapMaxSearchBytes)
	}
	return nil
}

// MapLink is one URL of a site map.
type MapLink struct {
	URL   string `json:"url"`
	Title string `json:"title,omitempty"`
	// Source is MapSourceSitemap, MapSourcePage or MapSourceRobots.
	Source string `json:"source"`
}

// MapResult is the outcome of Map.
type MapResult struct {
	URL   string    `json:"url"`
	Links []MapLink `json:"links"`
	// Total is the number of URLs found (DECISIONS, map): those returned
	// and those met beyond the limit before the map stopped (counted up
	// to mapMaxOverflow more). Returned is len(Links).
	Total    int `json:"total"`
	Returned int `json:"returned"`
	// Truncated says the map reached its limit, so the site may have more
	// URLs than were returned (Total > Returned says it has): ask for a
	// higher limit (up to MapMaxLimit) or narrow it with search.
	Truncated bool `json:"truncated"`
}

// mapMaxOverflow bounds the URLs met beyond the limit that a map counts
// (their keys are kept to count each once).
const mapMaxOverflow = MapMaxLimit

// Map lists the URLs of the site at req.URL without reading their content.
//
// Two searches run at once. The sitemap search reads the sitemaps that
// robots.txt names, or /sitemap.xml and /sitemap_index.xml when it names
// none: XML sitemaps and sitemap indexes (followed mapMaxSitemapDepth levels
// deep, mapMaxSitemaps files in all), gzipped sitemaps, plain-text sitemaps
// (one URL a line) and RSS or Atom feeds. <lastmod> and the other sitemap
// fields are ignored. Sitemaps are fetched without consulting robots.txt,
// which names them. Unless req.SitemapOnly, the link walk visits the site
// breadth first from req.URL, mapWorkers pages at a time and at most
// mapMaxPages pages, skipping pages that robots.txt disallows for
// s.UserAgent (they are listed when linked, never fetched) and honouring its
// Crawl-delay with one page at a time. Links to images, styles, scripts,
// fonts, media and archives are neither listed nor followed; documents such
// as PDFs are listed but not followed. Sitemaps list whatever they name.
//
// A URL belongs to the site when its host name, ignoring scheme and port,
// is the start host with or without a leading "www.", or, with
// req.IncludeSubdomains, ends in "." plus the start host without "www.". If
// the start page redirects to another host, that host joins the site.
//
// URLs are deduplicated by NormalizeURL and listed in the form first met,
// cleaned of fragments, default ports and tracking parameters. The order is:
// URLs from sitemaps in sitemap order, then URLs from the walk in breadth
// first order, then the sitemap files that robots.txt names (source
// "robots"). A page's title is its own <title> when the walk fetched it,
// else the anchor text or feed item title it was found with. With
// req.Search, links are ranked by the number of search words found in their
// path, query or title, ties keeping that order; req.Limit applies after
// ranking.
//
// Map always ends by req.Timeout and then returns what it found. It fails
// only when it found nothing: with the error of the start page's fetch,
// upstream_error when the start page answered an HTTP error, timeout when the
// start page did not answer in time, or, with req.SitemapOnly, the error of
// the sitemap fetches when none got an answer. A start page that robots.txt
// disallows is not fetched; with no sitemap either, the map is empty.
func (s *Service) Map(ctx context.Context, req MapRequest) (*MapResult, error) {
	if s.HTTP == nil {
		return nil, model.Errorf(model.CodeUnavailable, "fetching is not configured")
	}
	if err := req.Validate(s.HTTP.CheckURL); err != nil {
		return nil, err
	}
	start, err := cleanURL(req.URL)
	if err != nil {
		return nil, model.Wrap(model.CodeBadRequest, err, "url is not valid")
	}
	startURL, _ := url.Parse(start)
	limit := *req.Limit
	capacity := limit
	if req.Search != "" {
		// Ranking needs every candidate before the limit cuts.
		capacity = MapMaxLimit
	}

	ctx, cancel := context.WithTimeout(ctx, time.Duration(*req.Timeout)*time.Millisecond)
	defer cancel()

	m := &mapper{
		s:      s,
		filter: &linkFilter{hosts: newSiteScope(startURL.Hostname(), req.IncludeSubdomains)},
		links:  newLinkSet(capacity),
	}
	var wg sync.WaitGroup
	var sitemapErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		sitemapErr = (&sitemapSearch{s: s, filter: m.filter, links: m.links}).run(ctx, startURL)
	}()
	if !req.SitemapOnly {
		m.walk(ctx, start)
	}
	wg.Wait()

	links := m.links.list()
	if len(links) == 0 {
		st := m.start
		switch {
		case req.SitemapOnly:
			if sitemapErr != nil {
				return nil, sitemapErr
			}
		case st.err != nil:
			return nil, st.err
		case st.done && st.status >= 400:
			return nil, model.Errorf(model.CodeUpstreamError,
				"the site answered HTTP %d at %s and has no sitemap", st.status, start)
		case !st.done && ctx.Err() != nil:
			return nil, model.Errorf(model.CodeTimeout, "the site did not answer within %d ms", *req.Timeout)
		}
	}
	if terms := searchTerms(req.Search); len(terms) > 0 {
		scores := make(map[string]int, len(links))
		for _, l := range links {
			scores[l.URL] = searchScore(l, terms)
		}
		slices.SortStableFunc(links, func(a, b MapLink) int {
			return cmp.Compare(scores[b.URL], scores[a.URL])
		})
	}
	extra, more := m.links.overflowCount()
	total := len(links) + extra
	// A full set stopped the sitemap reading and the walk: there may be
	// more than were found.
	full := m.links.full()
	if len(links) > limit {
		links = links[:limit]
	}
	return &MapResult{URL: start, Links: links, Total: total, Returned: len(links), Truncated: more || full || total > len(links)}, nil
}

// mapper holds the state of one Map call.
type mapper struct {
	s      *Service
	filter *linkFilter
	links  *linkSet

	// start is written by the worker that fetches the start page and read
	// once walk has returned, after its workers have stopped.
	start pageResult
}

func collapseSpace(s string) string { return strings.Join(strings.Fields(s), " ") }

// pageResult is the outcome of one page of the walk.
type pageResult struct {
	url    string // as queued
	done   bool   // the fetch was attempted and returned
	err    error
	status int
	final  string // FinalURL
	title  string
	links  []content.Link
}

// walk visits the site breadth first from start on the frontier gyre uses,
// mapWorkers pages at a time and at most mapMaxPages. Pages are fetched
// concurrently but taken in the order they started, so the order of the
// links does not depend on which server answers first.
func (m *mapper) walk(ctx context.Context, start string) {
	f := &frontier[pageResult]{
		s: m.s, filter: m.filter, workers: mapWorkers, perHost: mapWorkers,
		capacity: mapMaxPages * gyreFrontierFactor, ordered: true,
		maxDepth: mapMaxPages, // no bound: a walk of mapMaxPages pages goes no deeper
	}
	f.visit = func(ctx context.Context, j *crawlJob) pageResult {
		r := m.fetchPage(ctx, j.url)
		if j.start {
			m.start = r
		}
		return r
	}
	f.take = func(ctx context.Context, r crawlReport[pageResult]) {
		if r.disallowed || r.err != nil {
			return
		}
		for _, c := range m.handlePage(r.out, r.job.start) {
			f.admit(ctx, c, r.out.final, r.job.depth+1)
		}
	}
	f.mayStart = func(int) bool { return f.requested < mapMaxPages && !m.links.full() }
	f.init()
	f.run(ctx, start)
}

// fetchPage fetches one page of the walk and reads its title and links.
func (m *mapper) fetchPage(ctx context.Context, u string) pageResult {
	r := pageResult{url: u}
	resp, err := m.s.acquirer().Fetch(ctx, fetch.Request{URL: u})
	r.done = true
	if err != nil {
		r.err = err
		return r
	}
	r.status, r.final = resp.StatusCode, resp.FinalURL
	if resp.StatusCode < 200 || resp.StatusCode > 299 || resp.Kind != fetch.KindHTML {
		return r
	}
	release, err := m.s.Convert.Acquire(ctx, EstimateConversion(resp.Kind, resp.Body), int64(len(resp.Body)), true)
	if err != nil {
		r.err = err
		return r
	}
	doc, err := content.HTML(resp.Body, resp.FinalURL, content.Options{IncludeLinks: true})
	release()
	if err != nil {
		return r
	}
	r.title, r.links = collapseSpace(doc.Metadata.Title), doc.Links
	return r
}

// handlePage lists what a fetched page shows and returns the URLs to
// follow: pages, not documents or assets.
func (m *mapper) handlePage(r pageResult, start bool) []candidate {
	if !r.done || r.err != nil || r.status < 200 || r.status > 299 {
		return nil
	}
	final, err := url.Parse(r.final)
	if err != nil {
		return nil
	}
	if start {
		m.filter.addStart(final)
	}
	fc, ok := m.filter.vet(r.final, nil)
	if !ok {
		return nil // redirected off the site
	}
	m.links.add(fc.key, fc.url, r.title, MapSourcePage, titleOwn)
	if c, ok := m.filter.vet(r.url, nil); ok && c.key != fc.key {
		m.links.setTitle(c.key, r.title)
	}
	var next []candidate
	for _, l := range r.links {
		c, ok := m.filter.vet(l.URL, nil)
		if !ok || c.kind == pathAsset {
			continue
		}
		m.links.add(c.key, c.url, collapseSpace(l.Text), MapSourcePage, titleText)
		if c.kind == pathPage {
			next = append(next, c)
		}
	}
	return next
}

// Title ranks: a page's own title beats the text it was linked with.
const (
	titleNone = iota
	titleText
	titleOwn
)

// linkSet collects the links of a map, deduplicated by canonical URL. It is
// shared by the sitemap search and the walk.
type linkSet struct {
	mu      sync.Mutex
	max     int
	seq     int
	entries map[string]*linkEntry
	// overflow are the keys met once the set was full (at most
	// mapMaxOverflow); more says some were met past that too.
	overflow map[string]struct{}
	more     bool
}

type linkEntry struct {
	link      MapLink
	titleRank int
	seq       int
}

func newLinkSet(max int) *linkSet {
	return &linkSet{max: max, entries: make(map[string]*linkEntry)}
}

func (s *linkSet) capacity() int { return s.max }

func (s *linkSet) full() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.entries) >= s.max
}

var sourceRank = map[string]int{MapSourceSitemap: 0, MapSourcePage: 1, MapSourceRobots: 2}

// add records a link. A URL already listed keeps its first spelling; a
// sitemap listing takes precedence over a page link, and a better title
// replaces a worse one.
func (s *linkSet) add(key, clean, title, source string, titleRank int) {
	if title == "" {
		titleRank = titleNone
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.entries[key]
	if e == nil {
		if len(s.entries) >= s.max {
			if _, seen := s.overflow[key]; !seen {
				if s.overflow == nil {
					s.overflow = map[string]struct{}{}
				}
				if len(s.overflow) < mapMaxOverflow {
					s.overflow[key] = struct{}{}
				} else {
					s.more = true
				}
			}
			return
		}
		s.seq++
		s.entries[key] = &linkEntry{link: MapLink{URL: clean, Title: title, Source: source}, titleRank: titleRank, seq: s.seq}
		return
	}
	if sourceRank[source] < sourceRank[e.link.Source] {
		s.seq++
		e.link.Source, e.seq = source, s.seq
	}
	if titleRank > e.titleRank {
		e.link.Title, e.titleRank = title, titleRank
	}
}

// overflowCount is how many distinct URLs were met once the set was full,
// and whether that count is only a lower bound.
func (s *linkSet) overflowCount() (int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.overflow), s.more
}

// setTitle gives an already listed URL a page's own title.
func (s *linkSet) setTitle(key, title string) {
	if title == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.entries[key]; e != nil && e.titleRank < titleOwn {
		e.link.Title, e.titleRank = title, titleOwn
	}
}

// list returns the links ordered by source, then by discovery.
func (s *linkSet) list() []MapLink {
	s.mu.Lock()
	entries := make([]*linkEntry, 0, len(s.entries))
	for _, e := range s.entries {
		entries = append(entries, e)
	}
	s.mu.Unlock()
	slices.SortFunc(entries, func(a, b *linkEntry) int {
		if c := cmp.Compare(sourceRank[a.link.Source], sourceRank[b.link.Source]); c != 0 {
			return c
		}
		return cmp.Compare(a.seq, b.seq)
	})
	out := make([]MapLink, len(entries))
	for i, e := range entries {
		out[i] = e.link
	}
	return out
}

// searchTerms splits a search into distinct lower-case words.
func searchTerms(q string) []string {
	var terms []string
	for _, w := range strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == ',' || r == '/' || r == '+'
	}) {
		if !slices.Contains(terms, w) {
			terms = append(terms, w)
		}
	}
	return terms
}

// searchScore counts the search terms found in a link's path, query or
// title. The host is left out: it would match every link alike.
func searchScore(l MapLink, terms []string) int {
	hay := strings.ToLower(l.Title)
	if u, err := url.Parse(l.URL); err == nil {
		p := u.EscapedPath()
		if s, err := url.PathUnescape(p); err == nil {
			p = s
		}
		q := u.RawQuery
		if s, err := url.QueryUnescape(q); err == nil {
			q = s
		}
		hay += " " + strings.ToLower(p+"?"+q)
	}
	n := 0
	for _, t := range terms {
		if strings.Contains(hay, t) {
			n++
		}
	}
	return n
}
