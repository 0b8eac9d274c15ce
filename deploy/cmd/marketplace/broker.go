package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"marketplace/deploy/launch"
	"marketplace/deploy/modules"
	"marketplace/libs/events"
	"marketplace/libs/program"
	"marketplace/libs/version"
)

// BrokerReadyPrefix starts the line `marketplace broker` prints (on stderr, and
// as the message of a JSON log line on stdout) once it accepts clients and
// every topic of the module list exists; the launcher waits for it.
const BrokerReadyPrefix = launch.BrokerReady

// broker runs the embedded Kafka-protocol broker (kfake) on its own: the
// broker of the distributed mode on one machine. Its topics, records and
// committed offsets live in -data and survive a restart on the same port.
// It requires the SASL user of KAFKA_SASL_MECHANISM, KAFKA_SASL_USERNAME and
// KAFKA_SASL_PASSWORD (the launcher makes one per run and gives it to the
// services and the gateway only); -no-auth accepts anyone.
func broker(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, err := program.Load(getenv)
	if err != nil {
		return err
	}
	fs := flag.NewFlagSet("broker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	port := fs.Int("port", 9092, "port on 127.0.0.1 to listen on (0: any free port)")
	dir := fs.String("data", filepath.Join(cfg.DataDir, "distributed", "kafka"), "data directory (topics, records, committed offsets)")
	noAuth := fs.Bool("no-auth", false, "accept clients without authentication: anyone who reaches the port can read and publish events")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("broker: unexpected arguments %q", fs.Args())
	}
	if *port < 0 || *port > 65535 {
		return fmt.Errorf("broker: -port %d is not a port", *port)
	}
	if *dir == "" {
		return fmt.Errorf("broker: -data is required (the broker keeps its state there)")
	}
	if cfg.KafkaTLSConfigured() {
		return errors.New("broker: it listens on loopback without TLS: unset the KAFKA_TLS_ settings")
	}
	user, err := cfg.KafkaUser()
	if err != nil {
		return fmt.Errorf("broker: %w", err)
	}
	var users []events.Credentials
	switch {
	case *noAuth && user.Mechanism != "":
		return errors.New("broker: -no-auth and KAFKA_SASL_MECHANISM: choose one")
	case *noAuth:
		fmt.Fprintln(stderr, "broker: -no-auth: any process that reaches the port can read and publish events")
	case user.Mechanism == "":
		return errors.New("broker: set KAFKA_SASL_MECHANISM (SCRAM-SHA-512), KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD (or KAFKA_SASL_PASSWORD_FILE): " +
			"the user clients must authenticate as (make run-distributed makes one per run); or -no-auth")
	default:
		users = []events.Credentials{user}
	}
	if err := os.MkdirAll(*dir, 0o700); err != nil {
		return fmt.Errorf("broker: -data: %w", err)
	}
	logger := cfg.Logger(stdout).With("program", "broker")
	topics := modules.Topics(modules.All)
	b, err := events.StartBrokerWith(events.BrokerOptions{Port: *port, DataDir: *dir, Topics: topics, Users: users})
	if err != nil {
		return fmt.Errorf("broker: %w (is port %d taken?)", err, *port)
	}
	// Close saves the state to the data directory.
	defer b.Close()
	addr := b.Addrs()[0]
	logger.Info(BrokerReadyPrefix+addr, append(version.Get().Attrs(), "addr", addr, "dataDir", *dir, "topics", len(topics), "sasl", user.Mechanism, "user", user.Username)...)
	how := "without authentication"
	if len(users) > 0 {
		how = fmt.Sprintf("with KAFKA_SASL_MECHANISM=%s as KAFKA_SASL_USERNAME=%s", user.Mechanism, user.Username)
	}
	fmt.Fprintf(stderr, "%s%s (data in %s); services take it as KAFKA_BROKERS=%s, %s\n", BrokerReadyPrefix, addr, *dir, addr, how)
	<-ctx.Done()
	logger.Info("broker stopping: saving its state", "dataDir", *dir)
	return nil
}
