// Command marketplace is the all-in-one program and its development tools:
//
//	marketplace [run]                         the gateway and every service, embedded engines
//	marketplace token -sub USER [-roles admin] [-ttl 24h]
//	marketplace console [-owner USER] [-ttl 1h]  sign-in links to the admin console and the store portal (development tokens)
//	marketplace sign-webhook -file BODY       prints the processor-signature header for BODY
//	marketplace pay -intent PI [-outcome failed]  settles a payment intent with the processor simulator (either mode's)
//	marketplace run-distributed [-bin DIR]    the broker, every service and the gateway as processes of their own binaries
//	marketplace broker [-port 9092] [-data DIR] (-users FILE | -no-auth)  the embedded Kafka-protocol broker on its own
//	marketplace processor [-webhook URL] [-data DIR]  the payment processor simulator on its own (HTTP_ADDR)
//	marketplace version [-json]                the build: version, commit (and whether the tree was modified), Go
//	marketplace keygen [-all] [SERVICE...]     a key pair per service (SERVICE_KEY, SERVICE_PUBLIC_KEYS) for deployments
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"marketplace/deploy/processor"
	"marketplace/deploy/system"
	"marketplace/libs/auth"
	"marketplace/libs/program"
	"marketplace/libs/version"
)

func main() { program.Main("marketplace", run) }

func run(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
	return runArgs(ctx, os.Args[1:], getenv, stdout)
}

func runArgs(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	cmd := "run"
	if len(args) > 0 {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "run":
		return system.Run(ctx, system.Options{Getenv: getenv, Stdout: stdout, Stderr: os.Stderr})
	case "token":
		return token(args, getenv, stdout)
	case "console":
		return consoleLinks(ctx, args, getenv, stdout)
	case "sign-webhook":
		return signWebhook(args, getenv, stdout)
	case "pay":
		return pay(ctx, args, getenv, stdout)
	case "broker":
		return broker(ctx, args, getenv, stdout, os.Stderr)
	case "version":
		return printVersion(args, stdout)
	case "keygen":
		return keygen(args, stdout)
	case "processor":
		return processorCmd(ctx, args, getenv, stdout, os.Stderr)
	case "run-distributed":
		return runDistributed(ctx, args, getenv, stdout, os.Stderr)
	}
	return fmt.Errorf("unknown command %q (run, run-distributed, broker, processor, token, console, sign-webhook, pay, version, keygen)", cmd)
}

func token(args []string, getenv func(string) string, stdout io.Writer) error {
	fs := flag.NewFlagSet("token", flag.ContinueOnError)
	sub := fs.String("sub", "", "user id (the token's subject)")
	roles := fs.String("roles", "", "comma-separated roles, e.g. admin")
	ttl := fs.Duration("ttl", 24*time.Hour, "lifetime")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *sub == "" {
		return errors.New("token: -sub is required")
	}
	secret, err := system.DevSecret(getenv)
	if err != nil {
		return err
	}
	cfg, err := program.Load(getenv)
	if err != nil {
		return err
	}
	var rs []string
	for _, r := range strings.Split(*roles, ",") {
		if r = strings.TrimSpace(r); r != "" {
			rs = append(rs, r)
		}
	}
	tok, err := auth.Mint([]byte(secret), *sub, rs, *ttl, cfg.AuthOptions())
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, tok)
	return nil
}

// signWebhook signs a body the way the processor does: t=<unix>,v1=<hex HMAC-SHA256
// of "<t>.<body>"> keyed with PROCESSOR_WEBHOOK_SECRET.
func signWebhook(args []string, getenv func(string) string, stdout io.Writer) error {
	fs := flag.NewFlagSet("sign-webhook", flag.ContinueOnError)
	file := fs.String("file", "", "path of the raw request body")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *file == "" {
		return errors.New("sign-webhook: -file is required")
	}
	secret, err := system.WebhookSecret(getenv)
	if err != nil {
		return err
	}
	body, err := os.ReadFile(*file)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, processor.Sign(secret, body, time.Now()))
	return nil
}

// printVersion prints the build this binary runs (libs/version): one line,
// or with -json the object GET /version answers.
func printVersion(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print the JSON object GET /version answers")
	if err := fs.Parse(args); err != nil {
		return err
	}
	v := version.Get()
	if *asJSON {
		return json.NewEncoder(stdout).Encode(v)
	}
	fmt.Fprintln(stdout, "marketplace", v)
	return nil
}
