package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Tool results are capped (DECISIONS, "Rate limits"): clients such as
// Claude Code refuse a result above about 25,000 tokens, so a result holds
// at most DefaultMaxTokens of text unless the call's maxTokens argument
// asks for more, up to HardMaxTokens.
const (
	DefaultMaxTokens = 20_000
	HardMaxTokens    = 100_000
	MinMaxTokens     = 1_000
	// bytesPerToken is the estimate: 4 bytes of UTF-8 a token, which is 4
	// characters of ASCII and the bytes of CJK (3 a character).
	bytesPerToken = 4
)

// Tokens estimates the tokens a client counts in a result's text: one per
// 4 bytes of its UTF-8, rounded up. For ASCII this is the clients' "about 4
// characters a token"; every other character counts its bytes (2 for
// accented Latin, Greek or Cyrillic, 3 for CJK, 4 for emoji), so scripts
// that tokenizers split finely are not under-counted.
func Tokens(text string) int { return (len(text) + bytesPerToken - 1) / bytesPerToken }

// capSpec says how a tool's result is cut: which member holds its items
// (pages, results, links, data), what to call them, whether the marker
// lists the URLs of those left out, and how to get the rest.
type capSpec struct {
	list, noun string
	listURLs   bool
	// returned names a member counting the items kept (map's returned);
	// truncated a boolean member set when items are left out.
	returned, truncated string
	hint                string
}

var capSpecs = map[string]capSpec{
	"svc_gyre": {list: "pages", noun: "pages", listURLs: true,
		hint: `get a page left out with svc_fetch {"url": …}; call svc_gyre again with a larger maxTokens (at most %d) or fewer pages (maxPages, includePaths); ` +
			`or crawl asynchronously, POST /api/v1/gyre (or svc_gyre) with "async": true, and read the pages a few at a time with its job_id`},
	"svc_search": {list: "results", noun: "results", listURLs: true,
		hint: `get a result left out with svc_fetch {"url": …}; call svc_search again with a larger maxTokens (at most %d), a smaller limit, or without fetch`},
	"svc_map": {list: "links", noun: "links", returned: "returned", truncated: "truncated",
		hint: `call svc_map again with a larger maxTokens (at most %d), with search to put the links you want first, or read the whole list from POST /api/v1/map`},
	"svc_extract": {list: "data", noun: "items",
		hint: `call svc_extract again with a larger maxTokens (at most %d) or a narrower intent or schema, or read the whole answer from POST /api/v1/extract`},
	"svc_fetch": {
		hint: `call svc_fetch again with a larger maxTokens (at most %d) or fewer formats, or read the whole page from POST /api/v1/fetch`},
}

// cutMarker is the "cut" member of a capped result: what was left out and
// how to get it.
type cutMarker struct {
	Message   string `json:"message"`
	MaxTokens int    `json:"maxTokens"`
	// LeftOut counts the items (pages, results, links, data) left out.
	LeftOut int `json:"leftOut,omitempty"`
	// URLs are the addresses of the items left out, as many as fit;
	// URLsNotListed counts the others.
	URLs          []string `json:"urls,omitempty"`
	URLsNotListed int      `json:"urlsNotListed,omitempty"`
	// TextCut lists the texts cut short inside the items kept.
	TextCut []textCut `json:"textCut,omitempty"`
}

// textCut is one value cut short: a string ended early, or a list with
// items left out at its end.
type textCut struct {
	Path         string `json:"path"`
	CharsLeftOut int    `json:"charsLeftOut,omitempty"`
	ItemsLeftOut int    `json:"itemsLeftOut,omitempty"`
}

// capResult is the JSON text of a tool's result within maxTokens
// (Tokens). A result that fits is returned whole. Otherwise its items are
// kept whole and in order while they fit, the first one cut when not even
// it fits; a result without items (fetch) has its longest texts cut. The
// first member of a cut result is "cut" (cutMarker). It works on the JSON
// text, so any result of a listed tool is capped, whatever its Go type.
func capResult(tool string, v any, maxTokens int) ([]byte, error) {
	b, err := encodeJSON(v)
	if err != nil {
		return nil, err
	}
	budget := maxTokens * bytesPerToken
	if len(b) <= budget {
		return b, nil
	}
	spec := capSpecs[tool]
	members, err := objectInOrder(b)
	if err != nil {
		return b, nil // not an object: no result of ours
	}
	m := &cutMarker{MaxTokens: maxTokens}
	// reserve is kept for the marker; it grows until the whole fits.
	reserve := 0
	for attempt := 0; ; attempt++ {
		out := capMembers(spec, members, budget, &reserve, m)
		if len(out) <= budget || attempt == 8 {
			return out, nil
		}
		reserve += len(out) - budget + 64
	}
}

// capMembers builds the capped object, leaving reserve bytes for the
// marker (which it fills in m).
func capMembers(spec capSpec, members []member, budget int, reserve *int, m *cutMarker) []byte {
	*m = cutMarker{MaxTokens: m.MaxTokens}
	members = append([]member(nil), members...)
	base := markerSize(spec, m, 0)
	*reserve = max(*reserve, base)
	var leftOutItems []json.RawMessage
	i := indexOf(members, spec.list)
	if i >= 0 && members[i].raw[0] == '[' {
		// The rest of the result (a crawl's errors) takes at most a
		// quarter of the budget, so that pages come before errors.
		if rest := append(append([]member(nil), members[:i]...), members[i+1:]...); objectSize(rest) > budget/4 {
			cut, _ := objectInOrder(shrink(joinObject(rest), budget/4, "", &m.TextCut))
			members = append(append(cut[:i:i], members[i]), cut[i:]...)
		}
		items, _ := arrayItems(members[i].raw)
		envelope := objectSize(members) - len(members[i].raw) + 2
		avail := budget - envelope - *reserve
		kept, used := 0, 0
		for _, it := range items {
			add := len(it)
			if kept > 0 {
				add++ // comma
			}
			if used+add > avail {
				break
			}
			kept, used = kept+1, used+add
		}
		if kept == 0 && len(items) > 0 {
			// The first item is cut to leave room for the others' URLs
			// (at most a quarter of the budget) and its own cut's record.
			room := 256 // the marker grows: leftOut, textCut, its message
			if spec.listURLs {
				for _, it := range items[1:] {
					room += len(itemURL(it)) + 3
				}
			}
			first := shrink(items[0], max(avail-min(room, budget/4), 2), spec.list+"[0]", &m.TextCut)
			items[0], kept, used = first, 1, len(first)
		}
		leftOutItems = items[kept:]
		m.LeftOut = len(leftOutItems)
		members[i].raw = joinArray(items[:kept])
		if spec.returned != "" && m.LeftOut > 0 {
			setMember(members, spec.returned, []byte(strconv.Itoa(kept)))
		}
		if spec.truncated != "" && m.LeftOut > 0 {
			setMember(members, spec.truncated, []byte("true"))
		}
		if spec.listURLs && m.LeftOut > 0 {
			room := avail - used - (markerSize(spec, m, 0) - base)
			for _, it := range leftOutItems {
				if room < 16 {
					break // no URL fits any more
				}
				u := itemURL(it)
				if q, _ := json.Marshal(u); u != "" && len(q)+1 <= room {
					m.URLs = append(m.URLs, u)
					room -= len(q) + 1
				}
			}
			m.URLsNotListed = m.LeftOut - len(m.URLs)
		}
	}
	// Whatever is still too large (a page without items, or an envelope
	// that alone is over: a crawl's errors) has its largest values cut.
	if objectSize(members) > budget-*reserve {
		obj := shrink(joinObject(members), budget-*reserve, "", &m.TextCut)
		members, _ = objectInOrder(obj)
	}
	m.Message = markerMessage(spec, m)
	if m.LeftOut > 0 && indexOf(members, "job_id") >= 0 {
		// A page of an async crawl (DECISIONS, "Async gyre"): its next
		// cursor was set before the cut.
		m.Message += " This is a page of an async crawl: its next cursor was set before the cut and may skip the pages left out; poll with a smaller limit."
	}
	mk, _ := encodeJSON(m)
	return joinObject(append([]member{{key: "cut", raw: mk}}, members...))
}

// markerSize is the size of m (with extra bytes of URLs) as a member.
func markerSize(spec capSpec, m *cutMarker, extra int) int {
	c := *m
	c.Message = markerMessage(spec, &c)
	b, _ := encodeJSON(&c)
	return len(`"cut":,`) + len(b) + extra
}

func markerMessage(spec capSpec, m *cutMarker) string {
	var what []string
	if m.LeftOut > 0 {
		s := fmt.Sprintf("%d %s left out", m.LeftOut, spec.noun)
		if len(m.URLs) > 0 {
			s += " (their URLs are in urls)"
		}
		what = append(what, s)
	}
	if len(m.TextCut) > 0 {
		what = append(what, fmt.Sprintf("%d %s cut short (textCut)", len(m.TextCut), plural(len(m.TextCut), "text", "texts")))
	}
	if len(what) == 0 {
		what = append(what, "texts cut short")
	}
	return fmt.Sprintf("This result was cut to fit %d tokens (4 bytes of text a token): %s. To get the rest: "+spec.hint+".",
		m.MaxTokens, strings.Join(what, "; "), HardMaxTokens)
}

// shrink cuts a JSON value to at most budget bytes, recording each cut:
// a string ends early with "[cut: N characters left out]", an array loses
// items from its end, an object has its largest members cut first.
func shrink(raw []byte, budget int, path string, cuts *[]textCut) []byte {
	if len(raw) <= budget {
		return raw
	}
	switch raw[0] {
	case '"':
		return cutString(raw, budget, path, cuts)
	case '[':
		items, err := arrayItems(raw)
		if err != nil {
			return raw
		}
		kept, size := len(items), len(raw)
		for kept > 1 && size > budget {
			kept--
			size -= len(items[kept]) + 1
		}
		if kept < len(items) {
			*cuts = append(*cuts, textCut{Path: path, ItemsLeftOut: len(items) - kept})
		}
		items = items[:kept]
		if size > budget && kept == 1 {
			items[0] = shrink(items[0], budget-2, path+"[0]", cuts)
		}
		return joinArray(items)
	case '{':
		members, err := objectInOrder(raw)
		if err != nil {
			return raw
		}
		done := map[int]bool{}
		for size := objectSize(members); size > budget; size = objectSize(members) {
			// The largest member not yet cut goes first; small ones
			// (url, title, numbers) are left as they are.
			big := -1
			for i, mb := range members {
				if !done[i] && len(mb.raw) > 64 && (big < 0 || len(mb.raw) > len(members[big].raw)) {
					big = i
				}
			}
			if big < 0 {
				break
			}
			done[big] = true
			target := max(len(members[big].raw)-(size-budget), 2)
			members[big].raw = shrink(members[big].raw, target, joinPath(path, members[big].key), cuts)
		}
		return joinObject(members)
	}
	return raw
}

// cutString cuts a JSON string to at most budget bytes, marker included,
// at a character boundary.
func cutString(raw []byte, budget int, path string, cuts *[]textCut) []byte {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return raw
	}
	note, _ := encodeJSON(cutNote(utf8.RuneCountInString(s)))
	room := budget - len(note) // the note's quotes are the string's
	end, size := 0, 0
	for i, r := range s {
		n := escapedLen(r, s[i:])
		if size+n > room {
			break
		}
		end, size = i+len(string(r)), size+n
		if r == utf8.RuneError {
			end = i + 1
		}
	}
	left := utf8.RuneCountInString(s[end:])
	*cuts = append(*cuts, textCut{Path: path, CharsLeftOut: left})
	out, _ := encodeJSON(s[:end] + cutNote(left))
	return out
}

func cutNote(left int) string { return fmt.Sprintf("\n\n[cut: %d characters left out]", left) }

// escapedLen bounds the bytes encodeJSON writes for r (the start of rest).
func escapedLen(r rune, rest string) int {
	switch {
	case r == '"' || r == '\\' || r == '\n' || r == '\r' || r == '\t':
		return 2
	case r < 0x20 || r == '\u2028' || r == '\u2029':
		return 6
	case r == utf8.RuneError:
		if _, n := utf8.DecodeRuneInString(rest); n == 1 {
			return 6 // invalid UTF-8 becomes \ufffd
		}
	}
	return utf8.RuneLen(r)
}

// encodeJSON is the JSON text of v without HTML escaping: page HTML keeps
// its < and > (not \u003c), which reads better and costs fewer tokens.
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// member is one member of a JSON object, in the order written.
type member struct {
	key string
	raw json.RawMessage
}

// objectInOrder splits a JSON object into its members, keeping their order.
// It scans the text without copying it: results are our encoder's output
// and arguments were checked as JSON (parseMessage), and a result of ten
// megabytes is split in a few milliseconds.
func objectInOrder(b []byte) ([]member, error) {
	var out []member
	err := scanContainer(b, '{', func(key, raw []byte) error {
		var k string
		if err := json.Unmarshal(key, &k); err != nil {
			return err
		}
		out = append(out, member{key: k, raw: raw})
		return nil
	})
	return out, err
}

// arrayItems splits a JSON array into its items, without copying them.
func arrayItems(b []byte) ([]json.RawMessage, error) {
	var out []json.RawMessage
	err := scanContainer(b, '[', func(_, raw []byte) error {
		out = append(out, raw)
		return nil
	})
	return out, err
}

var errNotJSON = errors.New("malformed JSON")

// scanContainer calls each for every member (key and value) of the object,
// or every item of the array, that b holds.
func scanContainer(b []byte, open byte, each func(key, raw []byte) error) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != open {
		return errNotJSON
	}
	closing := byte(']')
	if open == '{' {
		closing = '}'
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == closing {
		return nil
	}
	for {
		var key []byte
		if open == '{' {
			end := valueEnd(b, i)
			if end < 0 || b[i] != '"' {
				return errNotJSON
			}
			key = b[i:end]
			if i = skipSpace(b, end); i >= len(b) || b[i] != ':' {
				return errNotJSON
			}
			i = skipSpace(b, i+1)
		}
		end := valueEnd(b, i)
		if end < 0 {
			return errNotJSON
		}
		if err := each(key, b[i:end]); err != nil {
			return err
		}
		switch i = skipSpace(b, end); {
		case i < len(b) && b[i] == ',':
			i = skipSpace(b, i+1)
		case i < len(b) && b[i] == closing:
			return nil
		default:
			return errNotJSON
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// valueEnd is the index just after the JSON value that starts at b[i], or
// -1 when the text ends first.
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		for i++; i < len(b); i++ {
			switch b[i] {
			case '\\':
				i++
			case '"':
				return i + 1
			}
		}
		return -1
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				end := valueEnd(b, i)
				if end < 0 {
					return -1
				}
				i = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return -1
	}
	start := i
	for i < len(b) && !bytes.ContainsRune([]byte(",}] \t\r\n"), rune(b[i])) {
		i++
	}
	if i == start {
		return -1
	}
	return i
}

func joinArray(items []json.RawMessage) []byte {
	return append(append([]byte{'['}, bytes.Join(bytesOf(items), []byte{','})...), ']')
}

func bytesOf(items []json.RawMessage) [][]byte {
	out := make([][]byte, len(items))
	for i, it := range items {
		out[i] = it
	}
	return out
}

func joinObject(members []member) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, mb := range members {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(mb.key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(mb.raw)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// objectSize is len(joinObject(members)) without building it.
func objectSize(members []member) int {
	n := 2
	for i, mb := range members {
		k, _ := json.Marshal(mb.key)
		n += len(k) + 1 + len(mb.raw)
		if i > 0 {
			n++
		}
	}
	return n
}

func indexOf(members []member, key string) int {
	if key == "" {
		return -1
	}
	for i, mb := range members {
		if mb.key == key {
			return i
		}
	}
	return -1
}

func setMember(members []member, key string, raw []byte) {
	if i := indexOf(members, key); i >= 0 {
		members[i].raw = raw
	}
}

// itemURL is the url member of an item (a page or a search result).
func itemURL(item []byte) string {
	members, _ := objectInOrder(item)
	var u string
	if i := indexOf(members, "url"); i >= 0 {
		json.Unmarshal(members[i].raw, &u)
	}
	return u
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
