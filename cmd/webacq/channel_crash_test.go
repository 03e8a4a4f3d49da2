package main_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"webacq/internal/alert/alerttest"
	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

// channelPeer is one of the local Slack, SMTP and SMS servers, seen by the
// kill test: its gate and the messages it took.
type channelPeer struct {
	kind     string
	gate     *alerttest.Gate
	received func() []string
}

// Slack, email and SMS deliveries go through the same outbox as webhooks:
// the real binary is killed with SIGKILL while a delivery of each kind is
// in flight (its peer holds the request), three times per kind, and
// restarted. Every delivery row of every kind ends delivered, and each
// peer took each delivery's message at least once.
func TestChannelDeliveriesSurviveKills(t *testing.T) {
	t.Parallel() // see TestMain
	if testing.Short() {
		t.Skip("kills the binary 9 times on each store and waits for River's rescue: about a minute and a half")
	}
	for _, dialect := range storetest.Dialects {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			testChannelDeliveriesSurviveKills(t, dialect)
		})
	}
}

func testChannelDeliveriesSurviveKills(t *testing.T, dialect string) {
	// The plain binary (see testDeliveriesSurviveKills): the 5 minutes
	// start once TestMain's build of it has ended, not before the wait.
	bin := plainBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dbURL := storetest.URL(t, dialect)
	nodeURL := dbURL
	if dialect == store.Postgres {
		nodeURL += "&pool_max_conns=8"
	}
	db := openCrashDB(t, dialect, dbURL)
	site := newChangingSite(t)
	slack := alerttest.NewSlackServer(t)
	smtp := alerttest.NewSMTPServer(t, alerttest.SMTPOptions{})
	sms := alerttest.NewSMSServer(t)
	peers := []channelPeer{
		{"slack", &slack.Gate, slack.Texts},
		{"email", &smtp.Gate, func() []string {
			var out []string
			for _, m := range smtp.Mail() {
				out = append(out, m.Text)
			}
			return out
		}},
		{"sms", &sms.Gate, func() []string {
			var out []string
			for _, m := range sms.Messages() {
				out = append(out, m.Body)
			}
			return out
		}},
	}

	cli := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "WEBACQ_DATABASE_URL="+dbURL)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("webacq %s: %v: %s", strings.Join(args, " "), err, stderr.String())
		}
		return strings.TrimSpace(string(out))
	}
	cli("workspace", "create", "crash", "--credits", "1000", "--monitoring")
	key := cli("key", "create", "--workspace", "crash", "--name", "crash")
	env := []string{"WEBACQ_ALLOW_PRIVATE=1", "WEBACQ_CHROMIUM=none", "WEBACQ_ACCESS_LOG=0",
		"WEBACQ_SECRET_KEY=crash-test-operator-key-0123456789", "WEBACQ_JOB_POLL_INTERVAL=20ms",
		"WEBACQ_JOB_RESCUE_AFTER=10s", "WEBACQ_MONITOR_TIMEOUT=1s", "WEBACQ_DELIVERY_RETRY_WAIT=2s",
		"WEBACQ_JOB_WORKERS=4", "WEBACQ_SMTP_URL=" + smtp.URL, "WEBACQ_SMTP_FROM=alerts@webacq.test",
		"WEBACQ_SMS_URL=" + sms.URL, "WEBACQ_SMS_ACCOUNT=" + sms.Account, "WEBACQ_SMS_TOKEN=" + sms.Token,
		"WEBACQ_SMS_FROM=+15005550006"}
	node := startCrashNode(t, bin, nodeURL, env)
	if err := apiCall(ctx, node.url, key, "POST", "/api/v1/alerts", map[string]any{"slack_webhook_url": slack.URL,
		"email_to": []string{"analyst@example.com"}, "sms_to": []string{"+14155550100"}}, &map[string]any{}); err != nil {
		t.Fatal(err)
	}
	// One monitor per kill: a kill can leave its check job running until
	// River rescues it, which would absorb another check-now meanwhile.
	const monitors = 9
	ids := make([]string, monitors)
	for i := range ids {
		var out struct {
			MonitorID string `json:"monitor_id"`
		}
		body := map[string]any{"url": site.url(i), "label": fmt.Sprintf("company %d", i), "check_interval_hours": 24}
		if err := apiCall(ctx, node.url, key, "POST", "/api/v1/monitor/register", body, &out); err != nil {
			t.Fatal(err)
		}
		ids[i] = out.MonitorID
	}
	settled := func(limit time.Duration, what string) {
		t.Helper()
		eventually(ctx, t, limit, what, func() (bool, string) {
			n := db.count(ctx, t, `SELECT count(*) FROM deliveries`)
			done := db.count(ctx, t, `SELECT count(*) FROM deliveries WHERE status = 'delivered'`)
			running := db.count(ctx, t, `SELECT count(*) FROM river_job WHERE state = 'running'`)
			return n > 0 && done == n && running == 0, fmt.Sprintf("%d of %d delivered, %d jobs running\n%s", done, n,
				running, db.pendingReport(ctx, t))
		})
	}
	// Every anchor run first: deliveries all delivered says nothing while
	// some monitors have not yet queued theirs.
	eventually(ctx, t, 30*time.Second, "the anchor runs", func() (bool, string) {
		n := db.count(ctx, t, `SELECT count(*) FROM monitor_runs`)
		return n >= monitors, fmt.Sprintf("%d of %d anchor runs", n, monitors)
	})
	settled(30*time.Second, "the anchors' deliveries")
	if n := db.count(ctx, t, `SELECT count(*) FROM deliveries`); n != 3*monitors {
		t.Fatalf("%d anchor deliveries, want %d", n, 3*monitors)
	}

	// Each cycle holds one kind's peer, changes a page, and kills the node
	// while that kind's delivery is in flight.
	kills := 0
	for round := range 3 {
		for k, p := range peers {
			i := round*len(peers) + k
			p.gate.Shut()
			site.change(i)
			if err := apiCall(ctx, node.url, key, "POST", "/api/v1/monitor/"+ids[i]+"/check", nil, &map[string]any{}); err != nil {
				t.Fatal(err)
			}
			eventually(ctx, t, 30*time.Second, p.kind+" delivery in flight", func() (bool, string) {
				return p.gate.Held() > 0, "none held yet"
			})
			node.kill()
			kills++
			p.gate.Open()
			node = startCrashNode(t, bin, nodeURL, env)
		}
	}
	// The in-flight jobs are rescued once their timeout (30 s) has passed.
	settled(150*time.Second, "every delivery delivered after "+fmt.Sprint(kills)+" kills")

	rows, err := db.QueryContext(ctx, `SELECT id, kind, monitor_id FROM deliveries`)
	if err != nil {
		t.Fatal(err)
	}
	perKind := map[string]int{}
	var mailIDs []string
	for rows.Next() {
		var id, kind, monitor string
		if err := rows.Scan(&id, &kind, &monitor); err != nil {
			t.Fatal(err)
		}
		perKind[kind]++
		if kind == "email" {
			mailIDs = append(mailIDs, id)
		}
	}
	rows.Close()
	want := monitors + kills // one alert per anchor and per change
	for _, p := range peers {
		got := p.received()
		distinct := map[string]bool{}
		for _, m := range got {
			distinct[m] = true
		}
		// A message names its monitor and its change: one text per delivery.
		if perKind[p.kind] != want || len(distinct) != want {
			t.Errorf("%s: %d deliveries, %d distinct messages received (%d in all); want %d", p.kind, perKind[p.kind],
				len(distinct), len(got), want)
		}
	}
	texts := strings.Join(peers[1].received(), "\n")
	for _, id := range mailIDs {
		if !strings.Contains(texts, "delivery "+id) {
			t.Errorf("email delivery %s never arrived", id)
		}
	}
	if !t.Failed() {
		t.Logf("%s: %d kills with a Slack, email or SMS delivery in flight; %d deliveries of each kind, all delivered",
			dialect, kills, want)
	}
}
