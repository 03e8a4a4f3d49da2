package httpapi_test

import (
	"encoding/base64"
	"io"
	"sync"
)

func basic(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
