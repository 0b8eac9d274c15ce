package system

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"path/filepath"
	"strings"

	"marketplace/deploy/launch"
	"marketplace/deploy/processor"
	"marketplace/libs/config"
	"marketplace/libs/program"
	"marketplace/services/payments"
)

// The processor simulator's files in DATA_DIR: its secret key (when
// PROCESSOR_SECRET_KEY is not set) and its directory (intents, its URL).
const (
	processorKeyFile = "processor-secret-key"
	simulatorDir     = "processor-simulator"
	// simulatorPublishableKey is the publishable key of the simulator when
	// PROCESSOR_PUBLISHABLE_KEY is not set (a publishable key is no secret).
	simulatorPublishableKey = "pk_test_simulator"
)

// simulator is the processor simulator of a running all-in-one.
type simulator struct {
	url, key, publishableKey string
	cancel                   context.CancelFunc
	done                     chan struct{}
}

// startSimulator runs the processor simulator on loopback: payments are
// created there and its webhooks come to webhookURL, signed with
// webhookSecret. Its intents live in DATA_DIR (memory in tests).
func startSimulator(ctx context.Context, o Options, dataDir, webhookSecret, webhookURL string, logger *slog.Logger) (*simulator, error) {
	if err := refuseLiveKeys(o.Getenv); err != nil {
		return nil, err
	}
	key, err := config.Lookup(o.Getenv, payments.EnvSecretKey)
	if err != nil {
		return nil, err
	}
	if key == "" {
		k, err := secretFile(dataDir, processorKeyFile, o.Memory)
		if err != nil {
			return nil, err
		}
		key = "sk_test_" + k
	}
	pk := o.Getenv(payments.EnvPublishableKey)
	if pk == "" {
		pk = simulatorPublishableKey
	}
	delay, err := processor.WebhookDelay(o.Getenv)
	if err != nil {
		return nil, err
	}
	dir := ""
	if !o.Memory {
		dir = filepath.Join(dataDir, simulatorDir)
	}
	sim, err := processor.NewSimulator(processor.SimulatorConfig{SecretKey: key, PublishableKey: pk, WebhookURL: webhookURL,
		WebhookSecret: webhookSecret, Dir: dir, Logger: logger.With("component", "processor-simulator"), WebhookDelay: delay})
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("processor simulator: %w", err)
	}
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s := &simulator{url: "http://" + ln.Addr().String(), key: key, publishableKey: pk, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		if err := sim.Serve(sctx, ln); err != nil {
			logger.Error("processor simulator stopped", "err", err)
		}
	}()
	return s, nil
}

// refuseLiveKeys stops a start that would hand live processor keys to the
// simulator: without PROCESSOR_API_URL the all-in-one pays through its
// simulator, so an operator who set a live key (expecting the processor's
// default URL) would take "payments" that no card ever paid.
func refuseLiveKeys(getenv func(string) string) error {
	for _, name := range []string{payments.EnvSecretKey, payments.EnvPublishableKey} {
		v, err := config.Lookup(getenv, name) // the secret key may be a file
		if err != nil {
			return err
		}
		for _, live := range []string{"sk_live_", "rk_live_", "pk_live_"} {
			if strings.HasPrefix(v, live) {
				return fmt.Errorf("%s is a live key (%s...) but %s is not set, so the all-in-one would run its processor simulator with it: set %s=https://api.stripe.com to pay through the processor, or use test keys with the simulator",
					name, live, payments.EnvAPIURL, payments.EnvAPIURL)
			}
		}
	}
	return nil
}

func (s *simulator) stop() {
	s.cancel()
	<-s.done
}

// loopback is a listener's address as a client on this machine dials it
// (an unspecified host such as 0.0.0.0 becomes 127.0.0.1).
func loopback(a net.Addr) string {
	host, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}

// Simulator is how `marketplace pay` reaches the simulator of the all-in-one
// that runs with the same environment: its URL (from DATA_DIR) and its
// secret key.
func Simulator(getenv func(string) string) (url, key string, err error) {
	cfg, err := program.Load(getenv)
	if err != nil {
		return "", "", err
	}
	if u := getenv(payments.EnvAPIURL); u != "" {
		return "", "", fmt.Errorf("%s is set (%s): the all-in-one pays through that processor, not its simulator", payments.EnvAPIURL, u)
	}
	url, err = processor.SimulatorURL(filepath.Join(cfg.DataDir, simulatorDir))
	if err != nil {
		return "", "", fmt.Errorf("no processor simulator in %s yet: start the system with `make run` (same DATA_DIR): %w", cfg.DataDir, err)
	}
	if key, err = SimulatorKey(getenv); err != nil {
		return "", "", err
	}
	return url, key, nil
}

// Simulators is how `marketplace pay` reaches the processor simulators run
// with the same environment: the all-in-one's (`make run`) and the
// distributed mode's (`make run-distributed`, launch.ProcessorDir), each
// whose URL is in DATA_DIR, and the secret key both take.
func Simulators(getenv func(string) string) (urls []string, key string, err error) {
	cfg, err := program.Load(getenv)
	if err != nil {
		return nil, "", err
	}
	if u := getenv(payments.EnvAPIURL); u != "" {
		return nil, "", fmt.Errorf("%s is set (%s): payments go through that processor, not a simulator", payments.EnvAPIURL, u)
	}
	for _, dir := range []string{simulatorDir, launch.ProcessorDir} {
		if u, err := processor.SimulatorURL(filepath.Join(cfg.DataDir, dir)); err == nil && u != "" {
			urls = append(urls, u)
		}
	}
	if len(urls) == 0 {
		return nil, "", fmt.Errorf("no processor simulator in %s yet: start the system with `make run` or `make run-distributed` (same DATA_DIR)", cfg.DataDir)
	}
	if key, err = SimulatorKey(getenv); err != nil {
		return nil, "", err
	}
	return urls, key, nil
}

// SimulatorKey is the secret key the simulators take: PROCESSOR_SECRET_KEY, or
// the one both modes keep in DATA_DIR.
func SimulatorKey(getenv func(string) string) (string, error) {
	if key, err := config.Lookup(getenv, payments.EnvSecretKey); err != nil || key != "" {
		return key, err
	}
	k, err := readSecret(getenv, payments.EnvSecretKey, processorKeyFile)
	if err != nil {
		return "", err
	}
	return "sk_test_" + k, nil
}
