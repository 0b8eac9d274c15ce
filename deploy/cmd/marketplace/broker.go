package main

import (
	"context"
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
func broker(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, err := program.Load(getenv)
	if err != nil {
		return err
	}
	fs := flag.NewFlagSet("broker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	port := fs.Int("port", 9092, "port on 127.0.0.1 to listen on (0: any free port)")
	dir := fs.String("data", filepath.Join(cfg.DataDir, "distributed", "kafka"), "data directory (topics, records, committed offsets)")
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
	if err := os.MkdirAll(*dir, 0o700); err != nil {
		return fmt.Errorf("broker: -data: %w", err)
	}
	logger := cfg.Logger(stdout).With("program", "broker")
	topics := modules.Topics(modules.All)
	b, err := events.StartBrokerOn(*port, *dir, topics...)
	if err != nil {
		return fmt.Errorf("broker: %w (is port %d taken?)", err, *port)
	}
	// Close saves the state to the data directory.
	defer b.Close()
	addr := b.Addrs()[0]
	logger.Info(BrokerReadyPrefix+addr, append(version.Get().Attrs(), "addr", addr, "dataDir", *dir, "topics", len(topics))...)
	fmt.Fprintf(stderr, "%s%s (data in %s); services take it as KAFKA_BROKERS=%s\n", BrokerReadyPrefix, addr, *dir, addr)
	<-ctx.Done()
	logger.Info("broker stopping: saving its state", "dataDir", *dir)
	return nil
}
