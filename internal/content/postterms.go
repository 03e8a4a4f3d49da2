package content

import (
	"os"
	"strings"
)

// A post's terms are not its role (issue 20, rec). WordPress writes
// post_class() on every post it lists or shows: "post-94298 post
// type-post status-publish format-standard hentry category-open-source
// tag-github-actions tag-social". The "category-" and "tag-" names are
// the taxonomy terms the post carries, named by their slugs, not what
// the element is: read as class words they make a listed post a
// "category" or "tag" line (dropBoilerplate's meta kind), and a slug
// that holds "social", "media", "comment" or "sidebar" makes the post
// a widget or an unlikely candidate to the readability pass. On an
// element with post_class()'s marks, those names are passed over as
// the names that state a condition are (stateModifier).

// postTermsOff turns the rule off (measurement switch, REC_TERMS=0).
var postTermsOff = os.Getenv("REC_TERMS") == "0"

// postClass tells whether class value v is WordPress's post_class():
// the "hentry" name, or a "status-publish" name beside a "type-" one.
func postClass(v string) bool {
	if postTermsOff || len(v) < 6 {
		return false
	}
	return hasName(v, "hentry") || hasName(v, "status-publish") && strings.Contains(v, "type-")
}

// hasName tells whether name is one of the space-separated names of v.
func hasName(v, name string) bool {
	for i := 0; ; {
		j := strings.Index(v[i:], name)
		if j < 0 {
			return false
		}
		at := i + j
		end := at + len(name)
		if (at == 0 || isSpace(v[at-1])) && (end == len(v) || isSpace(v[end])) {
			return true
		}
		i = at + 1
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

// termName tells whether a class name is a post's term: "category-" or
// "tag-" and a slug.
func termName(name string) bool {
	return len(name) > len("tag-") && strings.HasPrefix(name, "tag-") ||
		len(name) > len("category-") && strings.HasPrefix(name, "category-")
}

// withoutTerms returns class value v without its term names when it is
// a post's class (postClass), else v.
func withoutTerms(v string) string {
	if !postClass(v) {
		return v
	}
	var b strings.Builder
	for f := range strings.FieldsSeq(v) {
		if !termName(f) {
			b.WriteString(f)
			b.WriteByte(' ')
		}
	}
	return b.String()
}
