package mcp

import (
	"fmt"
	"slices"
	"unicode/utf8"
)

// truncate keeps the texts within max characters in all, so a result stays
// usable by an agent with a small context: the budget is shared fairly
// (short texts are kept whole, the rest cut to an equal share), and each cut
// text ends with a marker saying how many characters were left out.
func truncate(texts []*string, max int) {
	total := 0
	for _, t := range texts {
		total += len(*t)
	}
	if max <= 0 || total <= max {
		return
	}
	lens := make([]int, len(texts))
	for i, t := range texts {
		lens[i] = len(*t)
	}
	sorted := slices.Clone(lens)
	slices.Sort(sorted)
	// Water-filling: the largest share such that Σ min(len, share) ≤ max.
	share, left := 0, max
	for i, l := range sorted {
		even := left / (len(sorted) - i)
		if l > even {
			share = even
			break
		}
		left -= l
		share = l
	}
	for i, t := range texts {
		if lens[i] <= share {
			continue
		}
		cut := share
		for cut > 0 && !utf8.RuneStart((*t)[cut]) {
			cut--
		}
		*t = (*t)[:cut] + fmt.Sprintf("\n\n[truncated: %d characters left out]", utf8.RuneCountInString((*t)[cut:]))
	}
}
