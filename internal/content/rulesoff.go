package content

import (
	"fmt"
	"sort"
)

// Rule switches for the ablation study (bench/content/README.md, "Issue
// 20, ablate: what each kept rule adds on each half"): one bool per rule
// family, false (the rule on) by default, read where the rule acts.
// SetRuleOff turns a family off; bench/content's -off flag calls it. Set
// them before converting pages, never while pages are converted.
var (
	// Issue 12's families (boiler.go, lines.go, links.go, readable.go,
	// scan.go). The class-named families of boiler.go are kindsOff.
	offLabelLines    bool // labelLine: "Advertisement" and credit-start lines
	offCTAProse      bool // ctaParagraph: calls to action in prose
	offTeasers       bool // nested <article> teasers of other posts
	offRelatedLabels bool // dropRelatedLabels: related-content headings
	offLinkOnly      bool // dropLinkOnly: link-only paragraphs within the site
	offDocBlock      bool // docBlock: document links beside the body join it
	offLead          bool // findLead: the lead set apart from the body
	offHgroup        bool // subtitle: <hgroup> subtitles as leads
	offHiddenClass   bool // hintHide: blocks hidden by class
	offNav           bool // <nav> is navigation whatever its class
	offEmbeds        bool // embedsPost: embedded posts spare their block
	offNoscript      bool // expandNoscript: <noscript> posts read
	offSoftHyphen    bool // soft hyphens removed from texts

	// Issue 20's families.
	offRepair     bool // repair: trafilatura's result mended from the page
	offItems      bool // the collection/listing item profile (typedContent)
	offForum      bool // the forum profile (typedContent), all engines
	offPhpBB      bool // phpbbThread
	offXenForo    bool // the XenForo engine of engineThread
	offMyBB       bool // the MyBB engine of engineThread
	offLDFirst    bool // firstFromLD: the first post from JSON-LD
	offWoo        bool // wooGrid: WooCommerce's product grid
	offIntro      bool // introBefore: category title and intro
	offPagers     bool // removePagers
	offParts      bool // setApartParts: a card's parts set apart
	offSpareRuns  bool // listing pages spare item-run divs (D3)
	offTeaserList bool // a list of teasers in runs stays (N3)
	offSelect     bool // the candidate selector
	offStream     bool // React's streamed boundaries filled
	offUnhide     bool // settleHidden: a page sent hidden is shown whole
	offCrawler    bool // a <noscript> crawler view beside chrome or a loading line
	offChrome     bool // chromeOnly: a frame-only page has no main content
	offDedup      bool // dedupBlocks: a product page's repeated blocks once
	offNFC        bool // composeOutputs: text in Unicode NFC

	// kindsOff masks the class-named boilerplate families (boilerKind)
	// out of what classKinds finds for dropBoilerplate and the popup drop.
	kindsOff boilerKind
)

// ruleSwitches names the switches for SetRuleOff.
var ruleSwitches = map[string]*bool{
	"labellines":    &offLabelLines,
	"ctaprose":      &offCTAProse,
	"teasers":       &offTeasers,
	"relatedlabels": &offRelatedLabels,
	"linkonly":      &offLinkOnly,
	"docblock":      &offDocBlock,
	"lead":          &offLead,
	"hgroup":        &offHgroup,
	"hiddenclass":   &offHiddenClass,
	"nav":           &offNav,
	"embeds":        &offEmbeds,
	"noscript":      &offNoscript,
	"softhyphen":    &offSoftHyphen,

	"repair":     &offRepair,
	"items":      &offItems,
	"forum":      &offForum,
	"phpbb":      &offPhpBB,
	"xenforo":    &offXenForo,
	"mybb":       &offMyBB,
	"ldfirst":    &offLDFirst,
	"woo":        &offWoo,
	"intro":      &offIntro,
	"pagers":     &offPagers,
	"parts":      &offParts,
	"spareruns":  &offSpareRuns,
	"teaserlist": &offTeaserList,
	"select":     &offSelect,
	"stream":     &offStream,
	"unhide":     &offUnhide,
	"crawler":    &offCrawler,
	"chrome":     &offChrome,
	"dedup":      &offDedup,
	"nfc":        &offNFC,
}

// kindSwitches names the class-named families of boiler.go.
var kindSwitches = map[string]boilerKind{
	"related": kindRelated,
	"popup":   kindPopup,
	"meta":    kindMeta,
	"bio":     kindBio,
	"cta":     kindCTA,
	"credit":  kindCredit,
}

// SetRuleOff switches the rule family name off (off true) or back on.
// It is for measuring what each family adds (bench/content -off); set
// it before converting pages, never while pages are converted.
func SetRuleOff(name string, off bool) error {
	if p, ok := ruleSwitches[name]; ok {
		*p = off
		return nil
	}
	if k, ok := kindSwitches[name]; ok {
		if off {
			kindsOff |= k
		} else {
			kindsOff &^= k
		}
		return nil
	}
	return fmt.Errorf("content: no rule family %q (see RuleNames)", name)
}

// RuleNames returns the names SetRuleOff knows, sorted.
func RuleNames() []string {
	names := make([]string, 0, len(ruleSwitches)+len(kindSwitches))
	for n := range ruleSwitches {
		names = append(names, n)
	}
	for n := range kindSwitches {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
