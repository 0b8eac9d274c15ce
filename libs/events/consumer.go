package events

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/segmentio/kafka-go"
	"go.mongodb.org/mongo-driver/bson"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"marketplace/libs/liveset"
	"marketplace/libs/store"
)

// processedCollection holds the events each consumer has applied.
var processedCollection = liveset.Internal("processed_events")

const (
	tracerName = "marketplace/events"
)

// Consumer defaults.
const (
	DefaultMaxAttempts  = 5
	DefaultRetryBackoff = 50 * time.Millisecond
	// A fetch is answered as soon as data arrives, so MaxWait only paces
	// idle polling. kafka-go gives the broker three quarters of it and
	// drops the connection (logging an i/o timeout) if the empty answer
	// comes later than the whole: 50 ms left a 12 ms margin, which a
	// loaded machine missed hundreds of times a minute while idle.
	DefaultMaxWait           = 500 * time.Millisecond
	DefaultHeartbeatInterval = 250 * time.Millisecond
	// 6 s is the smallest session timeout a stock Kafka broker accepts
	// (group.min.session.timeout.ms).
	DefaultSessionTimeout   = 6 * time.Second
	DefaultRebalanceTimeout = 5 * time.Second
	DefaultDedupeRetention  = 7 * 24 * time.Hour
	maxInfraBackoff         = 5 * time.Second
)

// Handler applies one event. ctx belongs to the consumer's transaction: use it
// for every database call so the effects commit together with the record that
// the event was processed.
type Handler func(ctx context.Context, env Envelope) error

// Prepare runs before each handler transaction, outside it, over the events
// that transaction may handle (in fetch order; some may turn out to be
// duplicates): the place to ask another service about them, so that no
// transaction waits on a network call (an open transaction's writes may
// conflict with other writers', and it then runs again). The context it returns is the transaction's parent: what it
// learnt reaches the Handler as context values. Its error is never the
// event's fault: the transaction is not run, and the same events are prepared
// again after a backoff, without spending attempts and without
// dead-lettering, as when the database is unreachable.
type Prepare func(ctx context.Context, envs []Envelope) (context.Context, error)

// retryError marks a handler error as the infrastructure's, not the event's.
type retryError struct{ err error }

func (e retryError) Error() string { return e.err.Error() }
func (e retryError) Unwrap() error { return e.err }

// Retry marks err, returned by a Handler, as a failure of something the
// handler depends on (another service that does not answer), not of the
// event: the event is retried with a backoff for as long as it takes, like an
// unreachable database, never dead-lettered. Only for failures that go away
// by themselves: an event that can never be handled is a plain error.
func Retry(err error) error {
	if err == nil {
		return nil
	}
	return retryError{err}
}

// IsRetry tells whether err was marked with Retry.
func IsRetry(err error) bool {
	var r retryError
	return errors.As(err, &r)
}

// commitHooks are what the handlers of one run of a consumer's transaction
// registered with OnCommit.
type commitHooks struct{ fns []func() }

type commitHooksKey struct{}

// OnCommit runs fn once the consumer's transaction that ctx (a Handler's) is
// part of has committed, and never if it is rolled back: a batch rolled back
// for another event's failure, whose events are then handled again one at a
// time, or a transaction run again. For effects outside the database, such as
// a metric, that must count each event once. Outside a consumer's
// transaction, fn runs at once.
func OnCommit(ctx context.Context, fn func()) {
	if h, _ := ctx.Value(commitHooksKey{}).(*commitHooks); h != nil {
		h.fns = append(h.fns, fn)
		return
	}
	fn()
}

// withCommitHooks is tx with a fresh set of OnCommit hooks (one per run of a
// transaction's function: a run rolled back leaves its hooks behind).
func withCommitHooks(tx context.Context) (context.Context, *commitHooks) {
	h := &commitHooks{}
	return context.WithValue(tx, commitHooksKey{}, h), h
}

// run runs the hooks of a committed transaction.
func (h *commitHooks) run() {
	if h == nil {
		return
	}
	for _, fn := range h.fns {
		fn()
	}
}

// ConsumerConfig configures RunConsumer. Zero durations take the defaults above.
type ConsumerConfig struct {
	Brokers Brokers
	GroupID string
	Topics  []string // must exist before the consumer starts: new topics are not watched for
	DB      *store.DB
	Handler Handler
	// Handles declares, per event type, the major versions of its payload
	// that Handler reads (versions.go). An event of a type not declared is
	// acknowledged without running Handler; one none of whose copies is in
	// a version declared is parked on the group's dead-letter topic at once.
	Handles Versions
	// Prepare, if set, runs before each handler transaction, outside it.
	Prepare   Prepare
	Publisher Publisher // for the group's dead-letter topic; nil: one is made from Brokers
	Logger    *slog.Logger
	// MaxAttempts is how often a failing handler runs before its message is
	// dead-lettered.
	MaxAttempts int

	RetryBackoff      time.Duration // first wait between handler attempts; doubles
	MaxWait           time.Duration // longest a fetch waits for new data
	HeartbeatInterval time.Duration
	SessionTimeout    time.Duration
	RebalanceTimeout  time.Duration
	// DedupeRetention is how long processed ids are remembered.
	DedupeRetention time.Duration
	// BatchSize is the most events handled in one transaction (batch.go); 1
	// handles them one at a time.
	BatchSize int
	// BatchWait is how long a batch waits, after its first message, for more.
	BatchWait time.Duration
	// BatchMaxTime is how long a batch transaction takes events before it
	// commits those and leaves the rest to the next one.
	BatchMaxTime time.Duration
	// BeforeOffsetCommit, when set, is a crash-test fault point (tests only):
	// it runs after a batch's transaction commits and before its offsets
	// are committed, and an error stops the consumer there, as a crash
	// would (RunConsumer returns it, wrapping ErrConsumerStopped).
	BeforeOffsetCommit func() error
	// AfterCommit, if set, runs after each handler transaction that recorded
	// an event commits (one per batch, none for a batch of duplicates): pass
	// the service relay's Kick so events a handler added leave at once (a Kick
	// inside the handler is too early, the relay cannot see them yet).
	AfterCommit func()
	// CheckInterval is how often the group's committed offsets are checked
	// against the retained log, and reset when out of range (recovery.go).
	CheckInterval time.Duration
	// Status, if set, is kept up to date for a readiness check.
	Status *ConsumerStatus
}

// processedDoc remembers that a group processed an event.
type processedDoc struct {
	// ID is group + "/" + event id: two consumer groups sharing a database
	// (two projections of one topic in one service) must each see the event.
	// Another event under an id already recorded (another Digest) is recorded
	// under group/id/digest (dedupe.go).
	ID          string    `bson:"_id"`
	EventID     string    `bson:"eventId"`
	Group       string    `bson:"group"`
	Topic       string    `bson:"topic"`
	Type        string    `bson:"type"`
	ProcessedAt time.Time `bson:"processedAt"`
	// Digest is the event's contentDigest; empty in records written before
	// digests.
	Digest string `bson:"digest,omitempty"`
	// Copies are the digests of the event's copies in other versions
	// (versions.go), as its envelope named them.
	Copies []string `bson:"copies,omitempty"`
}

// ConsumerIndexes serves the pruning of old processed ids.
func ConsumerIndexes() []store.Index {
	return []store.Index{{Collection: processedCollection, Keys: bson.D{{Key: "processedAt", Value: 1}}, Name: "processed_at"}}
}

// ErrConsumerStopped wraps the error of a BeforeOffsetCommit fault point.
var ErrConsumerStopped = errors.New("events: consumer stopped before committing offsets")

// errSeen aborts the transaction of an event that was already processed.
var errSeen = errors.New("events: already processed")

// handlerError marks a failure of the handler itself, as opposed to the
// infrastructure around it.
type handlerError struct{ err error }

func (e handlerError) Error() string { return e.err.Error() }
func (e handlerError) Unwrap() error { return e.err }

type consumer struct {
	cfg    ConsumerConfig
	pub    Publisher
	logger *slog.Logger
	tracer trace.Tracer
	status *ConsumerStatus
	// versions counts events parked for their version and handled by version.
	versions *versionStats
	// dlqTopic is the group's dead-letter topic (deadletter.go), which it
	// reads with cfg.Topics: topics are both.
	dlqTopic string
	topics   []string

	mu      sync.Mutex
	reader  *kafka.Reader // the current one, for the offset monitor
	restart func()        // ends the current reader's fetching
	// fault is the BeforeOffsetCommit error that stopped the consumer.
	fault error
}

// RunConsumer consumes cfg.Topics in consumer group cfg.GroupID until ctx is
// done, then returns nil. Each event is handled and recorded as processed in
// one transaction (one per batch of available events, batch.go) before its
// offset is committed, so delivery is at least once and handling exactly once
// per group. A handler that keeps failing, a message that is not an
// envelope, or an event in no version the consumer reads (cfg.Handles), is
// parked in the group's own dead-letter topic, DeadLetterTopic(cfg.GroupID),
// with an "error" header, and skipped. The consumer reads that topic too, and
// handles the replays an operator puts there (deploy/deadletters).
func RunConsumer(ctx context.Context, cfg ConsumerConfig) error {
	if cfg.DB == nil || cfg.Handler == nil || cfg.GroupID == "" || len(cfg.Topics) == 0 {
		return errors.New("events: consumer needs DB, Handler, GroupID and Topics")
	}
	if err := CheckGroupName(cfg.GroupID); err != nil {
		return err
	}
	dlq := DeadLetterTopic(cfg.GroupID)
	if slices.ContainsFunc(cfg.Topics, func(t string) bool { return strings.HasPrefix(t, DeadLetterPrefix) }) {
		return fmt.Errorf("events: consumer %s: a dead-letter topic (%s...) is not a topic to consume: the group reads its own, %s, by itself", cfg.GroupID, DeadLetterPrefix, dlq)
	}
	topics := append(slices.Clone(cfg.Topics), dlq)
	if len(cfg.Handles) == 0 {
		return errors.New("events: consumer needs Handles: the versions of each event type its handler reads")
	}
	if err := cfg.Handles.Check(); err != nil {
		return fmt.Errorf("events: consumer Handles: %w", err)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	cfg.MaxAttempts = cmp.Or(cfg.MaxAttempts, DefaultMaxAttempts)
	cfg.RetryBackoff = cmp.Or(cfg.RetryBackoff, DefaultRetryBackoff)
	cfg.MaxWait = cmp.Or(cfg.MaxWait, DefaultMaxWait)
	cfg.HeartbeatInterval = cmp.Or(cfg.HeartbeatInterval, DefaultHeartbeatInterval)
	cfg.SessionTimeout = cmp.Or(cfg.SessionTimeout, DefaultSessionTimeout)
	cfg.RebalanceTimeout = cmp.Or(cfg.RebalanceTimeout, DefaultRebalanceTimeout)
	cfg.DedupeRetention = cmp.Or(cfg.DedupeRetention, DefaultDedupeRetention)
	cfg.CheckInterval = cmp.Or(cfg.CheckInterval, DefaultCheckInterval)
	cfg.BatchSize = cmp.Or(cfg.BatchSize, DefaultConsumerBatch)
	cfg.BatchWait = cmp.Or(cfg.BatchWait, DefaultConsumerBatchWait)
	cfg.BatchMaxTime = cmp.Or(cfg.BatchMaxTime, DefaultConsumerBatchMaxTime)
	logger := cfg.Logger.With("group", cfg.GroupID)
	// A reader never notices a topic created after it started, so make sure the
	// topics exist first (on a fresh cluster nobody may have published yet).
	if err := EnsureTopics(ctx, cfg.Brokers, -1, -1, topics...); err != nil {
		logger.Warn("could not ensure topics exist", "topics", topics, "err", err)
	}

	kick := make(chan struct{}, 1) // a partition reader is out of range: check now
	rc := kafka.ReaderConfig{
		Brokers:        cfg.Brokers.Addrs,
		GroupID:        cfg.GroupID,
		GroupTopics:    topics,
		Dialer:         cfg.Brokers.Dialer(cfg.GroupID),
		GroupBalancers: []kafka.GroupBalancer{kafka.RangeGroupBalancer{}, kafka.RoundRobinGroupBalancer{}},
		MinBytes:       1,
		MaxBytes:       10 << 20,
		// kfake and Kafka answer a fetch as soon as data arrives; MaxWait only
		// paces idle polling.
		MaxWait:           cfg.MaxWait,
		CommitInterval:    0, // commit synchronously, after the transaction
		StartOffset:       kafka.FirstOffset,
		HeartbeatInterval: cfg.HeartbeatInterval,
		SessionTimeout:    cfg.SessionTimeout,
		RebalanceTimeout:  cfg.RebalanceTimeout,
		JoinGroupBackoff:  500 * time.Millisecond,
		ReadLagInterval:   -1,
		ErrorLogger: kafka.LoggerFunc(func(msg string, args ...any) {
			logger.Log(context.Background(), readerReportLevel(msg, args), "events: kafka reader: "+fmt.Sprintf(msg, args...))
			if outOfRangeReport(msg, args) {
				select {
				case kick <- struct{}{}:
				default:
				}
			}
		}),
	}
	if err := rc.Validate(); err != nil { // NewReader panics on an invalid config
		return fmt.Errorf("events: consumer config: %w", err)
	}
	pub := cfg.Publisher
	if pub == nil {
		kp := NewKafkaPublisher(cfg.Brokers, logger)
		defer kp.Close()
		pub = kp
	}
	status := cfg.Status
	if status == nil {
		status = NewConsumerStatus(0)
	}
	c := &consumer{cfg: cfg, dlqTopic: dlq, topics: topics, pub: pub, logger: logger, tracer: otel.Tracer(tracerName), status: status, versions: newVersionStats(cfg.Handles)}
	defer observeConsumer(cfg.GroupID, cfg.Topics, status)()
	defer observeVersions(cfg.GroupID, c.versions)()

	var wg sync.WaitGroup
	defer wg.Wait()
	bctx, stop := context.WithCancel(ctx)
	defer stop()
	wg.Go(func() { c.pruneLoop(bctx) })
	wg.Go(func() { c.monitor(bctx, kick) })

	// A reader lives until ctx ends or the monitor restarts it to make it
	// read reset offsets.
	for ctx.Err() == nil {
		r := kafka.NewReader(rc)
		rctx, restart := context.WithCancel(ctx)
		c.mu.Lock()
		c.reader, c.restart = r, restart
		c.mu.Unlock()
		c.consume(ctx, rctx, r)
		restart()
		c.mu.Lock()
		c.reader, c.restart = nil, nil
		c.mu.Unlock()
		r.Close()
		if c.fault != nil {
			return fmt.Errorf("%w: %w", ErrConsumerStopped, c.fault)
		}
	}
	return nil
}

// consume fetches batches from r until ctx or rctx ends. A batch being
// handled is settled first unless ctx ends: rctx only ends the fetching.
func (c *consumer) consume(ctx, rctx context.Context, r *kafka.Reader) {
	var backoff time.Duration
	for rctx.Err() == nil {
		batch, err := c.fetchBatch(rctx, r)
		if len(batch) > 0 {
			backoff = 0
			c.status.fetched()
			settled := c.settle(ctx, batch)
			if f := c.cfg.BeforeOffsetCommit; f != nil && settled > 0 {
				if c.fault = f(); c.fault != nil {
					return
				}
			}
			// Commit even if shutdown has begun: the transaction is done, and a
			// lost commit only means a redelivery that dedupe drops. kafka-go
			// commits each partition's highest offset among those given.
			if settled > 0 {
				cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
				cerr := r.CommitMessages(cctx, batch[:settled]...)
				cancel()
				if cerr != nil {
					last := batch[settled-1]
					c.logger.WarnContext(ctx, "events: commit offsets failed", "messages", settled, "topic", last.Topic, "partition", last.Partition, "offset", last.Offset, "err", cerr)
				}
			}
			if settled < len(batch) {
				return // shutting down before the batch was settled: the rest is redelivered
			}
		}
		if err != nil {
			if rctx.Err() != nil {
				return
			}
			c.status.fetchFailed(err)
			backoff = nextBackoff(backoff, maxInfraBackoff)
			c.logger.ErrorContext(ctx, "events: fetch failed", "err", err, "backoff", backoff)
			sleepCtx(rctx, backoff)
		}
	}
}

// handle settles one message: processed, skipped as a duplicate, or
// dead-lettered. It returns false only when ctx ended first. attempt is the
// number of its first run here: 2 when a batch's run was its first (batch.go).
func (c *consumer) handle(ctx context.Context, msg kafka.Message, attempt int) bool {
	msg, ok := c.delivery(msg)
	if !ok {
		return true // a record of the group's dead-letter topic, not a replay
	}
	headers := HeadersFromKafka(msg.Headers)
	ctx, span := c.startProcess(ctx, msg, headers)
	defer span.End()

	env, err := Decode(msg.Value)
	if err != nil {
		span.SetStatus(codes.Error, "undecodable")
		c.logger.WarnContext(ctx, "events: undecodable message, dead-lettering", "topic", msg.Topic, "offset", msg.Offset, "err", err)
		return c.deadLetter(ctx, msg, headers, err)
	}
	span.SetAttributes(attribute.String("messaging.message.id", env.ID), attribute.String("cloudevents.event_type", env.Type))
	switch r, version, why := c.route(env); r {
	case skipIt:
		c.logger.DebugContext(ctx, "events: not handled", "id", env.ID, "type", env.Type, "why", why)
		return true
	case parkIt:
		return c.park(ctx, msg, headers, env, version, why)
	}

	wait := c.cfg.RetryBackoff
	infraWait := time.Duration(0)
	if attempt > 1 { // back off as after a failed run here
		if !sleepCtx(ctx, wait) {
			return false
		}
		wait *= 2
	}
	for {
		err := c.processOnce(ctx, msg.Topic, env)
		if err == nil {
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		var herr handlerError
		// A handler's error while the database is unreachable is the database's
		// fault too, and so is one the handler marked with Retry (or Prepare's):
		// wait for it rather than dead-lettering a good event.
		// So is a write refused at DB_MEMORY_LIMIT: the event waits until
		// data is deleted or the limit raised.
		if !errors.As(err, &herr) || IsRetry(err) || store.IsMemoryLimit(err) || c.cfg.DB.Ping(ctx) != nil {
			// The database, not the event, failed: wait for it rather than
			// spending attempts and dead-lettering a good event.
			infraWait = nextBackoff(infraWait, maxInfraBackoff)
			c.logger.ErrorContext(ctx, "events: processing failed, will retry", "id", env.ID, "err", err, "backoff", infraWait)
			if !sleepCtx(ctx, infraWait) {
				return false
			}
			continue
		}
		span.RecordError(err)
		if attempt >= c.cfg.MaxAttempts {
			span.SetStatus(codes.Error, "dead-lettered")
			c.logger.ErrorContext(ctx, "events: handler failed, dead-lettering", "id", env.ID, "type", env.Type, "attempts", attempt, "err", err)
			return c.deadLetter(ctx, msg, headers, err)
		}
		c.logger.WarnContext(ctx, "events: handler failed, retrying", "id", env.ID, "type", env.Type, "attempt", attempt, "err", err)
		if !sleepCtx(ctx, wait) {
			return false
		}
		wait *= 2
		attempt++
	}
}

// startProcess starts the span that processes msg, a child of the producer
// span its headers carry, with attrs beside the message's own.
func (c *consumer) startProcess(ctx context.Context, msg kafka.Message, headers map[string]string, attrs ...attribute.KeyValue) (context.Context, trace.Span) {
	return c.tracer.Start(ExtractTrace(ctx, headers), "process "+msg.Topic,
		trace.WithSpanKind(trace.SpanKindConsumer),
		trace.WithAttributes(append([]attribute.KeyValue{
			attribute.String("messaging.system", "kafka"),
			attribute.String("messaging.operation.type", "process"),
			attribute.String("messaging.destination.name", msg.Topic),
			attribute.String("messaging.consumer.group.name", c.cfg.GroupID),
			attribute.Int("messaging.destination.partition.id", msg.Partition),
			attribute.Int64("messaging.kafka.offset", msg.Offset),
		}, attrs...)...))
}

// recording is the context of the write that records an event processed:
// it goes through over DB_MEMORY_LIMIT (the handler's own writes were
// checked), so that an event whose handler adds nothing is not held back
// by the record of it, which the retention prunes.
func recording(tx context.Context) context.Context {
	return store.AllowOverMemoryLimit(tx, "a consumer's record of an event processed")
}

// processOnce runs the handler and records the event in one transaction. An
// event this group already processed is skipped.
func (c *consumer) processOnce(ctx context.Context, topic string, env Envelope) error {
	digest, copies := contentDigest(env), copyDigests(env)
	ctx, err := c.prepare(ctx, []Envelope{env})
	if err != nil {
		return err
	}
	var hooks *commitHooks
	err = c.cfg.DB.Tx(ctx, func(tx context.Context) error {
		hooks = nil
		known, err := c.processedAmong(tx, []string{c.processedKey(env.ID)})
		if err != nil {
			return err
		}
		key, seen, err := c.dedupeKey(tx, known, topic, env, digest, copies)
		if err != nil {
			return err
		}
		if seen {
			return errSeen
		}
		var hctx context.Context
		hctx, hooks = withCommitHooks(tx)
		if err := c.callHandler(hctx, env); err != nil {
			return handlerError{err}
		}
		_, err = c.cfg.DB.Collection(processedCollection).InsertOne(recording(tx), processedDoc{
			ID: key, EventID: env.ID, Group: c.cfg.GroupID, Topic: topic, Type: env.Type, ProcessedAt: time.Now().UTC(), Digest: digest, Copies: copies,
		})
		if store.IsDuplicate(err) {
			return errSeen // processed concurrently (real MongoDB); roll this copy back
		}
		return err
	})
	if errors.Is(err, errSeen) {
		c.logger.DebugContext(ctx, "events: duplicate skipped", "id", env.ID)
		return nil
	}
	if err == nil {
		hooks.run()
		if v, verr := env.Version(); verr == nil {
			c.versions.handledOne(env.Type, v)
		}
		if c.cfg.AfterCommit != nil {
			c.cfg.AfterCommit()
		}
	}
	return err
}

// prepare runs cfg.Prepare, if any, over envs (outside any transaction). Its
// error is not a handlerError: the caller waits and runs it again.
func (c *consumer) prepare(ctx context.Context, envs []Envelope) (context.Context, error) {
	if c.cfg.Prepare == nil {
		return ctx, nil
	}
	pctx, err := c.cfg.Prepare(ctx, envs)
	if err != nil {
		return ctx, fmt.Errorf("events: preparing %d events: %w", len(envs), err)
	}
	if pctx == nil {
		pctx = ctx
	}
	return pctx, nil
}

// callHandler turns a handler panic into an error, so one bad event is
// dead-lettered instead of stopping the service.
func (c *consumer) callHandler(ctx context.Context, env Envelope) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("handler panic: %v", p)
		}
	}()
	return c.cfg.Handler(ctx, env)
}

// deadLetter parks the original message (msg, as delivery gives it) in the
// group's dead-letter topic, retrying until it is out or ctx ends (then it
// returns false and the message is redelivered). A replay that fails again
// is parked again as it was first: where it came from, with the new error.
func (c *consumer) deadLetter(ctx context.Context, msg kafka.Message, headers map[string]string, cause error) bool {
	h := make(map[string]string, len(headers)+5)
	for k, v := range headers {
		h[k] = v
	}
	_, replay := h[ReplayOfHeader]
	delete(h, ReplayOfHeader)
	delete(h, ReplayedAtHeader)
	if !replay {
		h[SourceTopicHeader] = msg.Topic
		h[SourcePartitionHeader] = strconv.Itoa(msg.Partition)
		h[SourceOffsetHeader] = strconv.FormatInt(msg.Offset, 10)
	}
	source := cmp.Or(h[SourceTopicHeader], msg.Topic)
	h[ErrorHeader] = cause.Error()
	h[GroupHeader] = c.cfg.GroupID
	out := Message{Topic: c.dlqTopic, Key: msg.Key, Value: msg.Value, Headers: h}
	wait := 100 * time.Millisecond
	for {
		err := c.pub.Publish(ctx, out)
		if err == nil {
			c.status.deadLettered(source)
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		c.logger.ErrorContext(ctx, "events: dead-letter publish failed, will retry", "topic", out.Topic, "err", err, "backoff", wait)
		if !sleepCtx(ctx, wait) {
			return false
		}
		wait = min(2*wait, maxInfraBackoff)
	}
}

// pruneLoop forgets processed ids older than the retention, hourly, so the
// dedupe collection stays small.
func (c *consumer) pruneLoop(ctx context.Context) {
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	for {
		cutoff := time.Now().Add(-c.cfg.DedupeRetention)
		filter := bson.D{{Key: "group", Value: c.cfg.GroupID}, {Key: "processedAt", Value: bson.D{{Key: "$lt", Value: cutoff}}}}
		if _, err := c.cfg.DB.Collection(processedCollection).DeleteMany(ctx, filter); err != nil && ctx.Err() == nil {
			c.logger.WarnContext(ctx, "events: prune processed ids failed", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
