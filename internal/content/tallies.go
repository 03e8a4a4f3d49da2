package content

import "sync"

// tallies are countText's counts of texts alone (length and commas), in
// the order a walk counted them: the readability pass's visit counts the
// body's texts, and the cleaning of the article it copies (collect) and
// the selector's measures of the article and of the page's views count
// the same strings again, in the same order with some left out (the copy
// takes part of the body; the steps before remove elements). alone
// finds a text from where the last one was found, so the texts a walk
// shares cost one comparison each and the ones it lacks are passed over.
// A count is taken only for the same string, so the counts are
// countText's whatever the walks; only the work saved depends on them.
type tallies struct {
	list []tally
	// words are scan's word counts of the page's texts (its list, with
	// a cursor of their own; empty: none), which the selector's peeks
	// at its views read (peekView).
	words textCounts
	cursor
}

// cursor is where a walk's look-ups in a list of texts recorded in the
// document's order stand. next is where the next look-up starts; passed
// is how far look-ups went past a text without finding theirs; past
// budget (a few times the list) every text is counted anew, and the
// look-ups stay linear in the list.
type cursor struct {
	next, passed, budget int
}

// rewind starts a new walk over the same texts: the next look-up starts
// at the first.
func (c *cursor) rewind() {
	c.next, c.passed, c.budget = 0, 0, 0
}

// seek returns the index of s in list from c.next on (its text read by
// text), or -1 when it is not there or the look-ups' budget is spent;
// the list holds texts of tallyMin bytes or more, and s is that long.
func seek[T any](c *cursor, list []T, text func(*T) string, s string) int {
	if c.budget == 0 {
		c.budget = 4*len(list) + 64
	}
	i := c.next
	for ; i < len(list) && c.passed+i-c.next < c.budget; i++ {
		if text(&list[i]) == s {
			c.passed += i - c.next
			c.next = i + 1
			return i
		}
	}
	c.passed += i - c.next // not found: to the end, or the budget's
	return -1
}

func tallyText(t *tally) string { return t.text }

type tally struct {
	text           string
	length, commas int
}

// tallyMin is the shortest text tallies keep: a shorter one costs about
// as much to count again as to find.
const tallyMin = 24

// tallyPool keeps tallies, with their arrays, from page to page:
// readableContent takes one, the pipeline gives it back when the page
// is done (done).
var tallyPool = sync.Pool{New: func() any { return new(tallies) }}

// maxTallies bounds the arrays kept in tallyPool.
const maxTallies = 1 << 16

// takeTallies returns empty tallies from tallyPool.
func takeTallies() *tallies {
	t := tallyPool.Get().(*tallies)
	t.reset()
	return t
}

// done empties t and gives it back to tallyPool (without its texts:
// the pool keeps none alive); t is not used after.
func (t *tallies) done() {
	if t == nil {
		return
	}
	t.reset()
	t.words = textCounts{} // the list is scan's to give back
	if cap(t.list) > maxTallies {
		return
	}
	tallyPool.Put(t)
}

// reset empties t (nil: none) for a new walk, keeping its array
// (without the texts: nothing keeps them alive from one attempt to the
// next).
func (t *tallies) reset() {
	if t == nil {
		return
	}
	clear(t.list)
	t.list = t.list[:0]
	t.cursor.rewind()
}

// add records s, counted alone as length and commas (in nothing when
// t is nil).
func (t *tallies) add(s string, length, commas int) {
	if t == nil {
		return
	}
	t.list = append(t.list, tally{text: s, length: length, commas: commas})
}

// alone returns countText's length and commas of s alone (counted on an
// empty stats): the recorded ones when s is recorded after the last
// text found, else counted.
func (t *tallies) alone(s string) (length, commas int) {
	if t != nil && len(s) >= tallyMin {
		if i := seek(&t.cursor, t.list, tallyText, s); i >= 0 {
			return t.list[i].length, t.list[i].commas
		}
	}
	var st stats
	countText(s, 0, &st)
	return st.length, st.commas
}

// rewind starts a new walk over the same texts (t may be nil).
func (t *tallies) rewind() {
	if t != nil {
		t.cursor.rewind()
	}
}

// count is countText(s, link, st), with s's counts found in t when it
// is there.
func (t *tallies) count(s string, link float64, st *stats) {
	if t == nil || len(s) < tallyMin {
		countText(s, link, st)
		return
	}
	n, commas := t.alone(s)
	// countText's arithmetic on the counts of s alone: a text with a
	// character is set apart from the text before by one.
	if n > 0 && st.length > 0 {
		n++
	}
	st.length += n
	st.linkLen += link * float64(n)
	st.commas += commas
}

// scanned returns t's words (nil when t is nil).
func (t *tallies) scanned() *textCounts {
	if t == nil {
		return nil
	}
	return &t.words
}
