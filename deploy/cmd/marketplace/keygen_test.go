package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"marketplace/deploy/modules"
	"marketplace/libs/auth"
	"marketplace/libs/program"
	"marketplace/libs/serviceauth"
)

// marketplace keygen prints, per service, a private key a service starts
// with (SERVICE_KEY) and the public keys in SERVICE_PUBLIC_KEYS's form; the
// output is an environment file (comments and NAME=value lines).
func TestKeygen(t *testing.T) {
	var out bytes.Buffer
	if err := runArgs(context.Background(), []string{"keygen", "payouts", "reviews"}, func(string) string { return "" }, &out); err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			t.Fatalf("line %q is not NAME=value", line)
		}
		vars[k] = v
	}
	if len(vars) != 3 || vars["PAYOUTS_SERVICE_KEY"] == vars["REVIEWS_SERVICE_KEY"] {
		t.Fatalf("output:\n%s", out.String())
	}
	for _, n := range []string{"payouts", "reviews"} {
		// What a service of that name starts with, as the settings read it.
		cfg, err := program.Load(func(k string) string {
			return map[string]string{"SERVICE_KEY": vars[strings.ToUpper(n)+"_SERVICE_KEY"], "SERVICE_PUBLIC_KEYS": vars["SERVICE_PUBLIC_KEYS"]}[k]
		})
		if err != nil {
			t.Fatal(err)
		}
		creds, err := cfg.Credentials()
		if err != nil || len(creds.Peers) != 2 || creds.Check(n) != nil || !creds.Peers[n].Equal(creds.Key.Public()) {
			t.Fatalf("%s: %+v %v", n, creds, err)
		}
	}

	out.Reset()
	if err := runArgs(context.Background(), []string{"keygen", "-all"}, func(string) string { return "" }, &out); err != nil {
		t.Fatal(err)
	}
	for _, n := range modules.Names() {
		if !strings.Contains(out.String(), "\n"+strings.ToUpper(n)+"_SERVICE_KEY=") || !strings.Contains(out.String(), n+"=") {
			t.Errorf("-all: no key of %s:\n%s", n, out.String())
		}
	}
	_, list, _ := strings.Cut(out.String(), "\nSERVICE_PUBLIC_KEYS=")
	if keys, err := serviceauth.ParsePublicKeys(strings.Split(strings.TrimSpace(list), ",")); err != nil || len(keys) != len(modules.Names()) {
		t.Errorf("-all: public keys %v %v", keys, err)
	}
	// And the gateway's pair: what the gateway signs the callers it forwards
	// with, a service verifies with the public half (and no secret).
	gw := map[string]string{}
	for _, line := range strings.Split(out.String(), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok && strings.HasPrefix(k, "AUTH_GATEWAY_") {
			gw[k] = v
		}
	}
	gwCfg, err := program.Load(func(k string) string { return map[string]string{"AUTH_GATEWAY_KEY": gw["AUTH_GATEWAY_KEY"]}[k] })
	if err != nil {
		t.Fatal(err)
	}
	issuer, err := gwCfg.IdentityIssuer()
	if err != nil || issuer == nil {
		t.Fatalf("-all: the gateway's key %q: %v", gw["AUTH_GATEWAY_KEY"], err)
	}
	svcCfg, err := program.Load(func(k string) string {
		return map[string]string{"AUTH_GATEWAY_PUBLIC_KEY": gw["AUTH_GATEWAY_PUBLIC_KEY"]}[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	v, err := svcCfg.Verifier(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	tok, err := issuer.Token(&auth.Identity{Sub: "admin-1", Roles: []string{"admin"}, Expires: time.Now().Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	if id, err := v.Verify(context.Background(), tok); err != nil || id.Sub != "admin-1" || !id.IsAdmin() {
		t.Fatalf("-all: a service does not take the gateway's token: %+v %v", id, err)
	}
	out.Reset()
	if err := runArgs(context.Background(), []string{"keygen", "gateway"}, func(string) string { return "" }, &out); err != nil ||
		!strings.Contains(out.String(), "\nAUTH_GATEWAY_KEY=") || strings.Contains(out.String(), "SERVICE_KEY") {
		t.Errorf("keygen gateway: %v\n%s", err, out.String())
	}

	for name, args := range map[string][]string{
		"no service": {"keygen"}, "an unknown service": {"keygen", "payout"}, "names and -all": {"keygen", "-all", "payouts"},
	} {
		if err := runArgs(context.Background(), args, func(string) string { return "" }, &out); err == nil || !strings.Contains(err.Error(), "keygen") {
			t.Errorf("%s: %v", name, err)
		}
	}
}
