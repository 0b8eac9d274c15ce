package convex

// The services' events, for live queries. Each service declares on GET /ops
// the topics it publishes and consumes; the gateway reads those topics itself,
// every partition from its end, with plain partition readers (no consumer
// group: it takes no partition from any service and commits nothing), and on
// each event re-runs the live queries of
//
//   - the services that publish the topic, at once: an event leaves the
//     outbox only after the write that made it committed;
//   - the services that consume it, once every consumer group following the
//     topic has committed past the event's offset: a consumer commits after
//     the transaction that applied the event, so its effect (a notification,
//     a wallet entry) is visible by then. The groups are found by asking the
//     broker which groups' members follow the topic. The wait polls the
//     committed offsets (5 ms at first, backing off to 100 ms) and gives up
//     after commitWaitMax, re-running anyway; events of one partition that
//     arrive while it waits are folded into it.

import (
	"context"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/segmentio/kafka-go"

	"marketplace/libs/events"
	"marketplace/libs/liveset"
)

const (
	commitWaitMax    = 30 * time.Second // a consumer slower than this is not waited for
	noGroupWaitMax   = 2 * time.Second  // no group follows the topic (yet): wait this long for one
	groupsCacheTTL   = 10 * time.Second
	followRetry      = 2 * time.Second // a declared topic without readers is looked for again
	followReaderWait = 500 * time.Millisecond
)

type topicPartition struct {
	topic     string
	partition int
}

type follower struct {
	x      *Layer
	client *kafka.Client
	seen   atomic.Int64 // events read

	mu      sync.Mutex
	reading map[topicPartition]bool
	waits   map[topicPartition]*commitWait

	groupsMu sync.Mutex
	groups   map[string][]string // topic -> consumer groups following it
	groupsAt time.Time
}

type commitWait struct {
	target   int64
	services map[string]bool
}

func newFollower(x *Layer) *follower {
	return &follower{x: x, reading: map[topicPartition]bool{}, waits: map[topicPartition]*commitWait{}}
}

// KafkaClientID names the gateway's connections to Kafka.
const KafkaClientID = "gateway-live"

// followEvents reads the declared topics until ctx ends.
func (x *Layer) followEvents(ctx context.Context) {
	brokers := x.cfg.Brokers
	if len(brokers.Addrs) == 0 {
		x.logger.Info("live queries: no KAFKA_BROKERS, so only writes through the gateway refresh them")
		return
	}
	f := x.events
	tr := brokers.Transport(KafkaClientID)
	defer tr.CloseIdleConnections() // its pools would outlive the layer (KafkaPublisher.Close)
	f.client = &kafka.Client{Addr: brokers.Addr(), Timeout: 5 * time.Second, Transport: tr}
	for {
		wait := x.topicsInterval()
		if !f.startReaders(ctx, brokers) {
			wait = followRetry
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

// declaredTopics are the topics any service publishes or consumes.
func (x *Layer) declaredTopics() []string {
	var out []string
	for svc, t := range *x.topics.Load() {
		out = append(out, t.Publishes...)
		out = append(out, t.Consumes...)
		out = append(out, liveset.TopicOf(svc)) // its name is the service's: a service cannot name another's
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// startReaders starts a reader on every partition of the declared topics not
// read yet; it reports whether every declared topic has readers.
func (f *follower) startReaders(ctx context.Context, brokers events.Brokers) bool {
	topics := f.x.declaredTopics()
	if len(topics) == 0 {
		return false
	}
	mctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	md, err := f.client.Metadata(mctx, &kafka.MetadataRequest{Topics: topics})
	if err != nil {
		if ctx.Err() == nil {
			f.x.logger.Warn("live queries: cannot list the event topics' partitions", "err", err)
		}
		return false
	}
	complete := len(md.Topics) == len(topics)
	for _, t := range md.Topics {
		if t.Error != nil || len(t.Partitions) == 0 {
			complete = false
			continue
		}
		for _, p := range t.Partitions {
			tp := topicPartition{t.Name, p.ID}
			f.mu.Lock()
			started := f.reading[tp]
			f.reading[tp] = true
			f.mu.Unlock()
			if !started {
				go f.read(ctx, brokers, tp)
			}
		}
	}
	return complete
}

// tailReader reads one partition from its end. A reader without a group
// starts at the first offset (StartOffset is for groups): it would read every
// event ever kept at each start (the live topics hold one per write).
func tailReader(brokers events.Brokers, tp topicPartition) (*kafka.Reader, error) {
	r := kafka.NewReader(kafka.ReaderConfig{
		Brokers: brokers.Addrs, Topic: tp.topic, Partition: tp.partition,
		MinBytes: 1, MaxBytes: 1 << 20, MaxWait: followReaderWait,
		Dialer: brokers.Dialer(KafkaClientID),
	})
	if err := r.SetOffset(kafka.LastOffset); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// read follows one partition from its end.
func (f *follower) read(ctx context.Context, brokers events.Brokers, tp topicPartition) {
	r, err := tailReader(brokers, tp)
	if err != nil {
		f.x.logger.Warn("live queries: cannot read a partition from its end", "topic", tp.topic, "partition", tp.partition, "err", err)
		f.mu.Lock()
		delete(f.reading, tp) // started again at the next look for topics
		f.mu.Unlock()
		return
	}
	defer r.Close()
	for {
		m, err := r.FetchMessage(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			f.x.logger.Warn("live queries: reading events failed", "topic", tp.topic, "partition", tp.partition, "err", err)
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Second):
			}
			continue
		}
		f.onEvent(ctx, tp, m)
	}
}

// onEvent re-runs the live queries an event may have changed. An event on a
// service's live topic says what one of its transactions wrote (from any
// gateway replica, consumer or background work): the live queries it
// touches run again, unless this gateway applied it from the service's
// answer already. A service all of whose replicas publish their writes so
// needs nothing more from its domain events; for one that may not (a
// replica of an older version seen within legacyWindow), an event re-runs
// its live queries as below.
func (f *follower) onEvent(ctx context.Context, tp topicPartition, m kafka.Message) {
	f.seen.Add(1)
	offset := m.Offset
	var producers []string
	consumers := map[string]bool{}
	topics := *f.x.topics.Load()
	if svc, ok := strings.CutPrefix(tp.topic, liveset.TopicPrefix); ok {
		if _, known := topics[svc]; known {
			f.onWrites(svc, m.Value)
		}
		return
	}
	for svc, t := range topics {
		if !f.x.isLegacy(svc) {
			continue // its writes come on its live topic
		}
		if slices.Contains(t.Publishes, tp.topic) {
			producers = append(producers, svc)
		}
		if slices.Contains(t.Consumes, tp.topic) {
			consumers[svc] = true
		}
	}
	if len(producers) > 0 {
		f.x.changed(producers...)
	}
	if len(consumers) == 0 {
		return
	}
	f.mu.Lock()
	w := f.waits[tp]
	if w != nil {
		w.target = max(w.target, offset)
		for s := range consumers {
			w.services[s] = true
		}
		f.mu.Unlock()
		return
	}
	w = &commitWait{target: offset, services: consumers}
	f.waits[tp] = w
	f.mu.Unlock()
	go f.afterCommit(ctx, tp, w)
}

// afterCommit waits until the consumers of tp committed past w.target, then
// re-runs their live queries; a later target that came meanwhile is waited
// for next.
func (f *follower) afterCommit(ctx context.Context, tp topicPartition, w *commitWait) {
	for {
		f.mu.Lock()
		target := w.target
		services := make([]string, 0, len(w.services))
		for s := range w.services {
			services = append(services, s)
		}
		w.services = map[string]bool{}
		f.mu.Unlock()

		f.waitCommitted(ctx, tp, target)
		f.x.changed(services...)

		f.mu.Lock()
		if w.target == target {
			delete(f.waits, tp)
			f.mu.Unlock()
			return
		}
		f.mu.Unlock()
	}
}

// waitCommitted returns once every consumer group following tp.topic has
// committed an offset beyond target on tp.partition (or the wait's bound passed).
func (f *follower) waitCommitted(ctx context.Context, tp topicPartition, target int64) {
	start := time.Now()
	delay := 5 * time.Millisecond
	for {
		groups := f.groupsOf(ctx, tp.topic)
		if ctx.Err() != nil {
			return
		}
		if len(groups) == 0 && time.Since(start) > noGroupWaitMax {
			return
		}
		if len(groups) > 0 && f.committedPast(ctx, groups, tp, target) {
			return
		}
		if time.Since(start) > commitWaitMax {
			f.x.logger.Warn("live queries: a consumer has not committed an event after the wait's bound; re-running anyway",
				"topic", tp.topic, "partition", tp.partition, "offset", target, "groups", groups)
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(delay):
		}
		delay = min(2*delay, 100*time.Millisecond)
	}
}

func (f *follower) committedPast(ctx context.Context, groups []string, tp topicPartition, target int64) bool {
	for _, g := range groups {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		resp, err := f.client.OffsetFetch(cctx, &kafka.OffsetFetchRequest{GroupID: g, Topics: map[string][]int{tp.topic: {tp.partition}}})
		cancel()
		if err != nil || resp.Error != nil {
			return false
		}
		done := false
		for _, p := range resp.Topics[tp.topic] {
			if p.Partition == tp.partition && p.Error == nil && p.CommittedOffset > target {
				done = true
			}
		}
		if !done {
			return false
		}
	}
	return true
}

// groupsOf lists the consumer groups whose members follow topic, from a cache
// refreshed every groupsCacheTTL (and at most every second while a topic has
// no group yet).
func (f *follower) groupsOf(ctx context.Context, topic string) []string {
	f.groupsMu.Lock()
	defer f.groupsMu.Unlock()
	age := time.Since(f.groupsAt)
	if f.groups != nil && (age < groupsCacheTTL && (len(f.groups[topic]) > 0 || age < time.Second)) {
		return f.groups[topic]
	}
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	f.groupsAt = time.Now()
	list, err := f.client.ListGroups(cctx, &kafka.ListGroupsRequest{})
	if err != nil || list.Error != nil {
		return f.groups[topic]
	}
	var ids []string
	for _, g := range list.Groups {
		if g.ProtocolType == "" || g.ProtocolType == "consumer" {
			ids = append(ids, g.GroupID)
		}
	}
	next := map[string][]string{}
	if len(ids) > 0 {
		desc, err := f.client.DescribeGroups(cctx, &kafka.DescribeGroupsRequest{GroupIDs: ids})
		if err != nil {
			return f.groups[topic]
		}
		for _, g := range desc.Groups {
			if g.Error != nil {
				continue
			}
			seen := map[string]bool{}
			for _, m := range g.Members {
				for _, t := range m.MemberMetadata.Topics {
					seen[t] = true
				}
				for _, t := range m.MemberAssignments.Topics {
					seen[t.Topic] = true
				}
			}
			for t := range seen {
				next[t] = append(next[t], g.GroupID)
			}
		}
	}
	f.groups = next
	return next[topic]
}

// onWrites applies one event of service's live topic.
func (f *follower) onWrites(service string, value []byte) {
	env, err := events.Decode(value)
	if err != nil || env.Type != liveset.EventType || env.Source != service {
		f.x.logger.Warn("live queries: an unreadable event on a live topic; re-running every live query of its service",
			"service", service, "type", env.Type, "source", env.Source, "err", err)
		f.x.live.changedBy(service, nil)
		return
	}
	if f.x.applied.taken(env.ID) {
		return
	}
	w, err := liveset.DecodeWrites(string(env.Data))
	if err != nil {
		f.x.live.changedBy(service, nil)
		return
	}
	f.x.live.changedBy(service, &w)
}
