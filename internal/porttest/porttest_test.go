package porttest

import (
	"errors"
	"net"
	"syscall"
	"testing"
	"time"
)

func TestRefusing(t *testing.T) {
	addr := Refusing(t)
	if _, err := net.DialTimeout("tcp", addr, 5*time.Second); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("dial %s: %v, want connection refused", addr, err)
	}
	if l, err := net.Listen("tcp", addr); err == nil {
		l.Close()
		t.Fatalf("another listener took %s", addr)
	}
}

func TestReserve(t *testing.T) {
	addr, release := Reserve(t)
	for range 1000 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		got := l.Addr().String()
		l.Close()
		if got == addr {
			t.Fatalf("a listener on :0 got the reserved %s", addr)
		}
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("the server cannot listen on its reserved %s: %v", addr, err)
	}
	defer l.Close()
	release()
	go func() {
		if c, err := l.Accept(); err == nil {
			c.Close()
		}
	}()
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatalf("dial the server: %v", err)
	}
	c.Close()
}
