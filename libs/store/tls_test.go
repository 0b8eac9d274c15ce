package store

import (
	"context"
	"crypto/tls"
	"net/url"
	"strings"
	"testing"
	"time"

	"marketplace/libs/tlstest"
)

// MongoDB's TLS is configured in MONGODB_URI (deploy/README.md): the URI's
// tls, tlsCAFile and tlsCertificateKeyFile reach the driver as they are. A
// server here that speaks TLS, not MongoDB, sees whether a client's handshake
// completed: with the URI's CA and client certificate it does; trusting
// another CA, or without TLS, it does not; a CA file that cannot be read
// stops Open.
func TestMongoTLSThroughTheURI(t *testing.T) {
	ca := tlstest.NewCA(t, "mongo-ca")
	server, client := ca.Server(t, "mongo"), ca.Client(t, "payouts")
	other := tlstest.NewCA(t, "other-ca")
	// Each case has a server of its own: the driver opens more than one
	// connection, and a late handshake of one case's client once reached
	// the next case's check (a CI run on a busy machine).
	listen := func(t *testing.T) (base string, handshakes chan error) {
		ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{server.Pair},
			ClientCAs: ca.Pool, ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ln.Close() })
		handshakes = make(chan error, 100)
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				go func() {
					defer c.Close()
					c.SetDeadline(time.Now().Add(5 * time.Second))
					handshakes <- c.(*tls.Conn).Handshake()
				}()
			}
		}()
		return "mongodb://" + ln.Addr().String() + "/?directConnection=true&serverSelectionTimeoutMS=1500", handshakes
	}
	q := url.QueryEscape
	for _, tc := range []struct {
		name string
		opts string
		ok   bool
	}{
		{"the URI's CA and client certificate", "&tls=true&tlsCAFile=" + q(ca.File) + "&tlsCertificateKeyFile=" + q(client.BothFile), true},
		{"another CA", "&tls=true&tlsCAFile=" + q(other.File) + "&tlsCertificateKeyFile=" + q(client.BothFile), false},
		{"no TLS", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base, handshakes := listen(t)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			db, err := Open(ctx, Options{Name: "payouts", URI: base + tc.opts})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close(context.Background())
			pctx, pcancel := context.WithTimeout(ctx, 2*time.Second)
			defer pcancel()
			_ = db.Ping(pctx) // the server speaks no MongoDB: only the handshake matters
			select {
			case err := <-handshakes:
				if (err == nil) != tc.ok {
					t.Fatalf("server-side handshake: %v, want ok=%v", err, tc.ok)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the client never connected")
			}
		})
	}
	_, err := Open(context.Background(), Options{Name: "payouts",
		URI: "mongodb://127.0.0.1:1/?directConnection=true&tls=true&tlsCAFile=" + q(ca.File+".missing")})
	if err == nil || !strings.Contains(err.Error(), "store: connect payouts") || !strings.Contains(err.Error(), ".missing") {
		t.Fatalf("an unreadable tlsCAFile: %v", err)
	}
}

// TestMongoURIRefusesTLSWithoutVerification: tlsInsecure (sslInsecure) turns
// off the check of the server's certificate, so anyone on the path could
// stand in for the database; a URI with it stops Open naming the option
// rather than connecting (a private CA goes in tlsCAFile).
func TestMongoURIRefusesTLSWithoutVerification(t *testing.T) {
	for _, opt := range []string{"tlsInsecure=true", "sslInsecure=true", "TLSINSECURE=true"} {
		uri := "mongodb://127.0.0.1:1/?directConnection=true&tls=true&" + opt
		_, err := Open(context.Background(), Options{Name: "payouts", URI: uri})
		if err == nil || !strings.Contains(err.Error(), "store: connect payouts") || !strings.Contains(err.Error(), "tlsInsecure") {
			t.Errorf("%s: %v, want a refusal naming tlsInsecure", opt, err)
		}
	}
	// tlsInsecure=false is the default, said out loud.
	db, err := Open(context.Background(), Options{Name: "payouts", URI: "mongodb://127.0.0.1:1/?directConnection=true&tls=true&tlsInsecure=false"})
	if err != nil {
		t.Fatalf("tlsInsecure=false: %v", err)
	}
	db.Close(context.Background())
}
