package main

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// site serves n press-release list pages, /ir/{i}/press, that never change
// (unless volatile), on one or more loopback addresses.
type site struct {
	n        int
	etag     bool // send an ETag and answer a matching If-None-Match with 304
	volatile bool // every answer carries a fresh token and time: the raw body always differs
	delay    func() time.Duration

	requests, notModified atomic.Int64
	servers               []*http.Server
	bases                 []string // http://127.0.0.k:port
}

// start listens on 127.0.0.1 … 127.0.0.hosts.
func (s *site) start(hosts int) error {
	for k := 1; k <= hosts; k++ {
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.%d:0", k))
		if err != nil {
			s.close()
			return fmt.Errorf("site: listen on 127.0.0.%d: %w", k, err)
		}
		srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
		go srv.Serve(ln)
		s.servers = append(s.servers, srv)
		s.bases = append(s.bases, "http://"+ln.Addr().String())
	}
	return nil
}

func (s *site) close() {
	for _, srv := range s.servers {
		srv.Close()
	}
}

// url is page i's address; pages are spread over the hosts in turn.
func (s *site) url(i int) string {
	return fmt.Sprintf("%s/ir/%d/press", s.bases[i%len(s.bases)], i)
}

func (s *site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.requests.Add(1)
	if s.delay != nil {
		time.Sleep(s.delay())
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/ir/")
	id, ok2 := strings.CutSuffix(rest, "/press")
	i, err := strconv.Atoi(id)
	if !ok || !ok2 || err != nil || i < 0 || i >= s.n {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	if s.etag && !s.volatile {
		tag := fmt.Sprintf(`"press-%d-v1"`, i)
		w.Header().Set("ETag", tag)
		if r.Header.Get("If-None-Match") == tag {
			s.notModified.Add(1)
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	token := ""
	if s.volatile {
		var b [16]byte
		rand.Read(b[:])
		token = hex.EncodeToString(b[:])
	}
	w.Write([]byte(pressPage(i, token)))
}

var products = []string{"sensor platform", "payments gateway", "cloud backup service", "battery module",
	"logistics software", "diagnostic test", "wind turbine blade", "data centre campus"}

var months = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September",
	"October", "November", "December"}

// pressPage is company i's investor-relations press list: navigation, a
// list of twelve releases with dates, summaries and PDF links, a sidebar
// and a footer; token, when set, adds a CSRF token and a render time that
// change on every request, as many real sites do.
func pressPage(i int, token string) string {
	company := fmt.Sprintf("Northwind Holdings %d", i)
	var b strings.Builder
	b.Grow(8 << 10)
	b.WriteString(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">`)
	fmt.Fprintf(&b, `<title>Press releases | %s</title>`, company)
	b.WriteString(`<meta name="viewport" content="width=device-width, initial-scale=1">`)
	if token != "" {
		fmt.Fprintf(&b, `<meta name="csrf-token" content="%s">`, token)
	}
	b.WriteString(`<link rel="stylesheet" href="/assets/site.css"></head><body>`)
	fmt.Fprintf(&b, `<header class="site-header"><a class="logo" href="/">%s</a><nav><ul>`, company)
	for _, n := range []string{"About us", "Investors", "Sustainability", "Careers", "Contact"} {
		fmt.Fprintf(&b, `<li><a href="/%s">%s</a></li>`, strings.ToLower(strings.ReplaceAll(n, " ", "-")), n)
	}
	b.WriteString(`</ul></nav></header><div class="layout"><main id="content"><h1>Press releases</h1>`)
	b.WriteString(`<p class="intro">Regulatory announcements and company news, newest first.</p><ul class="press-list">`)
	for k := range 12 {
		n := 12 - k
		fmt.Fprintf(&b, `<li class="press-item"><time datetime="2026-%02d-%02d">%d %s 2026</time>`,
			(n-1)%12+1, (i+k)%27+1, (i+k)%27+1, months[(n-1)%12])
		fmt.Fprintf(&b, `<h2><a href="/ir/%d/press/2026-%02d">%s reports results for its %s, quarter %d</a></h2>`,
			i, n, company, products[(i+k)%len(products)], (n-1)%4+1)
		fmt.Fprintf(&b, `<p>%s today announced that revenue from its %s grew %d%% year on year, with an order book of `+
			`EUR %d million at the end of the period. The board confirms its outlook for the full year.</p>`,
			company, products[(i+k+3)%len(products)], 3+(i*7+k)%19, 40+(i*13+k*11)%900)
		fmt.Fprintf(&b, `<a class="pdf" href="/ir/%d/documents/release-2026-%02d.pdf">Download the release (PDF)</a></li>`, i, n)
	}
	b.WriteString(`</ul><nav class="pager"><a href="?page=2">Older releases</a></nav></main>`)
	b.WriteString(`<aside class="sidebar"><h3>Investor contacts</h3><p>Investor relations<br>ir@example.com</p>`)
	b.WriteString(`<h3>Financial calendar</h3><ul><li>Annual general meeting</li><li>Half-year report</li></ul></aside></div>`)
	b.WriteString(`<footer><p>© 2026 ` + company + `. All rights reserved.</p>`)
	if token != "" {
		fmt.Fprintf(&b, `<p class="rendered">Page generated %s</p>`, time.Now().UTC().Format(time.RFC3339Nano))
	}
	b.WriteString(`<a href="/privacy">Privacy</a> <a href="/cookies">Cookies</a></footer></body></html>`)
	return b.String()
}
