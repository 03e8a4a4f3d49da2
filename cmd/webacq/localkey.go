package main

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// localSecretKey gives the local database (the default one, used without
// WEBACQ_DATABASE_URL, as `make run` does) a secret key when none is set:
// it is generated once and kept beside the database in secret.key (mode
// 0600), so that webhooks and Slack URLs can be sealed on a fresh install
// and every later command and node on that database opens them (issue 22).
// A deployment sets WEBACQ_SECRET_KEY itself, from its secret store.
func localSecretKey(databaseURL string) (key, path string, err error) {
	db, ok := strings.CutPrefix(databaseURL, "sqlite:")
	if !ok {
		return "", "", nil
	}
	dir := filepath.Dir(db)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", "", fmt.Errorf("secret key: %w", err)
	}
	path = filepath.Join(dir, "secret.key")
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		var raw [32]byte
		rand.Read(raw[:])
		fresh := base64.StdEncoding.EncodeToString(raw[:]) + "\n"
		f, cerr := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		switch {
		case cerr == nil:
			_, werr := f.WriteString(fresh)
			if cerr := f.Close(); werr == nil {
				werr = cerr
			}
			if werr != nil {
				return "", "", fmt.Errorf("secret key: %w", werr)
			}
			return strings.TrimSpace(fresh), path, nil
		case errors.Is(cerr, fs.ErrExist): // another process made it first
			b, err = os.ReadFile(path)
		default:
			return "", "", fmt.Errorf("secret key: %w", cerr)
		}
	}
	if err != nil {
		return "", "", fmt.Errorf("secret key: %w", err)
	}
	key = strings.TrimSpace(string(b))
	if len(key) < 16 {
		return "", "", fmt.Errorf("secret key: %s holds %d characters, want at least 16 (delete it to make a new one only if nothing was sealed with it)", path, len(key))
	}
	return key, path, nil
}

// readOnlyCommands change nothing in the database; every other command
// that opens it prints which one first. serve and worker log it instead.
var readOnlyCommands = map[string]bool{"serve": true, "worker": true, "workspace list": true, "key list": true, "user list": true}

// redactURL hides a database URL's password.
func redactURL(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.User != nil {
		return u.Redacted()
	}
	return raw
}
