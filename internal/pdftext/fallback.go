package pdftext

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/ledongthuc/pdf"
)

// The pure-Go reader uses the library for the object graph (cross
// references, dictionaries, stream filters, font encodings) and does the
// rest itself: it walks the page tree with a loop check instead of
// trusting /Count, and interprets content streams with its own bounded
// lexer, placing glyph runs by the text and graphics matrices so that a
// word gap drawn as a kerning offset (the way TeX writes) becomes a space.

// Bounds of the pure-Go reader besides Limits.
const (
	maxTreeDepth   = 64      // levels of the page tree
	maxFonts       = 10000   // fonts kept in the cache
	maxCMap        = 1 << 20 // decompressed bytes of one ToUnicode CMap
	maxCMapCount   = 10000   // entries announced by one begin…range operator (PDF says 100)
	maxCMapWork    = 200000  // entries a CMap may make the library append
	maxDifferences = 1024    // entries of an encoding's Differences array
	maxColumns     = 1 << 16 // a predictor's Columns (the library allocates a row)
	maxCIDWidths   = 1 << 16 // widths read from a composite font's /W
	maxStack       = 64      // operands waiting for an operator
	maxGStack      = 256     // graphics states saved by q
	maxFormDepth   = 8       // form XObjects drawn within one another
	decodeChunk    = 512     // bytes of a string decoded between context checks
	// wordGap is the share of the font size that a horizontal gap must
	// pass to separate words; kerning inside a word stays well under it.
	wordGap = 0.15
	// readBudgetBase and readBudgetPerByte bound the bytes the library may
	// read from the document (it re-parses an object at each access).
	readBudgetBase    = 1 << 30
	readBudgetPerByte = 256
)

// abortError carries a stop (the context ended, a limit passed) by panic
// from guardedReaderAt.ReadAt through the library to readGo.
type abortError struct{ err error }

func (a abortError) Error() string { return a.err.Error() }
func (a abortError) Unwrap() error { return a.err }

// guardedReaderAt is the document as the library reads it. Every read
// checks the context and counts against a budget, so that any loop of the
// library that reads, as every walk over objects does, ends with the
// context.
type guardedReaderAt struct {
	ctx          context.Context
	r            *bytes.Reader
	read, budget int64
}

func (g *guardedReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if g.ctx.Err() != nil {
		panic(abortError{ctxError(g.ctx)})
	}
	g.read += int64(len(p))
	if g.read > g.budget {
		panic(abortError{&LimitError{Message: "reading it took too much work", Detail: fmt.Sprintf("%d bytes re-read", g.read)}})
	}
	return g.r.ReadAt(p, off)
}

// fallback runs the pure-Go reader on its own goroutine, which holds the
// reading's slot until it ends and then calls release. The reading checks
// ctx itself; should the library ever spin where it reads nothing, the
// caller still gets its answer when ctx ends, and the slot stays taken
// until the spin ends, so such documents can never take every core.
func (r *Reader) fallback(ctx context.Context, body []byte, release func()) (*Result, error) {
	type outcome struct {
		res *Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		defer release()
		res, err := readGo(ctx, body, r.limits)
		done <- outcome{res, err}
	}()
	select {
	case o := <-done:
		return o.res, o.err
	case <-ctx.Done():
		return nil, ctxError(ctx)
	}
}

// readGo reads body in process.
func readGo(ctx context.Context, body []byte, lim Limits) (res *Result, err error) {
	// The library panics on many malformed inputs; guardedReaderAt panics
	// on purpose.
	defer func() {
		if p := recover(); p != nil {
			res = nil
			if a, ok := p.(abortError); ok {
				err = a.err
				return
			}
			err = fmt.Errorf("%w: %v", ErrUnreadable, p)
		}
	}()
	src := &guardedReaderAt{ctx: ctx, r: bytes.NewReader(body), budget: readBudgetBase + readBudgetPerByte*int64(len(body))}
	doc, err := pdf.NewReader(src, int64(len(body)))
	if err != nil {
		// NewReader recovers panics into errors, abortError among them.
		var a abortError
		if errors.As(err, &a) {
			return nil, a.err
		}
		return nil, fmt.Errorf("%w: %v", ErrUnreadable, err)
	}
	trailer := doc.Trailer()
	root := trailer.Key("Root").Key("Pages")
	if root.Kind() != pdf.Dict {
		return nil, fmt.Errorf("%w: no page tree", ErrUnreadable)
	}
	// poppler's check: more pages than objects is a lie that would make
	// a reader trusting /Count loop.
	if n, size := root.Key("Count").Int64(), trailer.Key("Size").Int64(); n > size {
		return nil, fmt.Errorf("%w: page count %d larger than the %d objects", ErrUnreadable, n, size)
	}
	w := &walker{ctx: ctx, lim: lim, seed: maphash.MakeSeed(), seen: map[uint64]bool{}, fonts: map[uint64]*fontInfo{}}
	if err := w.collect(root, pdf.Value{}, 0); err != nil {
		return nil, err
	}
	var out strings.Builder
	for _, p := range w.pages {
		if ctx.Err() != nil {
			return nil, ctxError(ctx)
		}
		t, err := w.pageText(p)
		if err != nil {
			return nil, err
		}
		if t != "" {
			if out.Len() > 0 {
				out.WriteString("\n\n")
			}
			out.WriteString(t)
		}
	}
	info := trailer.Key("Info")
	return &Result{Text: mendHyphens(out.String()), Title: info.Key("Title").Text(), Author: info.Key("Author").Text()}, nil
}

type pageRef struct {
	v   pdf.Value // the page dictionary
	res pdf.Value // its resources, inherited when it has none
}

// walker holds one reading's state.
type walker struct {
	ctx      context.Context
	lim      Limits
	seed     maphash.Seed
	seen     map[uint64]bool // page tree nodes with kids, by their text
	visits   int
	pages    []pageRef
	fonts    map[uint64]*fontInfo // by the font dictionary's text
	inflated int64                // decompressed content bytes read
	kept     int64                // bytes of text kept
	stop     error                // why a stream reader stopped, if it did
}

// collect appends the pages under node in order. A node with kids is
// recognised by its text (its entries, references unresolved): two
// distinct nodes of a tree never list the same kids, so meeting the same
// text twice is a loop.
func (w *walker) collect(node, res pdf.Value, depth int) error {
	if depth > maxTreeDepth {
		return fmt.Errorf("%w: page tree deeper than %d levels", ErrUnreadable, maxTreeDepth)
	}
	if w.visits++; w.visits > 4*w.lim.MaxPages+1000 {
		return &LimitError{Message: fmt.Sprintf("its page tree has more than %d nodes", 4*w.lim.MaxPages+1000)}
	}
	if w.ctx.Err() != nil {
		return ctxError(w.ctx)
	}
	if r := node.Key("Resources"); r.Kind() == pdf.Dict {
		res = r
	}
	kids := node.Key("Kids")
	if kids.Kind() != pdf.Array {
		if node.Kind() != pdf.Dict {
			return nil
		}
		if len(w.pages) >= w.lim.MaxPages {
			return &LimitError{Message: fmt.Sprintf("it has more than %d pages", w.lim.MaxPages)}
		}
		w.pages = append(w.pages, pageRef{node, res})
		return nil
	}
	if kids.Len() == 0 {
		return nil
	}
	key := maphash.String(w.seed, node.String())
	if w.seen[key] {
		return fmt.Errorf("%w: the page tree loops", ErrUnreadable)
	}
	w.seen[key] = true
	for i := 0; i < kids.Len(); i++ {
		if err := w.collect(kids.Index(i), res, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// countingReader reads decompressed stream bytes for the walker: it
// stops when the context ends or the document's decompressed bytes pass
// MaxInflated, recording why in w.stop.
type countingReader struct {
	w *walker
	r io.Reader
}

func (c *countingReader) Read(p []byte) (int, error) {
	w := c.w
	if w.stop != nil {
		return 0, w.stop
	}
	if w.ctx.Err() != nil {
		w.stop = ctxError(w.ctx)
		return 0, w.stop
	}
	n, err := c.r.Read(p)
	w.inflated += int64(n)
	if w.inflated > w.lim.MaxInflated {
		w.stop = &LimitError{Message: fmt.Sprintf("its content inflates to more than %d MB", w.lim.MaxInflated>>20)}
		return n, w.stop
	}
	return n, err
}

// openStream returns the decompressed data of a stream, or false when the
// library cannot decode it or its parameters would make it allocate
// without bound.
func openStream(s pdf.Value) (rd io.Reader, ok bool) {
	if s.Kind() != pdf.Stream {
		return nil, false
	}
	params := []pdf.Value{s.Key("DecodeParms")}
	if params[0].Kind() == pdf.Array {
		params = params[:0]
		for i := 0; i < s.Key("DecodeParms").Len() && i < 16; i++ {
			params = append(params, s.Key("DecodeParms").Index(i))
		}
	}
	for _, p := range params {
		if c := p.Key("Columns").Int64(); c < 0 || c > maxColumns {
			return nil, false
		}
	}
	defer func() {
		if p := recover(); p != nil {
			if _, abort := p.(abortError); abort {
				panic(p)
			}
			rd, ok = nil, false
		}
	}()
	return s.Reader(), true
}

// textState is the part of the graphics state that places text.
type textState struct {
	ctm, tm, tlm mat
	saved        []mat
	font         *fontInfo
	fs, tc, tw   float64
	th, tl       float64
	fonts        map[string]*fontInfo // this page's, by resource name
	res          pdf.Value
	runs         []run
	depth        int // form XObjects being drawn
}

// run is text drawn in one go, from (x, y) to (end, y) in user space.
//
// The coordinates are turned with the text: x runs along the baseline and
// y up across it, in whichever of the four directions of the page the
// text is written (rot quarter turns counterclockwise), so that the text
// of a landscape page reads the same as that of an upright one.
type run struct {
	x, y, end, size float64
	rot             int
	text            string
}

// turns are the unit vectors along a baseline turned rot quarter turns.
var turns = [4][2]float64{{1, 0}, {0, 1}, {-1, 0}, {0, -1}}

// newRun places text drawn from the text-space origin of start to that of
// end in the direction of start's baseline.
func newRun(start, end mat, size float64, text string) run {
	a, b := start[0], start[1]
	rot := 0
	switch {
	case math.Abs(b) > math.Abs(a) && b > 0:
		rot = 1
	case math.Abs(a) >= math.Abs(b) && a < 0:
		rot = 2
	case math.Abs(b) > math.Abs(a):
		rot = 3
	}
	d := turns[rot]
	along := func(m mat) float64 { return m[4]*d[0] + m[5]*d[1] }
	// Up is the baseline direction turned a quarter counterclockwise.
	up := start[4]*-d[1] + start[5]*d[0]
	return run{x: along(start), y: up, end: along(end), size: size, rot: rot, text: text}
}

// pageText interprets the page's content streams and lays out the text.
func (w *walker) pageText(p pageRef) (string, error) {
	contents := p.v.Key("Contents")
	var streams []pdf.Value
	switch contents.Kind() {
	case pdf.Stream:
		streams = append(streams, contents)
	case pdf.Array:
		for i := 0; i < contents.Len() && i < 4096; i++ {
			streams = append(streams, contents.Index(i))
		}
	}
	var readers []io.Reader
	for _, s := range streams {
		if rd, ok := openStream(s); ok {
			readers = append(readers, rd)
		}
	}
	if len(readers) == 0 {
		return "", nil
	}
	ts := &textState{ctm: identity, tm: identity, tlm: identity, th: 1, fonts: map[string]*fontInfo{}, res: p.res}
	if err := w.interpret(ts, io.MultiReader(readers...)); err != nil {
		return "", err
	}
	return layout(ts.runs), nil
}

// interpret applies the operators of the content stream rd to ts.
func (w *walker) interpret(ts *textState, rd io.Reader) error {
	lx := newLexer(&countingReader{w: w, r: rd})
	var stack []token
	for ops := 1; ; ops++ {
		t, err := lx.next()
		if w.stop != nil {
			return w.stop
		}
		if err != nil {
			// The end of the content, or broken data (bad compressed
			// bytes, say): the page ends there and keeps what was read.
			return nil
		}
		if t.kind != kOp {
			if len(stack) >= maxStack {
				stack = stack[:0]
			}
			stack = append(stack, t)
			continue
		}
		if ops%256 == 0 && w.ctx.Err() != nil {
			return ctxError(w.ctx)
		}
		if t.s == "BI" {
			lx.skipInlineImage()
		} else {
			w.op(ts, t.s, stack)
		}
		stack = stack[:0]
		if w.stop != nil {
			return w.stop
		}
	}
}

// form draws the form XObject named name in the current resources, the
// way a page includes another document's page (pdfTeX's \includegraphics
// of a PDF, say): with the current state, its /Matrix applied, its own
// resources, and everything but the text it draws restored afterwards.
// Forms nest at most maxFormDepth deep; the decompressed-bytes limit
// bounds how often one form can be drawn.
func (w *walker) form(ts *textState, name string) {
	if ts.depth >= maxFormDepth {
		return
	}
	xo := ts.res.Key("XObject").Key(name)
	if xo.Key("Subtype").Name() != "Form" {
		return
	}
	rd, ok := openStream(xo)
	if !ok {
		return
	}
	outer := *ts
	if m := xo.Key("Matrix"); m.Len() == 6 {
		var f mat
		for i := range f {
			f[i] = m.Index(i).Float64()
		}
		ts.ctm = f.mul(ts.ctm)
	}
	if r := xo.Key("Resources"); r.Kind() == pdf.Dict {
		ts.res, ts.fonts = r, map[string]*fontInfo{}
	}
	ts.saved = nil
	ts.depth++
	if err := w.interpret(ts, rd); err != nil && w.stop == nil {
		w.stop = err
	}
	runs := ts.runs
	*ts = outer
	ts.runs = runs
}

// op applies one content operator to the text state.
func (w *walker) op(ts *textState, op string, stack []token) {
	args := func(n int) []token {
		if len(stack) < n {
			return nil
		}
		return stack[len(stack)-n:]
	}
	nums := func(n int) []float64 {
		a := args(n)
		if a == nil {
			return nil
		}
		f := make([]float64, n)
		for i, t := range a {
			if t.kind != kNum {
				return nil
			}
			f[i] = t.num
		}
		return f
	}
	str := func() (string, bool) {
		a := args(1)
		if a == nil || a[0].kind != kStr {
			return "", false
		}
		return a[0].s, true
	}
	switch op {
	case "q":
		if len(ts.saved) < maxGStack {
			ts.saved = append(ts.saved, ts.ctm)
		}
	case "Q":
		if n := len(ts.saved); n > 0 {
			ts.ctm, ts.saved = ts.saved[n-1], ts.saved[:n-1]
		}
	case "cm":
		if f := nums(6); f != nil {
			ts.ctm = mat{f[0], f[1], f[2], f[3], f[4], f[5]}.mul(ts.ctm)
		}
	case "BT":
		ts.tm, ts.tlm = identity, identity
	case "Tf":
		if a := args(2); a != nil && a[0].kind == kName && a[1].kind == kNum {
			ts.font, ts.fs = w.font(ts, a[0].s), a[1].num
		}
	case "Tc", "Tw", "Tz", "TL":
		if f := nums(1); f != nil {
			switch op {
			case "Tc":
				ts.tc = f[0]
			case "Tw":
				ts.tw = f[0]
			case "Tz":
				ts.th = f[0] / 100
			case "TL":
				ts.tl = f[0]
			}
		}
	case "Td", "TD":
		if f := nums(2); f != nil {
			if op == "TD" {
				ts.tl = -f[1]
			}
			ts.newLine(f[0], f[1])
		}
	case "Tm":
		if f := nums(6); f != nil {
			ts.tm = mat{f[0], f[1], f[2], f[3], f[4], f[5]}
			ts.tlm = ts.tm
		}
	case "T*":
		ts.newLine(0, -ts.tl)
	case "Tj", "'":
		if s, ok := str(); ok {
			if op == "'" {
				ts.newLine(0, -ts.tl)
			}
			w.showRun(ts, []token{{kind: kStr, s: s}})
		}
	case "\"":
		if a := args(3); a != nil && a[0].kind == kNum && a[1].kind == kNum && a[2].kind == kStr {
			ts.tw, ts.tc = a[0].num, a[1].num
			ts.newLine(0, -ts.tl)
			w.showRun(ts, a[2:])
		}
	case "Do":
		if a := args(1); a != nil && a[0].kind == kName {
			w.form(ts, a[0].s)
		}
	case "TJ":
		if a := args(1); a != nil && a[0].kind == kArr {
			w.showRun(ts, a[0].arr)
		}
	}
}

// newLine moves to the start of the next line, offset by (tx, ty).
func (ts *textState) newLine(tx, ty float64) {
	ts.tlm = translate(tx, ty).mul(ts.tlm)
	ts.tm = ts.tlm
}

// showRun draws strings and, between them, the positioning numbers of a
// TJ array (thousandths of the font size, positive to the left), as one
// run. A number moving right by more than wordGap of the font size is a
// space between words.
func (w *walker) showRun(ts *textState, parts []token) {
	f := ts.font
	if f == nil {
		f = plainFont
	}
	start := ts.tm.mul(ts.ctm)
	var b strings.Builder
	for _, p := range parts {
		switch p.kind {
		case kStr:
			b.WriteString(w.decode(f, p.s))
			ts.tm = translate(ts.advance(f, p.s), 0).mul(ts.tm)
		case kNum:
			ts.tm = translate(-p.num/1000*ts.fs*ts.th, 0).mul(ts.tm)
			if -p.num/1000 > wordGap && b.Len() > 0 && !strings.HasSuffix(b.String(), " ") {
				b.WriteByte(' ')
			}
		}
	}
	if b.Len() == 0 {
		return
	}
	if w.kept += int64(b.Len()); w.kept > w.lim.MaxText {
		w.stop = &LimitError{Message: fmt.Sprintf("its text is larger than the %d MB limit", w.lim.MaxText>>20)}
		return
	}
	end := ts.tm.mul(ts.ctm)
	size := math.Abs(ts.fs) * math.Hypot(start[2], start[3])
	ts.runs = append(ts.runs, newRun(start, end, size, b.String()))
}

// advance is the horizontal displacement of drawing raw, in text space.
func (ts *textState) advance(f *fontInfo, raw string) float64 {
	step := 1
	if f.twoByte {
		step = 2
	}
	adv := 0.0
	for i := 0; i+step <= len(raw); i += step {
		code := int(raw[i])
		if step == 2 {
			code = code<<8 | int(raw[i+1])
		}
		a := f.width(code)/1000*ts.fs + ts.tc
		if step == 1 && code == ' ' {
			a += ts.tw
		}
		adv += a * ts.th
	}
	return adv
}

// decode turns raw glyph codes into text a chunk at a time, checking the
// context between chunks: the library's decoders scan their tables once
// per code.
func (w *walker) decode(f *fontInfo, raw string) string {
	var b strings.Builder
	for i := 0; i < len(raw); i += decodeChunk {
		if i > 0 && w.ctx.Err() != nil {
			w.stop = ctxError(w.ctx)
			break
		}
		b.WriteString(spellLigatures(f.decode(raw[i:min(i+decodeChunk, len(raw))])))
	}
	return b.String()
}

// fontInfo is what the walker needs of a font.
type fontInfo struct {
	enc     pdf.TextEncoding
	twoByte bool // a composite font: codes of two bytes
	first   int
	widths  []float64
	// A composite font's widths: cids by CID, sorted, for codes that are
	// CIDs (the Identity encodings); dw for the others.
	cids  []cidWidth
	byCID bool
	dw    float64
}

// cidWidth is the width of the CIDs lo to hi of a composite font.
type cidWidth struct {
	lo, hi int
	w      float64
}

// plainFont stands for a missing or unusable font.
var plainFont = &fontInfo{enc: rawEncoding{}}

// width is a glyph's width in thousandths of the font size; 500 (an
// average Latin glyph) where the font does not say.
func (f *fontInfo) width(code int) float64 {
	if f.twoByte {
		if f.byCID {
			i := sort.Search(len(f.cids), func(i int) bool { return f.cids[i].hi >= code })
			if i < len(f.cids) && f.cids[i].lo <= code {
				return f.cids[i].w
			}
		}
		return f.dw
	}
	if i := code - f.first; i >= 0 && i < len(f.widths) && f.widths[i] > 0 {
		return f.widths[i]
	}
	return 500
}

// loadCIDWidths reads a composite font's glyph widths from its
// descendant font: /DW, 1000 unless given, and /W, whose entries are
// either "c [w1 w2 …]" (the widths of c, c+1, …) or "c1 c2 w". Without
// them every glyph would count 500 wide and the runs' ends, from which
// the layout finds the spaces between words, would drift.
func loadCIDWidths(f *fontInfo, fv pdf.Value) {
	f.dw = 1000
	enc := fv.Key("Encoding").Name()
	f.byCID = enc == "Identity-H" || enc == "Identity-V"
	desc := fv.Key("DescendantFonts").Index(0)
	if dw := desc.Key("DW"); dw.Kind() == pdf.Integer || dw.Kind() == pdf.Real {
		f.dw = dw.Float64()
	}
	ws := desc.Key("W")
	read := 0
	for i := 0; i+1 < ws.Len() && read < maxCIDWidths; {
		c := ws.Index(i)
		if c.Kind() != pdf.Integer {
			return
		}
		lo := int(c.Int64())
		if next := ws.Index(i + 1); next.Kind() == pdf.Array {
			for j := 0; j < next.Len() && read < maxCIDWidths; j++ {
				f.cids = append(f.cids, cidWidth{lo + j, lo + j, next.Index(j).Float64()})
				read++
			}
			i += 2
			continue
		}
		if i+2 >= ws.Len() {
			break
		}
		f.cids = append(f.cids, cidWidth{lo, int(ws.Index(i + 1).Int64()), ws.Index(i + 2).Float64()})
		read++
		i += 3
	}
	sort.Slice(f.cids, func(i, j int) bool { return f.cids[i].lo < f.cids[j].lo })
}

// decode decodes with the font's encoding; codes it cannot decode pass
// through.
func (f *fontInfo) decode(raw string) (s string) {
	defer func() {
		if p := recover(); p != nil {
			if _, abort := p.(abortError); abort {
				panic(p)
			}
			s = raw
		}
	}()
	return f.enc.Decode(raw)
}

// rawEncoding passes codes through as bytes.
type rawEncoding struct{}

func (rawEncoding) Decode(raw string) string { return raw }

// font returns the font named in the page's resources.
func (w *walker) font(ts *textState, name string) *fontInfo {
	if f, ok := ts.fonts[name]; ok {
		return f
	}
	fv := ts.res.Key("Font").Key(name)
	key := maphash.String(w.seed, fv.String())
	f, ok := w.fonts[key]
	if !ok {
		f = w.loadFont(fv)
		if len(w.fonts) < maxFonts {
			w.fonts[key] = f
		}
	}
	ts.fonts[name] = f
	return f
}

func (w *walker) loadFont(fv pdf.Value) (f *fontInfo) {
	f = &fontInfo{enc: rawEncoding{}}
	if fv.Kind() != pdf.Dict {
		return f
	}
	f.twoByte = fv.Key("Subtype").Name() == "Type0"
	if f.twoByte {
		loadCIDWidths(f, fv)
	} else {
		f.first = int(fv.Key("FirstChar").Int64())
		ws := fv.Key("Widths")
		for i := 0; i < ws.Len() && i < 256; i++ {
			f.widths = append(f.widths, ws.Index(i).Float64())
		}
	}
	if !w.encodingSafe(fv) {
		return f
	}
	if !f.twoByte {
		if enc := w.builtinEncoding(fv); enc != nil {
			f.enc = enc
			return f
		}
	}
	defer func() {
		if p := recover(); p != nil {
			if _, abort := p.(abortError); abort {
				panic(p)
			}
			f.enc = rawEncoding{}
		}
	}()
	lf := pdf.Font{V: fv}
	if enc := lf.Encoder(); enc != nil {
		f.enc = enc
	}
	return f
}

var (
	cmapBegin = regexp.MustCompile(`(\S+)\s+begin(?:bfchar|bfrange|codespacerange)\b`)
	cmapEnd   = regexp.MustCompile(`end(?:bfchar|bfrange)\b`)
)

// encodingSafe reports whether the library may build the font's encoding
// within bounds: a Differences array of sane length, and a ToUnicode CMap
// that is small, decodable, and whose counts are plain small numbers (the
// library appends as many entries as a count says, once per end operator).
func (w *walker) encodingSafe(fv pdf.Value) bool {
	if enc := fv.Key("Encoding"); enc.Kind() == pdf.Dict && enc.Key("Differences").Len() > maxDifferences {
		return false
	}
	tu := fv.Key("ToUnicode")
	if tu.Kind() != pdf.Stream {
		return true
	}
	rd, ok := openStream(tu)
	if !ok {
		return false
	}
	data, err := io.ReadAll(io.LimitReader(&countingReader{w: w, r: rd}, maxCMap+1))
	if err != nil || len(data) > maxCMap {
		return false
	}
	most := 0
	for _, m := range cmapBegin.FindAllSubmatch(data, -1) {
		n, err := strconv.Atoi(string(m[1]))
		if err != nil || n < 0 || n > maxCMapCount {
			return false
		}
		most = max(most, n)
	}
	return len(cmapEnd.FindAllIndex(data, -1))*most <= maxCMapWork
}

// mat is a PDF transformation matrix [a b c d e f].
type mat [6]float64

var identity = mat{1, 0, 0, 1, 0, 0}

func translate(tx, ty float64) mat { return mat{1, 0, 0, 1, tx, ty} }

// mul returns m×n: m applied first, then n.
func (m mat) mul(n mat) mat {
	return mat{
		m[0]*n[0] + m[1]*n[2],
		m[0]*n[1] + m[1]*n[3],
		m[2]*n[0] + m[3]*n[2],
		m[2]*n[1] + m[3]*n[3],
		m[4]*n[0] + m[5]*n[2] + n[4],
		m[4]*n[1] + m[5]*n[3] + n[5],
	}
}
