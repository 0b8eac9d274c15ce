package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"marketplace/deploy/deadletters"
	"marketplace/deploy/launch"
	"marketplace/libs/events"
	"marketplace/libs/program"
)

// idList is a flag given once or more, each a comma-separated list.
type idList []string

func (l *idList) String() string { return strings.Join(*l, ",") }
func (l *idList) Set(s string) error {
	for _, id := range strings.Split(s, ",") {
		if id = strings.TrimSpace(id); id != "" {
			*l = append(*l, id)
		}
	}
	return nil
}

// deadLetters lists the events a consumer group parked in its dead-letter
// topic (deploy/deadletters) or, with -replay, replays them to that
// group alone. It reaches Kafka as the services do (KAFKA_BROKERS and the
// KAFKA_TLS_/KAFKA_SASL_ settings), as the Kafka user of the group's service:
// no other user may read or write the group's dead-letter topic. -users
// takes that user from the launcher's users file instead (make
// run-distributed).
func deadLetters(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	fs := newFlags("dead-letters")
	group := fs.String("group", "", "the consumer `GROUP` (notifications, payouts, catalog.searchSettings, ...); required")
	replay := fs.Bool("replay", false, "replay the dead letters not replayed yet (all of them, or those of -id) to the group")
	var ids idList
	fs.Var(&ids, "id", "only the events of these `IDS` (comma-separated; may be repeated)")
	users := fs.String("users", "", "the Kafka user of the group's service from this users `FILE` (make run-distributed's DATA_DIR/distributed/broker-users.json) instead of KAFKA_SASL_*")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *group == "" {
		return usageErr(fs, "-group is required")
	}
	if fs.NArg() > 0 {
		return usageErr(fs, "unexpected arguments %q", fs.Args())
	}
	if len(ids) > 0 && !*replay {
		return usageErr(fs, "-id picks what -replay replays; without -replay every dead letter is listed")
	}
	brokers, err := deadLetterBrokers(fs, getenv, *group, *users)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if !*replay {
		list, err := deadletters.List(ctx, brokers, *group)
		if err != nil {
			return err
		}
		if len(list) == 0 {
			fmt.Fprintf(stdout, "no dead letters in %s\n", events.DeadLetterTopic(*group))
			return nil
		}
		printDeadLetters(stdout, list)
		return nil
	}
	var pick func(deadletters.DeadLetter) bool
	if len(ids) > 0 {
		pick = func(d deadletters.DeadLetter) bool { return slices.Contains(ids, d.ID) }
	}
	done, err := deadletters.Replay(ctx, brokers, *group, pick)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if !slices.ContainsFunc(done, func(d deadletters.DeadLetter) bool { return d.ID == id }) {
			return fmt.Errorf("dead-letters: %s has no dead letter of event %s left to replay (replayed %d); list them with marketplace dead-letters -group %s", events.DeadLetterTopic(*group), id, len(done), *group)
		}
	}
	if len(done) == 0 {
		fmt.Fprintf(stdout, "nothing to replay in %s\n", events.DeadLetterTopic(*group))
		return nil
	}
	fmt.Fprintf(stdout, "replayed %d to group %s (only it reads %s):\n", len(done), *group, events.DeadLetterTopic(*group))
	printDeadLetters(stdout, done)
	return nil
}

// deadLetterBrokers is the group's service's Kafka user: KAFKA_BROKERS and
// the other KAFKA_ settings, the user from usersFile if given.
func deadLetterBrokers(fs *flag.FlagSet, getenv func(string) string, group, usersFile string) (events.Brokers, error) {
	cfg, err := program.Load(getenv)
	if err != nil {
		return events.Brokers{}, err
	}
	k := cfg.KafkaSettings
	if len(k.KafkaBrokers) == 0 {
		return events.Brokers{}, usageErr(fs, "set KAFKA_BROKERS (and the Kafka user of the group's service: KAFKA_SASL_*, or -users): a group's dead letters are in the cluster its services use")
	}
	if usersFile != "" {
		if k.KafkaSASLUsername != "" || k.KafkaSASLPassword != "" {
			return events.Brokers{}, usageErr(fs, "-users and KAFKA_SASL_USERNAME/PASSWORD are two users: give one")
		}
		list, err := launch.ReadBrokerUsers(usersFile)
		if err != nil {
			return events.Brokers{}, err
		}
		service, _, _ := strings.Cut(group, ".")
		i := slices.IndexFunc(list, func(c events.Credentials) bool { return c.Username == service })
		if i < 0 {
			return events.Brokers{}, fmt.Errorf("dead-letters: %s has no user %q, the service of group %s", usersFile, service, group)
		}
		k.KafkaSASLMechanism, k.KafkaSASLUsername, k.KafkaSASLPassword = list[i].Mechanism, list[i].Username, list[i].Password
	}
	b, err := k.Kafka()
	if err != nil {
		return events.Brokers{}, err
	}
	return b, nil
}

func printDeadLetters(w io.Writer, list []deadletters.DeadLetter) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RECORD\tPARKED\tFROM\tEVENT\tTYPE\tSTATE\tERROR")
	for _, d := range list {
		state := "parked"
		if d.Replayed {
			state = "replayed"
		}
		id, typ := d.ID, d.Type
		if id == "" {
			id, typ, state = "-", "(not an event)", "parked; not replayable"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", d.Ref(), d.ParkedAt.UTC().Format(time.RFC3339), d.Topic, id, typ, state, oneLine(d.Error, 120))
	}
	tw.Flush()
}

// oneLine is s on one line, cut to n characters.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
