package httpapi_test

import (
	"database/sql"
	"strings"
	"testing"

	"webacq/internal/model"
	"webacq/internal/store/storetest"
)

// tableRows counts the rows of every table of the env's database, whatever
// workspace they name (PostgreSQL's log tables have no foreign key, so a
// row with an empty or unknown workspace would not show in any
// workspace's logs).
func tableRows(t *testing.T, e *env) map[string]int {
	t.Helper()
	driver, dsn, list := "pgx", e.dbURL,
		`SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`
	if path, ok := strings.CutPrefix(e.dbURL, "sqlite:"); ok {
		driver, dsn, list = "sqlite", "file:"+path+"?_pragma=query_only(1)",
			`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, list)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, name)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, name := range tables {
		if name == "auth_listeners" {
			// The key cache's listeners (PostgreSQL): a node registers
			// in its own time after its first lookup, good or bad.
			continue
		}
		var n int
		if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM "`+name+`"`).Scan(&n); err != nil {
			t.Fatalf("count %s: %v", name, err)
		}
		out[name] = n
	}
	for _, must := range []string{"usage_log", "activity_log", "api_keys"} {
		if _, ok := out[must]; !ok {
			t.Fatalf("table %s not found among %v", must, tables)
		}
	}
	return out
}

// Failed authentication writes nothing (README, Billing): a batch of bad
// credentials against every kind of endpoint leaves every table's row count
// as it was, in every workspace and in none.
func TestFailedAuthenticationWritesNothing(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		e := newEnv(t, dialect)
		other, err := e.store.CreateWorkspace(ctx, "other", 100, true)
		if err != nil {
			t.Fatal(err)
		}
		revoked, k, err := e.store.CreateKey(ctx, other.ID, "gone")
		if err != nil {
			t.Fatal(err)
		}
		// A good call first: it writes the rows a call writes.
		if a := e.do("GET", "/api/v1/health", nil, "Authorization", "Bearer "+revoked); a.status != 200 {
			t.Fatalf("health with a live key: %d", a.status)
		}
		if err := e.store.RevokeKey(ctx, k.Prefix); err != nil {
			t.Fatal(err)
		}
		if err := e.biller.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		before := tableRows(t, e)

		bad := []string{
			"Bearer " + revoked,
			"Bearer " + model.NewKey(),
			"Bearer " + model.NewKey(),
			"Bearer " + e.key + "x",
			"Bearer " + strings.Replace(e.key, "mc_", "sk_", 1),
			"Bearer ",
			"Basic " + basic(e.key),
			"",
		}
		calls := []struct{ method, path, body string }{
			{"GET", "/api/v1/health", ""},
			{"GET", "/api/v1/usage", ""},
			{"GET", "/api/v1/activity", ""},
			{"GET", "/api/v1/credits", ""},
			{"POST", "/api/v1/fetch", `{"url":"http://127.0.0.1:1/"}`},
			{"POST", "/api/v1/map", `{"url":"http://127.0.0.1:1/"}`},
			{"POST", "/api/v1/keys", `{"name":"x"}`},
			{"GET", "/api/v1/monitors", ""},
		}
		for _, auth := range bad {
			for _, c := range calls {
				var header []string
				if auth != "" {
					header = []string{"Authorization", auth}
				}
				if c.body != "" {
					header = append(header, "Content-Type", "application/json")
				}
				a := e.do(c.method, c.path, strings.NewReader(c.body), header...)
				wantError(t, a, 401, "unauthorized")
			}
		}
		if err := e.biller.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		after := tableRows(t, e)
		for name, n := range before {
			if after[name] != n {
				t.Errorf("%s: %d rows before the bad keys, %d after", name, n, after[name])
			}
		}
		for name, n := range after {
			if _, ok := before[name]; !ok {
				t.Errorf("%s: a table that did not exist before, with %d rows", name, n)
			}
		}
	})
}
