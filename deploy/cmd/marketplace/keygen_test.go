package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"marketplace/deploy/modules"
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

	for name, args := range map[string][]string{
		"no service": {"keygen"}, "an unknown service": {"keygen", "payout"}, "names and -all": {"keygen", "-all", "payouts"},
	} {
		if err := runArgs(context.Background(), args, func(string) string { return "" }, &out); err == nil || !strings.Contains(err.Error(), "keygen") {
			t.Errorf("%s: %v", name, err)
		}
	}
}
