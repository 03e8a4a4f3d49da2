package store_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"webacq/internal/model"
	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

func TestConsoleUsersAndSessions(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		s := storetest.Open(t, dialect)
		acme, err := s.CreateWorkspace(ctx, "acme", 10, true)
		if err != nil {
			t.Fatal(err)
		}
		other, err := s.CreateWorkspace(ctx, "other", 10, false)
		if err != nil {
			t.Fatal(err)
		}
		u, err := s.CreateUser(ctx, "ann@example.com", "$argon2id$hash")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.CreateUser(ctx, "ann@example.com", "x"); model.ErrorCode(err) != model.CodeConflict {
			t.Fatalf("second account of one email: got %v, want conflict", err)
		}
		got, err := s.UserByEmail(ctx, "ann@example.com")
		if err != nil || got.ID != u.ID || got.PasswordHash != "$argon2id$hash" {
			t.Fatalf("UserByEmail = %+v, %v", got, err)
		}
		if _, err := s.UserByEmail(ctx, "bob@example.com"); model.ErrorCode(err) != model.CodeNotFound {
			t.Fatalf("unknown email: got %v, want not_found", err)
		}

		if ws, err := s.UserWorkspaces(ctx, u.ID); err != nil || len(ws) != 0 {
			t.Fatalf("workspaces before any grant = %v, %v", ws, err)
		}
		// Granting again is no error, and sets the role.
		for _, role := range []string{store.RoleMember, store.RoleOwner} {
			if err := s.GrantWorkspace(ctx, u.ID, acme.ID, role); err != nil {
				t.Fatal(err)
			}
		}
		if ws, err := s.UserWorkspaces(ctx, u.ID); err != nil || len(ws) != 1 || ws[0].ID != acme.ID || !ws[0].Monitoring ||
			ws[0].Role != store.RoleOwner {
			t.Fatalf("workspaces after a grant of acme = %+v, %v", ws, err)
		}
		if err := s.GrantWorkspace(ctx, u.ID, other.ID, "admin"); model.ErrorCode(err) != model.CodeBadRequest {
			t.Fatalf("an unknown role: got %v, want bad_request", err)
		}
		if err := s.GrantWorkspace(ctx, u.ID, other.ID, store.RoleMember); err != nil {
			t.Fatal(err)
		}
		if ws, _ := s.UserWorkspaces(ctx, u.ID); len(ws) != 2 || ws[0].Name != "acme" || ws[1].Name != "other" ||
			ws[1].Role != store.RoleMember {
			t.Fatalf("workspaces = %+v, want acme (owner) and other (member) by name", ws)
		}
		if err := s.RevokeWorkspace(ctx, u.ID, other.ID); err != nil {
			t.Fatal(err)
		}
		if err := s.RevokeWorkspace(ctx, u.ID, other.ID); model.ErrorCode(err) != model.CodeNotFound {
			t.Fatalf("revoking twice: got %v, want not_found", err)
		}
		if ws, _ := s.UserWorkspaces(ctx, u.ID); len(ws) != 1 || ws[0].Name != "acme" {
			t.Fatalf("workspaces after revoking other = %+v", ws)
		}
		if err := s.GrantWorkspace(ctx, u.ID, other.ID, store.RoleMember); err != nil {
			t.Fatal(err)
		}

		// A session is found by its hash until it expires or ends; signing
		// in again replaces the session the browser held.
		now := s.Now()
		if err := s.CreateSession(ctx, "h1", u.ID, now.Add(time.Hour), ""); err != nil {
			t.Fatal(err)
		}
		if su, err := s.SessionUser(ctx, "h1"); err != nil || su.ID != u.ID || su.Email != "ann@example.com" {
			t.Fatalf("SessionUser = %+v, %v", su, err)
		}
		if _, err := s.SessionUser(ctx, "nope"); model.ErrorCode(err) != model.CodeUnauthorized {
			t.Fatalf("unknown session: got %v, want unauthorized", err)
		}
		if err := s.CreateSession(ctx, "h2", u.ID, now.Add(time.Hour), "h1"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.SessionUser(ctx, "h1"); model.ErrorCode(err) != model.CodeUnauthorized {
			t.Fatalf("replaced session: got %v, want unauthorized", err)
		}
		if err := s.CreateSession(ctx, "old", u.ID, now.Add(time.Millisecond), ""); err != nil {
			t.Fatal(err)
		}
		s.Now = func() time.Time { return now.Add(time.Minute) }
		if _, err := s.SessionUser(ctx, "old"); model.ErrorCode(err) != model.CodeUnauthorized {
			t.Fatalf("expired session: got %v, want unauthorized", err)
		}
		if _, err := s.SessionUser(ctx, "h2"); err != nil {
			t.Fatalf("live session: %v", err)
		}
		if err := s.DeleteSession(ctx, "h2"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.SessionUser(ctx, "h2"); model.ErrorCode(err) != model.CodeUnauthorized {
			t.Fatalf("signed-out session: got %v, want unauthorized", err)
		}

		// A new password ends every session but the one kept.
		for _, h := range []string{"s1", "s2", "s3"} {
			if err := s.CreateSession(ctx, h, u.ID, now.Add(time.Hour), ""); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.SetPassword(ctx, u.ID, "$argon2id$new", "s2"); err != nil {
			t.Fatal(err)
		}
		for h, live := range map[string]bool{"s1": false, "s2": true, "s3": false} {
			if _, err := s.SessionUser(ctx, h); (err == nil) != live {
				t.Fatalf("session %s after a new password: err %v, want live %v", h, err, live)
			}
		}
		if got, _ := s.UserByEmail(ctx, "ann@example.com"); got.PasswordHash != "$argon2id$new" {
			t.Fatalf("password hash = %q", got.PasswordHash)
		}
		if err := s.SetPassword(ctx, "nobody", "x", ""); model.ErrorCode(err) != model.CodeNotFound {
			t.Fatalf("password of an unknown user: got %v, want not_found", err)
		}

		// Removing an account removes its grants and sessions.
		if us, err := s.Users(ctx); err != nil || len(us) != 1 || us[0].Email != "ann@example.com" {
			t.Fatalf("Users = %+v, %v", us, err)
		}
		if err := s.DeleteUser(ctx, u.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.SessionUser(ctx, "s2"); model.ErrorCode(err) != model.CodeUnauthorized {
			t.Fatalf("session of a removed user: got %v, want unauthorized", err)
		}
		if ws, _ := s.UserWorkspaces(ctx, u.ID); len(ws) != 0 {
			t.Fatalf("grants of a removed user: %+v", ws)
		}
		if err := s.DeleteUser(ctx, u.ID); model.ErrorCode(err) != model.CodeNotFound {
			t.Fatalf("removing twice: got %v, want not_found", err)
		}
	})
}

func TestSignInFailuresAndSetupLinks(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		s := storetest.Open(t, dialect)
		base := s.Now()
		at := base
		s.Now = func() time.Time { return at }
		limits := []store.SignInLimit{{Subject: "email:ann@example.com", Max: 3}, {Subject: "addr:192.0.2.1", Max: 5}}
		const window = 15 * time.Minute
		reserve := func(limits []store.SignInLimit) time.Time {
			t.Helper()
			until, err := s.ReserveSignIn(ctx, limits, window)
			if err != nil {
				t.Fatal(err)
			}
			return until
		}
		for i := range 3 {
			if !reserve(limits).IsZero() {
				t.Fatalf("blocked after %d failures, limit 3", i)
			}
		}
		// PostgreSQL keeps microseconds.
		if until := reserve(limits); until.Sub(base.Add(window)).Abs() > time.Millisecond {
			t.Fatalf("after 3 failures blocked until %v, want %v", until, base.Add(window))
		}
		// The refused attempt counted nothing: another account from the
		// same address is let in (the address has 3 of its 5), and gives
		// its attempt back when it signs in.
		other := []store.SignInLimit{{Subject: "email:bob@example.com", Max: 3}, {Subject: "addr:192.0.2.1", Max: 5}}
		if until := reserve(other); !until.IsZero() {
			t.Fatalf("another account blocked until %v", until)
		}
		if err := s.SignInSucceeded(ctx, "email:bob@example.com", []string{"addr:192.0.2.1"}); err != nil {
			t.Fatal(err)
		}
		for i := range 2 { // the address's 4th and 5th
			if until := reserve(other); !until.IsZero() {
				t.Fatalf("address blocked at %d failures, limit 5", 3+i)
			}
		}
		if until := reserve(other); until.IsZero() {
			t.Fatal("address not blocked after 5 failures")
		}
		at = base.Add(window + time.Second)
		if !reserve(limits).IsZero() {
			t.Fatal("still blocked after the window")
		}
		if err := s.SignInSucceeded(ctx, "email:ann@example.com", nil); err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			if !reserve(limits[:1]).IsZero() {
				t.Fatalf("a sign-in did not clear the account's failures: blocked at %d", i)
			}
		}

		// Parallel attempts never pass a limit: 40 at once against a
		// limit of 7 let exactly 7 through.
		var passed atomic.Int64
		var wg sync.WaitGroup
		flood := []store.SignInLimit{{Subject: "addr:198.51.100.7", Max: 7}}
		for range 40 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				until, err := s.ReserveSignIn(ctx, flood, window)
				if err != nil {
					t.Error(err)
				} else if until.IsZero() {
					passed.Add(1)
				}
			}()
		}
		wg.Wait()
		if n := passed.Load(); n != 7 {
			t.Fatalf("%d of 40 parallel attempts passed a limit of 7", n)
		}

		// A setup link makes one account, granted its workspace.
		at = base
		def, err := s.CreateWorkspace(ctx, "default", 10, true)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.CreateSetupLink(ctx, "link", def.ID, base.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if w, err := s.SetupLink(ctx, "link"); err != nil || w.ID != def.ID {
			t.Fatalf("SetupLink = %v, %v", w, err)
		}
		u, err := s.UseSetupLink(ctx, "link", "owner@example.com", "hash")
		if err != nil {
			t.Fatal(err)
		}
		if ws, _ := s.UserWorkspaces(ctx, u.ID); len(ws) != 1 || ws[0].ID != def.ID {
			t.Fatalf("setup account's workspaces = %+v", ws)
		}
		if _, err := s.UseSetupLink(ctx, "link", "eve@example.com", "hash"); model.ErrorCode(err) != model.CodeNotFound {
			t.Fatalf("second use of a setup link: got %v, want not_found", err)
		}
		if _, err := s.SetupLink(ctx, "link"); model.ErrorCode(err) != model.CodeNotFound {
			t.Fatalf("used link still valid: %v", err)
		}
		if err := s.CreateSetupLink(ctx, "late", def.ID, base.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		at = base.Add(2 * time.Hour)
		if _, err := s.UseSetupLink(ctx, "late", "late@example.com", "hash"); model.ErrorCode(err) != model.CodeNotFound {
			t.Fatalf("expired setup link: got %v, want not_found", err)
		}
		if _, err := s.UserByEmail(ctx, "late@example.com"); model.ErrorCode(err) != model.CodeNotFound {
			t.Fatal("an expired link made an account")
		}
	})
}

func TestCreditsPerDay(t *testing.T) {
	storetest.Each(t, func(t *testing.T, dialect string) {
		s := storetest.Open(t, dialect)
		w, err := s.CreateWorkspace(ctx, "acme", 10, false)
		if err != nil {
			t.Fatal(err)
		}
		day := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
		row := func(at time.Time, prefix, endpoint string, credits int64) store.Record {
			return store.Record{Usage: model.Usage{WorkspaceID: w.ID, KeyPrefix: prefix, Endpoint: endpoint, Credits: credits,
				Tier: model.TierHTTP, Status: 200, RequestID: "r", CreatedAt: at},
				Activity: model.Activity{WorkspaceID: w.ID, KeyPrefix: prefix, Endpoint: endpoint, Via: model.ViaHTTP,
					Method: "POST", Status: 200, RequestID: "r", CreatedAt: at}}
		}
		recs := []store.Record{
			row(day.Add(time.Hour), "mc_a", "/api/v1/fetch", 1),
			row(day.Add(23*time.Hour+59*time.Minute), "mc_b", "/api/v1/fetch", 3),
			row(day.Add(24*time.Hour+time.Minute), "mc_a", "/api/v1/map", 1),
			row(day.Add(72*time.Hour), "mc_a", "/api/v1/fetch", 5),
		}
		if err := s.WriteRecords(ctx, recs); err != nil {
			t.Fatal(err)
		}
		got, err := s.CreditsPerDay(ctx, w.ID, model.LogFilter{Since: day, Before: day.Add(72 * time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || !got[0].Day.Equal(day) || got[0].Credits != 4 || got[0].Calls != 2 ||
			!got[1].Day.Equal(day.Add(24*time.Hour)) || got[1].Credits != 1 {
			t.Fatalf("CreditsPerDay = %+v", got)
		}
		got, _ = s.CreditsPerDay(ctx, w.ID, model.LogFilter{KeyPrefix: "mc_a", Endpoint: "/api/v1/fetch"})
		if len(got) != 2 || got[0].Credits != 1 || got[1].Credits != 5 {
			t.Fatalf("CreditsPerDay of mc_a's fetches = %+v", got)
		}
	})
}
