package content

import (
	"bytes"
	"io"
	"strings"
)

// Scripts and style sheets are two fifths of a typical page's bytes
// (wcxb-dev: 170 of 416 MB) and nothing the pipeline returns reads them:
// scan counts the <script> elements, keeps the text of JSON-LD and
// removes every other script and every style sheet from the tree (see
// removable) before any other stage runs, and the only test on the way
// that looks into a style sheet is whether it holds text (hasText). The
// HTML tokenizer still reads those bytes one call at a time and the
// parser copies them into text nodes, a sixth of the parse. So the body
// is handed to the parser with the text of each such element, when it
// holds a printable ASCII byte, replaced by "x": the same tree but for
// that text, and "x" holds text just as the text it replaces does.
//
// rawCuts finds those texts the way the tokenizer and the parser of
// golang.org/x/net/html do, and stops looking (keeping the rest of the
// body as it is) at anything whose reading it does not follow: a
// <frameset> (whose modes ignore a <script> and keep its text's white
// space), a <col> after a <template> (the column-group mode ignores a
// <script> under a template), a <plaintext>, an element that is not
// closed, and inside <svg> or <math>, where the tokenizer reads
// <script> and <style> as markup, anything but plain elements and an
// SVG <title> or <desc> of text alone (breakout elements, other
// integration points, comments, CDATA, elements of raw text). A script
// whose text holds "<!--" is read through the tokenizer's escape states
// (scriptEnd). Every step moves forward: the time is linear in the
// body's length, and the memory is a cut per element replaced and an
// open element per level of <svg> nesting (at most maxForeignDepth,
// past which it stops too). TestRawCutsSameTree compares the trees on
// generated pages, FuzzRawCuts on any.
//
// The outline of an SVG path, the value of its "d" attribute when it is
// quoted and minPathCut bytes or longer, is replaced by "x" too: a
// <path> that rawCuts follows inside <svg> (never inside <math>), which
// the parser makes an SVG element. Path outlines are about a sixteenth
// of the bytes the parser reads on wcxb-dev once scripts are cut, every
// byte a call of the tokenizer, a test for '\r' and two copies. scan
// reads no "d" attribute, and it removes each <svg> once it has walked
// it (removable) before any other stage runs: nothing reads them.

// cut is a range of the body replaced by "x".
type cut struct{ start, end int }

// maxForeignDepth bounds the open elements followed inside <svg> and
// <math> (the parser rejects pages nested deeper than 512 anyway).
const maxForeignDepth = 512

// lightBody returns a reader of body with the text of its scripts
// (JSON-LD kept) and style sheets replaced by "x" (see rawCuts).
func lightBody(body []byte) io.Reader {
	return cutBody(body, rawCuts(body))
}

// cutBody returns a reader of body with each of cuts replaced by "x".
func cutBody(body []byte, cuts []cut) io.Reader {
	if len(cuts) == 0 {
		return bytes.NewReader(body)
	}
	return &cutReader{b: body, cuts: cuts}
}

// cutReader reads b with each cut replaced by "x".
type cutReader struct {
	b    []byte
	cuts []cut
	pos  int  // next byte of b to read
	k    int  // next cut
	x    bool // an "x" is due before b[pos:]
}

func (r *cutReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if r.x {
			p[n] = 'x'
			n++
			r.x = false
			continue
		}
		end := len(r.b)
		if r.k < len(r.cuts) {
			end = r.cuts[r.k].start
		}
		if r.pos < end {
			m := copy(p[n:], r.b[r.pos:end])
			n += m
			r.pos += m
			continue
		}
		if r.k == len(r.cuts) {
			break
		}
		r.pos = r.cuts[r.k].end
		r.k++
		r.x = true
	}
	if n == 0 && len(p) > 0 {
		return 0, io.EOF
	}
	return n, nil
}

// tagInfo is what readTag found of a tag.
type tagInfo struct {
	name        []byte // as written
	end         int    // the index after its '>'
	selfClosing bool   // the tokenizer's test, for start tags
	unsure      bool   // too many attributes to tell selfClosing
	jsonLD      bool   // a type attribute that is (or may be) application/ld+json
	// d is the quoted value of its first "d" attribute (a path's
	// outline) when readAttrs read the tag and the value is at least
	// minPathCut bytes long; rawCuts replaces it inside <svg> only.
	d cut
}

// minPathCut is the shortest value of a path's "d" attribute that
// rawCuts replaces: shorter ones cost the tokenizer less than a cut.
const minPathCut = 16

// rawCuts returns the ranges of body holding the text of a <script>
// (but JSON-LD) or <style> element that holds a printable ASCII byte,
// in order, as far as it follows the parser (see above).
func rawCuts(b []byte) []cut {
	if !hasRawStart(b) {
		return nil // no <script> or <style> to cut (see hasRawStart)
	}
	var cuts []cut
	var foreign [][]byte // the open elements inside <svg> or <math>, lower-cased
	template := false
	i := 0
	for {
		j := bytes.IndexByte(b[i:], '<')
		if j < 0 || i+j+1 >= len(b) {
			return cuts
		}
		i += j
		c := b[i+1]
		switch {
		case isASCIILetter(c):
			t, ok := readTag(b, i+1, true, len(foreign) > 0)
			if !ok {
				return cuts
			}
			i = t.end
			if len(foreign) > 0 {
				name := asciiLower(t.name)
				if len(foreign) >= maxForeignDepth || t.unsure {
					return cuts
				}
				if !plainForeign(name) {
					// An SVG <title> or <desc> (an icon's label) is read
					// as HTML until its end tag: followed when it holds
					// text only, closed at the first '<'.
					if !(string(foreign[0]) == "svg" && (string(name) == "title" || string(name) == "desc") &&
						!t.selfClosing && textThenEnd(b, i, name)) {
						return cuts
					}
				}
				if t.d.end > t.d.start && string(name) == "path" && string(foreign[0]) == "svg" {
					// The outline of an SVG path (see pathCut).
					cuts = append(cuts, t.d)
				}
				if !t.selfClosing {
					foreign = append(foreign, name)
				}
				continue
			}
			if len(t.name) > len("plaintext") {
				continue // none of the names below
			}
			var buf [len("plaintext")]byte
			name := buf[:len(t.name)]
			for k, c := range t.name {
				if 'A' <= c && c <= 'Z' {
					c += 'a' - 'A'
				}
				name[k] = c
			}
			switch string(name) {
			case "svg", "math":
				if t.unsure {
					return cuts
				}
				if !t.selfClosing {
					foreign = append(foreign, []byte(string(name)))
				}
			case "frameset", "plaintext":
				return cuts
			case "template":
				template = true
			case "col":
				if template {
					return cuts
				}
			case "script", "style", "iframe", "noembed", "noframes", "noscript", "textarea", "title", "xmp":
				end := rawEnd(b, i, name)
				if end < 0 {
					return cuts
				}
				script := string(name) == "script"
				if script && bytes.Contains(b[i:end], []byte("<!--")) {
					// The escape states may carry the text past that
					// end tag: read it as the tokenizer does.
					if end = scriptEnd(b, i); end < 0 {
						return cuts
					}
				}
				text := b[i:end]
				if (script && !t.jsonLD || string(name) == "style") && printableASCII(text) {
					cuts = append(cuts, cut{i, end})
				}
				i = end
			}
		case c == '/':
			if i+2 >= len(b) {
				return cuts
			}
			d := b[i+2]
			if isASCIILetter(d) {
				t, ok := readTag(b, i+2, false, false)
				if !ok {
					return cuts
				}
				i = t.end
				if len(foreign) > 0 {
					name := asciiLower(t.name)
					k := len(foreign) - 1
					for k >= 0 && !bytes.Equal(foreign[k], name) {
						k--
					}
					if k < 0 {
						return cuts // read as HTML
					}
					foreign = foreign[:k]
				}
				continue
			}
			if len(foreign) > 0 {
				return cuts
			}
			// "</>" is dropped, "</" and anything else a comment to '>'.
			if i = pastGT(b, i+2); i < 0 {
				return cuts
			}
		case c == '!':
			if len(foreign) > 0 {
				return cuts
			}
			if i+3 < len(b) && b[i+2] == '-' && b[i+3] == '-' {
				e := commentEnd(b, i+4)
				if e < 0 {
					return cuts
				}
				i = e
				continue
			}
			// A doctype or a bogus comment: to the next '>'.
			if i = pastGT(b, i+2); i < 0 {
				return cuts
			}
		case c == '?':
			if len(foreign) > 0 {
				return cuts
			}
			if i = pastGT(b, i+1); i < 0 {
				return cuts
			}
		default:
			i++ // text; c is read again
		}
	}
}

// hasRawStart tells whether b holds "<script", "<style" or "<svg" in
// any ASCII case. A cut is made only for an element whose start tag
// rawCuts reads at a '<' followed by its name (or inside an <svg>), and
// a name the tokenizer reads as "script", "style" or "svg" is those
// bytes in some ASCII case (it lower-cases A-Z only, and any other byte
// ends the name or makes it another): a body without them has no cut,
// whatever its markup, and is not read tag by tag. It goes from '<' to '<' (bytes.IndexByte) and reads on
// only at one followed by 's' or 'S', which few tags begin with: on
// bench/gyre's site 35.5 M instructions for the 1,000 pages, against
// 62.3 M reading sixteen bytes at a time for such a pair, and 106.1 M
// with bytes.Index for "<s", then for "<S".
func hasRawStart(b []byte) bool {
	for i := 0; ; {
		j := bytes.IndexByte(b[i:], '<')
		if j < 0 {
			return false
		}
		i += j
		if i+1 < len(b) && b[i+1]|0x20 == 's' && rawStartAt(b, i) {
			return true
		}
		i++
	}
}

// rawStartAt tells whether b holds at i "<script", "<style" or "<svg"
// in any ASCII case.
func rawStartAt(b []byte, i int) bool {
	rest := b[i+1:]
	return len(rest) >= len("style") && asciiFold(rest[:len("style")], "style") ||
		len(rest) >= len("script") && asciiFold(rest[:len("script")], "script") ||
		len(rest) >= len("svg") && asciiFold(rest[:len("svg")], "svg")
}

// pastGT returns the index after the first '>' of b from i, or -1 when
// there is none.
func pastGT(b []byte, i int) int {
	k := bytes.IndexByte(b[i:], '>')
	if k < 0 {
		return -1
	}
	return i + k + 1
}

func isASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isTagSpace(c byte) bool { return tagBytes[c]&tagSpace != 0 }

// asciiLower returns s with A-Z lower-cased (a copy when it changes).
func asciiLower(s []byte) []byte {
	for i, c := range s {
		if 'A' <= c && c <= 'Z' {
			l := append([]byte(nil), s...)
			for j := i; j < len(l); j++ {
				if 'A' <= l[j] && l[j] <= 'Z' {
					l[j] += 'a' - 'A'
				}
			}
			return l
		}
	}
	return s
}

// printableASCII tells whether s holds a byte from '!' to '~'.
func printableASCII(s []byte) bool {
	for _, c := range s {
		if c > ' ' && c < 0x7f {
			return true
		}
	}
	return false
}

// plainForeign tells whether an element inside <svg> or <math> is read
// as a plain foreign element, its name lower-case: not one that breaks
// out to HTML (the parser's breakout list and <font>), not an HTML
// integration point, not an element the tokenizer reads as raw text in
// HTML, and only ASCII letters, digits and '-' (so that the parser's
// case folding of end tags is ASCII's).
func plainForeign(name []byte) bool {
	for _, c := range name {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	switch string(name) {
	case "b", "big", "blockquote", "body", "br", "center", "code", "dd", "div", "dl", "dt", "em", "embed",
		"h1", "h2", "h3", "h4", "h5", "h6", "head", "hr", "i", "img", "li", "listing", "menu", "meta", "nobr",
		"ol", "p", "pre", "ruby", "s", "small", "span", "strong", "strike", "sub", "sup", "table", "tt", "u",
		"ul", "var", "font",
		"desc", "foreignobject", "title", "annotation-xml", "mi", "mo", "mn", "ms", "mtext", "mglyph", "malignmark",
		"script", "style", "iframe", "noembed", "noframes", "noscript", "plaintext", "textarea", "xmp",
		"frameset", "template", "col", "html":
		return false
	}
	return true
}

// rawEnd returns the index of the end tag that closes the raw text
// starting at i of an element named name (lower-case): the first "</"
// followed by the name in any ASCII case and white space, '/' or '>',
// as the tokenizer reads it; -1 when there is none.
func rawEnd(b []byte, i int, name []byte) int {
	for {
		k := bytes.Index(b[i:], []byte("</"))
		if k < 0 {
			return -1
		}
		i += k
		p := i + 2
		if p+len(name) >= len(b) {
			return -1
		}
		ok := true
		for n, c := range name {
			if d := b[p+n]; d != c && d != c-('a'-'A') {
				ok = false
				break
			}
		}
		if ok {
			switch b[p+len(name)] {
			case ' ', '\n', '\r', '\t', '\f', '/', '>':
				return i
			}
		}
		i += 2
	}
}

// textThenEnd tells whether the first '<' from i begins the end tag
// of name (lower-case): "</", the name in any ASCII case, then white
// space, '/' or '>'.
func textThenEnd(b []byte, i int, name []byte) bool {
	k := bytes.IndexByte(b[i:], '<')
	return k >= 0 && endTagAt(b, i+k, name)
}

// endTagAt tells whether b holds at i "</" and name (lower-case) in any
// ASCII case followed by white space, '/' or '>', as the tokenizer's
// readRawEndTag reads an end tag.
func endTagAt(b []byte, i int, name []byte) bool {
	p := i + 2
	if p+len(name) >= len(b) || b[i] != '<' || b[i+1] != '/' {
		return false
	}
	for n, c := range name {
		if d := b[p+n]; d != c && d != c-('a'-'A') {
			return false
		}
	}
	switch b[p+len(name)] {
	case ' ', '\n', '\r', '\t', '\f', '/', '>':
		return true
	}
	return false
}

// scriptEnd returns the index of the end tag that closes the script
// text starting at i, read as the tokenizer's readScript reads it (its
// escaped and double-escaped states), or -1 when the text runs to the
// end of b.
func scriptEnd(b []byte, i int) int {
	const (
		data = iota
		escaped
		escapedDash
		escapedDashDash
		double
		doubleDash
		doubleDashDash
	)
	script := []byte("script")
	state := data
	for i < len(b) {
		c := b[i]
		i++
		switch state {
		case data:
			if c != '<' || i >= len(b) {
				continue
			}
			switch b[i] {
			case '/':
				if endTagAt(b, i-1, script) {
					return i - 1
				}
				i++
			case '!':
				if i+2 < len(b) && b[i+1] == '-' && b[i+2] == '-' {
					i += 3
					state = escapedDashDash
				}
			}
		case escaped, escapedDash, escapedDashDash:
			switch {
			case c == '-':
				state = min(state+1, escapedDashDash)
			case c == '<':
				state = escaped
				if i >= len(b) {
					return -1
				}
				d := b[i]
				if d == '/' {
					if endTagAt(b, i-1, script) {
						return i - 1
					}
					i++
				} else if !isASCIILetter(d) {
					state = data // as x/net/html has it, d read again
				} else if i+len(script) < len(b) && asciiFold(b[i:i+len(script)], "script") {
					switch b[i+len(script)] {
					case ' ', '\n', '\r', '\t', '\f', '/', '>':
						i += len(script) + 1
						state = double
					}
				}
			case c == '>' && state == escapedDashDash:
				state = data
			default:
				state = escaped
			}
		default: // double, doubleDash, doubleDashDash
			switch {
			case c == '-':
				state = min(state+1, doubleDashDash)
			case c == '<':
				state = double
				if i < len(b) && b[i] == '/' {
					if endTagAt(b, i-1, script) {
						i += 1 + len(script) + 1
						state = escaped
					} else {
						i++
					}
				}
			case c == '>' && state == doubleDashDash:
				state = data
			default:
				state = double
			}
		}
	}
	return -1
}

// commentEnd returns the index after the comment whose text starts at i
// (after "<!--"), read as the tokenizer reads it, or -1 when it runs to
// the end of b.
func commentEnd(b []byte, i int) int {
	dashes, beginning := 0, true
	for i < len(b) {
		c := b[i]
		i++
		switch c {
		case '-':
			dashes++
			continue
		case '>':
			if dashes >= 2 || beginning {
				return i
			}
		case '!':
			if dashes >= 2 {
				if i >= len(b) {
					return -1
				}
				c = b[i]
				i++
				if c == '>' {
					return i
				}
				if c == '-' {
					dashes, beginning = 1, false
					continue
				}
			}
		}
		dashes, beginning = 0, false
	}
	return -1
}

// maxTagKeys is the most attribute names of a tag readTag compares.
const maxTagKeys = 64

// readTag reads a tag as the tokenizer's readTag does, from its name's
// first byte at i; start tells a start tag, detail asks for its
// attributes (a script's type, and whether it closes itself: the test
// reads the last attribute the tokenizer keeps, the first of each
// name), which <svg>, <math> and <script> get anyway. It returns false
// when the tag runs to the end of b.
func readTag(b []byte, i int, start, detail bool) (tagInfo, bool) {
	var t tagInfo
	p := i + 1
	// The name: to white space (read), '/' or '>' (not read).
	for p < len(b) && tagBytes[b[p]]&endsName == 0 {
		p++
	}
	if p >= len(b) {
		return t, false
	}
	t.name = b[i:p]
	if b[p] == '>' {
		t.end = p + 1
		t.selfClosing = start && detail && b[p-1] == '/'
		return t, true
	}
	if isTagSpace(b[p]) {
		p++
	}
	if start && !detail {
		detail = asciiFold(t.name, "svg") || asciiFold(t.name, "math") || asciiFold(t.name, "script")
	}
	if !start || !detail {
		return t, skipAttrs(b, p, &t)
	}
	return t, readAttrs(b, p, &t)
}

// skipAttrs reads a tag's attributes from p as readAttrs does and sets
// t.end only.
func skipAttrs(b []byte, p int, t *tagInfo) bool {
	for {
		p = skipTagSpace(b, p)
		if p >= len(b) {
			return false
		}
		if b[p] == '>' {
			t.end = p + 1
			return true
		}
		// The key: a '=' first is part of it.
		if b[p] == '=' {
			p++
		}
		for p < len(b) && tagBytes[b[p]]&endsKey == 0 {
			p++
		}
		p = skipTagSpace(b, p)
		if p >= len(b) {
			return false
		}
		switch b[p] {
		case '/':
			p++
			continue
		case '=':
		default:
			continue
		}
		p = skipTagSpace(b, p+1)
		if p >= len(b) {
			return false
		}
		switch q := b[p]; q {
		case '>':
		case '\'', '"':
			k := bytes.IndexByte(b[p+1:], q)
			if k < 0 {
				return false
			}
			p += 1 + k + 1
		default:
			for p < len(b) && tagBytes[b[p]]&endsValue == 0 {
				p++
			}
		}
	}
}

// readAttrs reads a start tag's attributes from p as the tokenizer's
// readTag does and sets t.end, t.selfClosing, t.unsure and t.jsonLD.
func readAttrs(b []byte, p int, t *tagInfo) bool {
	isScript := asciiFold(t.name, "script")
	// Names are compared with at most maxTagKeys kept ones, past which
	// selfClosing is unsure.
	var seenBuf [8][]byte
	seen := seenBuf[:0] // keys kept, lower-cased
	lastValEnd := -1    // the end of the last kept attribute's value, -1 for none
	typeSeen := false
	p = skipTagSpace(b, p)
	for {
		if p >= len(b) {
			return false
		}
		if b[p] == '>' {
			break
		}
		// The key: a '=' first is part of it; to '=', white space, '/'
		// or '>' (not read).
		ks := p
		if b[p] == '=' {
			p++
		}
		for p < len(b) && tagBytes[b[p]]&endsKey == 0 {
			p++
		}
		ke := p
		// The value.
		vs, ve := ke, ke
		quoted := false
		p = skipTagSpace(b, p)
		if p < len(b) {
			c := b[p]
			p++
			switch {
			case c == '/':
			case c != '=':
				p--
			default:
				p = skipTagSpace(b, p)
				if p < len(b) {
					q := b[p]
					p++
					switch q {
					case '>':
						p--
					case '\'', '"':
						vs = p
						k := bytes.IndexByte(b[p:], q)
						if k < 0 {
							p = len(b)
							ve = p
						} else {
							ve = p + k
							p += k + 1
							quoted = true
						}
					default:
						// Unquoted: to white space (read) or '>' (not read).
						vs = p - 1
						for p < len(b) && tagBytes[b[p]]&endsValue == 0 {
							p++
						}
						ve = p
						if p < len(b) && isTagSpace(b[p]) {
							p++
						}
					}
				}
			}
		}
		if ke > ks {
			key := asciiLower(b[ks:ke])
			if quoted && t.d.end == 0 && ve-vs >= minPathCut && string(key) == "d" {
				t.d = cut{vs, ve}
			}
			if isScript && !typeSeen && string(key) == "type" {
				typeSeen = true
				t.jsonLD = typeMayBeJSONLD(b[vs:ve])
			}
			if len(seen) >= maxTagKeys {
				t.unsure = true
			} else {
				dup := false
				for _, s := range seen {
					if bytes.Equal(s, key) {
						dup = true
						break
					}
				}
				if !dup {
					seen = append(seen, key)
					lastValEnd = ve
				}
			}
		}
		p = skipTagSpace(b, p)
	}
	t.end = p + 1
	if b[p-1] == '/' && (lastValEnd < 0 || p-1 != lastValEnd-1) {
		t.selfClosing = true
	}
	return true
}

// tagBytes classes the bytes of a tag: endsName for those that end its
// name (white space, '/', '>'), endsKey for those that end an
// attribute's key (the same and '='; a '=' first in a key is read
// before), endsValue for those that end an unquoted value (white
// space, '>'), tagSpace for white space (a lookup costs less than
// five comparisons).
var tagBytes = func() (t [256]uint8) {
	for _, c := range []byte(" \n\r\t\f>") {
		t[c] |= endsName | endsKey | endsValue
	}
	for _, c := range []byte(" \n\r\t\f") {
		t[c] |= tagSpace
	}
	t['/'] |= endsName | endsKey
	t['='] |= endsKey
	return t
}()

const (
	endsName = 1 << iota
	endsKey
	endsValue
	tagSpace // white space as the tokenizer reads it in a tag
)

// asciiFold tells whether s is name (lower-case) in any ASCII case.
func asciiFold(s []byte, name string) bool {
	if len(s) != len(name) {
		return false
	}
	for i, c := range s {
		if c != name[i] && c+('a'-'A') != name[i] {
			return false
		}
	}
	return true
}

func skipTagSpace(b []byte, p int) int {
	for p < len(b) && isTagSpace(b[p]) {
		p++
	}
	return p
}

// typeMayBeJSONLD tells whether a script's type attribute, as written,
// may read "application/ld+json" once the tokenizer has decoded it (as
// scan's test reads it); any value with a character reference, a
// carriage return or a NUL may.
func typeMayBeJSONLD(v []byte) bool {
	if bytes.IndexByte(v, '&') >= 0 || bytes.IndexByte(v, '\r') >= 0 || bytes.IndexByte(v, 0) >= 0 {
		return true
	}
	return strings.EqualFold(strings.TrimSpace(string(v)), "application/ld+json")
}
