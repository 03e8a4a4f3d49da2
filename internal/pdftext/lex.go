package pdftext

import (
	"bufio"
	"io"
	"math"
	"strconv"
)

// The pure-Go reader interprets content streams with its own lexer rather
// than the library's, whose operand stack grows without bound and which
// offers no place to stop: this one bounds every token and array, and its
// caller checks the context between operators.

// Bounds of one token.
const (
	maxString     = 1 << 20 // bytes kept of one string; the rest is read and dropped
	maxArray      = 1 << 16 // elements kept of one array
	maxArrayDepth = 16
	maxNumber     = 64  // bytes of a number; longer is not one
	maxRegular    = 256 // bytes kept of an operator or a name
)

type kind uint8

const (
	kOther kind = iota // booleans, null, dictionaries, stray delimiters
	kNum
	kStr
	kName
	kArr
	kOp
)

type token struct {
	kind kind
	num  float64
	s    string  // a string's bytes, a name, an operator
	arr  []token // an array's elements
}

// lexer reads the tokens of a content stream.
type lexer struct {
	r *bufio.Reader
}

func newLexer(r io.Reader) *lexer { return &lexer{r: bufio.NewReaderSize(r, 32<<10)} }

func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == 0
}

func isDelim(c byte) bool {
	switch c {
	case '(', ')', '<', '>', '[', ']', '{', '}', '/', '%':
		return true
	}
	return false
}

// next returns the next token, or the reader's error (io.EOF at the end).
func (l *lexer) next() (token, error) {
	return l.token(0)
}

func (l *lexer) token(depth int) (token, error) {
	c, err := l.skip()
	if err != nil {
		return token{}, err
	}
	switch {
	case c == '(':
		s, err := l.literal()
		return token{kind: kStr, s: s}, err
	case c == '<':
		d, err := l.r.ReadByte()
		if err != nil {
			return token{}, err
		}
		if d == '<' {
			return token{}, l.dict()
		}
		l.r.UnreadByte()
		s, err := l.hex()
		return token{kind: kStr, s: s}, err
	case c == '[':
		return l.array(depth)
	case c == '/':
		s, err := l.regular(nil)
		return token{kind: kName, s: string(s)}, err
	case isDelim(c):
		return token{}, nil
	}
	b, err := l.regular([]byte{c})
	if err != nil && err != io.EOF {
		return token{}, err
	}
	if c == '+' || c == '-' || c == '.' || c >= '0' && c <= '9' {
		if len(b) <= maxNumber {
			if f, perr := strconv.ParseFloat(string(b), 64); perr == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
				return token{kind: kNum, num: f}, nil
			}
		}
		return token{}, nil
	}
	switch s := string(b); s {
	case "true", "false", "null":
		return token{}, nil
	default:
		return token{kind: kOp, s: s}, nil
	}
}

// skip passes white space and comments and returns the next byte.
func (l *lexer) skip() (byte, error) {
	for {
		c, err := l.r.ReadByte()
		if err != nil {
			return 0, err
		}
		if isSpace(c) {
			continue
		}
		if c != '%' {
			return c, nil
		}
		for c != '\n' && c != '\r' {
			if c, err = l.r.ReadByte(); err != nil {
				return 0, err
			}
		}
	}
}

// regular reads the rest of a run of regular characters onto b; at most
// maxRegular+1 bytes are kept of a long run (no operator or name that
// matters is longer).
func (l *lexer) regular(b []byte) ([]byte, error) {
	for {
		c, err := l.r.ReadByte()
		if err != nil {
			return b, err
		}
		if isSpace(c) || isDelim(c) {
			l.r.UnreadByte()
			return b, nil
		}
		if len(b) <= maxRegular {
			b = append(b, c)
		}
	}
}

// literal reads a (string) after its opening parenthesis.
func (l *lexer) literal() (string, error) {
	var b []byte
	put := func(c byte) {
		if len(b) < maxString {
			b = append(b, c)
		}
	}
	nest := 1
	for {
		c, err := l.r.ReadByte()
		if err != nil {
			return string(b), err
		}
		switch c {
		case '(':
			nest++
		case ')':
			if nest--; nest == 0 {
				return string(b), nil
			}
		case '\\':
			if c, err = l.r.ReadByte(); err != nil {
				return string(b), err
			}
			switch c {
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			case 'f':
				c = '\f'
			case '\r', '\n':
				// A line continuation: nothing is kept.
				if c == '\r' {
					if d, err := l.r.ReadByte(); err == nil && d != '\n' {
						l.r.UnreadByte()
					}
				}
				continue
			default:
				if c >= '0' && c <= '7' {
					v := int(c - '0')
					for i := 0; i < 2; i++ {
						d, err := l.r.ReadByte()
						if err != nil {
							break
						}
						if d < '0' || d > '7' {
							l.r.UnreadByte()
							break
						}
						v = v*8 + int(d-'0')
					}
					c = byte(v)
				}
			}
		}
		put(c)
	}
}

// hex reads a <hex string> after its opening bracket.
func (l *lexer) hex() (string, error) {
	var b []byte
	var hi byte
	half := false
	for {
		c, err := l.r.ReadByte()
		if err != nil {
			return string(b), err
		}
		var v byte
		switch {
		case c == '>':
			if half && len(b) < maxString {
				b = append(b, hi<<4)
			}
			return string(b), nil
		case c >= '0' && c <= '9':
			v = c - '0'
		case c >= 'a' && c <= 'f':
			v = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			v = c - 'A' + 10
		default:
			continue
		}
		if !half {
			hi, half = v, true
			continue
		}
		if len(b) < maxString {
			b = append(b, hi<<4|v)
		}
		half = false
	}
}

// array reads an [array] after its opening bracket.
func (l *lexer) array(depth int) (token, error) {
	t := token{kind: kArr}
	if depth >= maxArrayDepth {
		return t, l.skipArray()
	}
	for {
		c, err := l.skip()
		if err != nil {
			return t, err
		}
		if c == ']' {
			return t, nil
		}
		l.r.UnreadByte()
		e, err := l.token(depth + 1)
		if err != nil {
			return t, err
		}
		if e.kind == kOp {
			// Not a content-stream array; the operator is lost with it.
			continue
		}
		if len(t.arr) < maxArray {
			t.arr = append(t.arr, e)
		}
	}
}

// skipArray passes the rest of an array nested too deep, keeping nothing.
func (l *lexer) skipArray() error {
	nest := 1
	for nest > 0 {
		c, err := l.skip()
		if err != nil {
			return err
		}
		switch c {
		case '[':
			nest++
		case ']':
			nest--
		case '(':
			if _, err := l.literal(); err != nil {
				return err
			}
		}
	}
	return nil
}

// dict passes a <<dictionary>> after its opening brackets (marked-content
// properties and inline image parameters), keeping nothing.
func (l *lexer) dict() error {
	nest := 1
	for nest > 0 {
		c, err := l.skip()
		if err != nil {
			return err
		}
		switch c {
		case '(':
			if _, err := l.literal(); err != nil {
				return err
			}
		case '<':
			d, err := l.r.ReadByte()
			if err != nil {
				return err
			}
			if d == '<' {
				nest++
			} else {
				l.r.UnreadByte()
				if _, err := l.hex(); err != nil {
					return err
				}
			}
		case '>':
			d, err := l.r.ReadByte()
			if err != nil {
				return err
			}
			if d == '>' {
				nest--
			} else {
				l.r.UnreadByte()
			}
		}
	}
	return nil
}

// skipInlineImage passes an inline image after its BI operator: the
// parameters up to ID, one white-space byte, then binary data up to an EI
// that stands alone between white space.
func (l *lexer) skipInlineImage() error {
	for {
		t, err := l.next()
		if err != nil {
			return err
		}
		if t.kind == kOp && t.s == "ID" {
			break
		}
	}
	if _, err := l.r.ReadByte(); err != nil {
		return err
	}
	prev2, prev1 := byte(' '), byte(' ')
	for {
		c, err := l.r.ReadByte()
		if err != nil {
			return err
		}
		if prev1 == 'I' && prev2 == 'E' && isSpace(c) {
			return nil
		}
		// The E must follow white space, checked when it arrives.
		if c == 'E' && !isSpace(prev1) {
			c = 'e'
		}
		prev2, prev1 = prev1, c
	}
}
