package billed_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"webacq/internal/billed"
	"webacq/internal/billing"
	"webacq/internal/fetch"
	"webacq/internal/model"
	"webacq/internal/primitive"
	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

var ctx = context.Background()

type env struct {
	t     *testing.T
	store *store.Store
	b     *billing.Biller
	svc   *billed.Service
	p     *model.Principal
	site  *httptest.Server
}

// newEnv bills an HTTP-only primitive service (no browser, no model) for a
// workspace holding credits, with a local site to read.
func newEnv(t *testing.T, credits int64) *env {
	t.Helper()
	s := storetest.Open(t, store.SQLite)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	b := billing.New(s, log)
	t.Cleanup(b.Close)
	w, err := s.CreateWorkspace(ctx, "acme", credits, false)
	if err != nil {
		t.Fatal(err)
	}
	key, _, err := s.CreateKey(ctx, w.ID, "k")
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Authenticate(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, `<html><head><title>Plant report</title></head><body><article><h1>Plant report</h1>`+
			`<p>The Ohio plant doubled its output this quarter, and the team expects more next year.</p>`+
			`<a href="/other">other</a></article></body></html>`)
	}))
	t.Cleanup(site.Close)
	prims := &primitive.Service{HTTP: fetch.New(fetch.Config{AllowPrivate: true}), Pages: s, Log: log, UserAgent: "webacq"}
	return &env{t: t, store: s, b: b, svc: billed.New(b, prims), p: p, site: site}
}

func (e *env) call(endpoint string) *billing.Call {
	return &billing.Call{Principal: e.p, Endpoint: endpoint, Via: model.ViaHTTP, Method: "POST", RequestID: "r", Started: time.Now()}
}

func (e *env) balance() int64 {
	e.t.Helper()
	w, err := e.store.Workspace(ctx, e.p.WorkspaceID)
	if err != nil {
		e.t.Fatal(err)
	}
	return w.Credits
}

func (e *env) usage() []model.Usage {
	e.t.Helper()
	if err := e.b.Flush(ctx); err != nil {
		e.t.Fatal(err)
	}
	us, err := e.store.Usage(ctx, e.p.WorkspaceID, model.LogFilter{})
	if err != nil {
		e.t.Fatal(err)
	}
	return us
}

func TestFetchSettlesTheTierUsed(t *testing.T) {
	e := newEnv(t, 10)
	c := e.call("/api/v1/fetch")
	res, err := e.svc.Fetch(ctx, c, primitive.FetchRequest{URL: e.site.URL + "/a"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Tier != model.TierHTTP || c.Tier != model.TierHTTP || c.Target != e.site.URL+"/a" {
		t.Errorf("result tier %q, call tier %q target %q; want http, http, the URL", res.Tier, c.Tier, c.Target)
	}
	if got := e.balance(); got != 10-billing.FetchHTTP {
		t.Errorf("balance %d, want %d", got, 10-billing.FetchHTTP)
	}
	us := e.usage()
	if len(us) != 1 || us[0].Credits != billing.FetchHTTP || us[0].Tier != model.TierHTTP || us[0].Endpoint != "/api/v1/fetch" {
		t.Errorf("usage %+v, want one http row of %d credit", us, billing.FetchHTTP)
	}
}

func TestMapCostsOneCredit(t *testing.T) {
	e := newEnv(t, 10)
	c := e.call("/api/v1/map")
	if _, err := e.svc.Map(ctx, c, primitive.MapRequest{URL: e.site.URL + "/"}); err != nil {
		t.Fatal(err)
	}
	if got := e.balance(); got != 10-billing.Map {
		t.Errorf("balance %d, want %d", got, 10-billing.Map)
	}
	if c.Tier != model.TierHTTP {
		t.Errorf("call tier %q, want http", c.Tier)
	}
}

// A request refused before billing reserves nothing and writes no row: the
// caller finishes the call.
func TestRefusedRequestsReserveNothing(t *testing.T) {
	e := newEnv(t, 10)
	cases := []struct {
		name string
		run  func(*billing.Call) error
		code string
	}{
		{"fetch bad url", func(c *billing.Call) error {
			_, err := e.svc.Fetch(ctx, c, primitive.FetchRequest{URL: "ftp://example.com/x"})
			return err
		}, model.CodeBadRequest},
		{"extract without model", func(c *billing.Call) error {
			_, err := e.svc.Extract(ctx, c, primitive.ExtractRequest{URL: e.site.URL + "/a", Intent: "the plant"})
			return err
		}, model.CodeUnavailable},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run(e.call("/api/v1/x"))
			if model.ErrorCode(err) != tc.code {
				t.Errorf("code %q, want %q (%v)", model.ErrorCode(err), tc.code, err)
			}
		})
	}
	if got := e.balance(); got != 10 {
		t.Errorf("balance %d, want 10", got)
	}
	if us := e.usage(); len(us) != 0 {
		t.Errorf("usage %+v, want none", us)
	}
}

// A workspace that cannot afford the reservation is refused before the
// primitive runs.
func TestFetchWithoutCreditsIsRefused(t *testing.T) {
	e := newEnv(t, 0)
	_, err := e.svc.Fetch(ctx, e.call("/api/v1/fetch"), primitive.FetchRequest{URL: e.site.URL + "/a"})
	if model.ErrorCode(err) != model.CodeCreditsExhausted {
		t.Fatalf("err %v (code %q), want %s", err, model.ErrorCode(err), model.CodeCreditsExhausted)
	}
}
