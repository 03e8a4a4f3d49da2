package store_test

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"webacq/internal/model"
	"webacq/internal/store"
	"webacq/internal/store/storetest"
)

// logRecord is one free call's rows, told apart by its request id.
func logRecord(ws, requestID string, credits int64, s *store.Store) store.Record {
	at := s.Now()
	return store.Record{
		Usage: model.Usage{WorkspaceID: ws, KeyPrefix: "mc_test", Endpoint: "/api/v1/health", Credits: credits,
			Tier: "none", Status: 200, RequestID: requestID, CreatedAt: at},
		Activity: model.Activity{WorkspaceID: ws, KeyPrefix: "mc_test", Endpoint: "/api/v1/health", Via: "http",
			Method: "GET", Status: 200, Credits: credits, RequestID: requestID, CreatedAt: at},
	}
}

// requestIDs reads the request ids of a database file's usage rows.
func requestIDs(t *testing.T, path string) map[string]bool {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=query_only(1)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var check string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check of %s: %q, %v", path, check, err)
	}
	rows, err := db.Query(`SELECT request_id FROM usage_log`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	ids := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids[id] = true
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return ids
}

func TestBackupWhileWriting(t *testing.T) {
	s := storetest.Open(t, store.SQLite)
	w, err := s.CreateWorkspace(ctx, "acme", 100, false)
	if err != nil {
		t.Fatal(err)
	}
	var before []store.Record
	for i := range 500 {
		before = append(before, logRecord(w.ID, fmt.Sprintf("before-%d", i), int64(i%3), s))
	}
	if err := s.WriteRecords(ctx, before); err != nil {
		t.Fatal(err)
	}

	// Writes go on, from another goroutine, all through the backup.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var during int
	var writeErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ; ; during++ {
			select {
			case <-stop:
				return
			default:
			}
			if writeErr = s.WriteRecords(ctx, []store.Record{logRecord(w.ID, fmt.Sprintf("during-%d", during), 0, s)}); writeErr != nil {
				return
			}
		}
	}()
	dir := t.TempDir()
	first := filepath.Join(dir, "first.db")
	err = s.Backup(ctx, first)
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatalf("Backup: %v", err)
	}
	if writeErr != nil {
		t.Fatalf("a write beside the backup failed: %v", writeErr)
	}
	t.Logf("%d writes went on beside the backup", during)
	got := requestIDs(t, first)
	for _, r := range before {
		if !got[r.Usage.RequestID] {
			t.Fatalf("the backup lacks %s, written before it started (%d rows in it)", r.Usage.RequestID, len(got))
		}
	}

	// A backup taken while a write transaction is open neither waits for it
	// nor holds its rows.
	second := filepath.Join(dir, "second.db")
	err = s.InTx(ctx, func(tx store.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO usage_log (workspace_id, key_prefix, endpoint, credits, tier, status,
			duration_ms, request_id, created_at) VALUES ($1, '', '/api/v1/health', 0, 'none', 200, 0, 'uncommitted', $2)`,
			w.ID, s.Now()); err != nil {
			return err
		}
		return s.Backup(ctx, second)
	})
	if err != nil {
		t.Fatalf("Backup inside an open write transaction: %v", err)
	}
	got = requestIDs(t, second)
	if got["uncommitted"] {
		t.Error("the backup holds a row of a transaction that had not committed")
	}
	for _, r := range before {
		if !got[r.Usage.RequestID] {
			t.Fatalf("the second backup lacks %s", r.Usage.RequestID)
		}
	}

	// The copy is a database the service opens.
	b, err := store.Open(ctx, "sqlite:"+second)
	if err != nil {
		t.Fatalf("open the backup: %v", err)
	}
	defer b.Close()
	if ws, err := b.WorkspaceByName(ctx, "acme"); err != nil || ws.Credits != 100 {
		t.Errorf("workspace in the backup: %+v, %v", ws, err)
	}
	// Nothing is left beside it but the copies.
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".partial") {
			t.Errorf("a temporary file is left: %s", e.Name())
		}
	}
}

func TestBackupRefuses(t *testing.T) {
	s := storetest.Open(t, store.SQLite)
	dir := t.TempDir()
	for name, content := range map[string]string{"full": "precious", "empty": ""} {
		path := filepath.Join(dir, name+".db")
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		err := s.Backup(ctx, path)
		if model.ErrorCode(err) != model.CodeConflict {
			t.Errorf("backup over an existing %s file: %v, want %s", name, err, model.CodeConflict)
		}
		if b, _ := os.ReadFile(path); string(b) != content {
			t.Errorf("the existing %s file was changed to %d bytes", name, len(b))
		}
	}
	if err := s.Backup(ctx, filepath.Join(dir, "missing", "b.db")); err == nil {
		t.Error("backup into a missing folder: no error")
	}
	if err := s.Backup(ctx, ""); err == nil {
		t.Error("backup to an empty path: no error")
	}

	pg := storetest.Open(t, store.Postgres)
	path := filepath.Join(dir, "pg.db")
	err := pg.Backup(ctx, path)
	if err == nil || !strings.Contains(err.Error(), "pg_dump") {
		t.Errorf("backup on PostgreSQL: %v, want an error naming pg_dump", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("backup on PostgreSQL left a file: %v", err)
	}
}
