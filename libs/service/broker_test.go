package service

import (
	"context"
	"net"
	"testing"
	"time"
)

// TestBrokerCheck: readiness fails while no broker accepts connections.
func TestBrokerCheck(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	up := ln.Addr().String()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := brokerCheck([]string{up})(ctx); err != nil {
		t.Fatalf("a listening broker failed the check: %v", err)
	}
	ln.Close()
	if err := brokerCheck([]string{up})(ctx); err == nil {
		t.Fatal("a broker that is gone passed the check")
	}
}
