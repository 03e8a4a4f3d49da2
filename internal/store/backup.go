package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"webacq/internal/model"
)

// Backup writes a consistent copy of the SQLite database to path while the
// service keeps running: VACUUM INTO reads one snapshot of the database (a
// read transaction, which WAL lets writers of other connections go on
// beside) into a new, compacted file. It refuses to overwrite anything at
// path. On PostgreSQL it answers an error naming pg_dump, the tool for a
// server's backups.
func (s *Store) Backup(ctx context.Context, path string) error {
	if s.dialect != SQLite {
		return model.Errorf(model.CodeBadRequest,
			"backup: the database is PostgreSQL; back it up with pg_dump (pg_dump --format=custom --file=webacq.dump 'postgres://…')")
	}
	if path == "" {
		return model.Errorf(model.CodeBadRequest, "backup: give the path of the copy")
	}
	if _, err := os.Lstat(path); err == nil {
		return model.Errorf(model.CodeConflict, "backup: %s exists; give a new path (a backup never overwrites a file)", path)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("backup: %w", err)
	}
	// The copy is written beside its final name and linked there at the
	// end: a backup cut short leaves no file at path that looks whole, and
	// the link, unlike a rename, fails when path appeared meanwhile.
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.partial")
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	tmpPath := tmp.Name()
	tmp.Close()
	defer os.Remove(tmpPath)
	// A connection of its own: the readers are query_only, which refuses
	// VACUUM INTO, and the writer would hold this process's writes back.
	db, err := sql.Open("sqlite", "file:"+s.path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	defer db.Close()
	// VACUUM INTO writes into an empty file; the temporary file is one.
	if _, err := db.ExecContext(ctx, `VACUUM INTO $1`, tmpPath); err != nil {
		return fmt.Errorf("backup: vacuum into %s: %w", tmpPath, err)
	}
	if err := syncFile(tmpPath); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	if err := os.Link(tmpPath, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return model.Errorf(model.CodeConflict, "backup: %s exists; give a new path (a backup never overwrites a file)", path)
		}
		return fmt.Errorf("backup: %w", err)
	}
	return nil
}

// syncFile flushes a file's contents to disk.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
