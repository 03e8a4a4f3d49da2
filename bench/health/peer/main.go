// Command peer is the ceiling for bench/health: a bare net/http server that
// answers GET /api/v1/health with the same bytes and no authentication,
// database or logging. It speaks the bench's start-up protocol.
package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
)

func main() {
	body := []byte(`{"ok":true,"data":{"status":"ok"}}` + "\n")
	// Listening before saying so: the bench starts sending at once.
	ln, err := net.Listen("tcp", os.Getenv("WEBACQ_ADDR"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Fprintln(os.Stderr, "api key: mc_peer")
	fmt.Fprintln(os.Stderr, "msg=listening")
	err = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Write(body)
	}))
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
