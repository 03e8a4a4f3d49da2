package content

import (
	"os"
	"strings"

	"golang.org/x/net/html"
)

var pdT = os.Getenv("PD_T") != ""

// slugWords is the least number of words of a class or id name that
// spells its element's text ("sign-up-for-twilio-and-get-a-phone-number"
// around a section headed "Sign up for Twilio and get a phone number").
const slugWords = 4

// slugTextLen bounds how far into the element's text a spelled name is
// looked for: its heading or first line.
const slugTextLen = 400

// textSlugNames returns n's class and id values without the names that
// spell n's text (textSlug), and whether there was one: such a name was
// made from the element's heading, and its words ("related", "share",
// "popular", "credit") are the text's, not a family of boilerplate.
func textSlugNames(n *html.Node) (class, id string, ok bool) {
	class, id = attr(n, "class"), attr(n, "id")
	if !mayHoldSlug(class) && !mayHoldSlug(id) {
		return class, id, false
	}
	text := slugTokens(leadText(n, slugTextLen))
	if len(text) < slugWords {
		return class, id, false
	}
	keep := func(v string) (string, bool) {
		names := strings.Fields(v)
		out := names[:0]
		dropped := false
		for _, name := range names {
			if textSlug(slugTokens(name), text) {
				dropped = true
				continue
			}
			out = append(out, name)
		}
		return strings.Join(out, " "), dropped
	}
	var c, i bool
	class, c = keep(class)
	id, i = keep(id)
	return class, id, c || i
}

// mayHoldSlug tells whether v holds a name of slugWords words or more
// (three separators in a row of name characters).
func mayHoldSlug(v string) bool {
	seps := 0
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == ' ' || c == '\t' || c == '\n':
			seps = 0
		case !alnum(c):
			seps++
			if seps >= slugWords-1 {
				return true
			}
		}
	}
	return false
}

// textSlug tells whether slugWords consecutive words of a name are
// consecutive words of the text.
func textSlug(name, text []string) bool {
	for i := 0; i+slugWords <= len(name); i++ {
		for j := 0; j+slugWords <= len(text); j++ {
			k := 0
			for k < slugWords && name[i+k] == text[j+k] {
				k++
			}
			if k == slugWords {
				return true
			}
		}
	}
	return false
}

// slugTokens splits s into lower-case runs of ASCII letters and digits;
// other characters separate them.
func slugTokens(s string) []string {
	var out []string
	start := -1
	for i := 0; i <= len(s); i++ {
		if i < len(s) && alnum(s[i]) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			out = append(out, strings.ToLower(s[start:i]))
			start = -1
		}
	}
	return out
}

// leadText returns about the first limit bytes of n's text.
func leadText(n *html.Node, limit int) string {
	var b strings.Builder
	var walk func(*html.Node) bool
	walk = func(m *html.Node) bool {
		for c := m.FirstChild; c != nil; c = c.NextSibling {
			switch c.Type {
			case html.TextNode:
				b.WriteString(c.Data)
				b.WriteByte(' ')
				if b.Len() >= limit {
					return false
				}
			case html.ElementNode:
				if c.Data == "script" || c.Data == "style" {
					continue
				}
				if !walk(c) {
					return false
				}
			}
		}
		return true
	}
	walk(n)
	return b.String()
}

// nameWeight is classWeight, without the names that spell n's text
// when the weight is negative.
func (r *readable) nameWeight(n *html.Node) int {
	w := r.classWeight(n)
	if pdT && w < 0 {
		if c, i, ok := textSlugNames(n); ok {
			w = valueWeight(c) + valueWeight(i)
		}
	}
	return w
}
