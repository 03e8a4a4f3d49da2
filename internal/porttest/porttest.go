// Package porttest gives tests ports of 127.0.0.1 that no other socket of
// the machine can take meanwhile. A port picked by listening on :0 and
// closing at once is free again: any connection or listener of the machine
// (other tests run beside) may get it before the test uses it. These keep
// the port bound, not listening, for as long as the test needs.
package porttest

import (
	"net"
	"strconv"
	"sync"
	"syscall"
	"testing"
)

// Refusing returns an address where nothing listens and nothing can until
// the test ends: a connection to it is refused.
func Refusing(t testing.TB) string {
	t.Helper()
	addr, _ := bound(t, false)
	return addr
}

// Reserve returns an address for a server the test starts (a process that
// listens on it with SO_REUSEADDR, as Go's net package does): the port is
// kept bound with SO_REUSEADDR, not listening, so the server may bind and
// listen on it while the kernel gives it to no other socket. Call release
// once the server listens; it runs at the test's end too.
func Reserve(t testing.TB) (addr string, release func()) {
	t.Helper()
	return bound(t, true)
}

func bound(t testing.TB, reuse bool) (string, func()) {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	release := func() { once.Do(func() { syscall.Close(fd) }) }
	t.Cleanup(release)
	if reuse {
		if err := syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(sa.(*syscall.SockaddrInet4).Port)), release
}
