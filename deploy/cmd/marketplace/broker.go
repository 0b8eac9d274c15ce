package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

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
// It requires the SASL users of the -users file (the launcher writes one per
// run: a user for each service and the gateway), each allowed only its own
// topics and groups (modules.KafkaACLs); a superuser it makes for its own
// set-up (topics, ACLs) is given to nobody. -no-auth accepts anyone.
func broker(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, err := program.Load(getenv)
	if err != nil {
		return err
	}
	fs := newFlags("broker")
	port := fs.Int("port", 9092, "the `PORT` on 127.0.0.1 to listen on (0: any free port)")
	dir := fs.String("data", filepath.Join(cfg.DataDir, "distributed", "kafka"), "data directory `DIR` (topics, records, committed offsets)")
	usersFile := fs.String("users", "", "`FILE` of the SASL users, readable by its owner only: a JSON list of {\"name\", \"mechanism\", \"password\"}, each a service of the module list or \"gateway\"")
	noAuth := fs.Bool("no-auth", false, "accept clients without authentication: anyone who reaches the port can read and publish events")
	if err := parseFlags(fs, args); err != nil {
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
	if cfg.KafkaSASLMechanism != "" || cfg.KafkaSASLUsername != "" || cfg.KafkaSASLPassword != "" {
		return errors.New("broker: the KAFKA_SASL_ settings are a client's: the broker's users, one for each service and the gateway, come from -users; unset them")
	}
	var users []events.ACLUser
	switch {
	case *noAuth && *usersFile != "":
		return errors.New("broker: -no-auth and -users: choose one")
	case *noAuth:
		fmt.Fprintln(stderr, "broker: -no-auth: any process that reaches the port can read and publish events")
	case *usersFile == "":
		return errors.New("broker: -users FILE is required: the SASL users clients authenticate as, one for each service and the gateway " +
			"(make run-distributed writes one per run); or -no-auth")
	default:
		if users, err = brokerUsers(*usersFile); err != nil {
			return fmt.Errorf("broker: -users: %w", err)
		}
	}
	if err := os.MkdirAll(*dir, 0o700); err != nil {
		return fmt.Errorf("broker: -data: %w", err)
	}
	logger := cfg.Logger(stdout).With("program", "broker")
	topics := modules.Topics(modules.All)
	o := events.BrokerOptions{Port: *port, DataDir: *dir, Topics: topics}
	names := make([]string, len(users))
	for i, u := range users {
		names[i] = u.Username
	}
	if len(users) > 0 {
		o.Users, o.ACLUsers = []events.Credentials{events.NewUser("broker-admin")}, users
	}
	b, err := events.StartBrokerWith(o)
	if err != nil {
		return fmt.Errorf("broker: %w (is port %d taken?)", err, *port)
	}
	// Close saves the state to the data directory.
	defer b.Close()
	addr := b.Addrs()[0]
	logger.Info(BrokerReadyPrefix+addr, append(version.Get().Attrs(), "addr", addr, "dataDir", *dir, "topics", len(topics), "users", names)...)
	how := "without authentication"
	if len(users) > 0 {
		how = fmt.Sprintf("each program as its own user of %s (%s), allowed only its own topics and groups", *usersFile, strings.Join(names, ", "))
	}
	fmt.Fprintf(stderr, "%s%s (data in %s); services take it as KAFKA_BROKERS=%s, %s\n", BrokerReadyPrefix, addr, *dir, addr, how)
	<-ctx.Done()
	logger.Info("broker stopping: saving its state", "dataDir", *dir)
	return nil
}

// brokerUsers are the users of a users file, each with the ACLs the module
// list gives its program; a name that is no program's is refused.
func brokerUsers(path string) ([]events.ACLUser, error) {
	creds, err := launch.ReadBrokerUsers(path)
	if err != nil {
		return nil, err
	}
	if len(creds) == 0 {
		return nil, fmt.Errorf("%s names no user", path)
	}
	acls := modules.KafkaACLs(modules.All)
	out := make([]events.ACLUser, 0, len(creds))
	for _, c := range creds {
		a, ok := acls[c.Username]
		if !ok {
			return nil, fmt.Errorf("%s: user %q is neither a service of the module list nor %q: a user's ACLs come from the module list (%s)",
				path, c.Username, modules.Gateway, strings.Join(append(modules.Names(), modules.Gateway), ", "))
		}
		out = append(out, events.ACLUser{Credentials: c, ACLs: a})
	}
	return out, nil
}
