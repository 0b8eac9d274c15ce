package events

// Recovery from committed offsets the broker no longer has, and the
// consumer's health for readiness.
//
// A group's committed offset can end up past its partition's log end: the
// broker lost the tail of the log (a damaged or truncated data file, an
// unclean leader election) but kept the group's offsets. kafka-go's partition
// reader then retries that offset forever ("Offset Out Of Range"), and the
// records produced below it are never read. Below the earliest offset
// (retention) kafka-go skips to the earliest by itself, but the committed
// offset stays stale until a message arrives.
//
// So the consumer checks at start, every CheckInterval, and whenever kafka-go
// reports an out-of-range offset: each partition's committed offset is
// compared with the retained range [earliest, end] and one outside it is moved
// to the earliest retained offset. Reading again is harmless: processed event
// ids are deduplicated.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/segmentio/kafka-go"
)

// Health defaults.
const (
	DefaultCheckInterval = 10 * time.Second
	DefaultStuckAfter    = time.Minute
	// resetCommitTimeout bounds the wait for the reader's group membership
	// (at start it is still joining) when committing a reset.
	resetCommitTimeout = 15 * time.Second
)

// partOffsets is where a group stands on one partition.
type partOffsets struct {
	topic     string
	partition int
	committed int64 // -1: nothing committed yet
	earliest  int64
	end       int64 // the log end (high watermark)
}

// pastEnd reports a committed offset kafka-go would wait at forever.
func (p partOffsets) pastEnd() bool { return p.committed > p.end }

// outOfRange reports a committed offset outside the retained records.
func (p partOffsets) outOfRange() bool {
	return p.committed >= 0 && (p.committed < p.earliest || p.committed > p.end)
}

// lag is how many retained records the group has not committed. kafka-go
// starts a partition without a commit, or one committed below the
// earliest offset, at the earliest offset.
func (p partOffsets) lag() int64 { return max(0, p.end-max(p.committed, p.earliest)) }

// groupOffsets reads the group's committed offsets and the retained range of
// every partition of topics.
func groupOffsets(ctx context.Context, client *kafka.Client, group string, topics []string) ([]partOffsets, error) {
	meta, err := client.Metadata(ctx, &kafka.MetadataRequest{Topics: topics})
	if err != nil {
		return nil, err
	}
	parts := map[string][]int{}
	listReq := map[string][]kafka.OffsetRequest{}
	for _, t := range meta.Topics {
		if t.Error != nil {
			return nil, fmt.Errorf("topic %s: %w", t.Name, t.Error)
		}
		for _, p := range t.Partitions {
			parts[t.Name] = append(parts[t.Name], p.ID)
			listReq[t.Name] = append(listReq[t.Name], kafka.FirstOffsetOf(p.ID), kafka.LastOffsetOf(p.ID))
		}
	}
	committed, err := client.OffsetFetch(ctx, &kafka.OffsetFetchRequest{GroupID: group, Topics: parts})
	if err != nil {
		return nil, err
	}
	// A group that has not joined yet has committed nothing: Kafka answers
	// with no offsets, kfake with GROUP_ID_NOT_FOUND. Either way its lag is
	// known (the whole retained log), so the first check at start counts.
	if committed.Error != nil && !errors.Is(committed.Error, kafka.GroupIdNotFound) {
		return nil, committed.Error
	}
	ranges, err := client.ListOffsets(ctx, &kafka.ListOffsetsRequest{Topics: listReq})
	if err != nil {
		return nil, err
	}
	type key struct {
		topic     string
		partition int
	}
	out := map[key]*partOffsets{}
	for topic, ps := range ranges.Topics {
		for _, p := range ps {
			if p.Error != nil {
				return nil, fmt.Errorf("offsets of %s/%d: %w", topic, p.Partition, p.Error)
			}
			out[key{topic, p.Partition}] = &partOffsets{topic: topic, partition: p.Partition, committed: -1, earliest: p.FirstOffset, end: p.LastOffset}
		}
	}
	for topic, ps := range committed.Topics {
		for _, p := range ps {
			if p.Error != nil {
				return nil, fmt.Errorf("committed offset of %s/%d: %w", topic, p.Partition, p.Error)
			}
			if o := out[key{topic, p.Partition}]; o != nil {
				o.committed = p.CommittedOffset
			}
		}
	}
	list := make([]partOffsets, 0, len(out))
	for _, o := range out {
		list = append(list, *o)
	}
	slices.SortFunc(list, func(a, b partOffsets) int {
		return cmp.Or(strings.Compare(a.topic, b.topic), cmp.Compare(a.partition, b.partition))
	})
	return list, nil
}

// monitor checks the group's offsets until ctx ends: at once, every
// CheckInterval, and on a kick (kafka-go reported an out-of-range offset).
func (c *consumer) monitor(ctx context.Context, kick <-chan struct{}) {
	tr := c.cfg.Brokers.Transport(c.cfg.GroupID)
	defer tr.CloseIdleConnections()
	client := &kafka.Client{Addr: c.cfg.Brokers.Addr(), Transport: tr, Timeout: 10 * time.Second}
	t := time.NewTicker(c.cfg.CheckInterval)
	defer t.Stop()
	for {
		c.checkOffsets(ctx, client)
		// A partition reader reports every retry: check at most once a second.
		if !sleepCtx(ctx, min(time.Second, c.cfg.CheckInterval)) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-kick:
		}
	}
}

// checkOffsets records the group's offsets in the status and resets those out
// of range.
func (c *consumer) checkOffsets(ctx context.Context, client *kafka.Client) {
	qctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	parts, err := groupOffsets(qctx, client, c.cfg.GroupID, c.topics)
	cancel()
	if err != nil {
		if ctx.Err() == nil {
			c.status.checkFailed(err)
			c.logger.WarnContext(ctx, "events: reading the group's offsets failed", "err", err)
		}
		return
	}
	c.status.observe(parts)
	var stale []partOffsets
	for _, p := range parts {
		if p.outOfRange() {
			c.logger.WarnContext(ctx, "events: committed offset out of range, resetting to the earliest retained offset",
				"topic", p.topic, "partition", p.partition, "committed", p.committed, "earliest", p.earliest, "end", p.end)
			stale = append(stale, p)
		}
	}
	if len(stale) == 0 {
		return
	}
	if err := c.resetOffsets(ctx, stale); err != nil {
		if ctx.Err() == nil {
			c.logger.ErrorContext(ctx, "events: offset reset failed, will retry", "err", err)
		}
		return
	}
	c.status.recovered(stale)
}

// resetOffsets commits each partition's earliest retained offset, then
// restarts the reader if a partition reader is waiting past the log end.
//
// The commit goes through the reader's own group membership (a synthetic
// message at earliest-1: kafka-go commits offset+1). Kafka and kfake accept a
// member's commit for any partition, whoever it is assigned to, while the
// member is in the current generation; a commit without a generation is only
// accepted while the group is empty, which it is not with several instances.
// At start the commit waits until the reader has joined.
//
// The restart (leave and rejoin) rebalances the group, so whichever member
// owns the partition reads the new committed offset: a partition reader never
// re-reads it by itself. Until then nobody commits on that partition unless
// the log grows past the old committed offset meanwhile (that commit would
// win, and the records below it be skipped). Below the earliest offset no
// restart is needed (kafka-go already reads from the earliest); a member's
// commit there between our read and ours is moved back, which only means
// redeliveries.
func (c *consumer) resetOffsets(ctx context.Context, stale []partOffsets) error {
	c.mu.Lock()
	r, restart := c.reader, c.restart
	c.mu.Unlock()
	if r == nil {
		return errors.New("no reader")
	}
	msgs := make([]kafka.Message, len(stale))
	pastEnd := false
	for i, p := range stale {
		msgs[i] = kafka.Message{Topic: p.topic, Partition: p.partition, Offset: p.earliest - 1}
		pastEnd = pastEnd || p.pastEnd()
	}
	cctx, cancel := context.WithTimeout(ctx, resetCommitTimeout)
	defer cancel()
	if err := r.CommitMessages(cctx, msgs...); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	if pastEnd {
		restart()
	}
	return nil
}

// outOfRangeReport recognises kafka-go's reports of a partition reader
// stuck at an offset the broker does not have.
func outOfRangeReport(msg string, args []any) bool {
	if strings.Contains(msg, "passed the last offset") {
		return true
	}
	for _, a := range args {
		if err, ok := a.(error); ok && errors.Is(err, kafka.OffsetOutOfRange) {
			return true
		}
	}
	return false
}

// readerReportLevel is the level of one of kafka-go's reader reports: its
// own cancellation (a reader closing, or restarted by the monitor) and a
// poll that timed out (a fetch or a connection's read deadline passing,
// routine while the broker is busy or a partition idle: the reader just
// polls again) are debug; any other error is a warning. A reader whose
// fetches keep failing is still told: ConsumerStatus makes the consumer's
// readiness check fail.
func readerReportLevel(msg string, args []any) slog.Level {
	if canceledReport(args) || timeoutReport(msg, args) {
		return slog.LevelDebug
	}
	return slog.LevelWarn
}

// timeoutReport recognises a report of a poll that timed out: a deadline
// passing on an open connection (net.Error's Timeout, "i/o timeout"), a
// context's deadline, or the broker's own RequestTimedOut. A connection
// that could not be opened in time ("dial tcp ...: i/o timeout": a broker
// unreachable) is no poll and stays a warning.
func timeoutReport(msg string, args []any) bool {
	text := fmt.Sprintf(msg, args...)
	if strings.Contains(text, "dial ") {
		return false
	}
	for _, a := range args {
		err, ok := a.(error)
		if !ok {
			continue
		}
		var ne net.Error
		if errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) ||
			errors.Is(err, kafka.RequestTimedOut) || (errors.As(err, &ne) && ne.Timeout()) {
			return true
		}
	}
	// kafka-go formats some errors into the message itself.
	return strings.HasSuffix(strings.TrimSpace(text), "i/o timeout")
}

// canceledReport recognises kafka-go's reports of its own cancellation.
func canceledReport(args []any) bool {
	for _, a := range args {
		if err, ok := a.(error); ok && errors.Is(err, context.Canceled) {
			return true
		}
	}
	return false
}

// ConsumerStatus tells whether a consumer makes progress; its Check serves
// as a readiness check. It reads what the consumer last saw (its offset
// checks run every CheckInterval), so a Check is cheap.
//
// The offsets are the group's, on every partition of its topics: with several
// instances in a group, one stuck instance makes all of them report it.
type ConsumerStatus struct {
	stuckAfter time.Duration
	now        func() time.Time

	mu    sync.Mutex
	parts map[string]*partHealth // by "topic/partition"
	// fetchFailing is when the reader's fetches started failing: zero after a
	// message, or once the group is seen caught up (an idle reader that
	// recovered from an error fetches nothing to prove it).
	fetchFailing time.Time
	fetchErr     error
	// checkFailing is when reading the group's offsets started failing.
	checkFailing time.Time
	checkErr     error
	// dead counts the events dead-lettered, by topic (metrics.go).
	dead map[string]int64
}

type partHealth struct {
	offsets partOffsets
	// stalled is since when the partition has lag with an unchanged committed
	// offset; zero while caught up or moving.
	stalled time.Time
}

// NewConsumerStatus returns a status for RunConsumer (ConsumerConfig.Status).
// Its Check fails once the consumer has been stuck for stuckAfter (0 takes
// DefaultStuckAfter).
func NewConsumerStatus(stuckAfter time.Duration) *ConsumerStatus {
	if stuckAfter <= 0 {
		stuckAfter = DefaultStuckAfter
	}
	return &ConsumerStatus{stuckAfter: stuckAfter, now: time.Now, parts: map[string]*partHealth{}}
}

// Check returns nil unless the consumer is stuck: a committed offset is out of
// the retained range and not reset yet, a partition has lag and its committed
// offset has not moved for stuckAfter, or fetching or reading the group's
// offsets has kept failing for stuckAfter. A consumer that is idle and caught
// up is ready, and so is one still starting: before its first offset check
// nothing is known, and joining the group (a few seconds) is far shorter than
// stuckAfter.
func (s *ConsumerStatus) Check(context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	var errs []error
	keys := make([]string, 0, len(s.parts))
	for k := range s.parts {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		ph := s.parts[k]
		p := ph.offsets
		switch {
		case p.outOfRange():
			errs = append(errs, fmt.Errorf("%s: committed offset %d outside the retained offsets [%d, %d]", k, p.committed, p.earliest, p.end))
		case !ph.stalled.IsZero() && now.Sub(ph.stalled) > s.stuckAfter:
			errs = append(errs, fmt.Errorf("%s: %d records behind, committed offset %d unchanged for %s", k, p.lag(), p.committed, now.Sub(ph.stalled).Round(time.Second)))
		}
	}
	if !s.fetchFailing.IsZero() && now.Sub(s.fetchFailing) > s.stuckAfter {
		errs = append(errs, fmt.Errorf("fetching failing for %s: %w", now.Sub(s.fetchFailing).Round(time.Second), s.fetchErr))
	}
	if !s.checkFailing.IsZero() && now.Sub(s.checkFailing) > s.stuckAfter {
		errs = append(errs, fmt.Errorf("reading the group's offsets failing for %s: %w", now.Sub(s.checkFailing).Round(time.Second), s.checkErr))
	}
	return errors.Join(errs...)
}

// observe records an offset check.
func (s *ConsumerStatus) observe(parts []partOffsets) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	s.checkFailing, s.checkErr = time.Time{}, nil
	caughtUp := true
	for _, p := range parts {
		k := fmt.Sprintf("%s/%d", p.topic, p.partition)
		ph := s.parts[k]
		if ph == nil {
			ph = &partHealth{}
			s.parts[k] = ph
		}
		switch {
		case p.lag() == 0:
			ph.stalled = time.Time{}
		case ph.stalled.IsZero() || p.committed != ph.offsets.committed:
			ph.stalled = now
		}
		ph.offsets = p
		caughtUp = caughtUp && p.lag() == 0 && !p.outOfRange()
	}
	if caughtUp {
		s.fetchFailing, s.fetchErr = time.Time{}, nil
	}
}

// recovered records committed offsets reset to the earliest retained ones.
func (s *ConsumerStatus) recovered(parts []partOffsets) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	for _, p := range parts {
		ph := s.parts[fmt.Sprintf("%s/%d", p.topic, p.partition)]
		if ph == nil {
			continue
		}
		ph.offsets.committed = p.earliest
		ph.stalled = time.Time{}
		if ph.offsets.lag() > 0 {
			ph.stalled = now
		}
	}
}

func (s *ConsumerStatus) checkFailed(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.checkFailing.IsZero() {
		s.checkFailing = s.now()
	}
	s.checkErr = err
}

func (s *ConsumerStatus) fetchFailed(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fetchFailing.IsZero() {
		s.fetchFailing = s.now()
	}
	s.fetchErr = err
}

func (s *ConsumerStatus) fetched() {
	s.mu.Lock()
	if !s.fetchFailing.IsZero() {
		s.fetchFailing, s.fetchErr = time.Time{}, nil
	}
	s.mu.Unlock()
}
