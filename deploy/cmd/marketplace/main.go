// Command marketplace is the all-in-one program and its development tools
// (`marketplace help` lists them, `marketplace help <command>` shows one's
// flags and examples; every command also takes -h or --help):
//
//	marketplace [run]                         the gateway and every service, embedded engines (no command: run)
//	marketplace call [flags] OPERATION [JSON | -]  calls one operation of a running system and prints its answer
//	marketplace ops [FILTER] [-json]           the operations with their kind, access and arguments
//	marketplace upload [-as USER] FILE        uploads a photo, prints its storageId
//	marketplace completion bash|zsh           a shell completion script (commands, flags, operations)
//	marketplace token -sub USER [-roles admin] [-name NAME] [-ttl 24h]
//	marketplace console [-owner USER] [-ttl 1h]  sign-in links to the admin console and the store portal (development tokens)
//	marketplace sign-webhook -file BODY       prints the processor-signature header for BODY
//	marketplace pay -intent PI [-outcome failed]  settles a payment intent with the processor simulator (either mode's)
//	marketplace run-distributed [-bin DIR]    the broker, every service and the gateway as processes of their own binaries
//	marketplace broker [-port 9092] [-data DIR] (-users FILE | -no-auth)  the embedded Kafka-protocol broker on its own
//	marketplace processor [-webhook URL] [-data DIR]  the payment processor simulator on its own (HTTP_ADDR)
//	marketplace dead-letters -group GROUP [-replay [-id IDS]]  a consumer group's parked events, or their replay to it alone
//	marketplace version [-json]                the build: version, commit (and whether the tree was modified), Go
//	marketplace keygen [-all] [SERVICE...|gateway]  a key pair per service (SERVICE_KEY, SERVICE_PUBLIC_KEYS), and the gateway's
//	marketplace help [COMMAND]                this list, or one command's usage
//
// Flags take one dash or two (-as, --as). Exit status: 0 done, 1 failed (a
// call's error: its code and message on stderr), 2 a usage error.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"marketplace/deploy/processor"
	"marketplace/deploy/system"
	"marketplace/libs/auth"
	"marketplace/libs/program"
	"marketplace/libs/version"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := runCLI(ctx, os.Args[1:], &cli{getenv: os.Getenv, stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr})
	stop()
	os.Exit(exitCode(err, os.Stderr))
}

// runArgs runs one command line with the process's stdin and stderr.
func runArgs(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	return runCLI(ctx, args, &cli{getenv: getenv, stdin: os.Stdin, stdout: stdout, stderr: os.Stderr})
}

func token(args []string, getenv func(string) string, stdout io.Writer) error {
	fs := newFlags("token")
	sub := fs.String("sub", "", "the `USER` id (the token's subject); required")
	roles := fs.String("roles", "", "comma-separated `ROLES`, e.g. admin")
	name := fs.String("name", "", "the person's `NAME` (the token's name claim), shown beside the id in what they change")
	ttl := fs.Duration("ttl", 24*time.Hour, "lifetime, a `DURATION` such as 1h")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *sub == "" {
		return usageErr(fs, "-sub is required")
	}
	if fs.NArg() > 0 {
		return usageErr(fs, "unexpected arguments %q", fs.Args())
	}
	tok, err := devToken(getenv, *sub, *name, *roles, *ttl)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, tok)
	return nil
}

// devToken mints a development token as `make token` does: HS256 with the
// development secret (AUTH_DEV_SECRET, or the one `make run` keeps in
// DATA_DIR), with the issuer and audience the system expects.
func devToken(getenv func(string) string, sub, name, roles string, ttl time.Duration) (string, error) {
	secret, err := system.DevSecret(getenv)
	if err != nil {
		return "", err
	}
	cfg, err := program.Load(getenv)
	if err != nil {
		return "", err
	}
	var rs []string
	for _, r := range strings.Split(roles, ",") {
		if r = strings.TrimSpace(r); r != "" {
			rs = append(rs, r)
		}
	}
	return auth.MintNamed([]byte(secret), sub, name, rs, ttl, cfg.AuthOptions())
}

// signWebhook signs a body the way the processor does: t=<unix>,v1=<hex HMAC-SHA256
// of "<t>.<body>"> keyed with PROCESSOR_WEBHOOK_SECRET.
func signWebhook(args []string, getenv func(string) string, stdout io.Writer) error {
	fs := newFlags("sign-webhook")
	file := fs.String("file", "", "the `FILE` of the raw request body; required")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *file == "" {
		return usageErr(fs, "-file is required")
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
	fs := newFlags("version")
	asJSON := fs.Bool("json", false, "print the JSON object GET /version answers")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	v := version.Get()
	if *asJSON {
		return json.NewEncoder(stdout).Encode(v)
	}
	fmt.Fprintln(stdout, "marketplace", v)
	return nil
}
