package primitive

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/xml"
	"errors"
	"io"
	"net/url"
	"strings"

	"webacq/internal/fetch"
	"webacq/internal/model"
)

// Limits of the sitemap search. Sitemaps come from strangers: each limit
// bounds what one file, or one search, may cost.
const (
	// mapMaxSitemaps bounds the sitemap files fetched, indexes included.
	mapMaxSitemaps = 50
	// mapMaxSitemapDepth bounds how deep sitemap indexes nest: 0 is the
	// sitemaps named by robots.txt (or the conventional ones).
	mapMaxSitemapDepth = 3
	// mapMaxSitemapBytes caps a decompressed sitemap; the sitemaps protocol
	// sets the same limit. A gzipped sitemap is parsed as it is inflated,
	// so the cap bounds the time a gzip bomb costs, not memory; a plain
	// sitemap is already within the fetch client's body cap.
	mapMaxSitemapBytes = 50 << 20
	// sitemapMaxText bounds the text kept of one element: a <loc> or
	// <link> longer than the protocol's 2,048 characters is skipped and a
	// title is cut there. Text past it is not gathered, so a 50 MB <loc>
	// costs no 50 MB string.
	sitemapMaxText = 2048
	// sitemapMaxToken bounds one XML token (a text run, a tag, a comment)
	// in bytes: the decoder holds a whole token, twice, so a 50 MB text run
	// cost 100 MB per file read at once. A longer token ends the file, which
	// keeps the entries read before it.
	sitemapMaxToken = 1 << 20
	// sitemapMaxNesting bounds how deep elements nest; sitemaps and feeds
	// nest a handful of levels, and every open element is held.
	sitemapMaxNesting = 256
	// sitemapMaxKept bounds the bytes of URLs and titles one file keeps
	// until they are listed (up to mapWorkers files are held at once): 8 MB
	// holds 30,000 URLs of 280 bytes. Before it, 50 files of 30,000 long
	// URLs held 5.7 GB.
	sitemapMaxKept = 8 << 20
	// sitemapCheckEvery is how many tokens, lines or entries pass between
	// looks at the request's context.
	sitemapCheckEvery = 512
)

// sitemapSearch finds and reads a site's sitemaps, for Map and gyre alike,
// listing in links the page URLs that filter takes on the site's hosts
// (other sites never, whatever the filter says of links).
type sitemapSearch struct {
	s      *Service
	filter *linkFilter
	links  *linkSet
}

// sitemapPages runs a sitemap search for a crawl and returns the pages
// found, at most max, in sitemap order.
func sitemapPages(ctx context.Context, s *Service, start *url.URL, filter *linkFilter, max int) []candidate {
	m := &sitemapSearch{s: s, filter: filter, links: newLinkSet(max)}
	_ = m.run(ctx, start)
	var out []candidate
	for _, l := range m.links.list() {
		if l.Source != MapSourceSitemap {
			continue
		}
		if c, ok := m.candidate(l.URL, nil); ok {
			out = append(out, c)
		}
	}
	return out
}

// candidate vets a URL a sitemap or robots.txt names.
func (m *sitemapSearch) candidate(raw string, base *url.URL) (candidate, bool) {
	c, ok := m.filter.vet(raw, base)
	return c, ok && c.host != hostOther
}

// run runs the sitemap search. It returns the first fetch error when no
// sitemap fetch got an answer, else nil.
//
// Files are fetched mapWorkers at a time and taken in order, each as soon
// as those before it are: at most mapWorkers files are held at once, and
// the order of the links does not depend on which file arrives first. A
// file is not fetched once the link set is full or ctx is done.
func (m *sitemapSearch) run(ctx context.Context, start *url.URL) error {
	var level []string
	for _, raw := range m.s.HTTP.Robots().Sitemaps(ctx, start.String()) {
		u, err := start.Parse(strings.TrimSpace(raw))
		if err != nil {
			continue
		}
		c, err := cleanURL(u.String())
		if err != nil {
			continue
		}
		if cand, ok := m.candidate(c, nil); ok {
			m.links.add(cand.key, cand.url, "", MapSourceRobots, titleNone)
		}
		level = append(level, c)
	}
	if len(level) == 0 {
		origin := start.Scheme + "://" + start.Host
		level = []string{origin + "/sitemap.xml", origin + "/sitemap_index.xml"}
	}

	seen := make(map[string]bool)
	fetched := 0
	answered := false
	var firstErr error
	for depth := 0; depth <= mapMaxSitemapDepth && len(level) > 0; depth++ {
		if ctx.Err() != nil || m.links.full() {
			break
		}
		var batch []string
		for _, u := range level {
			if fetched+len(batch) >= mapMaxSitemaps {
				break
			}
			key, err := NormalizeURL(u)
			if err != nil || seen[key] {
				continue
			}
			seen[key] = true
			batch = append(batch, u)
		}
		fetched += len(batch)

		level = nil
		files := make([]chan sitemapFile, len(batch))
		launched := 0
		for i := range batch {
			for ; launched < len(batch) && launched < i+mapWorkers; launched++ {
				ch := make(chan sitemapFile, 1)
				files[launched] = ch
				u := batch[launched]
				go func() { ch <- m.fetchSitemap(ctx, u) }()
			}
			f := <-files[i]
			files[i] = nil
			if f.err != nil {
				if firstErr == nil {
					firstErr = f.err
				}
				continue
			}
			answered = true
			// A file that arrived is listed even past the deadline: that
			// is at most mapWorkers files, and later ones fail at once.
			base, _ := url.Parse(f.url)
			for _, e := range f.pages {
				if c, ok := m.candidate(e.URL, base); ok {
					m.links.add(c.key, c.url, e.Title, MapSourceSitemap, titleText)
				}
			}
			for _, c := range f.children {
				if u, err := base.Parse(c); err == nil {
					level = append(level, u.String())
				}
			}
		}
	}
	if answered {
		return nil
	}
	return firstErr
}

// sitemapFile is one fetched and parsed sitemap. A file that answered with
// an HTTP error or could not be parsed has no entries and no error: only
// fetch failures are errors.
type sitemapFile struct {
	url      string
	pages    []sitemapEntry
	children []string
	err      error
}

type sitemapEntry struct {
	URL, Title string
}

func (m *sitemapSearch) fetchSitemap(ctx context.Context, u string) sitemapFile {
	f := sitemapFile{url: u}
	if err := ctx.Err(); err != nil {
		f.err = model.Wrap(model.CodeTimeout, err, "the map ran out of time")
		return f
	}
	if m.links.full() {
		return f
	}
	resp, err := m.s.acquirer().Fetch(ctx, fetch.Request{URL: u})
	if err != nil {
		f.err = err
		return f
	}
	f.url = resp.FinalURL
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return f
	}
	f.pages, f.children = readSitemap(ctx, resp.Body, m.links.capacity())
	return f
}

// parseSitemap is readSitemap without a deadline.
func parseSitemap(body []byte, max int) (pages []sitemapEntry, children []string) {
	return readSitemap(context.Background(), body, max)
}

// readSitemap reads an XML sitemap or sitemap index, an RSS or Atom feed, or
// a plain-text sitemap, gzipped or not, keeping at most max page entries,
// sitemapMaxKept bytes of them and mapMaxSitemaps children (no more could
// be fetched). A document broken half-way, cut by a limit or by the end of
// ctx keeps the entries read before.
func readSitemap(ctx context.Context, body []byte, max int) (pages []sitemapEntry, children []string) {
	var src io.Reader = bytes.NewReader(body)
	if len(body) >= 2 && body[0] == 0x1f && body[1] == 0x8b {
		zr, err := gzip.NewReader(src)
		if err != nil {
			return nil, nil
		}
		// A truncated or corrupt stream keeps what was decompressed.
		src = io.LimitReader(zr, mapMaxSitemapBytes)
	}
	br := bufio.NewReaderSize(src, 64<<10)
	if b, _ := br.Peek(3); bytes.Equal(b, []byte("\xef\xbb\xbf")) {
		_, _ = br.Discard(3)
	}
	for {
		b, err := br.Peek(1)
		if err != nil {
			return nil, nil // empty
		}
		if b[0] != ' ' && b[0] != '\t' && b[0] != '\r' && b[0] != '\n' {
			break
		}
		_, _ = br.Discard(1)
	}
	p := &sitemapParse{ctx: ctx, max: max, r: &sitemapReader{r: br}}
	if b, _ := br.Peek(1); b[0] != '<' {
		p.text()
	} else {
		p.xml()
	}
	return p.pages, p.children
}

// sitemapParse is the state of one readSitemap.
type sitemapParse struct {
	ctx      context.Context
	max      int
	r        *sitemapReader
	pages    []sitemapEntry
	children []string
	kept     int // bytes of pages
}

// keep adds a page entry and reports whether more may follow.
func (p *sitemapParse) keep(e sitemapEntry) bool {
	if len(p.pages) >= p.max || p.kept+len(e.URL)+len(e.Title) > sitemapMaxKept {
		return false
	}
	p.pages = append(p.pages, e)
	p.kept += len(e.URL) + len(e.Title)
	return len(p.pages) < p.max
}

// sitemapReader hands the body to the XML decoder a byte at a time (the
// decoder then reads nothing ahead) and refuses to give more than
// sitemapMaxToken bytes since mark, which the parse moves after each token.
type sitemapReader struct {
	r    *bufio.Reader
	n    int64 // bytes read
	mark int64
}

var errSitemapToken = errors.New("sitemap token too long")

func (s *sitemapReader) ReadByte() (byte, error) {
	if s.n-s.mark >= sitemapMaxToken {
		return 0, errSitemapToken
	}
	b, err := s.r.ReadByte()
	if err == nil {
		s.n++
	}
	return b, err
}

func (s *sitemapReader) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	c, err := s.ReadByte()
	if err != nil {
		return 0, err
	}
	b[0] = c
	return 1, nil
}

// text reads one URL a line; lines longer than sitemapMaxText are skipped.
func (p *sitemapParse) text() {
	var line []byte
	long := false
	for n := 0; ; n++ {
		if n%sitemapCheckEvery == 0 && p.ctx.Err() != nil {
			return
		}
		p.r.mark = p.r.n // a line may be as long as it likes; only its start is kept
		c, err := p.r.ReadByte()
		if err == nil && c != '\n' {
			if len(line) < sitemapMaxText+2 { // room for a final "\r" and a space
				line = append(line, c)
			} else {
				long = true
			}
			continue
		}
		if s := strings.TrimSpace(string(line)); !long && len(s) <= sitemapMaxText {
			l := strings.ToLower(s)
			if (strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://")) && !p.keep(sitemapEntry{URL: s}) {
				return
			}
		}
		if err != nil {
			return
		}
		line, long = line[:0], false
	}
}

// xml takes <loc> directly under <url> (pages) or <sitemap> (children),
// <link> under an RSS <item> and <link href> (rel alternate) under an Atom
// <entry>, with the item's <title>.
func (p *sitemapParse) xml() {
	d := xml.NewDecoder(p.r)
	d.Strict = false
	// The fetch client has already decoded the body to UTF-8.
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }

	var stack []string
	var text strings.Builder
	long := false // text went past sitemapMaxText
	var item sitemapEntry
	inItem := false
	parent := func() string {
		if len(stack) < 2 {
			return ""
		}
		return stack[len(stack)-2]
	}
	for n := 0; ; n++ {
		if n%sitemapCheckEvery == 0 && p.ctx.Err() != nil {
			return
		}
		p.r.mark = p.r.n
		tok, err := d.Token()
		if err != nil {
			return
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if len(stack) >= sitemapMaxNesting {
				return
			}
			name := strings.ToLower(t.Name.Local)
			stack = append(stack, name)
			text.Reset()
			long = false
			if len(stack) == 1 && name != "urlset" && name != "sitemapindex" &&
				name != "rss" && name != "rdf" && name != "feed" {
				return // not a sitemap: an HTML error page, say
			}
			switch {
			case name == "item" || name == "entry":
				inItem, item = true, sitemapEntry{}
			case name == "link" && parent() == "entry":
				rel := strings.ToLower(attrValue(t, "rel"))
				if href := attrValue(t, "href"); href != "" && len(href) <= sitemapMaxText &&
					(rel == "" || rel == "alternate") && item.URL == "" {
					item.URL = href
				}
			}
		case xml.CharData:
			if room := sitemapMaxText - text.Len(); len(t) > room {
				text.Write(t[:max(room, 0)])
				long = true
			} else {
				text.Write(t)
			}
		case xml.EndElement:
			if len(stack) == 0 {
				continue
			}
			name, par := stack[len(stack)-1], parent()
			v := strings.TrimSpace(text.String())
			if long {
				v = strings.ToValidUTF8(v, "") // the cut may split a character
			}
			switch {
			case name == "loc" && par == "url" && v != "" && !long:
				if !p.keep(sitemapEntry{URL: v}) {
					return
				}
			case name == "loc" && par == "sitemap" && v != "" && !long:
				if len(p.children) < mapMaxSitemaps {
					p.children = append(p.children, v)
				}
				if len(p.children) == mapMaxSitemaps && stack[0] == "sitemapindex" {
					return // an index lists nothing else
				}
			case name == "link" && par == "item" && v != "" && !long:
				item.URL = v
			case name == "title" && inItem && (par == "item" || par == "entry"):
				item.Title = collapseSpace(v)
			case (name == "item" || name == "entry") && inItem:
				if item.URL != "" && !p.keep(item) {
					return
				}
				inItem = false
			}
			stack = stack[:len(stack)-1]
			text.Reset()
			long = false
		}
	}
}

func attrValue(t xml.StartElement, name string) string {
	for _, a := range t.Attr {
		if strings.EqualFold(a.Name.Local, name) {
			return strings.TrimSpace(a.Value)
		}
	}
	return ""
}
