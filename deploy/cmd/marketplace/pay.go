package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"marketplace/deploy/processor"
)

// pay settles a payment intent with the processor simulator (the all-in-one's
// or the distributed mode's, whichever holds the intent), as
// the customer's card form would with the real processor: the simulator
// confirms (or declines, or cancels) it and sends the signed webhook to the
// gateway. The outcome is one JSON line on stdout.
func pay(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	fs := newFlags("pay")
	intent := fs.String("intent", "", "the payment intent `PI` (paymentIntentId of customers.checkout.createPaymentIntent)")
	outcome := fs.String("outcome", "succeeded", "the `OUTCOME`: succeeded (a card that pays), failed (a declined card) or canceled")
	simURL := fs.String("simulator", "", "the simulator's base `URL` (default: found in DATA_DIR; e.g. compose's http://127.0.0.1:8081)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	id := strings.TrimSpace(*intent)
	if !strings.HasPrefix(id, "pi_") {
		return fmt.Errorf("pay: -intent must be a payment intent id (pi_...), got %q", *intent)
	}
	form, path := url.Values{}, "/v1/payment_intents/"+url.PathEscape(id)
	switch *outcome {
	case "succeeded", "":
		form.Set("payment_method", processor.CardSucceeds)
		path += "/confirm"
	case "failed":
		form.Set("payment_method", processor.CardDeclined)
		path += "/confirm"
	case "canceled":
		form.Set("cancellation_reason", "requested_by_customer")
		path += "/cancel"
	default:
		return fmt.Errorf("pay: -outcome must be succeeded, failed or canceled, got %q", *outcome)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	sim, err := findSimulator(ctx, *simURL, getenv, "/v1/payment_intents/"+url.PathEscape(id))
	if err != nil {
		return err
	}
	// A declined card is answered 402 with the intent: the outcome asked.
	declined := func(status int) bool { return status == http.StatusPaymentRequired && *outcome == "failed" }
	if _, err := sim.call(http.MethodPost, path, strings.NewReader(form.Encode()), nil, declined); err != nil {
		return err
	}
	var rec processor.Record
	if _, err := sim.call(http.MethodGet, "/simulator/payment_intents/"+url.PathEscape(id), nil, &rec, nil); err != nil {
		return err
	}
	if len(rec.Deliveries) == 0 {
		return errors.New("pay: the simulator sent no webhook")
	}
	d := rec.Deliveries[len(rec.Deliveries)-1]
	out, _ := json.Marshal(map[string]any{
		"paymentIntentId": rec.Intent.ID, "status": rec.Intent.Status, "amount": float64(rec.Intent.Amount) / 100, "currency": rec.Intent.Currency,
		"webhook": map[string]any{"eventId": d.EventID, "type": d.Type, "status": d.Status, "body": d.Body, "error": d.Error},
	})
	fmt.Fprintln(stdout, string(out))
	if !d.OK() {
		return fmt.Errorf("pay: the webhook %s was answered %d %s%s", d.Type, d.Status, strings.TrimSpace(d.Body), d.Error)
	}
	return nil
}
