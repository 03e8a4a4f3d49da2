package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/alecthomas/kong"
	"github.com/riverqueue/river"

	"webacq/internal/acquire"
	"webacq/internal/alert"
	"webacq/internal/billed"
	"webacq/internal/billing"
	"webacq/internal/channel/edgar"
	"webacq/internal/channel/wire"
	"webacq/internal/config"
	"webacq/internal/crawljob"
	"webacq/internal/fetch"
	"webacq/internal/httpapi"
	"webacq/internal/jobs"
	"webacq/internal/llm"
	"webacq/internal/mcp"
	"webacq/internal/metrics"
	"webacq/internal/model"
	"webacq/internal/monitor"
	"webacq/internal/primitive"
	"webacq/internal/secretbox"
	"webacq/internal/store"
)

// Main wires configuration, store, servers and workers for one command.
type Main struct {
	Getenv         func(string) string
	Stdout, Stderr io.Writer

	cfg   *config.Config
	log   *slog.Logger
	store *store.Store
}

// cli is the command line of DECISIONS.md.
type cli struct {
	Serve     serveCmd     `cmd:"" help:"Run the API, MCP endpoint, scheduler and workers in one process."`
	Worker    workerCmd    `cmd:"" help:"Run the scheduler and workers only (scale-out on PostgreSQL)."`
	Migrate   migrateCmd   `cmd:"" help:"Bring the database schema up to date."`
	Workspace workspaceCmd `cmd:"" help:"Manage workspaces."`
	Key       keyCmd       `cmd:"" help:"Manage API keys."`
	Credits   creditsCmd   `cmd:"" help:"Manage credits."`
	User      userCmd      `cmd:"" help:"Manage console accounts."`
	Backup    backupCmd    `cmd:"" help:"Copy the SQLite database, consistent and online, to a new file (PostgreSQL: use pg_dump)."`
	Fetch     fetchCmd     `cmd:"" help:"Fetch one page and print it (in process: no server, nothing billed)."`
	Map       mapCmd       `cmd:"" help:"List a site's URLs (in process: no server, nothing billed)."`
	Gyre      gyreCmd      `cmd:"" help:"Crawl a site and print its pages as markdown (in process: no server, nothing billed)."`
}

type gyreCmd struct {
	URL      string `arg:"" help:"Start URL."`
	MaxPages int    `default:"10" help:"Most pages to crawl (at most 1000)."`
	MaxDepth int    `default:"3" help:"Most links away from the start page."`
	Format   string `enum:"markdown,json" default:"markdown" help:"markdown (pages one after another) or json (the whole API payload)."`
	Tier     string `enum:"auto,http,browser" default:"auto" help:"auto, http or browser."`
	Timeout  int    `default:"60000" help:"Milliseconds before the crawl returns what it has."`
	Quiet    bool   `help:"No progress bar."`
	// CrawlEntireDomain is the API's crawlEntireDomain.
	CrawlEntireDomain bool `help:"Also follow pages of the start host outside the start page's directory."`
}

type fetchCmd struct {
	URL      string `arg:"" help:"Page or document URL."`
	Format   string `enum:"markdown,text,html,json" default:"markdown" help:"markdown, text, html (cleaned content) or json (the whole API payload)."`
	Tier     string `enum:"auto,http,browser" default:"auto" help:"auto, http or browser."`
	FullPage bool   `help:"Convert the whole page, not only its main content."`
	Timeout  int    `default:"30000" help:"Milliseconds before giving up."`
}

type mapCmd struct {
	URL   string `arg:"" help:"Site URL."`
	Limit int    `default:"5000" help:"Most URLs to list."`
	JSON  bool   `help:"Print the whole API payload as JSON instead of one URL per line."`
}

// backupCmd is `webacq backup PATH`.
type backupCmd struct {
	Path string `arg:"" help:"File to write the copy to; it must not exist."`
}

type (
	serveCmd     struct{}
	workerCmd    struct{}
	migrateCmd   struct{}
	workspaceCmd struct {
		Create workspaceCreateCmd `cmd:"" help:"Create a workspace and print its id."`
		List   workspaceListCmd   `cmd:"" help:"List workspaces."`
		Update workspaceUpdateCmd `cmd:"" help:"Change a workspace's monitoring entitlement, balance or request limits."`
	}
	workspaceUpdateCmd struct {
		Name       string `arg:"" help:"Workspace name."`
		Monitoring *bool  `negatable:"" help:"Entitle the workspace to change monitoring (--no-monitoring withdraws it)."`
		Credits    *int64 `help:"Set the balance to N credits."`
		RPM        *int   `name:"rpm" help:"Requests per minute of the primitives, and of the monitor API, shared by every node (default 600)."`
		Concurrent *int   `help:"Crawls and extracts at once (default 10)."`
	}
	workspaceCreateCmd struct {
		Name       string `arg:"" help:"Workspace name."`
		Credits    int64  `help:"Starting credits." default:"0"`
		Monitoring bool   `help:"Entitle the workspace to change monitoring."`
	}
	workspaceListCmd struct{}
	keyCmd           struct {
		Create keyCreateCmd `cmd:"" help:"Create a key and print it alone on stdout (shown once)."`
		List   keyListCmd   `cmd:"" help:"List a workspace's keys."`
		Revoke keyRevokeCmd `cmd:"" help:"Revoke a key by its prefix."`
	}
	keyCreateCmd struct {
		Workspace string `required:"" help:"Workspace name."`
		Name      string `required:"" help:"Label of the key."`
	}
	keyListCmd struct {
		Workspace string `required:"" help:"Workspace name."`
	}
	keyRevokeCmd struct {
		Prefix string `arg:"" help:"Key prefix as shown by key list (mc_ and 9 more characters)."`
	}
	creditsCmd struct {
		Add creditsAddCmd `cmd:"" help:"Add credits to a workspace (negative to remove)."`
	}
	creditsAddCmd struct {
		Workspace string `required:"" help:"Workspace name."`
		N         int64  `arg:"" help:"Credits to add."`
	}
)

// Run parses args and runs the command.
func (m *Main) Run(ctx context.Context, args []string) error {
	var c cli
	exited := false
	parser, err := kong.New(&c, kong.Name("webacq"),
		kong.Description("Web acquisition for AI agents: search, fetch, gyre, extract, map, monitors."),
		kong.Writers(m.Stdout, m.Stderr), kong.UsageOnError(),
		kong.Exit(func(int) { exited = true }))
	if err != nil {
		return err
	}
	kctx, err := parser.Parse(args)
	if exited {
		return nil // --help
	}
	if err != nil {
		return err
	}
	if m.cfg, err = config.Load(m.Getenv); err != nil {
		return err
	}
	if m.cfg.DefaultDatabase && m.cfg.SecretKey == "" {
		if m.cfg.SecretKey, _, err = localSecretKey(m.cfg.DatabaseURL); err != nil {
			return err
		}
	}
	switch kctx.Command() {
	case "serve", "worker", "fetch <url>", "map <url>", "gyre <url>":
		// Every command that acquires and converts pages runs with the
		// node's memory settings (bench/gyre's crawl too).
		config.TuneRuntime(m.cfg.MemoryBudget, m.Getenv)
	}
	if kctx.Command() == "serve" || kctx.Command() == "worker" {
		// Long-running: buffer the log, flushed as logSink says.
		sink := newLogSink(m.Stderr)
		defer sink.Close()
		m.log = slog.New(flushingHandler{newLogger(m.cfg, sink).Handler(), sink})
	} else {
		m.log = newLogger(m.cfg, m.Stderr)
	}
	switch kctx.Command() {
	case "fetch <url>":
		return m.fetch(ctx, c.Fetch)
	case "map <url>":
		return m.mapSite(ctx, c.Map)
	case "gyre <url>":
		return m.gyre(ctx, c.Gyre)
	}
	if kctx.Command() == "backup <path>" && !strings.HasPrefix(m.cfg.DatabaseURL, "sqlite:") {
		// Before connecting: a server's database is copied by its own tool.
		return errors.New("backup: WEBACQ_DATABASE_URL is PostgreSQL; `webacq backup` copies SQLite only: " +
			"back PostgreSQL up with pg_dump (pg_dump --format=custom --file=webacq.dump 'postgres://…', " +
			"the URL without pool_max_conns)")
	}
	if kctx.Command() == "backup <path>" {
		// Opening a missing file would create an empty database and back
		// that up: a wrong path must not look like a backup.
		path := strings.TrimPrefix(strings.TrimPrefix(m.cfg.DatabaseURL, "sqlite:"), "//")
		if _, err := os.Stat(path); err != nil {
			return fmt.Errorf("backup: no database at %s (WEBACQ_DATABASE_URL): %w", path, err)
		}
	}
	if !readOnlyCommands[kctx.Command()] {
		// Which database a command changed is never a guess (a relative
		// path once made a new, empty database in another directory).
		fmt.Fprintf(m.Stderr, "database: %s\n", redactURL(m.cfg.DatabaseURL))
	}
	if m.store, err = store.Open(ctx, m.cfg.DatabaseURL); err != nil {
		return err
	}
	if err := jobs.Migrate(ctx, m.store); err != nil {
		return err
	}
	switch kctx.Command() {
	case "serve":
		return m.serve(ctx)
	case "worker":
		return m.worker(ctx)
	case "migrate":
		fmt.Fprintln(m.Stderr, "schema up to date")
		return nil
	case "backup <path>":
		if err := m.store.Backup(ctx, c.Backup.Path); err != nil {
			return err
		}
		fmt.Fprintln(m.Stderr, "backup written to", c.Backup.Path)
		return nil
	case "workspace create <name>":
		w, err := m.store.CreateWorkspace(ctx, c.Workspace.Create.Name, c.Workspace.Create.Credits, c.Workspace.Create.Monitoring)
		if err != nil {
			return err
		}
		fmt.Fprintln(m.Stdout, w.ID)
		return nil
	case "workspace update <name>":
		return m.updateWorkspace(ctx, c.Workspace.Update)
	case "workspace list":
		ws, err := m.store.Workspaces(ctx)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(m.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tNAME\tCREDITS\tMONITORING\tCREATED")
		for _, w := range ws {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%t\t%s\n", w.ID, w.Name, w.Credits, w.Monitoring, w.CreatedAt.Format(time.RFC3339))
		}
		return tw.Flush()
	case "key create":
		w, err := m.store.WorkspaceByName(ctx, c.Key.Create.Workspace)
		if err != nil {
			return err
		}
		key, _, err := m.store.CreateKey(ctx, w.ID, c.Key.Create.Name)
		if err != nil {
			return err
		}
		fmt.Fprintln(m.Stdout, key)
		return nil
	case "key list":
		w, err := m.store.WorkspaceByName(ctx, c.Key.List.Workspace)
		if err != nil {
			return err
		}
		keys, err := m.store.Keys(ctx, w.ID)
		if err != nil {
			return err
		}
		tw := tabwriter.NewWriter(m.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "PREFIX\tNAME\tCREATED\tLAST USED\tREVOKED")
		for _, k := range keys {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", k.Prefix, k.Name, k.CreatedAt.Format(time.RFC3339), when(k.LastUsedAt), when(k.RevokedAt))
		}
		return tw.Flush()
	case "key revoke <prefix>":
		if err := m.store.RevokeKey(ctx, c.Key.Revoke.Prefix); err != nil {
			return err
		}
		fmt.Fprintln(m.Stderr, "revoked", c.Key.Revoke.Prefix)
		return nil
	case "user create", "user grant", "user list", "user remove", "user revoke", "user password":
		return m.user(ctx, kctx.Command(), &c.User)
	case "credits add <n>":
		w, err := m.store.WorkspaceByName(ctx, c.Credits.Add.Workspace)
		if err != nil {
			return err
		}
		bal, err := m.store.AddCredits(ctx, w.ID, c.Credits.Add.N)
		if err != nil {
			return err
		}
		fmt.Fprintln(m.Stdout, strconv.FormatInt(bal, 10))
		return nil
	}
	return fmt.Errorf("unknown command %q", kctx.Command())
}

// updateWorkspace applies `workspace update` and prints the workspace as
// `workspace list` shows it.
func (m *Main) updateWorkspace(ctx context.Context, c workspaceUpdateCmd) error {
	if c.Monitoring == nil && c.Credits == nil && c.RPM == nil && c.Concurrent == nil {
		return fmt.Errorf("workspace update: nothing to change: give --monitoring, --no-monitoring, --credits N, --rpm N or --concurrent N")
	}
	w, err := m.store.WorkspaceByName(ctx, c.Name)
	if err != nil {
		return err
	}
	if c.Credits != nil {
		if _, err := m.store.SetCredits(ctx, w.ID, *c.Credits); err != nil {
			return err
		}
	}
	if c.Monitoring != nil {
		if err := m.store.SetMonitoring(ctx, w.ID, *c.Monitoring); err != nil {
			return err
		}
	}
	if err := m.store.SetRateLimits(ctx, w.ID, c.RPM, c.Concurrent); err != nil {
		return err
	}
	if w, err = m.store.Workspace(ctx, w.ID); err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "%s\tcredits %d\tmonitoring %t\trpm %d\tconcurrent %d\n", w.Name, w.Credits, w.Monitoring, w.RPM, w.Concurrent)
	return nil
}

func when(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.Format(time.RFC3339)
}

// Close releases what Run opened.
func (m *Main) Close() error {
	if m.store != nil {
		return m.store.Close()
	}
	return nil
}

// newLogger returns the process's logger, writing to w through
// redactingWriter: whatever a record holds (a path, a query, an error's
// words), a key-shaped string never reaches the log whole.
func newLogger(cfg *config.Config, w io.Writer) *slog.Logger {
	w = redactingWriter{w}
	var level slog.Level
	level.UnmarshalText([]byte(cfg.LogLevel))
	opts := &slog.HandlerOptions{Level: level}
	if cfg.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// serve runs the API until ctx ends, then shuts down gracefully.
func (m *Main) serve(ctx context.Context) error {
	key, err := m.store.Bootstrap(ctx, m.cfg.BootstrapCredits)
	if err != nil {
		return err
	}
	if key != "" {
		fmt.Fprintln(m.Stderr, "created workspace \"default\"; its API key is shown once, keep it:")
		fmt.Fprintln(m.Stderr, "api key: "+key)
		if err := m.printSetupLink(ctx); err != nil {
			return err
		}
	}
	biller := m.biller()
	defer biller.Close()
	prims, err := m.primitives(m.store)
	if err != nil {
		return err
	}
	if prims.Browser != nil {
		defer prims.Browser.Close()
	}
	svc := billed.New(biller, prims)
	api := httpapi.New(m.cfg, m.store, biller, svc, m.log)
	box, err := m.secretBox(ctx)
	if err != nil {
		return err
	}
	queue, monitors, hk, crawls, err := m.background(prims, biller, m.cfg.JobWorkers, box)
	if err != nil {
		return err
	}
	svc.SetGyreJobs(crawls)
	api.SetMonitors(monitors)
	if err := m.mountConsole(api, biller, monitors); err != nil {
		return err
	}
	mcpHandler := mcp.New(m.store, biller, svc, m.log, mcp.Options{BaseURL: m.cfg.BaseURL, CanonicalHost: m.cfg.CanonicalHost,
		AllowedHosts: m.cfg.AllowedHosts, Addr: m.cfg.Addr, AllowedOrigins: m.cfg.MCPAllowedOrigins,
		MaxTokens: m.cfg.MCPMaxTokens})
	if mcpHandler.AnyHost() {
		m.log.Warn("mcp: /api/mcp accepts any Host (no DNS-rebinding protection): the service listens on a non-loopback address " +
			"and neither WEBACQ_BASE_URL nor WEBACQ_ALLOWED_HOSTS names its hosts")
	}
	api.SetMCP(mcpHandler)

	ln, err := net.Listen("tcp", m.cfg.Addr)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           api,
		ReadHeaderTimeout: m.cfg.ReadHeaderTimeout,
		ReadTimeout:       m.cfg.ReadTimeout,
		IdleTimeout:       m.cfg.IdleTimeout,
		ErrorLog:          slog.NewLogLogger(m.log.Handler(), slog.LevelWarn),
	}
	bg, cancel := context.WithCancel(ctx)
	defer cancel()
	if err := queue.Start(bg); err != nil {
		return err
	}
	defer m.stopQueue(queue)
	go hk.ExpireHolds(bg, queue)
	go monitors.ReconcileLoop(bg, reconcileEvery)

	if m.cfg.DebugAddr != "" {
		go m.debugServer(bg)
	}
	if m.cfg.MetricsAddr != "" {
		go m.metricsServer(bg)
	}
	m.log.Info("listening", "addr", ln.Addr().String(), "database", redactURL(m.cfg.DatabaseURL))
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	m.log.Info("shutting down")
	sctx, scancel := context.WithTimeout(context.Background(), m.cfg.ShutdownTimeout)
	defer scancel()
	err = srv.Shutdown(sctx)
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return err
}

// debugServer serves the profiler on its own address until ctx ends.
func (m *Main) debugServer(ctx context.Context) {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Addr: m.cfg.DebugAddr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { <-ctx.Done(); srv.Close() }()
	m.log.Info("debug listener", "addr", m.cfg.DebugAddr)
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		m.log.Error("debug listener", "err", err)
	}
}

// metricsServer serves Prometheus metrics at /metrics on their own address
// until ctx ends: the counters of this process, and the job queue's depth
// read from the database at each scrape.
func (m *Main) metricsServer(ctx context.Context) {
	jobsOnce.Do(func() { metrics.Register(metrics.NewJobs(m.store.JobCounts)) })
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", metrics.Handler())
	srv := &http.Server{Addr: m.cfg.MetricsAddr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { <-ctx.Done(); srv.Close() }()
	m.log.Info("metrics listener", "addr", m.cfg.MetricsAddr)
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		m.log.Error("metrics listener", "err", err)
	}
}

// jobsOnce registers the job queue's collector once per process.
var jobsOnce sync.Once

// primitives builds the primitives; pages nil keeps nothing (command line).
func (m *Main) primitives(pages *store.Store) (*primitive.Service, error) {
	fc := fetch.Config{AllowPrivate: m.cfg.AllowPrivate, AllowRanges: m.cfg.AllowPrivateRanges,
		ChromiumPath: m.cfg.Chromium, UserAgent: m.cfg.UserAgent}
	p := &primitive.Service{HTTP: fetch.New(fc), Pages: pages, Log: m.log, UserAgent: "webacq",
		Crawl: primitive.GyreOptions{Workers: m.cfg.CrawlWorkers, PerHost: m.cfg.CrawlPerHost, Delay: m.cfg.CrawlDelay},
		Convert: acquire.NewBudget(acquire.BudgetOptions{Memory: m.cfg.MemoryBudget, Workers: m.cfg.ConvertWorkers,
			Queue: m.cfg.ConvertQueue})}
	// Search providers and language models are often on the operator's own
	// network (a SearXNG or llama.cpp on localhost): plain clients, not the
	// SSRF-guarded one, which is for URLs that callers choose.
	var err error
	if p.Searcher, err = primitive.NewSearchProvider(m.cfg.SearchProvider, pages, m.cfg.SearXNGURL, m.cfg.BraveAPIKey,
		&http.Client{Timeout: 30 * time.Second}); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	lc, err := llm.New(llm.Config{Provider: m.cfg.LLMProvider, BaseURL: m.cfg.LLMBaseURL, APIKey: m.cfg.LLMAPIKey,
		Model: m.cfg.LLMModel, ContextTokens: m.cfg.LLMContextTokens, MaxOutputTokens: m.cfg.LLMMaxOutputTokens,
		Timeout: m.cfg.LLMTimeout}, &http.Client{})
	switch {
	case errors.Is(err, llm.ErrNotConfigured):
		// A node says so as it starts; the local commands (pages nil),
		// which never extract, keep their output to what was asked.
		if pages != nil {
			m.log.Info("extract off: " + llm.ConfigureHint)
		}
	case err != nil:
		return nil, fmt.Errorf("config: %s", model.ErrorMessage(err))
	default:
		p.LLM = lc
	}
	if path, err := exec.LookPath(m.cfg.Chromium); err == nil {
		fc.ChromiumPath = path
		p.Browser = fetch.NewBrowser(fc)
	} else {
		m.log.Warn("browser tier off: chromium not found (run scripts/setup.sh or set WEBACQ_CHROMIUM)", "chromium", m.cfg.Chromium)
	}
	return p, nil
}

// background builds the job queue with every worker of the service (monitor
// checks, crawl jobs and housekeeping), the monitor service that queues
// checks and the crawl jobs' service; workers 0 makes an insert-only queue
// (an API-only node).
func (m *Main) background(prims *primitive.Service, biller *billing.Biller, workers int, box *secretbox.Box) (*jobs.Queue, *monitor.Service, *jobs.Housekeeping, *crawljob.Service, error) {
	w := river.NewWorkers()
	hk := &jobs.Housekeeping{Store: m.store, Log: m.log, ExpireEvery: billing.ExpireEvery(m.reservationTTL()),
		PageRetention: m.cfg.PageRetention, SnapshotRetention: m.cfg.SnapshotRetention, LogRetention: m.cfg.LogRetention}
	periodic := hk.Register(w)
	alerts := &alert.Service{Store: m.store, HTTP: prims.HTTP, Secrets: box, Log: m.log,
		MessagesPerHour: m.cfg.AlertMessagesPerHour}
	var err error
	if alerts.Mail, err = alert.NewMailer(m.cfg.SMTPURL, m.cfg.SMTPFrom); err != nil {
		return nil, nil, nil, nil, fmt.Errorf("config: %w", err)
	}
	if alerts.SMS, err = alert.NewSMS(m.cfg.SMSURL, m.cfg.SMSAccount, m.cfg.SMSToken, m.cfg.SMSFrom); err != nil {
		return nil, nil, nil, nil, fmt.Errorf("config: %w", err)
	}
	if d := m.cfg.DeliveryRetryWait; d > 0 {
		alerts.Backoff = slices.Repeat([]time.Duration{d}, len(alert.DefaultBackoff))
	}
	alerts.AddWorkers(w)
	// Deliveries that River gave up on in their last attempt (a node died)
	// are swept and sent once more.
	periodic = append(periodic, alerts.Periodic(alerts.OrphanGrace(m.cfg.JobRescueAfter)))
	// One memory budget for the node: the monitor checks' bodies, parses,
	// feeds and documents take the one the primitives' conversions take.
	mon := &monitor.Service{Store: m.store, HTTP: prims.HTTP, Browser: prims.Browser, Budget: prims.Convert, Log: m.log,
		PerHost: m.cfg.MonitorPerHost, Timeout: m.cfg.MonitorTimeout, Index: m.indexRun, Alerts: alerts,
		LLM: prims.LLM, Workers: workers, WorkspaceShare: m.cfg.MonitorWorkspaceShare,
		CheckNowInterval: m.cfg.CheckNowInterval}
	if m.cfg.SECUserAgent != "" {
		if mon.EDGAR, err = edgar.New(m.cfg.EdgarDataURL, m.cfg.EdgarWWWURL, m.cfg.SECUserAgent); err != nil {
			return nil, nil, nil, nil, fmt.Errorf("config: %w", err)
		}
		// SEC fair access: at most 10 requests a second from all nodes.
		mon.EDGAR.Wait = edgarPace(m.store)
		mon.EDGAR.Reserve = prims.Convert.Hold
	}
	mon.Wire = wire.NewClient(m.cfg.UserAgent)
	mon.Wire.Fresh, mon.Wire.Reserve = wireFresh, prims.Convert.Hold
	mon.WireFeeds = map[string]string{model.ChannelBusinessWire: m.cfg.BusinessWireFeed,
		model.ChannelGlobeNewswire: m.cfg.GlobeNewswireFeed}
	mon.AddWorkers(w)
	periodic = append(periodic, mon.PreviewSweep())
	crawls := &crawljob.Service{Store: m.store, Biller: biller, Prims: prims, Alerts: alerts, Log: m.log}
	crawls.AddWorkers(w)
	// Crawl jobs keep their results as long as pages are kept.
	periodic = append(periodic, crawls.Periodic(w, m.cfg.PageRetention),
		crawls.SweepPeriodic(w, crawljob.StrandedGrace(m.cfg.JobRescueAfter)))
	q, err := jobs.New(m.store, w, jobs.Config{Workers: mon.Runners(), RescueAfter: m.cfg.JobRescueAfter,
		PollInterval: m.cfg.JobPollInterval, JobTimeout: 5 * time.Minute, Periodic: periodic, Log: m.log,
		Queues: map[string]int{crawljob.Queue: crawlJobs}})
	if err != nil {
		return nil, nil, nil, nil, err
	}
	mon.Queue, alerts.Queue, crawls.Queue = q, q, q
	return q, mon, hk, crawls, nil
}

// crawlJobs is how many asynchronous crawls a worker node runs at once;
// each fetches up to WEBACQ_CRAWL_WORKERS pages at a time.
const crawlJobs = 4

// edgarPace is SEC fair access as every node of the service waits for it:
// at most 10 requests a second from all nodes together, slots kept in the
// shared database.
func edgarPace(st *store.Store) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		return st.WaitSlot(ctx, "sec.gov", 100*time.Millisecond, time.Minute)
	}
}

// wireFresh is how long a node answers the monitors of a press-wire feed
// from its last fetch of it: the monitors due together share one
// conditional GET and one parse of the feed.
const wireFresh = time.Minute

// reconcileEvery is how often a node repairs monitors whose job will not
// run them (monitor.Service.Reconcile).
const reconcileEvery = 2 * time.Second

// secretBox opens WEBACQ_SECRET_KEY and checks that the webhook secrets
// already stored open with it: a missing or wrong key is a start-up error
// once secrets exist, not a failed delivery later.
func (m *Main) secretBox(ctx context.Context) (*secretbox.Box, error) {
	box, err := secretbox.New(m.cfg.SecretKey)
	if err != nil {
		return nil, err
	}
	sealed, err := m.store.SealedSecrets(ctx, 20)
	if err != nil {
		return nil, err
	}
	for ws, sec := range sealed {
		if !box.HasKey() {
			return nil, fmt.Errorf("config: webhook secrets are stored encrypted; set WEBACQ_SECRET_KEY to the key they were stored with")
		}
		if _, err := box.Open(sec, ws); err != nil {
			return nil, fmt.Errorf("config: WEBACQ_SECRET_KEY does not open the stored webhook secrets (workspace %s): "+
				"set the key they were stored with", ws)
		}
	}
	return box, nil
}

// indexRun keeps a monitor run's region in the workspace's search index.
func (m *Main) indexRun(ctx context.Context, workspaceID, url, title, markdown string) {
	sum := sha256.Sum256([]byte(markdown))
	err := m.store.SavePage(ctx, &store.Page{WorkspaceID: workspaceID, URL: url, Variant: "monitor", FinalURL: url,
		Status: 200, Tier: model.TierHTTP, Title: title, ContentHash: hex.EncodeToString(sum[:]), Markdown: markdown,
		Result: []byte("{}"), FetchedAt: m.store.Now()})
	if err != nil && ctx.Err() == nil {
		m.log.Warn("index monitor run", "err", err)
	}
}

// stopQueue lets running jobs finish within the shutdown timeout.
func (m *Main) stopQueue(q *jobs.Queue) {
	ctx, cancel := context.WithTimeout(context.Background(), m.cfg.ShutdownTimeout)
	defer cancel()
	if err := q.Stop(ctx); err != nil {
		m.log.Warn("job queue stop", "err", err)
	}
}

func (m *Main) reservationTTL() time.Duration {
	if m.cfg.ReservationTTL > 0 {
		return m.cfg.ReservationTTL
	}
	return billing.DefaultReservationTTL
}

func (m *Main) biller() *billing.Biller {
	b := billing.New(m.store, m.log)
	if m.cfg.ReservationTTL > 0 {
		b.ReservationTTL = m.cfg.ReservationTTL
	}
	return b
}

// worker runs background work until ctx ends.
func (m *Main) worker(ctx context.Context) error {
	biller := m.biller()
	defer biller.Close()
	prims, err := m.primitives(m.store)
	if err != nil {
		return err
	}
	if prims.Browser != nil {
		defer prims.Browser.Close()
	}
	box, err := m.secretBox(ctx)
	if err != nil {
		return err
	}
	queue, monitors, hk, _, err := m.background(prims, biller, max(m.cfg.JobWorkers, 1), box)
	if err != nil {
		return err
	}
	if err := queue.Start(ctx); err != nil {
		return err
	}
	go hk.ExpireHolds(ctx, queue)
	go monitors.ReconcileLoop(ctx, reconcileEvery)
	if m.cfg.DebugAddr != "" {
		go m.debugServer(ctx)
	}
	if m.cfg.MetricsAddr != "" {
		go m.metricsServer(ctx)
	}
	m.log.Info("worker started", "database", redactURL(m.cfg.DatabaseURL))
	<-ctx.Done()
	m.stopQueue(queue)
	m.log.Info("worker stopped")
	return nil
}
