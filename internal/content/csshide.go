package content

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// What a page's own style sheets hide. Many pages inline their critical
// CSS in <style> elements: a mobile menu, a mega menu, an off-canvas
// cart, a modal, a search overlay, a "mobile only" copy of a block are
// display:none there at a desktop width, and a browser (what annotators
// and readers see) does not show them. sheetHide reads the rules of a
// page's <style> elements that set display or visibility, keeps those
// that apply at a desktop viewport (desktopWidth: top level, or inside an
// @media whose conditions hold there), and marks the elements whose
// winning declaration (the cascade: !important, then specificity, then
// order; an inline style beats a sheet's rule that is not !important)
// hides them with the hidden attribute, so scan removes them as it
// removes every hidden element (settleHidden shows a page sent hidden
// whole). Rules with dynamic pseudo-classes or pseudo-elements, on
// <html> or <body>, or naming the no-js class (a script swaps it) are
// left out, and tab and accordion panels are never hidden (a reader
// opens them; annotators keep them).
//
// Bounded: at most maxSheetBytes of CSS read, maxSheetRules selectors
// kept, selectors of at most maxSelectorLen bytes, nesting of at most
// maxSheetDepth blocks, and at most maxSheetMatches selector matches
// a page (rules are indexed by the id, class or tag of their subject,
// as browsers do, so an element is matched only against the rules that
// can apply to it).

// sheetMode switches the rule: 0 off (main's output, the default: the
// rule did not pass the half rule, see bench/content/README.md, "Issue
// 20, inlinecss"), 1 on with the panel guard (role=tabpanel, an id
// named by aria-controls, a class naming an accordion, a collapse or a
// tab pane), 2 on without it, 3 on with the panel guard and two more
// (a prose block after its trigger, a sibling of the same class shown).
var sheetMode = 0

const (
	desktopWidth    = 1280
	maxSheetBytes   = 512 << 10
	maxSheetRules   = 4096
	maxSelectorLen  = 256
	maxSheetDepth   = 8
	maxSheetMatches = 200_000
	maxSheetSteps   = 2_000_000
)

// sheetRule is one selector of a rule that sets display or visibility.
type sheetRule struct {
	text      string     // the selector as written
	parts     []compound // its compounds, left to right
	spec      cascadia.Specificity
	parsed    bool // sel and spec are set (or bad)
	bad       bool // cascadia does not read text
	order     int
	vis       bool // the property is visibility (else display)
	hide      bool // display:none, visibility:hidden or collapse
	important bool
	key       string // subjectKey of the selector
}

// styleSheets returns the text of the <style> elements among cuts (as
// rawCuts found them in body) that apply to a screen, at most
// maxSheetBytes in all.
func styleSheets(body []byte, cuts []cut) []string {
	var out []string
	total := 0
	for _, c := range cuts {
		lt := bytes.LastIndexByte(body[max(0, c.start-1024):c.start], '<')
		if lt < 0 {
			continue
		}
		tag := body[max(0, c.start-1024)+lt : c.start]
		if len(tag) < 7 || !asciiFold(tag[1:6], "style") || !isTagSpace(tag[6]) && tag[6] != '>' && tag[6] != '/' {
			continue
		}
		if m := tagAttr(tag, "media"); m != "" && !mediaHolds(m) {
			continue
		}
		n := c.end - c.start
		if total+n > maxSheetBytes {
			n = maxSheetBytes - total
		}
		if n <= 0 {
			break
		}
		out = append(out, string(body[c.start:c.start+n]))
		total += n
	}
	return out
}

// tagAttr returns the value of attribute name in a start tag's bytes
// (lower-cased), or "": a plain reading, enough for media="print".
func tagAttr(tag []byte, name string) string {
	low := strings.ToLower(string(tag))
	i := strings.Index(low, " "+name+"=")
	if i < 0 {
		return ""
	}
	v := low[i+len(name)+2:]
	if v != "" && (v[0] == '"' || v[0] == '\'') {
		if j := strings.IndexByte(v[1:], v[0]); j >= 0 {
			return v[1 : j+1]
		}
		return ""
	}
	if j := strings.IndexAny(v, " >/"); j >= 0 {
		v = v[:j]
	}
	return v
}

// sheetParser reads a style sheet's rules that set display or visibility.
type sheetParser struct {
	s     string
	i     int
	rules []sheetRule
	order int
}

// parseSheets reads the rules of the sheets, in order.
func parseSheets(sheets []string) []sheetRule {
	p := &sheetParser{}
	for _, s := range sheets {
		p.s, p.i = stripCSSComments(s), 0
		p.block(0, false)
		if len(p.rules) >= maxSheetRules {
			break
		}
	}
	return p.rules
}

// stripCSSComments returns s without its /* */ comments.
func stripCSSComments(s string) string {
	if !strings.Contains(s, "/*") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for {
		i := strings.Index(s, "/*")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		b.WriteByte(' ')
		j := strings.Index(s[i+2:], "*/")
		if j < 0 {
			return b.String()
		}
		s = s[i+2+j+2:]
	}
}

// cssStop marks the bytes scanTo looks at: quotes, escapes, brackets
// and the stops ("{};", " >+~", ",", "#.").
var cssStop = func() (t [256]bool) {
	for _, c := range []byte("\"'\\()[]{};,>+~ #.\t\n\r\f") {
		t[c] = true
	}
	return t
}()

// The stops of scanTo.
var (
	stopBraces = byteSet("{}")
	stopRule   = byteSet("{};")
	stopDecl   = byteSet(";{")
	stopComma  = byteSet(",")
	stopComb   = byteSet(" >+~\t\n\r\f")
	stopName   = byteSet("#.")
)

func byteSet(s string) *[256]bool {
	var t [256]bool
	for i := 0; i < len(s); i++ {
		t[s[i]] = true
	}
	return &t
}

// scanTo returns the index of the first of stops at depth 0 from i
// (strings, parentheses and brackets skipped), or len(s). Every byte of
// stops must be in cssStop.
func scanTo(s string, i int, stops *[256]bool) int {
	depth := 0
	for i < len(s) {
		c := s[i]
		if !cssStop[c] {
			i++
			continue
		}
		switch {
		case c == '"' || c == '\'':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				return len(s)
			}
			i += j + 2
			continue
		case c == '\\':
			i += 2
			continue
		case c == '(' || c == '[':
			depth++
		case (c == ')' || c == ']') && depth > 0:
			depth--
		case depth == 0 && stops[c]:
			return i
		}
		i++
	}
	return len(s)
}

// skipBlock returns the index after the '}' that closes the block whose
// '{' is at i (or len(s)).
func skipBlock(s string, i int) int {
	depth := 0
	for i < len(s) {
		j := scanTo(s, i, stopBraces)
		if j >= len(s) {
			return len(s)
		}
		if s[j] == '{' {
			depth++
		} else {
			depth--
			if depth == 0 {
				return j + 1
			}
		}
		i = j + 1
	}
	return len(s)
}

// block reads rules from p.i to the '}' closing the block (or the end);
// skip reads without keeping.
func (p *sheetParser) block(depth int, nested bool) {
	for p.i < len(p.s) {
		if len(p.rules) >= maxSheetRules {
			p.i = len(p.s)
			return
		}
		j := scanTo(p.s, p.i, stopRule)
		if j >= len(p.s) {
			p.i = len(p.s)
			return
		}
		prelude := strings.TrimSpace(p.s[p.i:j])
		switch p.s[j] {
		case '}':
			p.i = j + 1
			if nested {
				return
			}
			continue
		case ';':
			p.i = j + 1 // @import, @charset, a stray declaration
			continue
		}
		// '{'
		if strings.HasPrefix(prelude, "@") {
			name, cond, _ := strings.Cut(prelude[1:], " ")
			name = strings.ToLower(name)
			if k := strings.IndexByte(name, '('); k >= 0 {
				cond, name = name[k:]+" "+cond, name[:k]
			}
			enter := false
			switch name {
			case "media":
				enter = mediaHolds(cond)
			case "supports":
				enter = !strings.Contains(strings.ToLower(cond), "not")
			case "layer":
				enter = true
			}
			if enter && depth < maxSheetDepth {
				p.i = j + 1
				p.block(depth+1, true)
			} else {
				p.i = skipBlock(p.s, j)
			}
			continue
		}
		end := skipBlock(p.s, j)
		body := p.s[j+1 : max(j+1, end-1)]
		p.i = end
		p.rule(prelude, body)
	}
}

// rule keeps the selectors of a style rule whose declarations set
// display or visibility.
func (p *sheetParser) rule(prelude, body string) {
	if !containsFold(body, "display") && !containsFold(body, "visibility") {
		return
	}
	type decl struct {
		set, hide, important bool
	}
	var disp, vis decl
	for i := 0; i < len(body); {
		j := scanTo(body, i, stopDecl)
		if j < len(body) && body[j] == '{' {
			// A nested rule (CSS nesting): its declarations are not read.
			j = skipBlock(body, j)
			i = j
			continue
		}
		d := body[i:j]
		i = j + 1
		prop, val, ok := strings.Cut(d, ":")
		if !ok {
			continue
		}
		prop = strings.ToLower(strings.TrimSpace(prop))
		if prop != "display" && prop != "visibility" {
			continue
		}
		val = strings.ToLower(strings.TrimSpace(val))
		imp := false
		if k := strings.Index(val, "!"); k >= 0 {
			imp = strings.Contains(strings.ReplaceAll(val[k:], " ", ""), "!important")
			val = strings.TrimSpace(val[:k])
		}
		var hide bool
		if prop == "display" {
			hide = val == "none"
		} else {
			hide = val == "hidden" || val == "collapse"
		}
		dd := &disp
		if prop == "visibility" {
			dd = &vis
		}
		if dd.set && dd.important && !imp {
			continue
		}
		*dd = decl{true, hide, imp}
	}
	if !disp.set && !vis.set {
		return
	}
	for k := 0; k < len(prelude) && len(p.rules) < maxSheetRules; {
		e := scanTo(prelude, k, stopComma)
		sel := strings.TrimSpace(prelude[k:e])
		k = e + 1
		if !usableSelector(sel) {
			continue
		}
		p.order++
		key := subjectKey(sel)
		if disp.set {
			p.rules = append(p.rules, sheetRule{text: sel, order: p.order, hide: disp.hide, important: disp.important, key: key})
		}
		if vis.set && len(p.rules) < maxSheetRules {
			p.rules = append(p.rules, sheetRule{text: sel, order: p.order, vis: true, hide: vis.hide, important: vis.important, key: key})
		}
	}
}

// compound is one compound selector of a rule and the combinator
// before it (0 for the first).
type compound struct {
	sel  cascadia.Sel
	comb byte // ' ', '>', '+' or '~'
}

// maxCompounds bounds the compounds of a selector.
const maxCompounds = 8

// parse reads the rule's selector once, on first use (a rule that shows
// is read only when a rule that hides matched): each compound by
// cascadia, the combinators here.
func (r *sheetRule) parse() bool {
	if r.parsed {
		return !r.bad
	}
	r.parsed = true
	var comb byte
	for i := 0; i < len(r.text); {
		for i < len(r.text) && isCSSCombinator(r.text[i]) {
			if c := r.text[i]; c == '>' || c == '+' || c == '~' {
				comb = c
			} else if comb == 0 {
				comb = ' '
			}
			i++
		}
		if i >= len(r.text) {
			break
		}
		j := scanTo(r.text, i, stopComb)
		cs, err := cascadia.Parse(r.text[i:j])
		if err != nil || len(r.parts) == maxCompounds || len(r.parts) == 0 && comb != 0 {
			r.bad = true
			return false
		}
		r.parts = append(r.parts, compound{cs, comb})
		r.spec = r.spec.Add(cs.Specificity())
		comb = 0
		i = j
	}
	if len(r.parts) == 0 || comb != 0 {
		r.bad = true
	}
	return !r.bad
}

func isCSSCombinator(c byte) bool {
	return c == ' ' || c == '>' || c == '+' || c == '~' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
}

// match tells whether the rule's selector matches n, read right to left
// and greedily (the nearest ancestor or sibling that matches the next
// compound is taken, without going back: exact for a chain of one kind
// of combinator; a chain mixing them may miss a match that needs going
// back). steps bounds the nodes visited on the page.
func (r *sheetRule) match(n *html.Node, steps *int) bool {
	k := len(r.parts) - 1
	if !r.parts[k].sel.Match(n) {
		return false
	}
	cur := n
	for ; k > 0; k-- {
		comb := r.parts[k].comb
		want := r.parts[k-1].sel
		switch comb {
		case '>':
			cur = parentElement(cur)
			*steps--
			if cur == nil || !want.Match(cur) {
				return false
			}
		case '+':
			cur = prevElement(cur)
			*steps--
			if cur == nil || !want.Match(cur) {
				return false
			}
		case '~':
			for cur = prevElement(cur); cur != nil && !want.Match(cur); cur = prevElement(cur) {
				if *steps--; *steps < 0 {
					return false
				}
			}
			if cur == nil {
				return false
			}
		default:
			for cur = parentElement(cur); cur != nil && !want.Match(cur); cur = parentElement(cur) {
				if *steps--; *steps < 0 {
					return false
				}
			}
			if cur == nil {
				return false
			}
		}
	}
	return true
}

func parentElement(n *html.Node) *html.Node {
	if p := n.Parent; p != nil && p.Type == html.ElementNode {
		return p
	}
	return nil
}

func prevElement(n *html.Node) *html.Node {
	for p := n.PrevSibling; p != nil; p = p.PrevSibling {
		if p.Type == html.ElementNode {
			return p
		}
	}
	return nil
}

// staticPseudo are the pseudo-classes a rule may hold: those that read
// the element alone (or its ancestors' lang). Every other one either
// holds only while a reader acts (:hover, :checked, :target…) or reads
// siblings or descendants (:nth-child, :has, :contains), and its rule is
// left out.
var staticPseudo = []string{":not(", ":root", ":link", ":enabled", ":disabled", ":lang("}

// usableSelector tells whether a selector is one the static page can be
// matched against: short, no pseudo-element or pseudo-class but the
// static ones (:not of a compound), no no-js class (a script swaps it
// for js).
func usableSelector(sel string) bool {
	if sel == "" || len(sel) > maxSelectorLen || strings.Contains(sel, "no-js") {
		return false
	}
	for i := 0; i < len(sel); i++ {
		switch sel[i] {
		case '\\':
			i++
		case '[':
			// An attribute's value may hold a colon: skip to ']'.
			e := strings.IndexByte(sel[i:], ']')
			if e < 0 {
				return false
			}
			i += e
		case ':':
			ok := false
			for _, p := range staticPseudo {
				if len(sel)-i >= len(p) && strings.EqualFold(sel[i:i+len(p)], p) {
					ok = true
					if p[len(p)-1] == '(' {
						// Its argument: a compound, no nesting.
						e := strings.IndexByte(sel[i:], ')')
						if e < 0 || strings.ContainsAny(sel[i+len(p):i+e], "( >+~:,") {
							return false
						}
						i += e
					}
					break
				}
			}
			if !ok {
				return false
			}
		}
	}
	return true
}

// mediaHolds tells whether a media query list holds on a desktop screen
// desktopWidth pixels wide: one query of the list holds. A query holds
// when its type is screen or all (or none) and each of its conditions
// is a width that holds; anything else (print, not, orientation,
// hover, prefers-*) does not.
func mediaHolds(q string) bool {
	q = strings.ToLower(q)
	for part := range strings.SplitSeq(q, ",") {
		if queryHolds(strings.TrimSpace(part)) {
			return true
		}
	}
	return false
}

func queryHolds(q string) bool {
	if q == "" {
		return true
	}
	q = strings.TrimPrefix(q, "only ")
	for q != "" {
		q = strings.TrimSpace(q)
		if strings.HasPrefix(q, "and ") {
			q = q[4:]
			continue
		}
		if q[0] == '(' {
			e := strings.IndexByte(q, ')')
			if e < 0 || !featureHolds(strings.TrimSpace(q[1:e])) {
				return false
			}
			q = q[e+1:]
			continue
		}
		w, rest, _ := strings.Cut(q, " ")
		switch w {
		case "screen", "all":
		default:
			return false
		}
		q = rest
	}
	return true
}

// featureHolds tells whether a media feature holds at desktopWidth:
// (min-width: X), (max-width: X), (width >= X) and the like.
func featureHolds(f string) bool {
	if name, val, ok := strings.Cut(f, ":"); ok {
		px, ok := cssPixels(strings.TrimSpace(val))
		if !ok {
			return false
		}
		switch strings.TrimSpace(name) {
		case "min-width":
			return desktopWidth >= px
		case "max-width":
			return desktopWidth <= px
		}
		return false
	}
	// Range syntax: "width >= 768px", "768px <= width", "width < 1024px".
	for _, op := range []string{">=", "<=", ">", "<"} {
		a, b, ok := strings.Cut(f, op)
		if !ok {
			continue
		}
		a, b = strings.TrimSpace(a), strings.TrimSpace(b)
		flip := false
		if b == "width" {
			a, b, flip = b, a, true
		}
		if a != "width" {
			return false
		}
		px, ok := cssPixels(b)
		if !ok {
			return false
		}
		if flip {
			op = map[string]string{">=": "<=", "<=": ">=", ">": "<", "<": ">"}[op]
		}
		switch op {
		case ">=":
			return desktopWidth >= px
		case "<=":
			return desktopWidth <= px
		case ">":
			return desktopWidth > px
		default:
			return desktopWidth < px
		}
	}
	return false
}

// cssPixels reads a length in px, em or rem (16 px) as pixels.
func cssPixels(v string) (float64, bool) {
	scale := 1.0
	switch {
	case strings.HasSuffix(v, "px"):
		v = v[:len(v)-2]
	case strings.HasSuffix(v, "rem"):
		v, scale = v[:len(v)-3], 16
	case strings.HasSuffix(v, "em"):
		v, scale = v[:len(v)-2], 16
	default:
		if v != "0" {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	return f * scale, err == nil
}

// subjectKey returns the index key of a selector's subject (its last
// compound): "#id", ".class" or the tag name, or "" (matched against
// every element).
func subjectKey(sel string) string {
	start := 0
	for i := 0; i < len(sel); {
		j := scanTo(sel, i, stopComb)
		if j >= len(sel) {
			break
		}
		start = j + 1
		i = j + 1
	}
	comp := sel[start:]
	// The first id, else class, else tag of the compound, outside
	// brackets and parentheses.
	var cls, tag string
	if comp != "" && (isASCIILetter(comp[0])) {
		k := 0
		for k < len(comp) && (isASCIILetter(comp[k]) || comp[k] >= '0' && comp[k] <= '9' || comp[k] == '-') {
			k++
		}
		tag = strings.ToLower(comp[:k])
	}
	for i := 0; i < len(comp); {
		j := scanTo(comp, i, stopName)
		if j >= len(comp) {
			break
		}
		var name strings.Builder
		k := j + 1
		for k < len(comp) {
			c := comp[k]
			if c == '\\' && k+1 < len(comp) && !isHex(comp[k+1]) && comp[k+1] != '\n' {
				// ".md\:hidden": the escaped byte is part of the name.
				name.WriteByte(comp[k+1])
				k += 2
				continue
			}
			if c == '\\' {
				return tag // a hex escape: read by tag only
			}
			if !(isASCIILetter(c) || c >= '0' && c <= '9' || c == '-' || c == '_' || c >= 0x80) {
				break
			}
			name.WriteByte(c)
			k++
		}
		if name.Len() > 0 {
			if comp[j] == '#' {
				return "#" + name.String()
			}
			if cls == "" {
				cls = "." + name.String()
			}
		}
		i = k
	}
	if cls != "" {
		return cls
	}
	if tag == "" && strings.HasPrefix(comp, "[") {
		// "[hidden]", "[x-cloak]": by the attribute's name.
		k := 1
		for k < len(comp) && (isASCIILetter(comp[k]) || comp[k] >= '0' && comp[k] <= '9' || comp[k] == '-' || comp[k] == '_') {
			k++
		}
		if k > 1 && k < len(comp) && (comp[k] == ']' || comp[k] == '=' || comp[k] == '~' || comp[k] == '|' || comp[k] == '^' || comp[k] == '$' || comp[k] == '*' || comp[k] == ' ') {
			return "[" + strings.ToLower(comp[1:k])
		}
	}
	return tag
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// ruleIndex finds the rules whose subject may be an element: by its id,
// its classes and its tag, and those with no such key.
type ruleIndex struct {
	id, class, tag, attr map[string][]int32
	any                  []int32
}

func (x *ruleIndex) add(key string, i int32) {
	var m *map[string][]int32
	switch {
	case key == "":
		x.any = append(x.any, i)
		return
	case key[0] == '#':
		m, key = &x.id, key[1:]
	case key[0] == '.':
		m, key = &x.class, key[1:]
	case key[0] == '[':
		m, key = &x.attr, key[1:]
	default:
		m = &x.tag
	}
	if *m == nil {
		*m = map[string][]int32{}
	}
	(*m)[key] = append((*m)[key], i)
}

// candidates appends to buf the rules that may match n (id and class
// read from n's attributes).
func (x *ruleIndex) candidates(buf []int32, n *html.Node, id, class string) []int32 {
	buf = append(buf[:0], x.any...)
	if x.tag != nil {
		buf = append(buf, x.tag[n.Data]...)
	}
	if id != "" && x.id != nil {
		buf = append(buf, x.id[id]...)
	}
	if x.attr != nil {
		for _, a := range n.Attr {
			buf = append(buf, x.attr[a.Key]...)
		}
	}
	if class != "" && x.class != nil {
		for f := range strings.FieldsSeq(class) {
			buf = append(buf, x.class[f]...)
		}
	}
	return buf
}

// sheetHide marks the elements of root that the rules hide (see above).
// Each element is matched first against the rules that hide; only when
// one matches, against the rules that show it and beat that one.
func sheetHide(root *html.Node, rules []sheetRule) {
	var hideIx, showIx ruleIndex
	hides := 0
	for i := range rules {
		if rules[i].hide {
			hideIx.add(rules[i].key, int32(i))
			hides++
		} else {
			showIx.add(rules[i].key, int32(i))
		}
	}
	if hides == 0 {
		return
	}
	var controls map[string]bool // ids named by aria-controls, read once needed
	budget, steps := maxSheetMatches, maxSheetSteps
	var cand, showCand []int32
	var marked []*html.Node
	for d := root; d != nil; {
		if d.Type != html.ElementNode || d.DataAtom == atom.Html || d.DataAtom == atom.Body {
			d = nextWithin(d, root)
			continue
		}
		if d.DataAtom == atom.Head || d.DataAtom == atom.Script || d.DataAtom == atom.Style || Hidden(d) {
			d = skipWithin(d, root)
			continue
		}
		id, class, style := "", "", ""
		for _, a := range d.Attr {
			switch a.Key {
			case "id":
				id = a.Val
			case "class":
				class = a.Val
			case "style":
				style = a.Val
			}
		}
		cand = hideIx.candidates(cand, d, id, class)
		hide := false
		for _, vis := range [2]bool{false, true} {
			best := int32(-1)
			for _, k := range cand {
				r := &rules[k]
				if r.vis != vis || !r.parse() || best >= 0 && !beats(r, &rules[best]) {
					continue
				}
				if budget--; budget < 0 || steps < 0 {
					unmarkSentHidden(root, marked)
					return
				}
				if r.match(d, &steps) {
					best = k
				}
			}
			if best < 0 {
				continue
			}
			// An inline style setting the property beats a rule that
			// is not !important.
			prop := "display"
			if vis {
				prop = "visibility"
			}
			if !rules[best].important && containsFold(style, prop) {
				continue
			}
			shown := false
			showCand = showIx.candidates(showCand, d, id, class)
			for _, k := range showCand {
				r := &rules[k]
				if r.vis != vis || !r.parse() || !beats(r, &rules[best]) {
					continue
				}
				if budget--; budget < 0 || steps < 0 {
					unmarkSentHidden(root, marked)
					return
				}
				if r.match(d, &steps) {
					shown = true
					break
				}
			}
			if !shown {
				hide = true
				break
			}
		}
		if hide {
			if controls == nil {
				controls = ariaControls(root)
			}
			if !panel(d, controls) {
				d.Attr = append(d.Attr, html.Attribute{Key: "hidden"})
				marked = append(marked, d)
				d = skipWithin(d, root)
				continue
			}
		}
		d = nextWithin(d, root)
	}
	unmarkSentHidden(root, marked)
}

// ariaControls returns the ids named by aria-controls in root: the
// panels of tabs and accordions (at most 1,024).
func ariaControls(root *html.Node) map[string]bool {
	controls := map[string]bool{}
	for d := root; d != nil; d = nextWithin(d, root) {
		if d.Type == html.ElementNode {
			if v := attr(d, "aria-controls"); v != "" && len(controls) < 1024 {
				for f := range strings.FieldsSeq(v) {
					controls[f] = true
				}
			}
		}
	}
	return controls
}

// unmarkSentHidden takes the marks off when the sheets hide four fifths
// or more of the body's words (of 100 or more): a page sent hidden
// that its script reveals (settleHidden's rule for such pages, which
// would otherwise show every hidden element of the page).
func unmarkSentHidden(root *html.Node, marked []*html.Node) {
	if len(marked) == 0 {
		return
	}
	body := findBody(root)
	if body == nil {
		return
	}
	// The marked elements are disjoint (a marked element's subtree is
	// not walked): their words are counted once each.
	words := visibleWords(body)
	hiddenWords := 0
	for _, m := range marked {
		hiddenWords += visibleWords(m)
	}
	if words >= 100 && hiddenWords*5 >= words*shownFifths {
		for _, m := range marked {
			m.Attr = m.Attr[:len(m.Attr)-1]
		}
	}
}

// beats tells whether rule a wins over rule b in the cascade.
func beats(a, b *sheetRule) bool {
	if a.important != b.important {
		return a.important
	}
	if c := a.spec.Less(b.spec); c {
		return false
	}
	if b.spec.Less(a.spec) {
		return true
	}
	return a.order > b.order
}

// panel tells whether n is a tab or accordion panel: role=tabpanel, an
// id named by an aria-controls, or a class naming one.
func panel(n *html.Node, controls map[string]bool) bool {
	if sheetMode == 2 {
		return false
	}
	if strings.EqualFold(attr(n, "role"), "tabpanel") {
		return true
	}
	if id := attr(n, "id"); id != "" && controls[id] {
		return true
	}
	c := strings.ToLower(attr(n, "class"))
	if sheetMode == 3 && (afterTrigger(n) || shownTwin(n)) {
		return true
	}
	return strings.Contains(c, "accordion") || strings.Contains(c, "collapse") || strings.Contains(c, "tab-pane") ||
		strings.Contains(c, "tabpanel") || strings.Contains(c, "tab-panel") || strings.Contains(c, "tab-content")
}

// skipWithin is the node after d's subtree in document order inside
// root's subtree, or nil.
func skipWithin(d, root *html.Node) *html.Node {
	for d != root && d.NextSibling == nil {
		d = d.Parent
	}
	if d == root {
		return nil
	}
	return d.NextSibling
}

// afterTrigger tells whether n holds prose (links under half its words)
// and follows a trigger: a heading, button or summary, or an element
// with aria-expanded or role=button, or a short block holding one.
func afterTrigger(n *html.Node) bool {
	p := n.PrevSibling
	for p != nil && p.Type != html.ElementNode {
		p = p.PrevSibling
	}
	if p == nil {
		return false
	}
	trig := false
	k := 0
	for d := p; d != nil && k < 64; d = nextWithin(d, p) {
		k++
		if d.Type != html.ElementNode {
			continue
		}
		switch d.DataAtom {
		case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Button, atom.Summary:
			trig = true
		}
		if hasAttr(d, "aria-expanded") || strings.EqualFold(attr(d, "role"), "button") {
			trig = true
		}
	}
	if !trig || countWords(nodeText(p)) > 15 {
		return false
	}
	words := countWords(nodeText(n))
	if words == 0 {
		return false
	}
	links := 0
	for d := n; d != nil; d = nextWithin(d, n) {
		if d.Type == html.ElementNode && d.DataAtom == atom.A {
			links += countWords(nodeText(d))
			d = skipWithin(d, n)
			if d == nil {
				break
			}
			links += 0
		}
	}
	return links*2 < words
}

// shownTwin tells whether a sibling of n with the same class is not
// hidden by the sheets: one of several panels (tabs, slides) shown.
func shownTwin(n *html.Node) bool {
	c := attr(n, "class")
	if c == "" || n.Parent == nil {
		return false
	}
	for s := n.Parent.FirstChild; s != nil; s = s.NextSibling {
		if s != n && s.Type == html.ElementNode && s.Data == n.Data && attr(s, "class") == c && !Hidden(s) {
			return true
		}
	}
	return false
}

// visibleWords counts the words of n's text outside scripts and styles.
func visibleWords(n *html.Node) int {
	k := 0
	for d := n; d != nil; {
		if d != n && d.Type == html.ElementNode && (d.DataAtom == atom.Script || d.DataAtom == atom.Style) {
			d = skipWithin(d, n)
			continue
		}
		if d.Type == html.TextNode {
			k += countWords(d.Data)
		}
		d = nextWithin(d, n)
	}
	return k
}
