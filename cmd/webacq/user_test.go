package main_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"webacq/internal/console"
	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

// TestUserCommands: an operator lists console accounts with their roles,
// changes a role, takes a workspace away, sets a password (ending the
// account's sessions) and removes an account (issue 21, part 5).
func TestUserCommands(t *testing.T) {
	t.Parallel() // see TestMain
	storetest.Each(t, func(t *testing.T, dialect string) {
		db := storetest.URL(t, dialect)
		mustRun(t, db, "workspace", "create", "acme", "--credits", "5")
		mustRun(t, db, "workspace", "create", "labs", "--credits", "5")
		if out, code := userCmd(t, db, "correct horse battery\n", "create", "--email", "Ann@Example.com", "--password-stdin"); code != 0 {
			t.Fatalf("user create: %d %s", code, out)
		}
		userCmd(t, db, "", "grant", "--email", "ann@example.com", "--workspace", "acme")
		if out, code := userCmd(t, db, "", "grant", "--email", "ann@example.com", "--workspace", "labs", "--role", "member"); code != 0 ||
			!strings.Contains(out, "as member") {
			t.Fatalf("grant as member: %d %s", code, out)
		}
		if out, code := userCmd(t, db, "", "grant", "--email", "ann@example.com", "--workspace", "labs", "--role", "admin"); code == 0 {
			t.Fatalf("an unknown role was accepted: %s", out)
		}
		if out := mustRun(t, db, "user", "list"); !regexp.MustCompile(`ann@example\.com\s+\S+\s+acme \(owner\), labs \(member\)`).MatchString(out) {
			t.Fatalf("user list:\n%s", out)
		}
		if out, code := userCmd(t, db, "", "revoke", "--email", "ann@example.com", "--workspace", "labs"); code != 0 {
			t.Fatalf("revoke: %d %s", code, out)
		}
		if out, code := userCmd(t, db, "", "revoke", "--email", "ann@example.com", "--workspace", "labs"); code == 0 ||
			!strings.Contains(out, "not granted") {
			t.Fatalf("revoking twice: %d %s", code, out)
		}

		// A new password ends the account's sessions.
		ctx := t.Context()
		st, err := store.Open(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		u, err := st.UserByEmail(ctx, "ann@example.com")
		if err != nil {
			t.Fatal(err)
		}
		if err := st.CreateSession(ctx, "h", u.ID, st.Now().Add(time.Hour), ""); err != nil {
			t.Fatal(err)
		}
		if out, code := userCmd(t, db, "short\n", "password", "--email", "ann@example.com", "--password-stdin"); code == 0 {
			t.Fatalf("a short password was accepted: %s", out)
		}
		if out, code := userCmd(t, db, "a new and longer one\n", "password", "--email", "ann@example.com", "--password-stdin"); code != 0 {
			t.Fatalf("password: %d %s", code, out)
		}
		if _, err := st.SessionUser(ctx, "h"); err == nil {
			t.Fatal("a session outlived the new password")
		}
		u, _ = st.UserByEmail(ctx, "ann@example.com")
		if ok, _ := console.CheckPassword(u.PasswordHash, "a new and longer one"); !ok {
			t.Fatal("the new password does not match")
		}

		if out, code := userCmd(t, db, "", "remove", "--email", "ann@example.com"); code != 0 {
			t.Fatalf("remove: %d %s", code, out)
		}
		if _, err := st.UserByEmail(ctx, "ann@example.com"); err == nil {
			t.Fatal("the removed account is still there")
		}
		if out := mustRun(t, db, "user", "list"); strings.Contains(out, "ann@") {
			t.Fatalf("user list after remove:\n%s", out)
		}
	})
}
