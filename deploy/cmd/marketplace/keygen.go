package main

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"marketplace/deploy/modules"
	"marketplace/libs/serviceauth"
)

// keygen makes a key pair for each service named (or every module, -all) and
// prints them in the form of an environment file, which docker compose reads
// as .env and whose lines an operator copies into Kubernetes:
//
//	# comments saying where each line goes
//	PAYOUTS_SERVICE_KEY=<private key>   that service's SERVICE_KEY (its Secret, nothing else)
//	SERVICE_PUBLIC_KEYS=payouts=<public key>,...   every service's SERVICE_PUBLIC_KEYS (a ConfigMap)
//	AUTH_GATEWAY_KEY=<private key>         the gateway's alone (-all, or the name gateway)
//	AUTH_GATEWAY_PUBLIC_KEY=<public key>   every service's: the gateway's word for who calls
//
// Keys are printed once and kept nowhere: what is lost is made anew (every
// service then needs the new public key).
func keygen(args []string, stdout io.Writer) error {
	fs := newFlags("keygen")
	all := fs.Bool("all", false, "a key pair for every service of the module list, and the gateway's")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	names := fs.Args()
	if *all {
		if len(names) > 0 {
			return errors.New("keygen: name services or give -all, not both")
		}
		names = append(modules.Names(), gatewayName)
	}
	gateway := slices.Contains(names, gatewayName)
	names = slices.DeleteFunc(slices.Clone(names), func(n string) bool { return n == gatewayName })
	if len(names) == 0 && !gateway {
		return fmt.Errorf("keygen: name the services to make keys for (marketplace keygen payouts reviews), or -all; the services: %s", strings.Join(modules.Names(), ", "))
	}
	for _, n := range names {
		if !slices.Contains(modules.Names(), n) {
			return fmt.Errorf("keygen: %q is not a service; the services: %s (and %s, the gateway's pair)", n, strings.Join(modules.Names(), ", "), gatewayName)
		}
	}
	if gateway {
		key, err := serviceauth.GenerateKey()
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, "# The gateway's key pair for the callers it forwards: it verifies users' tokens and signs its own")
		fmt.Fprintln(stdout, "# for the services. AUTH_GATEWAY_KEY is the gateway's alone (a Secret); AUTH_GATEWAY_PUBLIC_KEY")
		fmt.Fprintln(stdout, "# every service's, not secret: the services then need no AUTH_DEV_SECRET.")
		fmt.Fprintf(stdout, "AUTH_GATEWAY_KEY=%s\n", serviceauth.EncodePrivateKey(key))
		fmt.Fprintf(stdout, "AUTH_GATEWAY_PUBLIC_KEY=%s\n", serviceauth.EncodePublicKey(key.Public().(ed25519.PublicKey)))
	}
	if len(names) == 0 {
		return nil
	}
	priv, pub, err := serviceauth.Pairs(names)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, "# Private keys: each is its own service's SERVICE_KEY and goes nowhere else")
	fmt.Fprintln(stdout, "# (Kubernetes: the Secret <service>-service-key; compose: this file as .env).")
	for _, n := range slices.Sorted(maps.Keys(priv)) {
		fmt.Fprintf(stdout, "%s_SERVICE_KEY=%s\n", strings.ToUpper(n), serviceauth.EncodePrivateKey(priv[n]))
	}
	fmt.Fprintln(stdout, "# Public keys: every service's SERVICE_PUBLIC_KEYS, not secret (Kubernetes: the ConfigMap")
	fmt.Fprintln(stdout, "# marketplace-service-keys). Keys of services made earlier are added to this list, not replaced.")
	fmt.Fprintf(stdout, "SERVICE_PUBLIC_KEYS=%s\n", serviceauth.FormatPublicKeys(pub))
	return nil
}

// gatewayName names the gateway's key pair to keygen.
const gatewayName = "gateway"
