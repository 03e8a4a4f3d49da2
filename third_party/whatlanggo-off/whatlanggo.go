// Package whatlanggo stands in for whatlanggo in webacq's build (see the
// replace directive in webacq's go.mod and third_party/README.md).
//
// webacq links whatlanggo only because go-trafilatura calls DetectLang on
// every text it extracts, to fill its result's Metadata.Language and to
// compare it with a TargetLanguage option. webacq reads neither: the
// page's language comes from its own markup (internal/content/scan.go),
// trafilatura's metadata is never read, and no TargetLanguage is set
// (TestTrafilaturaLanguageUnread). Yet the detection, a trigram count of
// the whole text against each candidate language's profile, cost a crawl
// about 2 % of its CPU on the 6 % of pages that reach trafilatura. This
// module declares the two names go-trafilatura uses and detects nothing.
package whatlanggo

// Lang is a language; this build knows none.
type Lang int

// Unknown is the only Lang DetectLang returns.
const Unknown Lang = -1

// DetectLang detects nothing: it returns Unknown whatever the text.
func DetectLang(text string) Lang { return Unknown }

// Iso6391 returns the language's ISO 639-1 code: "" for Unknown, as
// whatlanggo itself does for a language without one.
func (l Lang) Iso6391() string { return "" }
