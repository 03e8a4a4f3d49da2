package main_test

import (
	"regexp"
	"strings"
	"testing"

	"webacq/internal/store/storetest"
)

// TestWorkspaceUpdate: monitoring can be granted to and withdrawn from an
// existing workspace and its balance set, which `workspace create` (a
// conflict on an existing name) cannot do.
func TestWorkspaceUpdate(t *testing.T) {
	t.Parallel() // see TestMain
	storetest.Each(t, func(t *testing.T, dialect string) {
		db := storetest.URL(t, dialect)
		mustRun(t, db, "workspace", "create", "acme", "--credits", "5")
		if out := mustRun(t, db, "workspace", "update", "acme", "--monitoring", "--credits", "40"); !strings.Contains(out, "credits 40") ||
			!strings.Contains(out, "monitoring true") {
			t.Fatalf("workspace update printed %q", out)
		}
		if out := mustRun(t, db, "workspace", "list"); !regexp.MustCompile(`acme\s+40\s+true`).MatchString(out) {
			t.Fatalf("after update, workspace list:\n%s", out)
		}
		mustRun(t, db, "workspace", "update", "acme", "--no-monitoring")
		if out := mustRun(t, db, "workspace", "list"); !regexp.MustCompile(`acme\s+40\s+false`).MatchString(out) {
			t.Fatalf("after --no-monitoring, workspace list:\n%s", out)
		}
		if _, _, code := run(t, db, "workspace", "update", "acme", "--credits=-1"); code == 0 {
			t.Fatal("a negative balance was accepted")
		}
		if _, errOut, code := run(t, db, "workspace", "update", "nope", "--monitoring"); code == 0 || !strings.Contains(errOut, "not found") {
			t.Fatalf("unknown workspace: exit %d %q", code, errOut)
		}
		if _, _, code := run(t, db, "workspace", "update", "acme"); code == 0 {
			t.Fatal("an update without a change succeeded")
		}
	})
}
