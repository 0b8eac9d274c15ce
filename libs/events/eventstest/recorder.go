// Package eventstest has test doubles for the events package.
package eventstest

import (
	"context"
	"sync"

	"marketplace/libs/events"
)

// Recorder is a publisher that remembers what it was given instead of sending it
// to Kafka: tests hand it to a service's relay and look at what was published.
type Recorder struct {
	mu   sync.Mutex
	msgs []events.Message
}

// Publish records msgs.
func (r *Recorder) Publish(_ context.Context, msgs ...events.Message) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, msgs...)
	return nil
}

// Messages is a copy of everything published so far.
func (r *Recorder) Messages() []events.Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]events.Message(nil), r.msgs...)
}
