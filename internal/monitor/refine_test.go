package monitor_test

import (
	"fmt"
	"sync"
	"testing"

	"webacq/internal/model"
	"webacq/internal/monitor"
	"webacq/internal/store/storetest"
)

// TestRefinementsAtTheCapCallNoModel: 30 previews racing for the last
// refinement place make one model call; the other 29 are refused before
// any call, and the monitor keeps the cap's number of refinements.
func TestRefinementsAtTheCapCallNoModel(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect)
		ms := newModelServer(t)
		e.svc.LLM = ms.client(t)
		pv := newPreviewer(t, e)
		site := newSite(t)
		site.set("/ir", press("Nov 1, 2026", releasesList, "1"))
		id := e.register(t, monitor.RegisterRequest{URL: site.url("/ir"), DiscoveryKeywords: []string{"results"},
			ExtractIntent: ptr(releasesIntent)})
		e.waitExtraction(t, id, model.ExtractionReady)
		for i := range 9 {
			if _, err := pv.preview(e.p, id, ptr(fmt.Sprintf("refinement %d", i))); err != nil {
				t.Fatal(err)
			}
		}
		before := len(ms.requests())
		var wg sync.WaitGroup
		var mu sync.Mutex
		ok, refused := 0, 0
		for i := range 30 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := pv.preview(e.p, id, ptr(fmt.Sprintf("last %d", i)))
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					ok++
				case model.ErrorCode(err) == model.CodeBadRequest:
					refused++
				default:
					t.Errorf("preview %d: %v", i, err)
				}
			}()
		}
		wg.Wait()
		if calls := len(ms.requests()) - before; ok != 1 || refused != 29 || calls != 1 {
			t.Errorf("30 previews at the cap: %d ok, %d refused, %d model calls; want 1, 29, 1", ok, refused, calls)
		}
		m, err := e.svc.Get(t.Context(), e.p, id)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(m.Extraction.Refinements); n != 10 {
			t.Errorf("%d refinements kept, want 10", n)
		}
		// A preview that fails gives its place back.
		if _, err := pv.preview(e.p, id, ptr("one more")); model.ErrorCode(err) != model.CodeBadRequest {
			t.Errorf("an eleventh refinement: %v, want bad_request", err)
		}
	})
}

// TestFailedPreviewKeepsNoRefinement: the place a refinement takes before
// the model call is given back when the preview fails.
func TestFailedPreviewKeepsNoRefinement(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect)
		ms := newModelServer(t)
		e.svc.LLM = ms.client(t)
		pv := newPreviewer(t, e)
		site := newSite(t)
		site.set("/ir", press("Nov 1, 2026", releasesList, "1"))
		id := e.register(t, monitor.RegisterRequest{URL: site.url("/ir"), DiscoveryKeywords: []string{"results"},
			ExtractIntent: ptr(releasesIntent)})
		e.waitExtraction(t, id, model.ExtractionReady)
		ms.answer(500, "")
		if _, err := pv.preview(e.p, id, ptr("dates as ISO")); err == nil {
			t.Fatal("a preview with the model down succeeded")
		}
		m, err := e.svc.Get(t.Context(), e.p, id)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(m.Extraction.Refinements); n != 0 {
			t.Errorf("%d refinements kept after a failed preview, want 0", n)
		}
	})
}
