package fetch

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"mime"
	"net"
	"net/http"
	"regexp"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/andybalholm/brotli"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"

	"webacq/internal/model"
)

// Kind is the dispatch class of a media type: what a caller turns the body into.
type Kind string

// Kinds of content.
const (
	KindHTML  Kind = "html"
	KindPDF   Kind = "pdf"
	KindText  Kind = "text"
	KindJSON  Kind = "json"
	KindXML   Kind = "xml"
	KindOther Kind = "other"
)

// KindOf classifies a media type such as "text/html".
func KindOf(mediaType string) Kind {
	mt := strings.ToLower(mediaType)
	switch {
	case mt == "text/html" || mt == "application/xhtml+xml":
		return KindHTML
	case mt == "application/pdf" || mt == "application/x-pdf":
		return KindPDF
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		return KindJSON
	case mt == "application/xml" || mt == "text/xml" || strings.HasSuffix(mt, "+xml"):
		return KindXML
	case strings.HasPrefix(mt, "text/"):
		return KindText
	}
	return KindOther
}

func isTextKind(k Kind) bool {
	return k == KindHTML || k == KindText || k == KindJSON || k == KindXML
}

// mediaType returns the declared media type, or a sniffed one when the
// server declared none or a generic binary type.
func mediaType(contentType string, body []byte) string {
	mt, _, err := mime.ParseMediaType(contentType)
	mt = strings.ToLower(mt)
	if err == nil && mt != "" && mt != "application/octet-stream" && mt != "binary/octet-stream" {
		return mt
	}
	sniffed, _, _ := mime.ParseMediaType(http.DetectContentType(body))
	if sniffed == "application/octet-stream" && mt != "" {
		return mt
	}
	return sniffed
}

var xmlEncodingRe = regexp.MustCompile(`^\s*<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._:-]+)["']`)

// ToUTF8 decodes a text body of the given media type (lower-case, such
// as "text/html") and Content-Type header to UTF-8 and names its original
// charset, as Fetch does with every response. The order follows the HTML
// standard: byte order mark, Content-Type charset, then (HTML) a meta
// charset in the first 1024 bytes or (XML) the encoding declaration, then
// UTF-8 when the bytes are valid UTF-8, else windows-1252; except that
// valid UTF-8 beats a meta charset (see below). Non-text bodies are
// returned unchanged with an empty charset.
func ToUTF8(body []byte, mediaType, contentType string) ([]byte, string) {
	kind := KindOf(mediaType)
	if !isTextKind(kind) {
		return body, ""
	}
	var enc encoding.Encoding
	var name string
	var certain bool
	if kind == KindHTML {
		enc, name, certain = charset.DetermineEncoding(body, contentType)
		if !certain && name == "windows-1252" {
			if e, n := lateMetaCharset(body); e != nil {
				enc, name = e, n
			}
		}
	} else {
		// DetermineEncoding without the HTML meta prescan.
		head := body
		if len(head) > 1024 {
			head = head[:1024]
		}
		enc, name, certain = charset.DetermineEncoding(nil, contentType)
		if bytes.HasPrefix(head, []byte("\xef\xbb\xbf")) {
			enc, name, certain = encoding.Nop, "utf-8", true
		} else if bytes.HasPrefix(head, []byte("\xfe\xff")) || bytes.HasPrefix(head, []byte("\xff\xfe")) {
			enc, name, certain = charset.DetermineEncoding(head, "")
		} else if !certain && kind == KindXML {
			if m := xmlEncodingRe.FindSubmatch(head); m != nil {
				if e, n := charset.Lookup(string(m[1])); e != nil {
					enc, name, certain = e, n, true
				}
			}
		}
		if !certain && kind == KindJSON {
			enc, name, certain = encoding.Nop, "utf-8", true
		}
	}
	// Without a BOM or a header charset, valid UTF-8 wins over the meta
	// tag and the windows-1252 default, as browsers' sniffing effectively
	// does: pages saved as UTF-8 by editors and CMSes often keep the meta
	// charset of the template they came from, and non-ASCII text in a
	// legacy encoding is almost never valid UTF-8 by chance. DetermineEncoding
	// only looks at the first 1024 bytes, so a page that is ASCII there and
	// UTF-8 further on is UTF-8 too. Pure ASCII keeps its declared charset:
	// ISO-2022-JP is written in 7-bit bytes.
	if !certain && name != "utf-8" && utf8.Valid(body) && (name == "windows-1252" || !ascii(body)) {
		enc, name = encoding.Nop, "utf-8"
	}
	if name == "utf-8" || enc == encoding.Nop {
		body = bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
		if !utf8.Valid(body) {
			body = bytes.ToValidUTF8(body, []byte("\uFFFD"))
		}
		return body, "utf-8"
	}
	out, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		return bytes.ToValidUTF8(body, []byte("\uFFFD")), name
	}
	return bytes.TrimPrefix(out, []byte("\xef\xbb\xbf")), name
}

// lateHead is how far into a page lateMetaCharset looks for a meta
// charset that the 1024-byte prescan did not reach.
const lateHead = 64 << 10

// lateMetaCharset finds a meta charset declared in the page's head past
// the first 1024 bytes, where the prescan stops: an archive's or a
// proxy's scripts injected at the top of <head> push it there. A
// browser's parser still honours it (the HTML standard's "change the
// encoding" when the tree builder meets a <meta charset> while the
// encoding is tentative), so a GB2312 page whose declaration sits at
// byte 1232 is GB2312, not windows-1252. Only the head is read, at most
// lateHead bytes, and only when no meta charset ends in the first 1024 bytes.
func lateMetaCharset(body []byte) (encoding.Encoding, string) {
	if len(body) <= 1024 {
		return nil, ""
	}
	head := body[:min(len(body), lateHead)]
	lower := bytes.ToLower(head)
	if end := bytes.Index(lower, []byte("<body")); end >= 0 {
		head, lower = head[:end], lower[:end]
	}
	for i := 0; ; {
		j := bytes.Index(lower[i:], []byte("<meta"))
		if j < 0 {
			return nil, ""
		}
		i += j
		end := bytes.IndexByte(lower[i:], '>')
		if end < 0 {
			return nil, ""
		}
		tag, tagLower := head[i:i+end+1], lower[i:i+end+1]
		i += end
		if !bytes.Contains(tagLower, []byte("charset")) {
			continue
		}
		if i < 1024 {
			return nil, "" // the prescan read this one
		}
		// The prescan of the tag alone: a tag without high bytes is
		// never taken for UTF-8 by DetermineEncoding's fallback.
		if e, n, _ := charset.DetermineEncoding(tag, ""); e != nil && (n != "windows-1252" || explicitLatin1(tagLower)) {
			return e, n
		}
	}
}

// explicitLatin1 tells whether a meta tag names one of the labels of
// windows-1252 itself, rather than one DetermineEncoding did not know.
func explicitLatin1(t []byte) bool {
	for _, l := range []string{"windows-1252", "iso-8859-1", "latin1", "us-ascii", "cp1252", "iso8859-1"} {
		if bytes.Contains(t, []byte(l)) {
			return true
		}
	}
	return false
}

func ascii(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// maxCodings is the most content codings decodeContent undoes. Real
// servers apply one; two covers a proxy compressing an already compressed
// body. Each layer costs a decoder of tens of kilobytes, so a header
// listing thousands of codings would otherwise cost hundreds of megabytes
// before a byte of the body is read.
const maxCodings = 2

// decodeContent undoes the Content-Encoding of a response body. The returned
// func releases decoder resources. More than maxCodings codings are refused
// before any decoder is built.
func decodeContent(body io.Reader, contentEncoding string) (io.Reader, func(), error) {
	nop := func() {}
	codings, ok := contentCodings(contentEncoding)
	if !ok {
		return nil, nop, model.Errorf(model.CodeUpstreamError,
			"the response declares more than %d content encodings", maxCodings)
	}
	if len(codings) == 0 {
		return body, nop, nil
	}
	var closers []io.Closer
	closeAll := func() {
		for _, c := range closers {
			_ = c.Close()
		}
	}
	r := body
	// Codings are listed in the order they were applied.
	for i := len(codings) - 1; i >= 0; i-- {
		switch codings[i] {
		case "gzip", "x-gzip":
			zr, err := gzip.NewReader(r)
			if err != nil {
				closeAll()
				return nil, nop, model.Wrap(model.CodeUpstreamError, err, "the response body is not valid gzip")
			}
			closers = append(closers, zr)
			r = zr
		case "br":
			r = brotli.NewReader(r)
		case "deflate":
			// "deflate" means zlib-wrapped, but some servers send raw
			// deflate; the zlib header tells them apart.
			br := bufio.NewReader(r)
			if hdr, err := br.Peek(2); err == nil && isZlibHeader(hdr) {
				zr, err := zlib.NewReader(br)
				if err != nil {
					closeAll()
					return nil, nop, model.Wrap(model.CodeUpstreamError, err, "the response body is not valid deflate")
				}
				closers = append(closers, zr)
				r = zr
			} else {
				fr := flate.NewReader(br)
				closers = append(closers, fr)
				r = fr
			}
		default:
			closeAll()
			return nil, nop, model.Errorf(model.CodeUpstreamError, "the response uses an unsupported content encoding")
		}
	}
	return r, closeAll, nil
}

// contentCodings lists the codings of a Content-Encoding header, lower-case
// and without "identity", in the order they were applied. It reports false,
// having stopped early, when there are more than maxCodings.
func contentCodings(header string) ([]string, bool) {
	var codings []string
	for rest := header; rest != ""; {
		var c string
		c, rest, _ = strings.Cut(rest, ",")
		if c = strings.ToLower(strings.TrimSpace(c)); c == "" || c == "identity" {
			continue
		}
		if len(codings) == maxCodings {
			return nil, false
		}
		codings = append(codings, c)
	}
	return codings, true
}

func isZlibHeader(b []byte) bool {
	return b[0]&0x0f == 8 && (uint16(b[0])<<8|uint16(b[1]))%31 == 0
}

// classify turns a transport error into a coded error.
func classify(ctx context.Context, err error) error {
	var me *model.Error
	if errors.As(err, &me) {
		return me
	}
	if isGuardError(err) {
		return model.Wrap(model.CodeForbiddenURL, err, "url points to an address that is not allowed")
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return model.Wrap(model.CodeTimeout, err, "the site did not answer in time")
	}
	if errors.Is(err, context.Canceled) {
		return model.Wrap(model.CodeUpstreamError, err, "the request was canceled")
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		if dnsErr.IsTimeout {
			return model.Wrap(model.CodeTimeout, err, "the host name did not resolve in time")
		}
		return model.Wrap(model.CodeUpstreamError, err, "the host name could not be resolved")
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return model.Wrap(model.CodeTimeout, err, "the site did not answer in time")
	}
	if errors.Is(err, syscall.ECONNREFUSED) {
		return model.Wrap(model.CodeUpstreamError, err, "the site refused the connection")
	}
	if errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return model.Wrap(model.CodeUpstreamError, err, "the site closed the connection")
	}
	var certErr *tls.CertificateVerificationError
	var recErr tls.RecordHeaderError
	var alertErr tls.AlertError
	var unkAuth x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var invErr x509.CertificateInvalidError
	if errors.As(err, &certErr) || errors.As(err, &recErr) || errors.As(err, &alertErr) ||
		errors.As(err, &unkAuth) || errors.As(err, &hostErr) || errors.As(err, &invErr) {
		return model.Wrap(model.CodeUpstreamError, err, "the TLS handshake with the site failed")
	}
	return model.Wrap(model.CodeUpstreamError, err, "the request to the site failed")
}

// classifyBody classifies an error met while reading the body.
func classifyBody(ctx context.Context, err error) error {
	var me *model.Error
	if errors.As(err, &me) {
		return me
	}
	if ctx.Err() == nil && !isNetErr(err) {
		// Not a network failure: the decoder rejected the bytes.
		return model.Wrap(model.CodeUpstreamError, err, "the response body could not be decoded")
	}
	return classify(ctx, err)
}

func isNetErr(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET)
}
