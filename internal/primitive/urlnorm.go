package primitive

import (
	"errors"
	"net"
	"net/url"
	"slices"
	"strings"

	"golang.org/x/net/idna"
)

// NormalizeURL returns the canonical form of an absolute http or https URL:
// two spellings of the same page give the same string, so map and gyre use
// it as the identity of a page. The canonical form has
//
//   - a lower-case scheme, and a lower-case host without a trailing dot,
//     with international names in their ASCII (punycode) form;
//   - no default port (:80 for http, :443 for https);
//   - no fragment and no empty query ("?");
//   - dot segments resolved ("/a/./b/../c" is "/a/c"), an empty path as "/";
//   - percent-escapes in upper case, and unreserved characters
//     (letters, digits, "-", ".", "_", "~") unescaped;
//   - no trailing slash on a path other than "/": "/docs/" and "/docs" are
//     taken for the same page and both become "/docs";
//   - no tracking parameters (utm_*, gclid, fbclid, msclkid), and the
//     remaining query parameters sorted by name, stable for equal names.
//
// The canonical form is an identity, not always the best URL to request: a
// server may answer "/docs" with a redirect to "/docs/". Relative URLs and
// other schemes are errors.
func NormalizeURL(raw string) (string, error) {
	u, err := parseHTTPURL(raw)
	if err != nil {
		return "", err
	}
	return checked(normalize(u, true), u)
}

// CleanURL is NormalizeURL without the two steps that change which resource
// a server sees: the trailing slash and the query order stay as written. It
// is the form map lists and the form monitors are stored in.
func CleanURL(raw string) (string, error) { return cleanURL(raw) }

// cleanURL is CleanURL.
func cleanURL(raw string) (string, error) {
	u, err := parseHTTPURL(raw)
	if err != nil {
		return "", err
	}
	return checked(normalize(u, false), u)
}

// checked refuses a URL whose host normalised to nothing ("http://./") or
// to something that no longer parses ("http://]:").
func checked(s string, u *url.URL) (string, error) {
	if u.Hostname() == "" {
		return "", errNotAbsolute
	}
	if _, err := url.Parse(s); err != nil {
		return "", errNotAbsolute
	}
	return s, nil
}

var (
	errNotAbsolute = errors.New("url is not absolute")
	errNotHTTP     = errors.New("url does not use http or https")
)

func parseHTTPURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, err
	}
	if u.Scheme == "" || u.Host == "" {
		return nil, errNotAbsolute
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, errNotHTTP
	}
	return u, nil
}

// normalize rewrites u in place and returns its string; canonical adds the
// trailing-slash and query-order steps.
func normalize(u *url.URL, canonical bool) string {
	u.Host = normalizeHost(u.Scheme, u.Host)
	u.Fragment, u.RawFragment = "", ""
	u.ForceQuery = false

	p := removeDotSegments(normalizeEscapes(u.EscapedPath()))
	if p == "" {
		p = "/"
	}
	if canonical && len(p) > 1 {
		p = strings.TrimRight(p, "/")
		if p == "" {
			p = "/"
		}
	}
	setEscapedPath(u, p)
	u.RawQuery = normalizeQuery(u.RawQuery, canonical)
	return u.String()
}

func normalizeHost(scheme, hostport string) string {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = strings.Trim(hostport, "[]"), ""
	}
	host = strings.TrimRight(strings.ToLower(host), ".")
	if !isASCII(host) {
		if a, err := idna.Punycode.ToASCII(host); err == nil {
			host = a
		}
	}
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	if port == "" {
		if strings.Contains(host, ":") {
			return "[" + host + "]"
		}
		return host
	}
	return net.JoinHostPort(host, port)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// setEscapedPath sets u's path from its escaped form, keeping escapes such as
// %2F that the decoded Path cannot express.
func setEscapedPath(u *url.URL, escaped string) {
	p, err := url.PathUnescape(escaped)
	if err != nil {
		return
	}
	u.Path, u.RawPath = p, escaped
	if u.EscapedPath() != escaped {
		// url.URL refused RawPath as an encoding of Path; fall back on Path.
		u.RawPath = ""
	}
}

// normalizeEscapes upper-cases the hex digits of percent-escapes and decodes
// the escapes of unreserved characters (RFC 3986 section 6.2.2).
func normalizeEscapes(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r == '%' || mustEscape(r) }) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' && i+2 < len(s) && isHexDigit(s[i+1]) && isHexDigit(s[i+2]) {
			v := unhex(s[i+1])<<4 | unhex(s[i+2])
			if isUnreserved(v) {
				b.WriteByte(v)
			} else {
				b.WriteByte('%')
				b.WriteString(strings.ToUpper(s[i+1 : i+3]))
			}
			i += 2
			continue
		}
		if c < 0x80 && !mustEscape(rune(c)) {
			b.WriteByte(c)
			continue
		}
		if c >= 0x80 || mustEscape(rune(c)) {
			b.WriteByte('%')
			b.WriteByte("0123456789ABCDEF"[c>>4])
			b.WriteByte("0123456789ABCDEF"[c&15])
		}
	}
	return b.String()
}

// mustEscape reports whether a character may not stand raw in a URL:
// controls, space, non-ASCII and a few delimiters (RFC 3986).
func mustEscape(r rune) bool {
	return r <= ' ' || r >= 0x7f || strings.ContainsRune("\"<>\\^`{|}", r)
}

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}

func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '.' || c == '_' || c == '~'
}

// removeDotSegments applies RFC 3986 section 5.2.4 to an absolute path.
func removeDotSegments(p string) string {
	if !strings.Contains(p, ".") {
		return p
	}
	segs := strings.Split(p, "/")
	out := make([]string, 0, len(segs))
	for i, s := range segs {
		last := i == len(segs)-1
		switch s {
		case ".":
			if last {
				out = append(out, "")
			}
		case "..":
			// out[0] is the empty segment before the leading slash.
			if len(out) > 1 {
				out = out[:len(out)-1]
			}
			if last {
				out = append(out, "")
			}
		default:
			out = append(out, s)
		}
	}
	r := strings.Join(out, "/")
	if !strings.HasPrefix(r, "/") {
		r = "/" + r
	}
	return r
}

// trackingParams are query parameters that only tell analytics where a
// visitor came from; they never select different content.
var trackingParams = map[string]bool{"gclid": true, "fbclid": true, "msclkid": true}

func isTrackingParam(name string) bool {
	name = strings.ToLower(name)
	return strings.HasPrefix(name, "utm_") || trackingParams[name]
}

// normalizeQuery drops empty pairs and tracking parameters and normalises
// escapes; sorted orders the pairs by name. Pairs are kept as written
// otherwise ("a=1&a=2" stays, "+" is not rewritten).
func normalizeQuery(q string, sorted bool) string {
	if q == "" {
		return ""
	}
	pairs := strings.Split(q, "&")
	kept := pairs[:0]
	for _, p := range pairs {
		if p == "" {
			continue
		}
		name, _, _ := strings.Cut(p, "=")
		if n, err := url.QueryUnescape(name); err == nil {
			name = n
		}
		if isTrackingParam(name) {
			continue
		}
		kept = append(kept, normalizeEscapes(p))
	}
	if sorted {
		slices.SortStableFunc(kept, func(a, b string) int {
			an, _, _ := strings.Cut(a, "=")
			bn, _, _ := strings.Cut(b, "=")
			return strings.Compare(an, bn)
		})
	}
	return strings.Join(kept, "&")
}
