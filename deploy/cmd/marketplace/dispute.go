package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"marketplace/deploy/processor"
	"marketplace/libs/money"
)

// disputeWait is how long `marketplace dispute` waits for the first attempt
// of the dispute's webhook.
const disputeWait = 10 * time.Second

// dispute opens a dispute on a paid intent at the processor simulator (as a
// cardholder's bank would), or closes one won or lost; the simulator sends
// charge.dispute.created or charge.dispute.closed to the gateway from its
// queue. The dispute and its webhook's first answer are one JSON line on
// stdout.
func dispute(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	fs := newFlags("dispute")
	intent := fs.String("intent", "", "open a dispute on the paid payment intent `PI`")
	amount := fs.String("amount", "", "the disputed `AED` (default: all that is not refunded yet)")
	reason := fs.String("reason", "", "the bank's `REASON`, e.g. fraudulent (default), product_not_received, duplicate")
	closeID := fs.String("close", "", "close the dispute `DP` (dp_...) with -outcome")
	outcome := fs.String("outcome", "", "the closed dispute's `OUTCOME`: won or lost")
	simURL := fs.String("simulator", "", "the simulator's base `URL` (default: found in DATA_DIR; e.g. compose's http://127.0.0.1:8081)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	pi, dp := strings.TrimSpace(*intent), strings.TrimSpace(*closeID)
	form := url.Values{}
	var path, find string
	switch {
	case (pi == "") == (dp == ""):
		return fmt.Errorf("dispute: give -intent PI to open a dispute, or -close DP -outcome won|lost to close one")
	case pi != "":
		if !strings.HasPrefix(pi, "pi_") {
			return fmt.Errorf("dispute: -intent must be a payment intent id (pi_...), got %q", *intent)
		}
		if *outcome != "" {
			return fmt.Errorf("dispute: -outcome goes with -close")
		}
		if *amount != "" {
			fils, err := money.ParseAED(strings.TrimSpace(*amount))
			if err != nil || fils <= 0 {
				return fmt.Errorf("dispute: -amount must be a positive amount in AED with at most two decimals, got %q", *amount)
			}
			form.Set("amount", strconv.FormatInt(int64(fils), 10))
		}
		if *reason != "" {
			form.Set("reason", *reason)
		}
		path, find = "/simulator/payment_intents/"+url.PathEscape(pi)+"/disputes", "/v1/payment_intents/"+url.PathEscape(pi)
	default:
		if !strings.HasPrefix(dp, "dp_") {
			return fmt.Errorf("dispute: -close must be a dispute id (dp_...), got %q", *closeID)
		}
		if *outcome != processor.DisputeWon && *outcome != processor.DisputeLost {
			return fmt.Errorf("dispute: -outcome must be won or lost, got %q", *outcome)
		}
		if *amount != "" || *reason != "" {
			return fmt.Errorf("dispute: -amount and -reason go with -intent")
		}
		form.Set("outcome", *outcome)
		path, find = "/simulator/disputes/"+url.PathEscape(dp)+"/close", "/v1/disputes/"+url.PathEscape(dp)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	sim, err := findSimulator(ctx, *simURL, getenv, find)
	if err != nil {
		return err
	}
	call := func(method, path string, body io.Reader, out any) error {
		_, err := sim.call(method, path, body, out, nil)
		return err
	}
	var d processor.Dispute
	if err := call(http.MethodPost, path, strings.NewReader(form.Encode()), &d); err != nil {
		return err
	}
	eventType := processor.EventDisputeCreated
	if dp != "" {
		eventType = processor.EventDisputeClosed
	}
	// The webhook is queued: wait for its first attempt (a delay or a hold
	// may keep it longer).
	var q processor.QueuedDelivery
	for deadline := time.Now().Add(disputeWait); ; {
		var list struct {
			Data []processor.QueuedDelivery `json:"data"`
		}
		if err := call(http.MethodGet, "/simulator/deliveries?objectId="+url.QueryEscape(d.ID)+"&type="+url.QueryEscape(eventType), nil, &list); err != nil {
			return err
		}
		if n := len(list.Data); n > 0 {
			q = list.Data[n-1]
		}
		if q.Attempts > 0 || q.Status == processor.DeliveryHeld || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	out, _ := json.Marshal(map[string]any{
		"disputeId": d.ID, "paymentIntentId": d.PaymentIntent, "status": d.Status, "amount": float64(d.Amount) / 100, "currency": d.Currency,
		"reason": d.Reason, "evidenceDueBy": time.Unix(d.EvidenceDetails.DueBy, 0).UTC().Format(time.RFC3339),
		"webhook": map[string]any{"deliveryId": q.ID, "eventId": q.EventID, "type": eventType, "delivery": q.Status, "attempts": q.Attempts,
			"status": q.LastStatus, "error": q.LastError},
	})
	fmt.Fprintln(stdout, string(out))
	if q.Attempts > 0 && q.Status != processor.DeliveryDelivered {
		return fmt.Errorf("dispute: the webhook %s was answered %d %s (the simulator retries it: GET /simulator/deliveries)", eventType, q.LastStatus, q.LastError)
	}
	return nil
}
