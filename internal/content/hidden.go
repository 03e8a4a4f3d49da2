package content

import "strings"

// hideTokens are class names that hide an element at every screen size
// in the common CSS frameworks and CMS themes; names ending in "-hidden"
// ("is-hidden", "vjs-hidden") count too, unless they hide only a part
// of the element or only at some sizes (see partialHide).
var hideTokens = map[string]bool{
	"hidden": true, "hide": true, "d-none": true, "visuallyhidden": true, "sr-only": true,
	"screen-reader-text": true, "screen-reader-only": true, "element-invisible": true, "invisible": true,
	"offscreen": true, "print-only": true, "visible-print": true, "show-for-print": true, "displaynone": true,
	"display-none": true,
}

// partialHide are parts of "hidden" class names that hide only a part
// of the element (its label, its overflow), delay it (lazy loading) or
// hide it only at some screen sizes.
var partialHide = newHints("label", "overflow", "lazy", "xs", "sm", "md", "lg", "xl", "print", "phone",
	"tablet", "desktop", "mobile", "small", "medium", "large", "narrow", "wide", ":", "title", "text")

// hidingClass tells whether a lower-cased class value hides its element
// everywhere: a hiding name and no name that shows it at some size.
func hidingClass(v string) bool {
	hide, show := hidingNames(v)
	return hide && !show
}

// hidingNames tells whether a lower-cased class value holds a name that
// hides its element everywhere and one that shows it at some size.
func hidingNames(v string) (hide, show bool) {
	for f := range strings.FieldsSeq(v) {
		if hideTokens[f] || strings.HasSuffix(f, "-hidden") && !partialHide.in(f) {
			hide = true
			continue
		}
		// d-md-block, md:flex, visible-lg, show-for-medium: shown at
		// some sizes, so part of the page a reader may see.
		if strings.HasPrefix(f, "visible-") && f != "visible-print" ||
			strings.HasPrefix(f, "show-for-") && f != "show-for-print" ||
			responsiveDisplay(f) && !strings.HasSuffix(f, "-none") ||
			strings.Contains(f, ":") && !strings.HasSuffix(f, ":hidden") && !strings.HasSuffix(f, "none") {
			show = true
		}
	}
	return hide, show
}

// responsiveDisplay tells whether f is a Bootstrap display class for
// some screen sizes: d-md-block, d-lg-none.
func responsiveDisplay(f string) bool {
	for _, p := range []string{"d-sm-", "d-md-", "d-lg-", "d-xl-", "d-xxl-"} {
		if strings.HasPrefix(f, p) {
			return true
		}
	}
	return false
}

// hiddenHint tells whether a lower-cased class or id value names hiding
// in any form but the partial ones: readability's "hidden" penalty
// without the Drupal "field--label-hidden" found on every field of
// many sites, or "hidden-xs".
func hiddenHint(v string) bool {
	if !strings.Contains(v, "hidden") {
		return false
	}
	for f := range strings.FieldsSeq(v) {
		if strings.Contains(f, "hidden") && !partialHide.in(f) {
			return true
		}
	}
	return false
}
