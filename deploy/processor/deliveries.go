package processor

// The webhook queue of refunds, disputes and payouts: each outcome is a
// QueuedDelivery, kept in Dir/deliveries (so a restart resumes it), sent by
// Serve's delivery loop when due and retried with a doubling wait until the
// webhook answers 2xx (MaxAttempts, then given up). Controls (POST
// /simulator/controls) make the next matching deliveries fail, wait or be
// held until released.

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// EnvWebhookDelay postpones every queued webhook of the simulator (a Go
// duration such as 5s, at most 1h), so that a demo shows refunds and payouts
// pending before their outcome arrives.
const EnvWebhookDelay = "PROCESSOR_SIMULATOR_WEBHOOK_DELAY"

// WebhookDelay reads EnvWebhookDelay ("" is no delay).
func WebhookDelay(getenv func(string) string) (time.Duration, error) {
	v := strings.TrimSpace(getenv(EnvWebhookDelay))
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 || d > time.Hour {
		return 0, fmt.Errorf("%s must be a duration from 0 to 1h, such as 5s, got %q", EnvWebhookDelay, v)
	}
	return d, nil
}

// Statuses of a queued delivery.
const (
	DeliveryQueued    = "queued"    // to be sent at DueAt
	DeliveryHeld      = "held"      // kept until released
	DeliveryDelivered = "delivered" // the webhook answered 2xx
	DeliveryGaveUp    = "gave_up"   // MaxAttempts non-2xx answers; release retries it
)

// maxHistory is how many attempts a delivery keeps (the last ones).
const maxHistory = 20

// QueuedDelivery is the webhook of a refund's, a dispute's or a payout's
// outcome, and every attempt to deliver it.
type QueuedDelivery struct {
	ID            string `json:"id"`     // wh_...
	Object        string `json:"object"` // refund | dispute | payout
	ObjectID      string `json:"objectId"`
	PaymentIntent string `json:"paymentIntent,omitempty"`
	// Type is the event's type; a refund's or a payout's is the expected
	// one (charge.refunded, payout.paid) until its first attempt settles it.
	Type     string   `json:"type"`
	Status   string   `json:"status"`
	Fail     string   `json:"fail,omitempty"`     // the failure a control gave a refund or payout
	Controls []string `json:"controls,omitempty"` // the controls applied to it
	DueAt    int64    `json:"dueAt"`              // unix milliseconds of the next attempt
	// EventID and Event are the event sent (the same at every attempt),
	// set at the first attempt, or at the queueing for a dispute.
	EventID    string          `json:"eventId,omitempty"`
	Event      json.RawMessage `json:"event,omitempty"`
	Attempts   int             `json:"attempts"` // since it was queued or released
	LastStatus int             `json:"lastStatus"`
	LastError  string          `json:"lastError,omitempty"`
	History    []Delivery      `json:"history"`   // the last attempts
	CreatedAt  int64           `json:"createdAt"` // unix nanoseconds: the queue's order
}

// Control makes the next Times deliveries that match it fail, wait or be
// held. It matches a delivery whose possible event types include Type (an
// event type, "refund.*"-like prefixes, or "*") and whose object, payment
// intent, or metadata refundId or payoutId is ObjectID; an empty field
// matches all.
type Control struct {
	ID          string `json:"id"`
	Type        string `json:"type,omitempty"`
	ObjectID    string `json:"objectId,omitempty"`
	Action      string `json:"action"` // fail | delay | hold
	DelayMs     int64  `json:"delayMs,omitempty"`
	FailureCode string `json:"failureCode,omitempty"`
	Times       int    `json:"times"` // how many deliveries it still applies to
}

// Control actions.
const (
	ActionFail  = "fail"
	ActionDelay = "delay"
	ActionHold  = "hold"
)

// eventTypes are the types a delivery of object may become.
func eventTypes(object, queued string) []string {
	switch object {
	case "refund":
		return []string{EventChargeRefunded, EventRefundFailed}
	case "payout":
		return []string{EventPayoutPaid, EventPayoutFailed}
	}
	return []string{queued}
}

var queuedTypes = []string{EventChargeRefunded, EventRefundFailed, EventDisputeCreated, EventDisputeClosed, EventPayoutPaid, EventPayoutFailed}

func typeMatches(pattern, t string) bool {
	if p, ok := strings.CutSuffix(pattern, "*"); ok {
		return strings.HasPrefix(t, p)
	}
	return pattern == t
}

func (c *Control) matches(d *QueuedDelivery, refs []string) bool {
	if c.Type != "" && !slices.ContainsFunc(eventTypes(d.Object, d.Type), func(t string) bool { return typeMatches(c.Type, t) }) {
		return false
	}
	if c.ObjectID != "" && !slices.Contains(refs, c.ObjectID) {
		return false
	}
	return c.Action != ActionFail || d.Object == "refund" || d.Object == "payout" // a dispute's event cannot fail
}

// enqueueLocked queues the webhook of an object's outcome, applying the
// controls that match it (s.mu held). A snapshot is the event's object now
// (a dispute's); without one the object is settled at the first attempt.
func (s *Simulator) enqueueLocked(object, id, intent, eventType string, md map[string]string, snapshot any) {
	now := time.Now()
	d := &QueuedDelivery{ID: newID("wh_"), Object: object, ObjectID: id, PaymentIntent: intent, Type: eventType, Status: DeliveryQueued,
		DueAt: now.Add(s.cfg.WebhookDelay).UnixMilli(), History: []Delivery{}, CreatedAt: now.UnixNano()}
	if snapshot != nil {
		d.EventID, d.Event = newEvent(eventType, snapshot)
	}
	refs := []string{id}
	for _, r := range []string{intent, md["refundId"], md["payoutId"]} {
		if r != "" {
			refs = append(refs, r)
		}
	}
	var kept []*Control
	for _, c := range s.state.Controls {
		if c.Times > 0 && c.matches(d, refs) {
			c.Times--
			d.Controls = append(d.Controls, c.ID)
			switch c.Action {
			case ActionFail:
				d.Fail = c.FailureCode
				if d.Fail == "" && object == "refund" {
					d.Fail = "declined"
				} else if d.Fail == "" {
					d.Fail = "account_closed"
				}
			case ActionDelay:
				d.DueAt += c.DelayMs
			case ActionHold:
				d.Status = DeliveryHeld
			}
		}
		if c.Times > 0 {
			kept = append(kept, c)
		}
	}
	if len(d.Controls) > 0 {
		s.state.Controls = kept
		s.logSave(s.saveControlsLocked())
	}
	s.state.Deliveries[d.ID] = d
	s.logSave(s.saveDeliveryLocked(d.ID))
	s.poke()
}

// poke wakes the delivery loop.
func (s *Simulator) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// deliverQueued sends the queued webhooks as they become due, until ctx is
// done.
func (s *Simulator) deliverQueued(ctx context.Context) {
	for {
		id, wait := s.nextDue()
		if id != "" {
			s.attempt(ctx, id)
			if ctx.Err() != nil {
				return
			}
			continue
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-s.wake:
		case <-t.C:
		}
		t.Stop()
	}
}

// nextDue is the queued delivery to send now, or how long to wait for one.
// An object's webhooks go in the order they were queued: one waits while an
// earlier one of the same object is queued or held.
func (s *Simulator) nextDue() (string, time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var open []*QueuedDelivery
	for _, d := range s.state.Deliveries {
		if d.Status == DeliveryQueued || d.Status == DeliveryHeld {
			open = append(open, d)
		}
	}
	slices.SortFunc(open, func(a, b *QueuedDelivery) int { return cmp.Compare(a.CreatedAt, b.CreatedAt) })
	now, wait := time.Now().UnixMilli(), int64(60_000)
	for i, d := range open {
		if d.Status != DeliveryQueued || slices.ContainsFunc(open[:i], func(e *QueuedDelivery) bool { return e.ObjectID == d.ObjectID }) {
			continue
		}
		if d.DueAt <= now {
			return d.ID, 0
		}
		wait = min(wait, d.DueAt-now)
	}
	return "", time.Duration(wait) * time.Millisecond
}

// attempt sends a queued delivery once, settling its object first if it is
// its first attempt, and records the answer.
func (s *Simulator) attempt(ctx context.Context, id string) {
	s.mu.Lock()
	d := s.state.Deliveries[id]
	if d == nil || d.Status != DeliveryQueued {
		s.mu.Unlock()
		return
	}
	if d.EventID == "" {
		s.settleLocked(d)
	}
	a := Delivery{EventID: d.EventID, Type: d.Type, At: time.Now().UnixMilli()}
	body, object, objectID := d.Event, d.Object, d.ObjectID
	s.mu.Unlock()
	if s.cfg.WebhookURL == "" {
		a.Error = "no webhook URL configured"
	} else {
		a.Status, a.Body, a.Error = s.post(ctx, body)
	}
	s.mu.Lock()
	d.Attempts++
	d.LastStatus, d.LastError = a.Status, a.Error
	d.History = append(d.History, a)
	if len(d.History) > maxHistory {
		d.History = d.History[len(d.History)-maxHistory:]
	}
	switch {
	case a.OK():
		d.Status = DeliveryDelivered
	case d.Attempts >= s.cfg.MaxAttempts:
		d.Status = DeliveryGaveUp
	default:
		d.DueAt = time.Now().Add(s.backoff(d.Attempts)).UnixMilli()
	}
	status, attempts := d.Status, d.Attempts
	s.logSave(s.saveDeliveryLocked(id))
	s.mu.Unlock()
	level := slog.LevelInfo
	if !a.OK() {
		level = slog.LevelWarn
	}
	s.cfg.Logger.Log(ctx, level, "processor simulator: webhook sent", "eventId", a.EventID, "eventType", a.Type, "object", object,
		"objectId", objectID, "status", a.Status, "err", a.Error, "attempt", attempts, "delivery", status)
}

// backoff is the wait after the n-th failed attempt: RetryBase doubled
// n-1 times, at most RetryMax.
func (s *Simulator) backoff(n int) time.Duration {
	d := s.cfg.RetryBase
	for i := 1; i < n && d < s.cfg.RetryMax; i++ {
		d *= 2
	}
	return min(d, s.cfg.RetryMax)
}

// settleLocked decides a refund's or a payout's outcome (failed when a
// control said so) and builds the event (s.mu held).
func (s *Simulator) settleLocked(d *QueuedDelivery) {
	var obj any
	switch d.Object {
	case "refund":
		rec, f := s.findRefund(d.ObjectID)
		if f == nil {
			d.Status, d.LastError = DeliveryGaveUp, "no such refund"
			return
		}
		if d.Fail != "" {
			reason := d.Fail
			f.Status, f.FailureReason, d.Type = RefundFailed, &reason, EventRefundFailed
			obj = *f
		} else {
			f.Status, d.Type = RefundSucceeded, EventChargeRefunded
			obj = rec.charge()
		}
		s.logSave(s.saveLocked(rec.Intent.ID))
	case "payout":
		p := s.state.Payouts[d.ObjectID]
		if p == nil {
			d.Status, d.LastError = DeliveryGaveUp, "no such payout"
			return
		}
		if d.Fail != "" {
			code, msg := d.Fail, payoutFailures[d.Fail]
			if msg == "" {
				msg = "The payout failed."
			}
			p.Status, p.FailureCode, p.FailureMessage, d.Type = PayoutFailed, &code, &msg, EventPayoutFailed
		} else {
			p.Status, d.Type = PayoutPaid, EventPayoutPaid
		}
		obj = *p
		s.logSave(s.savePayoutLocked(p.ID))
	}
	d.EventID, d.Event = newEvent(d.Type, obj)
	s.logSave(s.saveDeliveryLocked(d.ID))
}

// newEvent is an event's id and body.
func newEvent(eventType string, obj any) (string, []byte) {
	id := newID("evt_")
	b, _ := json.Marshal(map[string]any{
		"id": id, "object": "event", "type": eventType, "created": time.Now().Unix(), "livemode": false,
		"pending_webhooks": 1, "data": map[string]any{"object": obj},
	})
	return id, b
}

func (s *Simulator) createControl(w http.ResponseWriter, r *http.Request) {
	if !s.secretOnly(w, r) {
		return
	}
	vals, e := readParams(w, r, "type", "objectId", "action", "delayMs", "failureCode", "times")
	if e != nil {
		writeError(w, e)
		return
	}
	c := &Control{ID: newID("ctl_"), Times: 1}
	c.Type, _ = first(vals, "type")
	c.ObjectID, _ = first(vals, "objectId")
	c.Action, _ = first(vals, "action")
	c.FailureCode, _ = first(vals, "failureCode")
	if v, ok := first(vals, "times"); ok && v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			writeError(w, invalid("times", "parameter_invalid_integer", "times must be a whole number from 1 to 1000, got %q.", v))
			return
		}
		c.Times = n
	}
	if v, ok := first(vals, "delayMs"); ok && v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 || n > 3_600_000 {
			writeError(w, invalid("delayMs", "parameter_invalid_integer", "delayMs must be from 1 to 3600000 (an hour), got %q.", v))
			return
		}
		c.DelayMs = n
	}
	canFail := func(t string) bool {
		return slices.Contains(eventTypes("refund", ""), t) || slices.Contains(eventTypes("payout", ""), t)
	}
	switch {
	case c.Action != ActionFail && c.Action != ActionDelay && c.Action != ActionHold:
		e = invalid("action", "parameter_invalid_string", "action must be fail, delay or hold, got %q.", c.Action)
	case c.Type == "" && c.ObjectID == "":
		e = invalid("type", "parameter_missing", "Say which deliveries: type (an event type, such as refund.* or payout.failed) or objectId, or both.")
	case c.Type != "" && !slices.ContainsFunc(queuedTypes, func(t string) bool { return typeMatches(c.Type, t) }):
		e = invalid("type", "parameter_invalid_string", "type %q matches no queued event type (%s).", c.Type, strings.Join(queuedTypes, ", "))
	case c.Action == ActionFail && c.Type != "" && !slices.ContainsFunc(queuedTypes, func(t string) bool { return canFail(t) && typeMatches(c.Type, t) }):
		e = invalid("type", "parameter_invalid_string", "Only refunds and payouts can fail; type %q matches neither.", c.Type)
	case c.Action == ActionDelay && c.DelayMs == 0:
		e = invalid("delayMs", "parameter_missing", "A delay needs delayMs.")
	case c.Action != ActionDelay && c.DelayMs != 0:
		e = invalid("delayMs", "parameter_unknown", "delayMs goes with action delay only.")
	case c.FailureCode != "" && c.Action != ActionFail:
		e = invalid("failureCode", "parameter_unknown", "failureCode goes with action fail only.")
	case c.FailureCode != "" && !slices.Contains(refundFailures, c.FailureCode) && payoutFailures[c.FailureCode] == "":
		e = invalid("failureCode", "parameter_invalid_string", "Unknown failureCode %q.", c.FailureCode)
	}
	if e != nil {
		writeError(w, e)
		return
	}
	s.mu.Lock()
	s.state.Controls = append(s.state.Controls, c)
	out := *c
	s.logSave(s.saveControlsLocked())
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

func (s *Simulator) listControls(w http.ResponseWriter, r *http.Request) {
	if !s.secretOnly(w, r) {
		return
	}
	s.mu.Lock()
	out := []Control{}
	for _, c := range s.state.Controls {
		out = append(out, *c)
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": out})
}

func (s *Simulator) deleteControl(w http.ResponseWriter, r *http.Request) {
	if !s.secretOnly(w, r) {
		return
	}
	id := r.PathValue("id")
	s.mu.Lock()
	defer s.mu.Unlock()
	i := slices.IndexFunc(s.state.Controls, func(c *Control) bool { return c.ID == id })
	if i < 0 {
		writeError(w, missing("control", id))
		return
	}
	s.state.Controls = slices.Delete(s.state.Controls, i, i+1)
	s.logSave(s.saveControlsLocked())
	writeJSON(w, http.StatusOK, map[string]any{"id": id, "deleted": true})
}

// Deliveries are the queued webhooks, oldest first; objectId (the object or
// its payment intent), type and status filter them.
func (s *Simulator) Deliveries(objectID, eventType, status string) []QueuedDelivery {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []QueuedDelivery{}
	for _, d := range s.state.Deliveries {
		if (objectID == "" || d.ObjectID == objectID || d.PaymentIntent == objectID) && (eventType == "" || d.Type == eventType) &&
			(status == "" || d.Status == status) {
			c := *d
			c.History = slices.Clone(d.History)
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b QueuedDelivery) int { return cmp.Compare(a.CreatedAt, b.CreatedAt) })
	return out
}

func (s *Simulator) listDeliveries(w http.ResponseWriter, r *http.Request) {
	if !s.secretOnly(w, r) {
		return
	}
	q := r.URL.Query()
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": s.Deliveries(q.Get("objectId"), q.Get("type"), q.Get("status"))})
}

// releaseDelivery sends a held delivery now, or tries a given-up one again.
func (s *Simulator) releaseDelivery(w http.ResponseWriter, r *http.Request) {
	if !s.secretOnly(w, r) {
		return
	}
	id := r.PathValue("id")
	s.mu.Lock()
	defer s.mu.Unlock()
	d := s.state.Deliveries[id]
	switch {
	case d == nil:
		writeError(w, missing("delivery", id))
		return
	case d.Status != DeliveryHeld && d.Status != DeliveryGaveUp:
		writeError(w, invalid("id", "delivery_not_held", "The delivery %s is %s: only a held or given-up delivery is released.", id, d.Status))
		return
	}
	d.Status, d.DueAt, d.Attempts = DeliveryQueued, time.Now().UnixMilli(), 0
	s.logSave(s.saveDeliveryLocked(id))
	s.poke()
	c := *d
	writeJSON(w, http.StatusOK, c)
}

// readParams reads the parameters of a simulator-only request: form-encoded
// like the API's, or a JSON object (for curl).
func readParams(w http.ResponseWriter, r *http.Request, allowed ...string) (map[string][]string, *APIError) {
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		vals, _, e := readForm(w, r, allowed...)
		return vals, e
	}
	var m map[string]any
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return nil, &APIError{status: http.StatusBadRequest, Type: "invalid_request_error", Message: "Invalid JSON body: " + err.Error()}
	}
	vals := map[string][]string{}
	for k, v := range m {
		if !slices.Contains(allowed, k) {
			return nil, &APIError{status: http.StatusBadRequest, Type: "invalid_request_error", Code: "parameter_unknown", Param: k,
				Message: "Received unknown parameter: " + k}
		}
		switch v := v.(type) {
		case nil:
		case string:
			vals[k] = []string{v}
		case json.Number:
			vals[k] = []string{v.String()}
		default:
			return nil, invalid(k, "parameter_invalid_string", "%s must be a string or a number.", k)
		}
	}
	return vals, nil
}

// saveDeliveryLocked writes a queued delivery to Dir (s.mu held).
func (s *Simulator) saveDeliveryLocked(id string) error {
	d, ok := s.state.Deliveries[id]
	if s.cfg.Dir == "" || !ok {
		return nil
	}
	b, err := json.Marshal(d)
	if err != nil {
		return err
	}
	return writeFile(filepath.Join(s.cfg.Dir, deliveriesDir, id+".json"), b)
}

// saveControlsLocked writes the controls to Dir (s.mu held).
func (s *Simulator) saveControlsLocked() error {
	if s.cfg.Dir == "" {
		return nil
	}
	b, err := json.Marshal(s.state.Controls)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(s.cfg.Dir, 0o700); err != nil {
		return err
	}
	return writeFile(filepath.Join(s.cfg.Dir, controlsFile), b)
}
