package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strings"

	"marketplace/deploy/launch"
	"marketplace/deploy/processor"
	"marketplace/libs/config"
	"marketplace/libs/program"
	"marketplace/libs/version"
	"marketplace/services/payments"
)

// processorCmd runs the payment processor simulator on its own: the
// processor of the distributed mode (`make run-distributed` starts it before
// the payments service, which gets PROCESSOR_API_URL pointing at it; compose
// runs it as the `processor` service). It listens on HTTP_ADDR, creates
// intents with PROCESSOR_SECRET_KEY (and the publishable key
// PROCESSOR_PUBLISHABLE_KEY with a client secret), and sends its webhooks,
// signed with PROCESSOR_WEBHOOK_SECRET, to -webhook (PROCESSOR_WEBHOOK_URL):
// the gateway's POST /processor/webhook; those of refunds, disputes and
// payouts are queued, and PROCESSOR_SIMULATOR_WEBHOOK_DELAY (e.g. 5s)
// postpones them for demos. Its intents, refunds, disputes, payouts, queued
// webhooks and its URL (for `marketplace pay` and `marketplace dispute`)
// live in -data.
func processorCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, err := program.Load(getenv)
	if err != nil {
		return err
	}
	fs := newFlags("processor")
	dir := fs.String("data", filepath.Join(cfg.DataDir, launch.ProcessorDir), "data directory `DIR` (intents, idempotency keys, the URL for marketplace pay)")
	webhook := fs.String("webhook", getenv(launch.EnvProcessorWebhookURL), "the `URL` events go to: the gateway's POST /processor/webhook (default "+launch.EnvProcessorWebhookURL+")")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("processor: unexpected arguments %q", fs.Args())
	}
	key, err := config.Lookup(getenv, payments.EnvSecretKey)
	if err != nil {
		return fmt.Errorf("processor: %w", err)
	}
	secret, err := config.Lookup(getenv, payments.EnvWebhookSecret)
	if err != nil {
		return fmt.Errorf("processor: %w", err)
	}
	pk := getenv(payments.EnvPublishableKey)
	if pk == "" {
		pk = launch.SimulatorPublishableKey
	}
	switch {
	case key == "":
		return fmt.Errorf("processor: set %s (the key the payments service calls with)", payments.EnvSecretKey)
	case secret == "":
		return fmt.Errorf("processor: set %s (the simulator signs its webhooks with it)", payments.EnvWebhookSecret)
	case *webhook == "":
		return fmt.Errorf("processor: set -webhook or %s (the gateway's POST /processor/webhook)", launch.EnvProcessorWebhookURL)
	}
	for _, k := range []string{key, pk} {
		for _, live := range []string{"sk_live_", "rk_live_", "pk_live_"} {
			if strings.HasPrefix(k, live) {
				return fmt.Errorf("processor: a live key (%s...) is set: the simulator takes test keys only, live payments go to the processor itself", live)
			}
		}
	}
	delay, err := processor.WebhookDelay(getenv)
	if err != nil {
		return fmt.Errorf("processor: %w", err)
	}
	logger := cfg.Logger(stdout).With("program", "processor")
	sim, err := processor.NewSimulator(processor.SimulatorConfig{SecretKey: key, PublishableKey: pk, WebhookURL: *webhook,
		WebhookSecret: secret, Dir: *dir, Logger: logger, WebhookDelay: delay})
	if err != nil {
		return fmt.Errorf("processor: %w", err)
	}
	ln, err := net.Listen("tcp", cfg.HTTPAddr)
	if err != nil {
		return fmt.Errorf("processor: %w", err)
	}
	logger.Info("processor simulator ready at http://"+ln.Addr().String(), append(version.Get().Attrs(), "addr", ln.Addr().String(), "webhook", *webhook, "dataDir", *dir)...)
	return sim.Serve(ctx, ln)
}
