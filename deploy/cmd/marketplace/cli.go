package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"marketplace/deploy/system"
	"marketplace/libs/ops"
)

// cli is what a command line runs with.
type cli struct {
	getenv         func(string) string
	stdin          io.Reader
	stdout, stderr io.Writer
}

// command is one subcommand: its usage line, what it does, examples, and
// its body. Each body declares its flags with newFlags and reads them with
// parseFlags first, before doing anything, so `<command> -h` shows them.
type command struct {
	name     string
	synopsis string // what follows "marketplace <name>" in the usage line
	summary  string // one line, for the command list
	details  string // paragraphs after the usage line
	examples []string
	run      func(ctx context.Context, c *cli, args []string) error
}

// commands are the program's subcommands, in the order help lists them.
var commands []command

func init() {
	commands = []command{
		{name: "run", synopsis: "", summary: "the whole system in one process on embedded engines (the default with no command)",
			details:  "The gateway and every service in one process; data in DATA_DIR (default ./data). `marketplace` with no command runs it too. Settings come from the environment (README, Configuration).",
			examples: []string{"marketplace run", "DATA_DIR=/tmp/mp HTTP_ADDR=127.0.0.1:9090 marketplace run"},
			run: func(ctx context.Context, c *cli, args []string) error {
				fs := newFlags("run")
				if err := parseFlags(fs, args); err != nil {
					return err
				}
				if fs.NArg() > 0 {
					return usageErr(fs, "unexpected arguments %q", fs.Args())
				}
				return system.Run(ctx, system.Options{Getenv: c.getenv, Stdout: c.stdout, Stderr: c.stderr})
			}},
		{name: "call", synopsis: "[flags] OPERATION [JSON | -]", summary: "call one operation of a running system and print its answer",
			details: "OPERATION is a public operation's path: stores.reviews.addReview, stores/reviews:addReview or stores/reviews/addReview. " +
				"JSON is its arguments object (omitted: {}; -: read from stdin). Whether it is a query or a mutation comes from the gateway's declarations (GET /api/operations). " +
				"The answer is printed as indented JSON; a failure prints CODE: message and the details on stderr and exits 1. Flags may come before or after the arguments.",
			examples: []string{
				"marketplace call catalog.locations.listCities",
				"CITY=$(marketplace call --as admin-1 --roles admin admins.catalog.createCity '{\"name\":\"Dubai\",\"nameArabic\":\"دبي\"}' --get .)",
				"marketplace call catalog.stores.listStores '{\"paginationOpts\":{\"numItems\":5,\"cursor\":null}}' --get page.0._id",
				"echo '{}' | marketplace call --as user-1 customers/profile:getMyProfile -",
				"MARKETPLACE_TOKEN=$(marketplace token -sub user-1) marketplace call notifications.inbox.list '{\"paginationOpts\":{\"numItems\":10,\"cursor\":null}}'",
			},
			run: func(ctx context.Context, c *cli, args []string) error { return callCmd(ctx, c, args) }},
		{name: "ops", synopsis: "[flags] [FILTER]", summary: "list the operations of a running system: kind, access, arguments",
			details: "FILTER keeps the operations whose path contains it (any case), or matches it as a glob when it has * ? or [ (stores.reviews.*). " +
				"Arguments read name: type, name?: type when optional. The list comes from the gateway (GET /api/operations).",
			examples: []string{"marketplace ops", "marketplace ops reviews", "marketplace ops 'admins.*' --json"},
			run:      func(ctx context.Context, c *cli, args []string) error { return opsCmd(ctx, c, args) }},
		{name: "upload", synopsis: "[flags] FILE", summary: "upload a photo (image bytes) and print its storageId",
			details:  "Sends FILE (- for stdin) to POST /api/storage/upload with the image type its bytes show, as the user of --as or of MARKETPLACE_TOKEN, and prints the storageId to pass to an operation (e.g. a review's photos).",
			examples: []string{"PHOTO=$(marketplace upload --as customer-1 cake.jpg)"},
			run:      func(ctx context.Context, c *cli, args []string) error { return uploadCmd(ctx, c, args) }},
		{name: "completion", synopsis: "bash|zsh", summary: "print a shell completion script (commands, flags, operation paths)",
			details: "Operation paths are completed from the running system (marketplace ops --names, a 2-second limit; --url or MARKETPLACE_URL on the line are followed); without one, commands and flags still complete. " +
				"zsh uses its bash completion emulation (bashcompinit).",
			examples: []string{"source <(marketplace completion bash)   # in ~/.bashrc", "source <(marketplace completion zsh)    # in ~/.zshrc, after compinit"},
			run:      func(ctx context.Context, c *cli, args []string) error { return completionCmd(c, args) }},
		{name: "token", synopsis: "-sub USER [-roles admin] [-name NAME] [-ttl 24h]", summary: "print a development token (make token)",
			details:  "Signed with the development secret: AUTH_DEV_SECRET, or the one `make run` keeps in DATA_DIR.",
			examples: []string{"marketplace token -sub admin-1 -roles admin -name 'Mariam Al Mansoori'", "make token SUB=user-1"},
			run:      func(ctx context.Context, c *cli, args []string) error { return token(args, c.getenv, c.stdout) }},
		{name: "console", synopsis: "[-owner USER] [-ttl 1h]", summary: "sign-in links to the admin console and the store portal (development tokens)",
			examples: []string{"marketplace console", "marketplace console -owner owner-1"},
			run: func(ctx context.Context, c *cli, args []string) error {
				return consoleLinks(ctx, args, c.getenv, c.stdout)
			}},
		{name: "sign-webhook", synopsis: "-file BODY", summary: "print the processor-signature header for a webhook body",
			examples: []string{"marketplace sign-webhook -file body.json"},
			run:      func(ctx context.Context, c *cli, args []string) error { return signWebhook(args, c.getenv, c.stdout) }},
		{name: "pay", synopsis: "-intent PI [-outcome succeeded|failed|canceled]", summary: "settle a payment intent with the processor simulator (make pay)",
			examples: []string{"marketplace pay -intent pi_123", "marketplace pay -intent pi_123 -outcome failed"},
			run:      func(ctx context.Context, c *cli, args []string) error { return pay(ctx, args, c.getenv, c.stdout) }},
		{name: "dispute", synopsis: "-intent PI [-amount AED] [-reason R] | -close DP -outcome won|lost", summary: "open or close a dispute of a paid intent with the processor simulator",
			details: "Opens a dispute on a paid payment intent as the cardholder's bank would (amount: all that is not refunded yet unless -amount; status needs_response, evidence due in 7 days), or closes one won or lost. " +
				"The simulator sends charge.dispute.created or charge.dispute.closed to the gateway from its queue; the line printed shows the dispute and the webhook's first answer. Finds the simulator as pay does.",
			examples: []string{"marketplace dispute -intent pi_123", "marketplace dispute -intent pi_123 -amount 25.50 -reason product_not_received",
				"marketplace dispute -close dp_123 -outcome lost"},
			run: func(ctx context.Context, c *cli, args []string) error { return dispute(ctx, args, c.getenv, c.stdout) }},
		{name: "run-distributed", synopsis: "[-bin DIR] [-bin-from program=DIR]", summary: "the broker, every service and the gateway as processes of their own binaries",
			examples: []string{"make run-distributed", "marketplace run-distributed -bin bin"},
			run: func(ctx context.Context, c *cli, args []string) error {
				return runDistributed(ctx, args, c.getenv, c.stdout, c.stderr)
			}},
		{name: "broker", synopsis: "[-port 9092] [-data DIR] (-users FILE | -no-auth)", summary: "the embedded Kafka-protocol broker on its own",
			examples: []string{"marketplace broker -no-auth -port 9092"},
			run: func(ctx context.Context, c *cli, args []string) error {
				return broker(ctx, args, c.getenv, c.stdout, c.stderr)
			}},
		{name: "processor", synopsis: "[-webhook URL] [-data DIR]", summary: "the payment processor simulator on its own (HTTP_ADDR)",
			examples: []string{"HTTP_ADDR=127.0.0.1:8081 marketplace processor -webhook http://127.0.0.1:8080/processor/webhook"},
			run: func(ctx context.Context, c *cli, args []string) error {
				return processorCmd(ctx, args, c.getenv, c.stdout, c.stderr)
			}},
		{name: "dead-letters", synopsis: "-group GROUP [-replay [-id IDS]] [-users FILE]", summary: "list the events a consumer group parked, or replay them to that group alone",
			details: "Each consumer group parks the events it gives up on (a handler that keeps failing, a message that is no event, an event in a version it does not read) in its own dead-letter topic, dlq.<group>, which only its service's Kafka user may read and write. " +
				"Without -replay, lists them: where each was read, when, the event, its error, and whether it was replayed. With -replay, replays those not replayed yet (or those of -id) into the same topic, where the group's consumers handle them as events of the topic they came from; no other group sees them, and the topic they came from is not written. " +
				"An event that fails again is parked again, a new line. Kafka as the services reach it: KAFKA_BROKERS, KAFKA_TLS_*, and the group's service's user in KAFKA_SASL_* (or -users FILE).",
			examples: []string{
				"KAFKA_BROKERS=kafka:9093 KAFKA_SASL_MECHANISM=SCRAM-SHA-512 KAFKA_SASL_USERNAME=notifications KAFKA_SASL_PASSWORD_FILE=password marketplace dead-letters -group notifications",
				"KAFKA_BROKERS=127.0.0.1:9092 marketplace dead-letters -group payouts -users data/distributed/broker-users.json -replay -id evt_0123",
			},
			run: func(ctx context.Context, c *cli, args []string) error {
				return deadLetters(ctx, args, c.getenv, c.stdout)
			}},
		{name: "version", synopsis: "[-json]", summary: "the build: version, commit, Go",
			examples: []string{"marketplace version", "marketplace version -json"},
			run:      func(ctx context.Context, c *cli, args []string) error { return printVersion(args, c.stdout) }},
		{name: "keygen", synopsis: "[-all] [SERVICE...|gateway]", summary: "a key pair per service (SERVICE_KEY, SERVICE_PUBLIC_KEYS) and the gateway's (AUTH_GATEWAY_KEY, AUTH_GATEWAY_PUBLIC_KEY) for deployments",
			examples: []string{"marketplace keygen payouts reviews", "marketplace keygen gateway", "marketplace keygen -all"},
			run:      func(ctx context.Context, c *cli, args []string) error { return keygen(args, c.stdout) }},
		{name: "help", synopsis: "[COMMAND]", summary: "the command list, or one command's usage",
			examples: []string{"marketplace help", "marketplace help call"},
			run:      func(ctx context.Context, c *cli, args []string) error { return helpCmd(ctx, c, args) }},
	}
}

func findCommand(name string) (command, bool) {
	for _, c := range commands {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func commandNames() []string {
	out := make([]string, len(commands))
	for i, c := range commands {
		out[i] = c.name
	}
	return out
}

// runCLI runs one command line. A request for help prints the usage on
// stdout and is no error.
func runCLI(ctx context.Context, args []string, c *cli) error {
	name := "run"
	if len(args) > 0 {
		name, args = args[0], args[1:]
	}
	switch name {
	case "-h", "-help", "--help":
		writeProgramHelp(c.stdout)
		return nil
	}
	cmd, ok := findCommand(name)
	if !ok {
		msg := fmt.Sprintf("unknown command %q", name)
		if near := ops.Nearest(name, commandNames(), 1); len(near) > 0 {
			msg += fmt.Sprintf("; did you mean %s?", near[0])
		}
		return &usageError{msg: msg + " (marketplace help lists the commands)"}
	}
	err := cmd.run(ctx, c, args)
	var help *helpRequest
	if errors.As(err, &help) {
		writeCommandHelp(c.stdout, cmd, help.fs)
		return nil
	}
	return err
}

func helpCmd(ctx context.Context, c *cli, args []string) error {
	fs := newFlags("help")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch fs.NArg() {
	case 0:
		writeProgramHelp(c.stdout)
		return nil
	case 1:
		if _, ok := findCommand(fs.Arg(0)); !ok {
			return runCLI(ctx, fs.Args(), c) // the unknown command's error
		}
		return runCLI(ctx, []string{fs.Arg(0), "-h"}, c)
	}
	return usageErr(fs, "name one command, got %q", fs.Args())
}

// commandFlags are a command's flags: its body asked for its help.
func commandFlags(cmd command) *flag.FlagSet {
	err := cmd.run(context.Background(), &cli{getenv: func(string) string { return "" }, stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}, []string{"-h"})
	var help *helpRequest
	if errors.As(err, &help) {
		return help.fs
	}
	return newFlags(cmd.name)
}

func writeProgramHelp(w io.Writer) {
	fmt.Fprint(w, `marketplace: the all-in-one marketplace and its development tools.

Usage: marketplace [COMMAND] [flags] [arguments]   (no command: run)

Commands:
`)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, c := range commands {
		fmt.Fprintf(tw, "  %s\t%s\n", c.name, c.summary)
	}
	tw.Flush()
	fmt.Fprint(w, `
marketplace help COMMAND (or COMMAND -h, --help) shows a command's flags and examples.
Flags take one dash or two. Exit status: 0 done, 1 failed, 2 a usage error.
Against a running system (make run): call, ops and upload use --url (default $MARKETPLACE_URL,
else http://127.0.0.1:8080) and --as USER for a development token (else $MARKETPLACE_TOKEN).
`)
}

// writeCommandHelp is a command's whole usage (-h): what it does, its
// flags and examples.
func writeCommandHelp(w io.Writer, cmd command, fs *flag.FlagSet) {
	writeUsageLine(w, cmd)
	fmt.Fprintf(w, "\n%s.\n", upperFirst(cmd.summary))
	if cmd.details != "" {
		fmt.Fprintf(w, "\n%s\n", wrap(cmd.details, 100))
	}
	writeFlags(w, fs)
	if len(cmd.examples) > 0 {
		fmt.Fprint(w, "\nExamples:\n")
		for _, e := range cmd.examples {
			fmt.Fprintf(w, "  %s\n", e)
		}
	}
}

// writeUsage is the shorter usage after a usage error: the line and the flags.
func writeUsage(w io.Writer, cmd command, fs *flag.FlagSet) {
	writeUsageLine(w, cmd)
	writeFlags(w, fs)
}

func writeUsageLine(w io.Writer, cmd command) {
	fmt.Fprintf(w, "Usage: marketplace %s", cmd.name)
	if cmd.synopsis != "" {
		fmt.Fprintf(w, " %s", cmd.synopsis)
	}
	fmt.Fprintln(w)
}

func writeFlags(w io.Writer, fs *flag.FlagSet) {
	var n int
	fs.VisitAll(func(*flag.Flag) { n++ })
	fmt.Fprint(w, "\nFlags:\n")
	if n > 0 {
		fs.VisitAll(func(f *flag.Flag) {
			name, usage := flag.UnquoteUsage(f)
			fmt.Fprintf(w, "  --%s", f.Name)
			if name != "" {
				fmt.Fprintf(w, " %s", name)
			}
			fmt.Fprintf(w, "\n      %s", usage)
			if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "0s" {
				fmt.Fprintf(w, " (default %s)", f.DefValue)
			}
			fmt.Fprintln(w)
		})
	}
	fmt.Fprint(w, "  -h, --help\n      this usage\n")
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// wrap breaks text into lines of at most width bytes, at spaces.
func wrap(text string, width int) string {
	var b strings.Builder
	n := 0
	for _, word := range strings.Fields(text) {
		if n > 0 && n+1+len(word) > width {
			b.WriteByte('\n')
			n = 0
		} else if n > 0 {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(word)
		n += len(word)
	}
	return b.String()
}

// newFlags is a command's flag set: it prints nothing itself (runCLI and
// exitCode print the usage).
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseFlags reads the flags before the first argument, as flag does.
func parseFlags(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		return &helpRequest{fs}
	}
	if err != nil {
		return &usageError{fs: fs, msg: err.Error()}
	}
	return nil
}

// parseInterleaved reads flags anywhere on the line (call --as u op '{}'
// --get id): it returns the arguments in order. After "--" everything is an
// argument; "-" alone is one.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parseFlags(fs, args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// helpRequest is -h or --help: runCLI prints the command's usage on stdout.
type helpRequest struct{ fs *flag.FlagSet }

func (h *helpRequest) Error() string { return "help requested" }

// usageError is a command line the command cannot run: exit status 2, the
// message and a line pointing at the command's -h on stderr.
type usageError struct {
	fs  *flag.FlagSet // nil: the program's usage
	msg string
}

func (u *usageError) Error() string { return u.msg }

func usageErr(fs *flag.FlagSet, format string, a ...any) error {
	return &usageError{fs: fs, msg: fmt.Sprintf(format, a...)}
}

// failed is an error already reported on stderr (a call's CODE: message).
type failed struct{ err error }

func (f *failed) Error() string { return f.err.Error() }

// exitCode reports err on stderr as its kind asks and says the exit status.
func exitCode(err error, stderr io.Writer) int {
	var usage *usageError
	var done *failed
	switch {
	case err == nil:
		return 0
	case errors.As(err, &done):
		return 1
	case errors.As(err, &usage):
		if usage.fs == nil {
			fmt.Fprintf(stderr, "marketplace: %s\n", usage.msg)
			return 2
		}
		// The error and where to read more, not the whole usage: twenty
		// lines of flags would scroll the error away.
		fmt.Fprintf(stderr, "marketplace %s: %s\n", usage.fs.Name(), usage.msg)
		fmt.Fprintf(stderr, "Run 'marketplace %s -h' for its flags and examples.\n", usage.fs.Name())
		return 2
	}
	fmt.Fprintf(stderr, "marketplace: %v\n", err)
	return 1
}
