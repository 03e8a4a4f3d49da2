package primitive

import (
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// linkFilter is the scope of a map or a crawl: the one place that decides
// which discovered URLs they take. Map uses its hosts; gyre adds the start
// page's directory, path patterns and other sites. It is safe for
// concurrent use; it grows only when the start page redirects (addStart).
type linkFilter struct {
	hosts *siteScope
	// external takes any host (gyre's allowExternal).
	external bool
	// include and exclude are applied to the decoded path (pathAllowed).
	include, exclude []*regexp.Regexp
	// dir, when set, is the directory that URLs on the site's own hosts
	// must be under (gyre without crawlEntireDomain); "": any path.
	// Subdomains and other sites are not bounded by it: their paths have
	// nothing to do with the start page's.
	mu  sync.RWMutex
	dir string
}

// candidate is a discovered URL that passed a linkFilter.
type candidate struct {
	url  string // cleaned (cleanURL): the form requested and listed
	key  string // NormalizeURL: the identity
	kind pathKind
	// raw is the link as a page gave it, when a frontier vetted it
	// (vetLinks).
	raw string
	// host says whether the URL is on the site's own hosts (the start host,
	// with or without "www.", or the host the start page redirected to),
	// on a subdomain in scope, or on another site.
	host hostMatch
}

// follow says whether a crawl fetches the candidate: pages and PDFs, not
// assets or other documents.
func (c candidate) follow() bool { return c.kind == pathPage || c.kind == pathPDF }

// vet resolves raw against base (when not nil), cleans it and says whether
// the filter takes it: http or https without user information, a host in
// scope, and a path under the filter's directories that its patterns let
// through. The candidate's kind is left for the caller to judge.
func (f *linkFilter) vet(raw string, base *url.URL) (candidate, bool) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return candidate{}, false
	}
	if base != nil {
		u = base.ResolveReference(u)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return candidate{}, false
	}
	clean, err := checked(normalize(u, false), u)
	if err != nil {
		return candidate{}, false
	}
	match := f.hosts.match(u.Hostname())
	if match == hostOther && !f.external {
		return candidate{}, false
	}
	c := candidate{url: clean, kind: extKinds[strings.ToLower(path.Ext(u.Path))], host: match}
	if match == hostSite && !f.underDir(u.EscapedPath()) {
		return candidate{}, false
	}
	if !f.pathAllowed(u.Path) {
		return candidate{}, false
	}
	c.key = normalize(u, true)
	return c, true
}

// addStart moves the scope to where the start page landed after
// redirects: its host joins the site and, when the filter is bounded by a
// directory, the directory becomes the final URL's (a crawl of /docs that
// lands on /docs/ crawls /docs/, one of / that lands on /en/ crawls /en/).
func (f *linkFilter) addStart(final *url.URL) {
	f.hosts.addHost(final.Hostname())
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.dir != "" {
		f.dir = startDir(final.EscapedPath())
	}
}

// underDir says whether escaped path p is in the filter's directory or is
// the directory's own page spelled without its slash ("/docs" for "/docs/").
func (f *linkFilter) underDir(p string) bool {
	f.mu.RLock()
	d := f.dir
	f.mu.RUnlock()
	return d == "" || strings.HasPrefix(p, d) || p == d[:len(d)-1]
}

// pathAllowed applies the include and exclude patterns to a URL path. As
// "/docs/" and "/docs" are one page (NormalizeURL), a pattern matches when
// it matches the path as written or without its trailing slash: the
// decision does not depend on which spelling the crawl met first.
func (f *linkFilter) pathAllowed(p string) bool {
	if len(f.include) == 0 && len(f.exclude) == 0 {
		return true
	}
	trimmed := p
	if len(p) > 1 {
		trimmed = strings.TrimRight(p, "/")
	}
	match := func(re *regexp.Regexp) bool {
		return re.MatchString(p) || (trimmed != p && re.MatchString(trimmed))
	}
	if slices.ContainsFunc(f.exclude, match) {
		return false
	}
	return len(f.include) == 0 || slices.ContainsFunc(f.include, match)
}

// startDir is the directory a crawl started at escaped path p stays in:
// the directory that holds p, as a relative link on the page resolves it
// ("/docs/guide/intro.html" and "/docs/guide/" → "/docs/guide/", "/docs"
// → "/"). A server that redirects "/docs" to "/docs/" makes it "/docs/"
// (linkFilter.addStart).
func startDir(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i+1]
	}
	return "/"
}

type pathKind int

const (
	pathPage     pathKind = iota
	pathPDF               // followed by a crawl; listed, not followed, by map
	pathDocument          // listed, not followed
	pathAsset             // neither listed nor followed when linked from a page
)

var extKinds = map[string]pathKind{".pdf": pathPDF}

func init() {
	for _, e := range strings.Fields(`jpg jpeg png gif webp svg ico bmp tif tiff avif heic
		css js mjs map woff woff2 ttf otf eot
		zip gz tgz tar bz2 xz 7z rar zst
		mp3 mp4 m4a m4v webm avi mov wav ogg oga ogv flac mkv wmv
		exe dmg msi apk iso bin deb rpm`) {
		extKinds["."+e] = pathAsset
	}
	for _, e := range strings.Fields(`doc docx xls xlsx ppt pptx odt ods odp csv txt rtf epub
		xml rss atom json`) {
		extKinds["."+e] = pathDocument
	}
}

// Kinds of host for a siteScope.
type hostMatch int

const (
	hostOther hostMatch = iota // another site
	hostSite                   // the site's own host, with or without "www."
	hostSub                    // a subdomain, when subdomains are in scope
)

// siteScope decides which hosts belong to the site being mapped or crawled.
type siteScope struct {
	subdomains bool
	mu         sync.RWMutex
	bases      []string // host names without a leading "www."
}

func newSiteScope(host string, subdomains bool) *siteScope {
	s := &siteScope{subdomains: subdomains}
	s.addHost(host)
	return s
}

func (s *siteScope) addHost(host string) {
	b := strings.TrimPrefix(strings.ToLower(host), "www.")
	s.mu.Lock()
	defer s.mu.Unlock()
	if b != "" && !slices.Contains(s.bases, b) {
		s.bases = append(s.bases, b)
	}
}

func (s *siteScope) contains(host string) bool { return s.match(host) != hostOther }

func (s *siteScope) match(host string) hostMatch {
	h := strings.TrimPrefix(strings.ToLower(host), "www.")
	s.mu.RLock()
	defer s.mu.RUnlock()
	sub := false
	for _, b := range s.bases {
		if h == b {
			return hostSite
		}
		sub = sub || (s.subdomains && strings.HasSuffix(h, "."+b))
	}
	if sub {
		return hostSub
	}
	return hostOther
}
