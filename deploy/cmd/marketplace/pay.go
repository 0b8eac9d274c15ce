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
	"marketplace/deploy/system"
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
	var bases []string
	var key string
	var err error
	if *simURL != "" {
		bases = []string{strings.TrimRight(*simURL, "/")}
		key, err = system.SimulatorKey(getenv)
	} else {
		bases, key, err = system.Simulators(getenv)
	}
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	base := holder(ctx, bases, key, "/v1/payment_intents/"+url.PathEscape(id))
	call := func(method, path string, body io.Reader, out any) (int, error) {
		req, err := http.NewRequestWithContext(ctx, method, base+path, body)
		if err != nil {
			return 0, err
		}
		req.Header.Set("Authorization", "Bearer "+key)
		if body != nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, fmt.Errorf("the processor simulator at %s does not answer (is `make run` or `make run-distributed` running with this DATA_DIR?): %w", base, err)
		}
		defer resp.Body.Close()
		raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		if err != nil {
			return resp.StatusCode, err
		}
		var e struct {
			Error *processor.APIError `json:"error"`
		}
		if resp.StatusCode != http.StatusOK && json.Unmarshal(raw, &e) == nil && e.Error != nil &&
			!(resp.StatusCode == http.StatusPaymentRequired && *outcome == "failed") {
			return resp.StatusCode, fmt.Errorf("the processor simulator refused: %s", e.Error.Message)
		}
		if out != nil {
			return resp.StatusCode, json.Unmarshal(raw, out)
		}
		return resp.StatusCode, nil
	}
	if _, err := call(http.MethodPost, path, strings.NewReader(form.Encode()), nil); err != nil {
		return err
	}
	var rec processor.Record
	if _, err := call(http.MethodGet, "/simulator/payment_intents/"+url.PathEscape(id), nil, &rec); err != nil {
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

// holder is the simulator among bases that holds the object of path (GET
// answers 200); when none does (or none answers), the first, whose answer
// then says why.
func holder(ctx context.Context, bases []string, key, path string) string {
	for _, base := range bases {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
		if err != nil {
			cancel()
			continue
		}
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		cancel()
		if err != nil {
			continue
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			return base
		}
	}
	return bases[0]
}
