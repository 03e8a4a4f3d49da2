package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"

	"webacq/internal/content"
)

// writtenPages are small pages through the pipeline's own blocks, each
// with a reference that holds its prose and not its boilerplate.
func writtenPages(t *testing.T) []*tPage {
	t.Helper()
	var ps []*tPage
	for i := 0; i < 24; i++ {
		prose := fmt.Sprintf("Story %d tells how the valley's river moved east after the floods, and what the farmers on both banks did about it in the weeks after.", i)
		more := fmt.Sprintf("The council of town %d meets in June to choose between digging the old bed out and building a bridge over the new channel.", i)
		page := `<html><body><article><h1>River ` + fmt.Sprint(i) + `</h1><p>` + prose + `</p>` +
			`<div class="share"><ul><li><a href="/fb">Facebook</a></li><li><a href="/tw">Twitter</a></li><li><a href="/m">Email</a></li></ul></div>` +
			`<p>` + more + `</p><form class="newsletter"><label>Your email</label><button>Subscribe</button></form>` +
			strings.Repeat(`<p>`+more+`</p>`, i%3) + `</article></body></html>`
		s, err := content.Blocks([]byte(page), fmt.Sprintf("https://site%d.example/story/%d", i%6, i))
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, &tPage{Name: fmt.Sprint(i), Type: "article", Host: fmt.Sprintf("site%d.example", i%6),
			Text: s.Text, Expected: "River " + fmt.Sprint(i) + "\n" + prose + "\n" + more, Blocks: s.Blocks})
	}
	return ps
}

// TestTrainReproducible: the trainer writes the same model twice from
// the same pages.
func TestTrainReproducible(t *testing.T) {
	o := options{weight: "page", soft: true, nopos: true, folds: 3, on: true}
	saved := opt
	opt = o
	defer func() { opt = saved }()
	a, err := train(prepare(writtenPages(t), o.folds), o, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	b, err := train(prepare(writtenPages(t), o.folds), o, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Errorf("two fits differ:\n%s\n%s", a, b)
	}
	if !bytes.Contains(a, []byte("const blockFilterOn = true")) {
		t.Errorf("unexpected model:\n%s", a)
	}
}
