package events

// Metrics of the outbox and the consumers, read when they are scraped:
//
//	marketplace_outbox_backlog{service}                 events committed, not yet published
//	marketplace_outbox_oldest_age_seconds{service}      age of the oldest of them (0 when none)
//	marketplace_consumer_lag{group, topic}              records of the topic the group has not committed
//	marketplace_events_dead_lettered_total{group, topic} events of the topic the group parked in its "dlq.<group>"
//
// The lag is what the consumer's last offset check saw (every
// ConsumerConfig.CheckInterval, 10 s by default): no series before the first
// one. The dead-letter counter starts at 0 for every topic consumed, so the
// first parked event is an increase a rate() sees.

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"marketplace/libs/store"
)

const (
	meterName = "marketplace/events"
	// observeTimeout bounds the database reads of one scrape.
	observeTimeout = 2 * time.Second
)

// ObserveOutbox reports db's outbox backlog and the age of its oldest entry,
// labelled service, until stop is called.
func ObserveOutbox(db *store.DB, service string) (stop func(), err error) {
	meter := otel.GetMeterProvider().Meter(meterName)
	backlog, err := meter.Int64ObservableGauge("marketplace.outbox.backlog",
		metric.WithDescription("Events committed to the outbox and not yet published."))
	if err != nil {
		return nil, err
	}
	age, err := meter.Float64ObservableGauge("marketplace.outbox.oldest_age",
		metric.WithUnit("s"),
		metric.WithDescription("Age of the oldest event waiting in the outbox (0 when it is empty)."))
	if err != nil {
		return nil, err
	}
	attrs := metric.WithAttributeSet(attribute.NewSet(attribute.String("service", service)))
	reg, err := meter.RegisterCallback(func(ctx context.Context, o metric.Observer) error {
		ctx, cancel := context.WithTimeout(ctx, observeTimeout)
		defer cancel()
		n, oldest, err := outboxState(ctx, db)
		if err != nil {
			return nil // a database that does not answer shows as missing series
		}
		o.ObserveInt64(backlog, n, attrs)
		o.ObserveFloat64(age, oldest.Seconds(), attrs)
		return nil
	}, backlog, age)
	if err != nil {
		return nil, err
	}
	return func() { _ = reg.Unregister() }, nil
}

// outboxState counts the outbox and finds the age of its oldest entry.
func outboxState(ctx context.Context, db *store.DB) (int64, time.Duration, error) {
	coll := db.Collection(outboxCollection)
	n, err := coll.EstimatedDocumentCount(ctx)
	if err != nil || n == 0 {
		return 0, 0, err
	}
	var oldest struct {
		CreatedAt time.Time `bson:"createdAt"`
	}
	err = coll.FindOne(ctx, bson.D{}, options.FindOne().
		SetSort(bson.D{{Key: "seq", Value: 1}}).
		SetProjection(bson.D{{Key: "createdAt", Value: 1}})).Decode(&oldest)
	if store.IsNotFound(err) {
		return 0, 0, nil // published between the two reads
	}
	if err != nil {
		return 0, 0, err
	}
	return n, max(0, time.Since(oldest.CreatedAt)), nil
}

// observeConsumer reports a consumer's lag and dead-lettered events from its
// status until stop is called.
func observeConsumer(group string, topics []string, status *ConsumerStatus) (stop func()) {
	meter := otel.GetMeterProvider().Meter(meterName)
	lag, err := meter.Int64ObservableGauge("marketplace.consumer.lag",
		metric.WithDescription("Records of the topic the consumer group has not committed yet, as of its last offset check."))
	if err != nil {
		otel.Handle(err)
		return func() {}
	}
	dead, err := meter.Int64ObservableCounter("marketplace.events.dead_lettered",
		metric.WithDescription("Events the consumer group gave up on and parked in the topic's dead-letter topic."))
	if err != nil {
		otel.Handle(err)
		return func() {}
	}
	attrs := func(topic string) metric.ObserveOption {
		return metric.WithAttributes(attribute.String("group", group), attribute.String("topic", topic))
	}
	reg, err := meter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		lags, deads := status.counts(topics)
		for topic, n := range lags {
			o.ObserveInt64(lag, n, attrs(topic))
		}
		for topic, n := range deads {
			o.ObserveInt64(dead, n, attrs(topic))
		}
		return nil
	}, lag, dead)
	if err != nil {
		otel.Handle(err)
		return func() {}
	}
	return func() { _ = reg.Unregister() }
}

// deadLettered counts an event parked in topic's dead-letter topic.
func (s *ConsumerStatus) deadLettered(topic string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dead == nil {
		s.dead = map[string]int64{}
	}
	s.dead[topic]++
}

// counts returns the lag per topic (summed over the partitions the last
// offset check saw) and the dead-lettered events per topic (0 for each of
// topics not seen yet).
func (s *ConsumerStatus) counts(topics []string) (lag, dead map[string]int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	lag = map[string]int64{}
	for _, ph := range s.parts {
		lag[ph.offsets.topic] += ph.offsets.lag()
	}
	dead = make(map[string]int64, len(topics))
	for _, t := range topics {
		dead[t] = 0
	}
	for t, n := range s.dead {
		dead[t] = n
	}
	return lag, dead
}
