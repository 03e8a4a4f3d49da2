package webacq_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"webacq"
	"webacq/internal/billing"
	"webacq/internal/config"
	"webacq/internal/fetch"
	"webacq/internal/llm"
	"webacq/internal/mcp"
	"webacq/internal/primitive"
)

// readmeNotInTable are the WEBACQ_ variables the code reads that the
// README's configuration table does not list as a row, each with the place
// the README names it instead. The test fails when one is no longer read
// or no longer named there.
var readmeNotInTable = map[string]string{
	// Refused at start with a message naming its replacement.
	"WEBACQ_MCP_MAX_RESULT_CHARS": "Replaces `WEBACQ_MCP_MAX_RESULT_CHARS`",
	// Read by internal/store/storetest, for the tests only.
	"WEBACQ_TEST_POSTGRES": "WEBACQ_TEST_POSTGRES=postgres://…",
}

// readmeDefaultElsewhere are the defaults that config.Load leaves as a zero
// value for the package that uses the setting to fill in: the README's
// default must equal that package's.
var readmeDefaultElsewhere = map[string]any{
	"WEBACQ_USER_AGENT":            fetch.DefaultUserAgent,
	"WEBACQ_RESERVATION_TTL":       billing.DefaultReservationTTL,
	"WEBACQ_LLM_MAX_OUTPUT_TOKENS": llm.DefaultMaxOutputTokens,
	"WEBACQ_LLM_TIMEOUT":           llm.DefaultTimeout,
	"WEBACQ_CRAWL_WORKERS":         primitive.DefaultGyreWorkers,
	"WEBACQ_CRAWL_PER_HOST":        primitive.DefaultGyrePerHost,
	"WEBACQ_MCP_MAX_TOKENS":        mcp.DefaultMaxTokens,
}

// readmeDefaultUnchecked are documented defaults this test does not check,
// and why.
var readmeDefaultUnchecked = map[string]string{
	"WEBACQ_DATABASE_URL": "a path under the user's home, which the README writes with ~",
	"WEBACQ_CONVERT_QUEUE": "internal/acquire fills it in with an unexported literal " +
		"(TestREADMEConfiguration would need product code changed to see it)",
}

var (
	envName    = regexp.MustCompile("`(WEBACQ_[A-Z0-9_]+)`")
	envLiteral = regexp.MustCompile(`"(WEBACQ_[A-Z0-9_]+)"`)
	// A default that can be checked: one value in backquotes (a remark in
	// parentheses may follow) or a bare number.
	plainDefault = regexp.MustCompile("^(?:`([^`]*)`(?: \\(.*\\))?|([0-9]+))$")
)

// configRow is one row of the README's configuration table.
type configRow struct {
	names    []string
	defaults string
}

// readmeConfigTable returns the rows of the table under "## Configuration".
func readmeConfigTable(t *testing.T) []configRow {
	t.Helper()
	_, section, ok := strings.Cut(webacq.README, "\n## Configuration\n")
	if !ok {
		t.Fatal("README: no ## Configuration section")
	}
	if i := strings.Index(section, "\n## "); i >= 0 {
		section = section[:i]
	}
	var rows []configRow
	for _, l := range strings.Split(section, "\n") {
		if !strings.HasPrefix(l, "| `WEBACQ_") {
			continue
		}
		cells := strings.Split(l, "|") // "", names, default, meaning…
		if len(cells) < 5 {
			t.Fatalf("README configuration row without three cells: %s", l)
		}
		var r configRow
		for _, m := range envName.FindAllStringSubmatch(cells[1], -1) {
			r.names = append(r.names, m[1])
		}
		r.defaults = strings.TrimSpace(cells[2])
		rows = append(rows, r)
	}
	if len(rows) < 30 {
		t.Fatalf("README: only %d rows in the configuration table", len(rows))
	}
	return rows
}

// codeEnvNames returns the WEBACQ_ variables the code reads: every one
// config.Load asks for, and every "WEBACQ_…" string literal of the
// non-test Go files under cmd/ and internal/.
func codeEnvNames(t *testing.T) map[string]string {
	t.Helper()
	read := map[string]string{}
	if _, err := config.Load(func(k string) string {
		if strings.HasPrefix(k, "WEBACQ_") {
			read[k] = "config.Load"
		}
		return ""
	}); err != nil {
		t.Fatalf("config.Load with nothing set: %v", err)
	}
	for _, dir := range []string{"cmd", "internal"} {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, m := range envLiteral.FindAllStringSubmatch(string(b), -1) {
				if _, ok := read[m[1]]; !ok {
					read[m[1]] = path
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return read
}

// TestREADMEConfiguration: the README's configuration table lists every
// WEBACQ_ variable the code reads and none it no longer reads, and each
// default written as one plain value is the code's.
func TestREADMEConfiguration(t *testing.T) {
	rows := readmeConfigTable(t)
	documented := map[string]bool{}
	for _, r := range rows {
		for _, n := range r.names {
			if documented[n] {
				t.Errorf("README: %s has two rows in the configuration table", n)
			}
			documented[n] = true
		}
	}
	read := codeEnvNames(t)
	var names []string
	for n := range read {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if where, ok := readmeNotInTable[n]; ok {
			if !strings.Contains(webacq.README, where) {
				t.Errorf("README: %s (read by %s) is not in the configuration table and the README no longer says %q", n, read[n], where)
			}
			continue
		}
		if !documented[n] {
			t.Errorf("README: %s is read by %s but missing from the configuration table", n, read[n])
		}
	}
	for n := range readmeNotInTable {
		if _, ok := read[n]; !ok {
			t.Errorf("readmeNotInTable names %s, which the code no longer reads", n)
		}
	}
	for n := range documented {
		if _, ok := read[n]; !ok {
			t.Errorf("README: the configuration table documents %s, which the code does not read", n)
		}
	}

	// Defaults: setting a variable to its documented default must leave
	// the configuration as it is with nothing set.
	base, err := config.Load(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, r := range rows {
		values := strings.Split(r.defaults, ", ")
		if len(r.names) > 1 && len(values) != len(r.names) {
			values = nil // one remark for all of them
		}
		if len(r.names) == 1 {
			values = []string{r.defaults}
		}
		for i, v := range values {
			n := r.names[i]
			m := plainDefault.FindStringSubmatch(v)
			if m == nil || v == "" || readmeDefaultUnchecked[n] != "" {
				continue
			}
			def := m[1] + m[2]
			if want, ok := readmeDefaultElsewhere[n]; ok {
				if !sameDefault(def, want) {
					t.Errorf("README: %s's default is %q; the code's is %v", n, def, want)
				}
				checked++
				continue
			}
			got, err := config.Load(func(k string) string {
				if k == n {
					return def
				}
				return ""
			})
			if err != nil {
				t.Errorf("README: %s's default %q is refused: %v", n, def, err)
				continue
			}
			if !reflect.DeepEqual(got, base) {
				t.Errorf("README: %s's default is %q, but setting it changes the configuration (a default filled in elsewhere belongs in readmeDefaultElsewhere)", n, def)
			}
			checked++
		}
	}
	if checked < 25 {
		t.Errorf("only %d defaults of the README checked", checked)
	}
	for n := range readmeDefaultElsewhere {
		if !documented[n] {
			t.Errorf("readmeDefaultElsewhere names %s, which the table does not document", n)
		}
	}
}

// sameDefault reports whether the README's default s spells the value v.
func sameDefault(s string, v any) bool {
	switch v := v.(type) {
	case string:
		return s == v
	case int:
		n, err := strconv.Atoi(s)
		return err == nil && n == v
	case time.Duration:
		d, err := time.ParseDuration(s)
		return err == nil && d == v
	}
	return false
}
