package processor

// Refunds, disputes and payouts: the money after a payment. Each is answered
// at once (a refund and a payout as pending) and its outcome goes to the
// webhook later, through the queue of deliveries.go.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Event types of refunds, disputes and payouts (queued, see deliveries.go).
const (
	EventChargeRefunded = "charge.refunded"
	EventRefundFailed   = "refund.failed"
	EventDisputeCreated = "charge.dispute.created"
	EventDisputeClosed  = "charge.dispute.closed"
	EventPayoutPaid     = "payout.paid"
	EventPayoutFailed   = "payout.failed"
)

// Statuses of refunds, disputes and payouts.
const (
	RefundPending   = "pending"
	RefundSucceeded = "succeeded"
	RefundFailed    = "failed"

	DisputeNeedsResponse = "needs_response"
	DisputeWon           = "won"
	DisputeLost          = "lost"

	PayoutPending = "pending"
	PayoutPaid    = "paid"
	PayoutFailed  = "failed"
)

// DisputeEvidenceWindow is how long a store has to answer a dispute
// (evidence_details.due_by).
const DisputeEvidenceWindow = 7 * 24 * time.Hour

// Refund is a refund as the processor's API shows it.
type Refund struct {
	ID            string            `json:"id"`
	Object        string            `json:"object"`
	Amount        int64             `json:"amount"`
	Currency      string            `json:"currency"`
	PaymentIntent string            `json:"payment_intent"`
	Charge        string            `json:"charge"`
	Status        string            `json:"status"`
	Reason        *string           `json:"reason"`
	FailureReason *string           `json:"failure_reason,omitempty"`
	Metadata      map[string]string `json:"metadata"`
	Created       int64             `json:"created"`
}

// RefundList is a charge's refunds.
type RefundList struct {
	Object     string   `json:"object"`
	Data       []Refund `json:"data"`
	HasMore    bool     `json:"has_more"`
	TotalCount int      `json:"total_count"`
	URL        string   `json:"url"`
}

// Charge is the charge of a paid intent, as charge.refunded carries it.
type Charge struct {
	ID             string            `json:"id"`
	Object         string            `json:"object"`
	Amount         int64             `json:"amount"`
	AmountCaptured int64             `json:"amount_captured"`
	AmountRefunded int64             `json:"amount_refunded"`
	Currency       string            `json:"currency"`
	PaymentIntent  string            `json:"payment_intent"`
	Paid           bool              `json:"paid"`
	Captured       bool              `json:"captured"`
	Refunded       bool              `json:"refunded"`
	Disputed       bool              `json:"disputed"`
	Status         string            `json:"status"`
	Metadata       map[string]string `json:"metadata"`
	Created        int64             `json:"created"`
	Refunds        RefundList        `json:"refunds"`
}

// Dispute is a dispute as the processor's API shows it.
type Dispute struct {
	ID                 string            `json:"id"`
	Object             string            `json:"object"`
	Amount             int64             `json:"amount"`
	Currency           string            `json:"currency"`
	Charge             string            `json:"charge"`
	PaymentIntent      string            `json:"payment_intent"`
	Reason             string            `json:"reason"`
	Status             string            `json:"status"`
	IsChargeRefundable bool              `json:"is_charge_refundable"`
	EvidenceDetails    EvidenceDetails   `json:"evidence_details"`
	Metadata           map[string]string `json:"metadata"`
	Created            int64             `json:"created"`
	Livemode           bool              `json:"livemode"`
}

// EvidenceDetails is when a dispute's evidence is due.
type EvidenceDetails struct {
	DueBy           int64 `json:"due_by"`
	HasEvidence     bool  `json:"has_evidence"`
	PastDue         bool  `json:"past_due"`
	SubmissionCount int64 `json:"submission_count"`
}

// Payout is a transfer to a bank account as the processor's API shows it. A
// marketplace pays stores' IBANs, which are no destination of the processor's
// API: they travel in metadata[iban] and metadata[accountHolderName].
type Payout struct {
	ID             string            `json:"id"`
	Object         string            `json:"object"`
	Amount         int64             `json:"amount"`
	Currency       string            `json:"currency"`
	Status         string            `json:"status"`
	Method         string            `json:"method"`
	Type           string            `json:"type"`
	ArrivalDate    int64             `json:"arrival_date"`
	Automatic      bool              `json:"automatic"`
	Description    *string           `json:"description"`
	FailureCode    *string           `json:"failure_code"`
	FailureMessage *string           `json:"failure_message"`
	Metadata       map[string]string `json:"metadata"`
	Created        int64             `json:"created"`
	Livemode       bool              `json:"livemode"`
}

// The reasons the processor takes for a refund and gives a dispute.
var (
	refundReasons  = []string{"duplicate", "fraudulent", "requested_by_customer"}
	disputeReasons = []string{"bank_cannot_process", "check_returned", "credit_not_processed", "customer_initiated", "debit_not_authorized",
		"duplicate", "fraudulent", "general", "incorrect_account_details", "insufficient_funds", "product_not_received",
		"product_unacceptable", "subscription_canceled", "unrecognized"}
)

// Failure codes a control may give a refund (failure_reason) or a payout
// (failure_code, with its message).
var (
	refundFailures = []string{"declined", "expired_or_canceled_card", "insufficient_funds", "lost_or_stolen_card", "merchant_request", "unknown"}
	payoutFailures = map[string]string{
		"account_closed":         "The bank account has been closed.",
		"account_frozen":         "The bank account has been frozen.",
		"could_not_process":      "The bank could not process this payout.",
		"invalid_account_number": "The bank account number (IBAN) is invalid.",
		"no_account":             "The bank account details on file are probably incorrect: no account was found.",
		"declined":               "The bank declined this transfer.",
	}
)

// refundable is what can still be refunded or disputed: what was received,
// less the refunds not failed (pending ones included) and the lost disputes.
func (r *Record) refundable() int64 {
	left := r.Intent.AmountReceived
	for _, f := range r.Refunds {
		if f.Status != RefundFailed {
			left -= f.Amount
		}
	}
	for _, d := range r.Disputes {
		if d.Status == DisputeLost {
			left -= d.Amount
		}
	}
	return left
}

// openDispute is the intent's dispute not closed yet, if any.
func (r *Record) openDispute() *Dispute {
	for i := range r.Disputes {
		if d := &r.Disputes[i]; d.Status != DisputeWon && d.Status != DisputeLost {
			return d
		}
	}
	return nil
}

func (r *Record) refund(id string) *Refund {
	for i := range r.Refunds {
		if r.Refunds[i].ID == id {
			return &r.Refunds[i]
		}
	}
	return nil
}

func (r *Record) dispute(id string) *Dispute {
	for i := range r.Disputes {
		if r.Disputes[i].ID == id {
			return &r.Disputes[i]
		}
	}
	return nil
}

// charge is the intent's charge with every refund of it, newest first.
func (r *Record) charge() Charge {
	c := Charge{Object: "charge", Amount: r.Intent.Amount, AmountCaptured: r.Intent.AmountReceived, Currency: r.Intent.Currency,
		PaymentIntent: r.Intent.ID, Paid: true, Captured: true, Status: "succeeded", Metadata: r.Intent.Metadata, Created: r.Intent.Created,
		Refunds: RefundList{Object: "list", Data: []Refund{}}}
	if r.Intent.LatestCharge != nil {
		c.ID = *r.Intent.LatestCharge
	}
	for i := len(r.Refunds) - 1; i >= 0; i-- {
		f := r.Refunds[i]
		if f.Status == RefundSucceeded {
			c.AmountRefunded += f.Amount
		}
		c.Refunds.Data = append(c.Refunds.Data, f)
	}
	c.Refunds.TotalCount = len(c.Refunds.Data)
	c.Refunds.URL = "/v1/charges/" + c.ID + "/refunds"
	c.Refunded = c.AmountRefunded >= c.AmountCaptured
	c.Disputed = len(r.Disputes) > 0
	return c
}

// secretOnly answers 401 unless the request carries the secret key.
func (s *Simulator) secretOnly(w http.ResponseWriter, r *http.Request) bool {
	kind, e := s.auth(r)
	if e == nil && kind != keySecret {
		e = &APIError{status: http.StatusUnauthorized, Type: "invalid_request_error", Message: "This API call needs the secret key."}
	}
	if e != nil {
		writeError(w, e)
		return false
	}
	return true
}

// optionalAmount reads a positive amount in minor units, if given.
func optionalAmount(vals map[string][]string) (int64, bool, *APIError) {
	raw, ok := first(vals, "amount")
	if !ok || raw == "" {
		return 0, false, nil
	}
	n, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || n < 1 {
		return 0, false, invalid("amount", "parameter_invalid_integer", "Invalid positive integer: %s", raw)
	}
	if n > MaxAmount {
		return 0, false, invalid("amount", "amount_too_large", "Amount must be no more than %d (minor units).", MaxAmount)
	}
	return n, true, nil
}

// replay answers a request whose Idempotency-Key was used before for an
// object of kind: the same object when the parameters are the same, an
// idempotency_error otherwise. It says whether it answered (s.mu held).
func (s *Simulator) replay(w http.ResponseWriter, key, kind, fp string, find func(id string) any) bool {
	if key == "" {
		return false
	}
	prev, ok := s.state.Idempotency[key]
	if !ok {
		return false
	}
	var obj any
	if prev.Object == kind && prev.Fingerprint == fp {
		obj = find(prev.ObjectID)
	}
	if obj == nil {
		writeError(w, &APIError{status: http.StatusBadRequest, Type: "idempotency_error",
			Message: "Keys for idempotent requests can only be used with the same parameters they were first used with."})
		return true
	}
	w.Header().Set("Idempotent-Replayed", "true")
	writeJSON(w, http.StatusOK, obj)
	return true
}

// remember keeps an idempotency key's object (s.mu held).
func (s *Simulator) remember(key, kind, id, fp string) error {
	if key == "" {
		return nil
	}
	s.state.Idempotency[key] = idempotent{Key: key, Object: kind, ObjectID: id, Fingerprint: fp}
	return s.saveKeyLocked(key)
}

func (s *Simulator) findRefund(id string) (*Record, *Refund) {
	rec := s.state.Intents[s.state.refundIntent[id]]
	if rec == nil {
		return nil, nil
	}
	return rec, rec.refund(id)
}

func (s *Simulator) findDispute(id string) (*Record, *Dispute) {
	rec := s.state.Intents[s.state.disputeIntent[id]]
	if rec == nil {
		return nil, nil
	}
	return rec, rec.dispute(id)
}

func (s *Simulator) createRefund(w http.ResponseWriter, r *http.Request) {
	if !s.secretOnly(w, r) {
		return
	}
	vals, raw, e := readForm(w, r, "payment_intent", "charge", "amount", "reason", "metadata", "expand")
	if e != nil {
		writeError(w, e)
		return
	}
	amount, hasAmount, e := optionalAmount(vals)
	if e != nil {
		writeError(w, e)
		return
	}
	var reason *string
	if v, ok := first(vals, "reason"); ok && v != "" {
		if !slices.Contains(refundReasons, v) {
			writeError(w, invalid("reason", "parameter_invalid_string", "Invalid reason: must be one of %s", strings.Join(refundReasons, ", ")))
			return
		}
		reason = &v
	}
	md, e := metadata(vals)
	if e != nil {
		writeError(w, e)
		return
	}
	pi, _ := first(vals, "payment_intent")
	ch, _ := first(vals, "charge")
	if pi == "" && ch == "" {
		writeError(w, invalid("payment_intent", "parameter_missing", "Missing required param: payment_intent."))
		return
	}
	key, fp := r.Header.Get("Idempotency-Key"), fingerprint(raw)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.replay(w, key, "refund", fp, func(id string) any {
		if _, f := s.findRefund(id); f != nil {
			return *f
		}
		return nil
	}) {
		return
	}
	var rec *Record
	if pi != "" {
		rec = s.state.Intents[pi]
	} else {
		for _, c := range s.state.Intents {
			if c.Intent.LatestCharge != nil && *c.Intent.LatestCharge == ch {
				rec = c
			}
		}
	}
	switch {
	case rec == nil && pi != "":
		writeError(w, &APIError{status: http.StatusNotFound, Type: "invalid_request_error", Code: "resource_missing", Param: "payment_intent",
			Message: fmt.Sprintf("No such payment_intent: '%s'", pi)})
		return
	case rec == nil:
		writeError(w, &APIError{status: http.StatusNotFound, Type: "invalid_request_error", Code: "resource_missing", Param: "charge",
			Message: fmt.Sprintf("No such charge: '%s'", ch)})
		return
	case ch != "" && (rec.Intent.LatestCharge == nil || *rec.Intent.LatestCharge != ch):
		writeError(w, invalid("charge", "parameter_invalid_string", "The charge %s is not the payment intent's %s.", ch, rec.Intent.ID))
		return
	case rec.Intent.Status != StatusSucceeded:
		writeError(w, invalid("payment_intent", "payment_intent_unexpected_state",
			"This PaymentIntent (%s) does not have a successful charge to refund: its status is %s.", rec.Intent.ID, rec.Intent.Status))
		return
	case rec.openDispute() != nil:
		writeError(w, invalid("payment_intent", "charge_disputed",
			"Charge %s has been disputed (%s): it cannot be refunded while the dispute is open.", *rec.Intent.LatestCharge, rec.openDispute().ID))
		return
	}
	left := rec.refundable()
	if left <= 0 {
		writeError(w, invalid("amount", "charge_already_refunded", "Charge %s has already been refunded.", *rec.Intent.LatestCharge))
		return
	}
	if !hasAmount {
		amount = left
	}
	if amount > left {
		writeError(w, invalid("amount", "amount_too_large", "Refund amount (%d) is greater than the amount left to refund (%d).", amount, left))
		return
	}
	f := Refund{ID: newID("re_"), Object: "refund", Amount: amount, Currency: rec.Intent.Currency, PaymentIntent: rec.Intent.ID,
		Charge: *rec.Intent.LatestCharge, Status: RefundPending, Reason: reason, Metadata: md, Created: time.Now().Unix()}
	rec.Refunds = append(rec.Refunds, f)
	s.state.refundIntent[f.ID] = rec.Intent.ID
	s.logSave(s.saveLocked(rec.Intent.ID), s.remember(key, "refund", f.ID, fp))
	s.enqueueLocked("refund", f.ID, rec.Intent.ID, EventChargeRefunded, md, nil)
	s.cfg.Logger.Info("processor simulator: refund created", "refundId", f.ID, "paymentIntentId", f.PaymentIntent, "amount", f.Amount)
	writeJSON(w, http.StatusOK, f)
}

// retrieveObject answers GET /v1/<kind>s/{id} (secret key only): a copy
// of the object find gives under s.mu, or resource_missing.
func retrieveObject[T any](s *Simulator, kind string, find func(id string) *T) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.secretOnly(w, r) {
			return
		}
		s.mu.Lock()
		var out T
		found := find(r.PathValue("id"))
		if found != nil {
			out = *found
		}
		s.mu.Unlock()
		if found == nil {
			writeError(w, missing(kind, r.PathValue("id")))
			return
		}
		writeJSON(w, http.StatusOK, out)
	}
}

func missing(kind, id string) *APIError {
	return &APIError{status: http.StatusNotFound, Type: "invalid_request_error", Code: "resource_missing", Param: "id",
		Message: fmt.Sprintf("No such %s: '%s'", kind, id)}
}

// openDispute opens a dispute on a paid intent, as a cardholder's bank
// would: amount (default: all not refunded yet) and reason (default
// fraudulent).
func (s *Simulator) openDispute(w http.ResponseWriter, r *http.Request) {
	if !s.secretOnly(w, r) {
		return
	}
	vals, e := readParams(w, r, "amount", "reason")
	if e != nil {
		writeError(w, e)
		return
	}
	amount, hasAmount, e := optionalAmount(vals)
	if e != nil {
		writeError(w, e)
		return
	}
	reason, _ := first(vals, "reason")
	if reason == "" {
		reason = "fraudulent"
	} else if !slices.Contains(disputeReasons, reason) {
		writeError(w, invalid("reason", "parameter_invalid_string", "Invalid reason: must be one of %s", strings.Join(disputeReasons, ", ")))
		return
	}
	id := r.PathValue("id")
	s.mu.Lock()
	defer s.mu.Unlock()
	rec := s.state.Intents[id]
	switch {
	case rec == nil:
		writeError(w, missing("payment_intent", id))
		return
	case rec.Intent.Status != StatusSucceeded:
		writeError(w, invalid("payment_intent", "payment_intent_unexpected_state", "Only a paid intent can be disputed: %s is %s.", id, rec.Intent.Status))
		return
	case rec.openDispute() != nil:
		writeError(w, invalid("payment_intent", "charge_disputed", "The intent's charge already has an open dispute (%s).", rec.openDispute().ID))
		return
	}
	left := rec.refundable()
	if left <= 0 {
		writeError(w, invalid("amount", "charge_already_refunded", "Nothing is left to dispute: the charge was refunded or lost in full."))
		return
	}
	if !hasAmount {
		amount = left
	}
	if amount > left {
		writeError(w, invalid("amount", "amount_too_large", "Dispute amount (%d) is greater than what is not refunded yet (%d).", amount, left))
		return
	}
	now := time.Now()
	d := Dispute{ID: newID("dp_"), Object: "dispute", Amount: amount, Currency: rec.Intent.Currency, Charge: *rec.Intent.LatestCharge,
		PaymentIntent: id, Reason: reason, Status: DisputeNeedsResponse, IsChargeRefundable: false, Metadata: map[string]string{},
		EvidenceDetails: EvidenceDetails{DueBy: now.Add(DisputeEvidenceWindow).Unix()}, Created: now.Unix()}
	rec.Disputes = append(rec.Disputes, d)
	s.state.disputeIntent[d.ID] = id
	s.logSave(s.saveLocked(id))
	s.enqueueLocked("dispute", d.ID, id, EventDisputeCreated, rec.Intent.Metadata, d)
	s.cfg.Logger.Info("processor simulator: dispute opened", "disputeId", d.ID, "paymentIntentId", id, "amount", d.Amount)
	writeJSON(w, http.StatusOK, d)
}

// closeDispute decides an open dispute: outcome won or lost. A lost
// dispute's amount can no longer be refunded.
func (s *Simulator) closeDispute(w http.ResponseWriter, r *http.Request) {
	if !s.secretOnly(w, r) {
		return
	}
	vals, e := readParams(w, r, "outcome")
	if e != nil {
		writeError(w, e)
		return
	}
	outcome, _ := first(vals, "outcome")
	if outcome != DisputeWon && outcome != DisputeLost {
		writeError(w, invalid("outcome", "parameter_invalid_string", "outcome must be won or lost, got %q.", outcome))
		return
	}
	id := r.PathValue("id")
	s.mu.Lock()
	defer s.mu.Unlock()
	rec, d := s.findDispute(id)
	switch {
	case d == nil:
		writeError(w, missing("dispute", id))
		return
	case d.Status == DisputeWon || d.Status == DisputeLost:
		writeError(w, invalid("outcome", "dispute_already_closed", "The dispute %s is already closed: %s.", id, d.Status))
		return
	}
	d.Status = outcome
	out := *d
	s.logSave(s.saveLocked(rec.Intent.ID))
	s.enqueueLocked("dispute", d.ID, rec.Intent.ID, EventDisputeClosed, rec.Intent.Metadata, out)
	s.cfg.Logger.Info("processor simulator: dispute closed", "disputeId", d.ID, "paymentIntentId", rec.Intent.ID, "outcome", outcome)
	writeJSON(w, http.StatusOK, out)
}

func (s *Simulator) createPayout(w http.ResponseWriter, r *http.Request) {
	if !s.secretOnly(w, r) {
		return
	}
	vals, raw, e := readForm(w, r, "amount", "currency", "metadata", "description", "method", "expand")
	if e != nil {
		writeError(w, e)
		return
	}
	amount, ok, e := optionalAmount(vals)
	if e == nil && !ok {
		e = invalid("amount", "parameter_missing", "Missing required param: amount.")
	}
	if e != nil {
		writeError(w, e)
		return
	}
	currency, _ := first(vals, "currency")
	currency = strings.ToLower(currency)
	if currency == "" {
		writeError(w, invalid("currency", "parameter_missing", "Missing required param: currency."))
		return
	}
	if !currencyRE.MatchString(currency) {
		writeError(w, invalid("currency", "parameter_invalid_string", "Invalid currency: %s.", currency))
		return
	}
	method, _ := first(vals, "method")
	if method == "" {
		method = "standard"
	} else if method != "standard" && method != "instant" {
		writeError(w, invalid("method", "parameter_invalid_string", "Invalid method: %s.", method))
		return
	}
	md, e := metadata(vals)
	if e != nil {
		writeError(w, e)
		return
	}
	now := time.Now().UTC()
	p := &Payout{ID: newID("po_"), Object: "payout", Amount: amount, Currency: currency, Status: PayoutPending, Method: method, Type: "bank_account",
		ArrivalDate: now.Truncate(24 * time.Hour).Add(24 * time.Hour).Unix(), Metadata: md, Created: now.Unix()}
	if d, ok := first(vals, "description"); ok {
		p.Description = &d
	}
	key, fp := r.Header.Get("Idempotency-Key"), fingerprint(raw)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.replay(w, key, "payout", fp, func(id string) any {
		if p := s.state.Payouts[id]; p != nil {
			return *p
		}
		return nil
	}) {
		return
	}
	s.state.Payouts[p.ID] = p
	s.logSave(s.savePayoutLocked(p.ID), s.remember(key, "payout", p.ID, fp))
	s.enqueueLocked("payout", p.ID, "", EventPayoutPaid, md, nil)
	s.cfg.Logger.Info("processor simulator: payout created", "payoutId", p.ID, "amount", p.Amount, "currency", p.Currency)
	writeJSON(w, http.StatusOK, *p)
}

// savePayoutLocked writes a payout to Dir (s.mu held).
func (s *Simulator) savePayoutLocked(id string) error {
	p, ok := s.state.Payouts[id]
	if s.cfg.Dir == "" || !ok {
		return nil
	}
	b, err := json.Marshal(p)
	if err != nil {
		return err
	}
	return writeFile(filepath.Join(s.cfg.Dir, payoutsDir, id+".json"), b)
}

func (s *Simulator) logSave(errs ...error) {
	for _, err := range errs {
		if err != nil {
			s.cfg.Logger.Error("processor simulator: saving failed", "err", err)
		}
	}
}
