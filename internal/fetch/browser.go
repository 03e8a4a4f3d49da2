package fetch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"golang.org/x/net/http/httpguts"

	"webacq/internal/model"
)

// BrowserRequest is one page render on the browser tier.
type BrowserRequest struct {
	URL string
	// WaitFor is extra time to let scripts run after the page has loaded.
	WaitFor time.Duration
	// AcceptSelectors are CSS selectors of consent buttons (cookie banners
	// and the like); each one present is clicked before the capture.
	AcceptSelectors []string
	// Timeout bounds the whole render, waiting for a free tab included;
	// zero means Config.Timeout.
	Timeout time.Duration
	// Headers are sent with every request of the page. A User-Agent here
	// replaces the browser's.
	Headers map[string]string
}

// Browser is the browser tier: one long-lived headless Chromium, started on
// first use, rendering at most Config.BrowserTabs pages at once, each in a
// fresh incognito browser context (no cookies shared between renders).
//
// Chromium connects through an in-process forward proxy whose dialer is the
// SSRF-guarded one, so navigations, redirects and subresources all pass the
// guard at connect time. Browser is safe for concurrent use.
type Browser struct {
	cfg    Config
	client *Client // owns the guarded dialer the proxy uses
	sem    chan struct{}

	mu            sync.Mutex
	closed        bool
	proxy         *proxy
	allocCancel   context.CancelFunc
	browserCtx    context.Context
	browserCancel context.CancelFunc
	userAgent     string
}

// NewBrowser returns a Browser for cfg. No process starts until the first
// Render.
func NewBrowser(cfg Config) *Browser {
	c := New(cfg)
	return &Browser{cfg: c.cfg, client: c, sem: make(chan struct{}, c.cfg.BrowserTabs)}
}

// FindChromium returns the path of a Chromium or Chrome binary on PATH, or "".
func FindChromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome", "headless_shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// start launches the proxy and Chromium if they are not running, or if the
// browser died since the last render.
func (b *Browser) start() (context.Context, string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, "", model.Errorf(model.CodeUnavailable, "the browser tier is shut down")
	}
	if b.browserCtx != nil && b.browserCtx.Err() == nil && !connectionLost(b.browserCtx) {
		return b.browserCtx, b.userAgent, nil
	}
	b.stopLocked() // a crashed browser: clean up before starting again

	path := b.cfg.ChromiumPath
	if path == "" {
		path = FindChromium()
	}
	if path == "" {
		return nil, "", model.Errorf(model.CodeUnavailable, "the browser tier is not available: no Chromium found")
	}
	p, err := startProxy(b.client)
	if err != nil {
		return nil, "", model.Wrap(model.CodeUnavailable, err, "the browser tier is not available")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox, // containers run as root, where the sandbox cannot start
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("mute-audio", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("dns-prefetch-disable", true),
		// WebRTC could send UDP straight to private addresses, past the proxy.
		chromedp.Flag("force-webrtc-ip-handling-policy", "disable_non_proxied_udp"),
		chromedp.Flag("webrtc-ip-handling-policy", "disable_non_proxied_udp"),
		chromedp.ProxyServer(p.url()),
		// "<-loopback>" removes the implicit loopback bypass, so that
		// loopback URLs go through the proxy (and its guard) as well.
		chromedp.Flag("proxy-bypass-list", "<-loopback>"),
		chromedp.WindowSize(1280, 1024),
	)
	// The exec allocator makes a temporary --user-data-dir and removes it.
	allocCtx, allocCancel := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, bcancel := chromedp.NewContext(allocCtx)
	// The first Do binds the browser's life to bctx, which has no deadline;
	// a watchdog bounds the start instead.
	startErr := make(chan error, 1)
	go func() { startErr <- chromedp.Do(bctx) }()
	select {
	case err = <-startErr:
	case <-time.After(30 * time.Second):
		err = errors.New("chromium did not start within 30s")
	}
	if err != nil {
		bcancel()
		allocCancel()
		p.close()
		return nil, "", model.Wrap(model.CodeUnavailable, err, "the browser tier is not available")
	}
	ua := ""
	vctx, vcancel := context.WithTimeout(bctx, 5*time.Second)
	if v, err := chromedp.CallBrowser(vctx, browser.GetVersion, cdp.Empty{}); err == nil {
		// Sites turn away "HeadlessChrome"; present as the Chrome it is.
		ua = strings.Replace(v.UserAgent, "HeadlessChrome", "Chrome", 1)
	}
	vcancel()
	b.proxy, b.allocCancel, b.browserCtx, b.browserCancel, b.userAgent = p, allocCancel, bctx, bcancel, ua
	return bctx, ua, nil
}

// connectionLost tells whether the browser of bctx is gone: chromedp
// closes LostConnection when the connection drops and cancels bctx only
// after, from another goroutine, so a render right after a crash can see
// bctx alive while every call on it fails (a loaded machine saw three
// renders in a row fail so).
func connectionLost(bctx context.Context) bool {
	c := chromedp.FromContext(bctx)
	if c == nil || c.Browser == nil {
		return false
	}
	select {
	case <-c.Browser.LostConnection:
		return true
	default:
		return false
	}
}

func (b *Browser) stopLocked() {
	if b.browserCancel != nil {
		b.browserCancel() // closes the browser gracefully, then kills it
	}
	if b.allocCancel != nil {
		b.allocCancel() // waits for the process and removes the profile
	}
	if b.proxy != nil {
		b.proxy.close()
	}
	b.proxy, b.allocCancel, b.browserCtx, b.browserCancel = nil, nil, nil, nil
}

// Close stops the browser process and the proxy. Renders under way fail;
// later ones answer unavailable.
func (b *Browser) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed = true
	b.stopLocked()
	b.client.CloseIdleConnections()
	return nil
}

// tabEvents collects what a tab's event stream says about its documents.
type tabEvents struct {
	mu     sync.Mutex
	docURL map[cdp.FrameID]string // last document request per frame (redirects included)
	resp   map[cdp.FrameID]*network.Response
	idle   map[cdp.FrameID]bool // networkAlmostIdle since the frame's last navigation
	change chan struct{}
}

func newTabEvents() *tabEvents {
	return &tabEvents{
		docURL: make(map[cdp.FrameID]string),
		resp:   make(map[cdp.FrameID]*network.Response),
		idle:   make(map[cdp.FrameID]bool),
		change: make(chan struct{}, 1),
	}
}

func (e *tabEvents) handle(ev any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		if ev.Type == network.ResourceTypeDocument && ev.Request != nil {
			e.docURL[ev.FrameID] = ev.Request.URL
		}
	case *network.EventResponseReceived:
		if ev.Type == network.ResourceTypeDocument {
			e.resp[ev.FrameID] = ev.Response
		}
	case *page.EventLifecycleEvent:
		switch ev.Name {
		case "init":
			e.idle[ev.FrameID] = false
		case "networkAlmostIdle":
			e.idle[ev.FrameID] = true
			select {
			case e.change <- struct{}{}:
			default:
			}
		}
	}
}

func (e *tabEvents) doc(frame cdp.FrameID) (string, *network.Response) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.docURL[frame], e.resp[frame]
}

// waitIdle waits until the frame's network is almost idle, or d passes.
func (e *tabEvents) waitIdle(ctx context.Context, frame cdp.FrameID, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		e.mu.Lock()
		idle := e.idle[frame]
		e.mu.Unlock()
		if idle {
			return
		}
		select {
		case <-e.change:
		case <-t.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// captureJS serialises the document as it stands, doctype included. It
// is a format of the body cap: a document of more UTF-16 units than the
// cap has more UTF-8 bytes too, and is answered with null, not sent over
// the protocol (a script can build a DOM of any size).
const captureJS = `((max) => {
 const s = (document.doctype ? new XMLSerializer().serializeToString(document.doctype) + "\n" : "") +
  (document.documentElement ? document.documentElement.outerHTML : "");
 return s.length > max ? null : s })(%d)`

// clickJS clicks the first element matching a selector, if there is one.
const clickJS = `((sel) => { try { const el = document.querySelector(sel); if (el) { el.click(); return true } } catch (e) {} return false })(%q)`

// Render loads r.URL in a tab, lets it run, clicks the accept selectors and
// returns the serialised DOM as Body (UTF-8, MediaType text/html), the final
// URL and the main document's HTTP status. A navigation the guard refuses is
// forbidden_url; a render that overruns its timeout is timeout. The tab is
// closed before Render returns, whatever happened.
func (b *Browser) Render(ctx context.Context, r BrowserRequest) (*Response, error) {
	u, err := b.client.CheckURL(r.URL)
	if err != nil {
		return nil, err
	}
	for k, v := range r.Headers {
		if !httpguts.ValidHeaderFieldName(k) || !httpguts.ValidHeaderFieldValue(v) {
			return nil, model.Errorf(model.CodeBadRequest, "header %q is not valid", k)
		}
	}
	timeout := b.cfg.Timeout
	if r.Timeout > 0 {
		timeout = r.Timeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	deadline, _ := ctx.Deadline()

	select {
	case b.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, browserCtxErr(ctx)
	}
	defer func() { <-b.sem }()

	bctx, ua, err := b.start()
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	px := b.proxy
	b.mu.Unlock()

	start := time.Now()
	events := newTabEvents()
	tabCtx, cancelTab := chromedp.NewContext(bctx,
		chromedp.WithNewBrowserContext(func(p *target.CreateBrowserContextParams) {
			p.ProxyServer = px.url()
			p.ProxyBypassList = "<-loopback>"
		}),
		chromedp.WithListener(events.handle))
	// cancelTab closes the target and disposes of its browser context with a
	// fresh short context of its own, so the tab is freed even after a
	// timeout; it runs before the semaphore slot is released.
	defer cancelTab()
	runCtx, cancelRun := context.WithCancel(tabCtx)
	defer cancelRun()
	stop := context.AfterFunc(ctx, cancelRun)
	defer stop()

	// Open the tab and set it up.
	err = chromedp.Do(runCtx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		agent := ua
		extra := network.Headers{}
		for k, v := range r.Headers {
			if strings.EqualFold(k, "User-Agent") {
				agent = v
				continue
			}
			if skipHeaders[http.CanonicalHeaderKey(k)] {
				continue
			}
			extra[k] = v
		}
		if agent != "" {
			if _, err := cdp.Call(ctx, t, emulation.SetUserAgentOverride, emulation.SetUserAgentOverrideParams{UserAgent: agent}); err != nil {
				return err
			}
		}
		if len(extra) > 0 {
			if _, err := cdp.Call(ctx, t, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{Headers: extra}); err != nil {
				return err
			}
		}
		return nil
	}))
	if err != nil {
		return nil, b.renderErr(ctx, err, "")
	}
	mainFrame := cdp.FrameID(chromedp.FromContext(tabCtx).Target.TargetID)

	// Navigate, keeping a reserve of the time for the capture: a page whose
	// subresources never finish still yields what it has.
	reserve := min(time.Second, timeout/4)
	navCtx, navCancel := context.WithDeadline(runCtx, deadline.Add(-reserve))
	_, navErr := chromedp.Run(navCtx, chromedp.NavigateResponse(u.String()))
	navCancel()
	docURL, resp := events.doc(mainFrame)
	if navErr != nil {
		if resp == nil || ctx.Err() != nil || !errors.Is(navErr, context.DeadlineExceeded) {
			return nil, b.renderErr(ctx, navErr, docURL)
		}
		// The document arrived but the load event did not: capture anyway.
	}
	if resp != nil && headerValue(resp.Headers, blockedHeader) != "" {
		return nil, model.Errorf(model.CodeForbiddenURL, "url points to an address that is not allowed")
	}

	// Let scripts settle: network almost idle (bounded), then WaitFor.
	budget := func(want time.Duration) time.Duration {
		return max(0, min(want, time.Until(deadline)-reserve))
	}
	events.waitIdle(runCtx, mainFrame, budget(2*time.Second))
	if d := budget(r.WaitFor); d > 0 {
		_ = chromedp.Do(runCtx, chromedp.Sleep(d))
	}
	clicked := false
	for _, sel := range r.AcceptSelectors {
		if strings.TrimSpace(sel) == "" {
			continue
		}
		ok, err := chromedp.Run(runCtx, chromedp.Evaluate[bool](fmt.Sprintf(clickJS, sel)))
		if err != nil && ctx.Err() != nil {
			return nil, b.renderErr(ctx, err, docURL)
		}
		clicked = clicked || ok
	}
	if clicked {
		// A click can fetch or reveal content; give it a moment.
		_ = chromedp.Do(runCtx, chromedp.Sleep(budget(500*time.Millisecond)))
		events.waitIdle(runCtx, mainFrame, budget(time.Second))
	}

	captured, err := chromedp.Run(runCtx, chromedp.Evaluate[*string](fmt.Sprintf(captureJS, b.cfg.MaxBodyBytes)))
	if err != nil {
		return nil, b.renderErr(ctx, err, docURL)
	}
	if captured == nil {
		return nil, tooLarge(b.cfg.MaxBodyBytes, b.cfg.MaxBodyBytes+1)
	}
	html := *captured
	final, err := chromedp.Run(runCtx, chromedp.Location())
	if err != nil {
		return nil, b.renderErr(ctx, err, docURL)
	}
	if int64(len(html)) > b.cfg.MaxBodyBytes {
		return nil, tooLarge(b.cfg.MaxBodyBytes, int64(len(html)))
	}

	out := &Response{
		URL:       u.String(),
		FinalURL:  final,
		MediaType: "text/html",
		Kind:      KindHTML,
		Charset:   "utf-8",
		Body:      []byte(html),
		FetchedAt: start.UTC(),
		Tier:      TierBrowser,
		Header:    http.Header{},
	}
	if resp != nil {
		out.StatusCode = int(resp.Status)
		out.Header = toHTTPHeader(resp.Headers)
		if mt := strings.ToLower(resp.MimeType); mt != "" {
			out.MediaType = mt
			out.Kind = KindOf(mt)
		}
		out.ETag = out.Header.Get("ETag")
		out.LastModified = out.Header.Get("Last-Modified")
	}
	out.Duration = time.Since(start)
	return out, nil
}

// renderErr classifies a browser failure. docURL is the last document URL
// the main frame requested, used to tell a guard refusal from an outage.
func (b *Browser) renderErr(ctx context.Context, err error, docURL string) error {
	var me *model.Error
	if errors.As(err, &me) {
		return me
	}
	b.mu.Lock()
	px := b.proxy
	b.mu.Unlock()
	if docURL != "" && px != nil && px.wasRefused(docURL) {
		return model.Wrap(model.CodeForbiddenURL, err, "url points to an address that is not allowed")
	}
	if ctx.Err() != nil {
		return browserCtxErr(ctx)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		// The navigation's own deadline, set a little before ctx's.
		return model.Wrap(model.CodeTimeout, err, "the page did not load in time")
	}
	var le *chromedp.LoadError
	if errors.As(err, &le) {
		return model.Wrap(model.CodeUpstreamError, err, "the page could not be loaded")
	}
	return model.Wrap(model.CodeUpstreamError, err, "the browser could not render the page")
}

func browserCtxErr(ctx context.Context) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return model.Wrap(model.CodeTimeout, ctx.Err(), "the page did not load in time")
	}
	return model.Wrap(model.CodeUpstreamError, ctx.Err(), "the request was canceled")
}

func headerValue(h network.Headers, name string) string {
	for k, v := range h {
		if strings.EqualFold(k, name) {
			return fmt.Sprint(v)
		}
	}
	return ""
}

// toHTTPHeader converts CDP headers; Chromium joins repeated headers with "\n".
func toHTTPHeader(h network.Headers) http.Header {
	out := make(http.Header, len(h))
	for k, v := range h {
		s, ok := v.(string)
		if !ok {
			s = fmt.Sprint(v)
		}
		for _, line := range strings.Split(s, "\n") {
			out.Add(k, line)
		}
	}
	return out
}
