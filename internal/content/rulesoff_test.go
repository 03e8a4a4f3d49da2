package content

import (
	"reflect"
	"sort"
	"strings"
	"testing"
)

// TestSetRuleOff: every name RuleNames gives switches its family off and
// back on (the default, every rule on, is restored); an unknown name is
// an error; and a switch acts: the lead and a class-named family (the
// related block) come back or go as their switch says.
func TestSetRuleOff(t *testing.T) {
	names := RuleNames()
	if len(names) != len(ruleSwitches)+len(kindSwitches) || !sort.StringsAreSorted(names) {
		t.Fatalf("RuleNames: %v", names)
	}
	for _, n := range names {
		if err := SetRuleOff(n, true); err != nil {
			t.Fatal(err)
		}
		p, isBool := ruleSwitches[n]
		if isBool && !*p || !isBool && kindsOff != kindSwitches[n] {
			t.Errorf("%s: not switched off", n)
		}
		if err := SetRuleOff(n, false); err != nil {
			t.Fatal(err)
		}
		if isBool && *p || kindsOff != 0 {
			t.Errorf("%s: not switched back on", n)
		}
	}
	if err := SetRuleOff("no-such-rule", true); err == nil {
		t.Error("an unknown name is not an error")
	}
	// Two names of one switch would hide a family from the table.
	seen := map[*bool]string{}
	for n, p := range ruleSwitches {
		if o, dup := seen[p]; dup {
			t.Errorf("%s and %s switch one bool", n, o)
		}
		seen[p] = n
	}

	body := rulePage(`<article>
<header class="entry-header"><h1>Budget approved</h1>
<div class="entry-excerpt"><p>After a six-hour debate the council approved a three-year budget that favours libraries and parks.</p></div>
</header>
<div class="entry-content"><p>` + strings.Repeat(ruleProse, 3) + `</p>
<div class="recommended"><p>Storm damage in the north: who pays for the repairs, and what the insurers promise this year.</p></div>
<p>` + strings.Repeat(ruleProse, 2) + `</p></div>
</article>`)
	on := mainText(t, body)
	checkText(t, on, []string{"After a six-hour debate", "The council met"}, []string{"Storm damage"})
	for _, c := range []struct{ name, back string }{{"lead", ""}, {"related", "Storm damage"}} {
		if err := SetRuleOff(c.name, true); err != nil {
			t.Fatal(err)
		}
		off := mainText(t, body)
		_ = SetRuleOff(c.name, false)
		switch c.name {
		case "lead":
			checkText(t, off, []string{"The council met"}, []string{"After a six-hour debate"})
		default:
			checkText(t, off, []string{c.back, "After a six-hour debate"}, nil)
		}
	}
	if again := mainText(t, body); !reflect.DeepEqual(again, on) {
		t.Errorf("switched back on, the text differs:\n%s\nwas\n%s", again, on)
	}
}
