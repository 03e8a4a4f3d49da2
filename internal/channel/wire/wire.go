// Package wire reads press-wire news feeds (Business Wire, GlobeNewswire)
// for the businesswire and globenewswire discovery channels: it fetches a
// feed conditionally and with a size bound, parses RSS or Atom with gofeed,
// and keeps the items about a company that carry the monitor's keywords.
package wire

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mmcdole/gofeed"
	"golang.org/x/net/html"

	"webacq/internal/content"
	"webacq/internal/model"
)

// Bounds of one feed: news feeds list tens of items; a feed far larger is
// not a news feed, and reading it whole would cost the node.
const (
	MaxFeedBytes = 16 << 20
	MaxItems     = 2000
	maxSummary   = 2000
	// An item's other fields are bounded too: they are kept in each run's
	// snapshot and sent in every alert. An ID past maxID is replaced by
	// its SHA-256 (still telling items apart), a link past maxLink is
	// dropped (a cut link leads nowhere), a title is clipped, and at most
	// maxCategories categories of at most maxCategory characters are kept.
	maxTitle       = 500
	maxID          = 512
	maxLink        = 4096
	maxCategories  = 32
	maxCategory    = 100
	requestTimeout = 30 * time.Second
)

// Item is one release of a feed.
type Item struct {
	ID         string    `json:"id"` // the GUID, else the link
	Title      string    `json:"title"`
	Link       string    `json:"link"`
	Summary    string    `json:"summary,omitempty"` // the description as text, bounded
	Published  time.Time `json:"published,omitzero"`
	Categories []string  `json:"categories,omitempty"`
}

// Feed is a fetched feed, or NotModified with the validators kept.
type Feed struct {
	Items        []Item
	ETag         string
	LastModified string
	NotModified  bool
}

// Client fetches feeds. The feeds' URLs are the operator's settings, so the
// client need not be the SSRF-guarded one. Safe for concurrent use.
type Client struct {
	HTTP      *http.Client
	UserAgent string
	// Fresh is how long a feed, once fetched, answers every monitor that
	// reads it from this node's memory: a wire's feed is the same for all
	// of them, so it is fetched (conditionally) once per Fresh and parsed
	// once, not once per monitor. 0 fetches on every call.
	Fresh time.Duration
	// Reserve, when set, takes bytes of the node's memory budget before a
	// feed is read and parsed (FeedCost of its declared length, else of
	// MaxFeedBytes) and returns the func that gives them back.
	Reserve func(ctx context.Context, bytes int64) (release func(), err error)

	mu    sync.Mutex
	feeds map[string]*shared
}

// shared is a feed as last fetched by this node. Its mutex is held while it
// is fetched, so that the monitors asking at once wait for one fetch.
type shared struct {
	mu   sync.Mutex
	at   time.Time
	feed *Feed
	err  error
}

// FeedCost is the memory reading and parsing a feed of n bytes may hold:
// the body, and gofeed's tree of it (about 60 MB for a 15 MB feed).
func FeedCost(n int64) int64 { return 6 * n }

// NewClient returns a client with a request timeout.
func NewClient(userAgent string) *Client {
	return &Client{HTTP: &http.Client{Timeout: requestTimeout}, UserAgent: userAgent}
}

// Fetch reads a feed, conditionally when etag or lastModified are given:
// NotModified when the feed's validators are still those. With Fresh set,
// the feed comes from this node's last fetch of it when that is recent.
func (c *Client) Fetch(ctx context.Context, feedURL, etag, lastModified string) (*Feed, error) {
	if c.Fresh <= 0 {
		return c.fetch(ctx, feedURL, etag, lastModified)
	}
	c.mu.Lock()
	if c.feeds == nil {
		c.feeds = map[string]*shared{}
	}
	sh := c.feeds[feedURL]
	if sh == nil {
		sh = &shared{}
		c.feeds[feedURL] = sh
	}
	c.mu.Unlock()

	sh.mu.Lock()
	if sh.at.IsZero() || time.Since(sh.at) >= c.Fresh {
		var validators Feed
		if sh.feed != nil {
			validators = *sh.feed
		}
		f, err := c.fetch(ctx, feedURL, validators.ETag, validators.LastModified)
		switch {
		case err != nil && ctx.Err() != nil:
			sh.mu.Unlock()
			return nil, err // this caller's end, not the feed's: the next caller fetches
		case err != nil:
			sh.err = err
		case f.NotModified && sh.feed != nil:
			sh.err = nil
		default:
			sh.feed, sh.err = f, nil
		}
		sh.at = time.Now()
	}
	feed, err := sh.feed, sh.err
	sh.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if (etag != "" && etag == feed.ETag) || (etag == "" && lastModified != "" && lastModified == feed.LastModified) {
		return &Feed{ETag: feed.ETag, LastModified: feed.LastModified, NotModified: true}, nil
	}
	// Items are shared by every caller: they only read them.
	return &Feed{Items: feed.Items, ETag: feed.ETag, LastModified: feed.LastModified}, nil
}

// fetch is Fetch without the node's shared copy.
func (c *Client) fetch(ctx context.Context, feedURL, etag, lastModified string) (*Feed, error) {
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, feedURL, nil)
	if err != nil {
		return nil, model.Wrap(model.CodeBadRequest, err, "the feed URL is not valid")
	}
	req.Header.Set("User-Agent", c.UserAgent)
	req.Header.Set("Accept", "application/rss+xml, application/atom+xml, application/xml;q=0.9, */*;q=0.5")
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	if lastModified != "" {
		req.Header.Set("If-Modified-Since", lastModified)
	}
	res, err := c.HTTP.Do(req)
	if err != nil {
		return nil, model.Wrap(model.CodeUpstreamError, err, "the news feed did not answer")
	}
	defer res.Body.Close()
	out := &Feed{ETag: etag, LastModified: lastModified}
	if v := res.Header.Get("ETag"); v != "" {
		out.ETag = v
	}
	if v := res.Header.Get("Last-Modified"); v != "" {
		out.LastModified = v
	}
	switch {
	case res.StatusCode == http.StatusNotModified:
		out.NotModified = true
		return out, nil
	case res.StatusCode == http.StatusTooManyRequests:
		return nil, model.Errorf(model.CodeRateLimited, "the news feed answered HTTP 429")
	case res.StatusCode != http.StatusOK:
		return nil, model.Errorf(model.CodeUpstreamError, "the news feed answered HTTP %d", res.StatusCode)
	}
	if c.Reserve != nil {
		n := int64(MaxFeedBytes)
		if res.ContentLength >= 0 && !res.Uncompressed {
			n = min(res.ContentLength, n)
		}
		release, err := c.Reserve(ctx, FeedCost(n))
		if err != nil {
			return nil, err
		}
		defer release()
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, MaxFeedBytes+1))
	if err != nil {
		return nil, model.Wrap(model.CodeUpstreamError, err, "reading the news feed")
	}
	if len(body) > MaxFeedBytes {
		return nil, model.Errorf(model.CodeUpstreamError, "the news feed is larger than %d MB", MaxFeedBytes>>20)
	}
	if out.Items, err = Parse(body); err != nil {
		return nil, err
	}
	return out, nil
}

// Parse reads an RSS or Atom feed: items newest first, at most MaxItems
// (a feed with more is refused whole, so that no item is silently lost).
func Parse(body []byte) ([]Item, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, model.Errorf(model.CodeUpstreamError, "the news feed is empty")
	}
	// gofeed reads a cut feed as far as it goes and reports no error: a feed
	// cut in transfer or by its server would then silently lose items.
	if err := checkComplete(body); err != nil {
		return nil, err
	}
	// Count the items before gofeed builds them all. gofeed reads element
	// names in any case: <ITEM> is an item too.
	if n := countItemTags(body); n > MaxItems {
		return nil, model.Errorf(model.CodeUpstreamError, "the news feed lists about %d items, more than %d: not read", n, MaxItems)
	}
	f, err := gofeed.NewParser().Parse(bytes.NewReader(body))
	if err != nil {
		if errors.Is(err, gofeed.ErrFeedTypeNotDetected) {
			return nil, model.Errorf(model.CodeUpstreamError, "the news feed is neither RSS nor Atom")
		}
		return nil, model.Wrap(model.CodeUpstreamError, err, "the news feed cannot be parsed: "+err.Error())
	}
	// A JSON feed's items have no tag to count before: they are counted
	// once built.
	if len(f.Items) > MaxItems {
		return nil, model.Errorf(model.CodeUpstreamError, "the news feed lists %d items, more than %d: not read", len(f.Items), MaxItems)
	}
	items := make([]Item, 0, len(f.Items))
	for _, it := range f.Items {
		if it == nil {
			continue
		}
		i := Item{ID: boundID(strings.TrimSpace(it.GUID)), Title: clip(oneLine(it.Title), maxTitle),
			Link: strings.TrimSpace(it.Link), Summary: clip(textOf(it.Description), maxSummary)}
		if len(i.Link) > maxLink {
			i.Link = ""
		}
		if i.Summary == "" {
			i.Summary = clip(textOf(it.Content), maxSummary)
		}
		if i.ID == "" {
			i.ID = boundID(i.Link)
		}
		if i.ID == "" {
			i.ID = boundID(i.Title)
		}
		if i.ID == "" {
			continue
		}
		switch {
		case it.PublishedParsed != nil:
			i.Published = it.PublishedParsed.UTC()
		case it.UpdatedParsed != nil:
			i.Published = it.UpdatedParsed.UTC()
		}
		for _, c := range it.Categories {
			if len(i.Categories) == maxCategories {
				break
			}
			if c = clip(oneLine(c), maxCategory); c != "" {
				i.Categories = append(i.Categories, c)
			}
		}
		items = append(items, i)
	}
	sort.SliceStable(items, func(a, b int) bool { return items[a].Published.After(items[b].Published) })
	return items, nil
}

// countItemTags counts the "<item" and "<entry" of body, in any case,
// without a lower-case copy of the body.
func countItemTags(body []byte) int {
	n := 0
	for i := 0; ; {
		j := bytes.IndexByte(body[i:], '<')
		if j < 0 {
			return n
		}
		i += j + 1
		rest := body[i:min(len(body), i+5)]
		if hasPrefixFold(rest, "item") || hasPrefixFold(rest, "entry") {
			n++
		}
	}
}

// hasPrefixFold reports whether b starts with the lower-case ASCII prefix,
// in any case.
func hasPrefixFold(b []byte, prefix string) bool {
	if len(b) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		if b[i]|0x20 != prefix[i] {
			return false
		}
	}
	return true
}

// checkComplete refuses an XML feed that does not end with the closing tag
// of an RSS, RDF or Atom root: one cut short, whose items after the cut
// (and any before it whose element is unclosed) would be lost without a
// word. Trailing white space and comments are allowed.
func checkComplete(body []byte) error {
	b := bytes.TrimSpace(bytes.TrimPrefix(body, []byte("\xef\xbb\xbf")))
	if len(b) == 0 || b[0] != '<' {
		return nil // not XML (a JSON feed): its parser finds a cut itself
	}
	for bytes.HasSuffix(b, []byte("-->")) {
		i := bytes.LastIndex(b, []byte("<!--"))
		if i < 0 {
			break
		}
		b = bytes.TrimSpace(b[:i])
	}
	low := bytes.ToLower(b[max(0, len(b)-16):])
	for _, end := range []string{"</rss>", "</feed>", "</rdf:rdf>"} {
		if bytes.HasSuffix(low, []byte(end)) {
			return nil
		}
	}
	return model.Errorf(model.CodeUpstreamError,
		"the news feed is truncated: it does not end with the closing tag of its <rss>, <rdf:RDF> or <feed> element; nothing of it was read")
}

// Matching keeps the items about the company (every word of its name, in
// the title or the summary) that carry one of the keywords (all items when
// there are none).
func Matching(items []Item, company string, keywords []string) []Item {
	name := nameWords(company)
	var out []Item
	for _, it := range items {
		hay := " " + strings.ToLower(it.Title+" "+it.Summary+" "+strings.Join(it.Categories, " ")) + " "
		if len(name) == 0 || !containsWords(hay, name) {
			continue
		}
		if len(keywords) > 0 && !anyKeyword(hay, keywords) {
			continue
		}
		out = append(out, it)
	}
	return out
}

// corporate suffixes left out of a company name when matching.
var suffixes = map[string]bool{"inc": true, "corp": true, "corporation": true, "co": true, "company": true, "ltd": true,
	"limited": true, "plc": true, "llc": true, "lp": true, "sa": true, "nv": true, "ag": true, "se": true, "the": true}

func nameWords(name string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(name), notWord) {
		if !suffixes[w] {
			out = append(out, w)
		}
	}
	return out
}

func notWord(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127) }

// containsWords: each word appears as a whole word.
func containsWords(hay string, words []string) bool {
	tokens := map[string]bool{}
	for _, t := range strings.FieldsFunc(hay, notWord) {
		tokens[t] = true
	}
	for _, w := range words {
		if !tokens[w] {
			return false
		}
	}
	return true
}

func anyKeyword(hay string, keywords []string) bool {
	for _, k := range keywords {
		if k = strings.ToLower(strings.TrimSpace(k)); k != "" && strings.Contains(hay, k) {
			return true
		}
	}
	return false
}

// textOf turns an item's HTML description into one line of text.
func textOf(s string) string {
	if !strings.ContainsAny(s, "<&") {
		return oneLine(s)
	}
	doc, err := content.ParseHTML([]byte(s))
	if err != nil {
		return oneLine(s)
	}
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && (n.Data == "script" || n.Data == "style") {
			return
		}
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
			b.WriteByte(' ')
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return oneLine(b.String())
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// clip cuts s to n characters, the last an ellipsis, reading no further
// than the cut.
func clip(s string, n int) string {
	count := 0
	for i := range s {
		if count == n-1 {
			if _, size := utf8.DecodeRuneInString(s[i:]); i+size == len(s) {
				return s // n characters in all
			}
			return s[:i] + "…"
		}
		count++
	}
	return s
}

// boundID gives an ID of at most maxID bytes: id itself, or its SHA-256
// in hex when longer.
func boundID(id string) string {
	if len(id) <= maxID {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// String describes an item in one line, for a change signal.
func (i Item) String() string {
	if i.Published.IsZero() {
		return i.Title
	}
	return fmt.Sprintf("%s (%s)", i.Title, i.Published.Format("2006-01-02"))
}
