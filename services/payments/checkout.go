package payments

// Checkout: customers.checkout.createPaymentIntent, the first step of the
// journey that ends in an order.
//
//  1. The client calls createPaymentIntent (storeId, addressId, deliveryType).
//     This service checks the address (the caller's, active), the store (it
//     exists, is active and open), asks the customers service to price the
//     caller's cart lines of that store with the delivery fee, and creates a
//     payment intent with the processor for that amount, carrying the
//     metadata of interface section 4.6.
//  2. The client confirms the payment with the processor (its SDK, the
//     clientSecret and the publishableKey; in development `make pay`).
//  3. The processor sends payment_intent.succeeded to the webhook
//     (webhook.go), which turns the same cart lines into the order, priced by
//     the same function, so the order's total is the intent's amount.
//
// The payments service owns this step because it holds the processor's keys
// and because it may call the addresses service (which itself calls the
// customers service: the customers service calling addresses would be a
// cycle of calls).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"time"
	"unicode/utf8"

	"github.com/stripe/stripe-go/v86"

	"marketplace/libs/apperr"
	"marketplace/libs/contracts/addresses"
	"marketplace/libs/money"
	"marketplace/libs/ops"
)

const (
	// Currency is what every payment is charged in.
	Currency = "aed"
	// MaxCharge is the largest amount the processor takes in one payment:
	// eight digits of minor units (999,999.99 AED).
	MaxCharge money.Fils = 99_999_999
	// MaxMetadataValue is the longest metadata value the processor keeps, in
	// characters.
	MaxMetadataValue = 500

	// processorTimeout bounds one request to the processor and
	// processorDeadline the whole call, retries included, inside the
	// gateway's 10 s.
	processorTimeout  = 4 * time.Second
	processorDeadline = 8 * time.Second
	processorRetries  = 2
)

// newProcessor is the processor's API client: stripe-go's, pointed at the
// configured URL (Stripe's, or a service that speaks its API). Nil without a
// secret key.
func newProcessor(st *Settings, logger *slog.Logger) *stripe.Client {
	if st.SecretKey == "" {
		return nil
	}
	backends := stripe.NewBackendsWithConfig(&stripe.BackendConfig{
		URL:               stripe.String(st.APIURL),
		HTTPClient:        &http.Client{Timeout: processorTimeout},
		MaxNetworkRetries: stripe.Int64(processorRetries),
		LeveledLogger:     processorLog{logger},
	})
	return stripe.NewClient(st.SecretKey, stripe.WithBackends(backends))
}

// processorLog hands stripe-go's log lines to the service's logger: its own
// errors are the failed requests this file reports itself, so they are
// warnings here. stripe-go logs whole response bodies at debug level, and a
// payment intent's body holds its client secret (which, with the public
// publishable key, confirms the payment): every line is redacted first.
type processorLog struct{ l *slog.Logger }

// clientSecretRE finds client secrets in the processor's JSON bodies.
var clientSecretRE = regexp.MustCompile(`("client_secret"\s*:\s*)"[^"]*"`)

func redactProcessorLine(format string, v ...any) string {
	return "processor: " + clientSecretRE.ReplaceAllString(fmt.Sprintf(format, v...), `$1"[redacted]"`)
}

func (p processorLog) Debugf(format string, v ...any) { p.l.Debug(redactProcessorLine(format, v...)) }
func (p processorLog) Infof(format string, v ...any)  { p.l.Debug(redactProcessorLine(format, v...)) }
func (p processorLog) Warnf(format string, v ...any)  { p.l.Warn(redactProcessorLine(format, v...)) }
func (p processorLog) Errorf(format string, v ...any) { p.l.Warn(redactProcessorLine(format, v...)) }

type checkoutArgs struct {
	StoreID      string `json:"storeId" op:"required,id=stores"`
	AddressID    string `json:"addressId" op:"required,id=customerAddresses"`
	DeliveryType string `json:"deliveryType" op:"required,enum=standard|express"`
}

// PaymentIntent is createPaymentIntent's answer: what the client needs to
// confirm the payment with the processor's SDK, and the amount's parts (AED).
type PaymentIntent struct {
	PaymentIntentID string  `json:"paymentIntentId"`
	ClientSecret    string  `json:"clientSecret"`
	Amount          float64 `json:"amount"`
	Currency        string  `json:"currency"`
	PublishableKey  string  `json:"publishableKey"`
	Subtotal        float64 `json:"subtotal"`
	DeliveryFee     float64 `json:"deliveryFee"`
}

// createPaymentIntent checks, prices and creates the payment intent. Nothing
// is written here: an intent that is never paid leaves nothing behind.
func (s *svc) createPaymentIntent(ctx context.Context, a *checkoutArgs) (PaymentIntent, error) {
	customer := ops.CustomerOf(ctx)
	if s.processor == nil {
		s.env.Logger.ErrorContext(ctx, "checkout refused: "+EnvSecretKey+" is not set")
		return PaymentIntent{}, apperr.New(apperr.Unavailable, "card payments are not available: the payment processor is not configured")
	}
	addr, err := s.addresses.MyAddress(ctx, a.AddressID)
	if err != nil {
		return PaymentIntent{}, err
	}
	if !addr.IsActive {
		return PaymentIntent{}, apperr.New(apperr.FailedPrecondition, "address %s is inactive: choose an active address", a.AddressID)
	}
	if addr.City == nil || addr.Area == nil {
		// The addresses service shows places from its projection of the
		// catalog, which has every place an address was saved with; a gap is
		// that projection catching up.
		return PaymentIntent{}, apperr.New(apperr.Unavailable, "the city or area of address %s cannot be read right now", a.AddressID)
	}
	st, err := s.catalog.Store(ctx, a.StoreID)
	if err != nil {
		return PaymentIntent{}, err
	}
	switch {
	case st == nil:
		return PaymentIntent{}, apperr.New(apperr.NotFound, "store %s does not exist", a.StoreID)
	case !st.IsActive:
		return PaymentIntent{}, apperr.New(apperr.FailedPrecondition, "store %s is not active", a.StoreID).WithDetails(map[string]any{"reason": "store_inactive"})
	case !st.IsOpen:
		return PaymentIntent{}, apperr.New(apperr.FailedPrecondition, "store %s is closed: it takes no orders now", a.StoreID).WithDetails(map[string]any{"reason": "store_closed"})
	}
	q, err := s.customers.CheckoutQuote(ctx, customer.ID, a.StoreID, a.DeliveryType)
	if err != nil {
		return PaymentIntent{}, err
	}
	// Compared before the conversion: a cart may total more than any amount
	// the platform keeps in fils (100 lines of 99 at 1,000,000 AED), which is
	// too large to pay, not an internal error.
	if q.Total > MaxCharge.AED() {
		return PaymentIntent{}, apperr.New(apperr.FailedPrecondition, "the order's total of %.2f AED is above the %s AED the processor takes in one payment: order less at once",
			q.Total, decimalAED(MaxCharge)).WithDetails(map[string]any{"reason": "amount_too_large"})
	}
	amount, err := money.FromAED(q.Total)
	if err != nil {
		return PaymentIntent{}, apperr.Wrap(err, apperr.Internal, "internal error")
	}
	fee, err := money.FromAED(q.DeliveryFee)
	if err != nil {
		return PaymentIntent{}, apperr.Wrap(err, apperr.Internal, "internal error")
	}
	if amount <= 0 || amount > MaxCharge {
		return PaymentIntent{}, apperr.Wrap(fmt.Errorf("the quote of store %s totals %d fils", a.StoreID, amount), apperr.Internal, "internal error")
	}
	meta, err := checkoutMetadata(customer.ID, a.StoreID, addr, q.Phone, a.DeliveryType, fee)
	if err != nil {
		return PaymentIntent{}, err
	}
	pctx, cancel := context.WithTimeout(ctx, processorDeadline)
	defer cancel()
	pi, err := s.processor.V1PaymentIntents.Create(pctx, &stripe.PaymentIntentCreateParams{
		Amount:                  stripe.Int64(int64(amount)),
		Currency:                stripe.String(Currency),
		Metadata:                meta,
		AutomaticPaymentMethods: &stripe.PaymentIntentCreateAutomaticPaymentMethodsParams{Enabled: stripe.Bool(true)},
	})
	if err != nil {
		return PaymentIntent{}, s.processorFailure(ctx, err)
	}
	if pi.ID == "" || pi.ClientSecret == "" || pi.Amount != int64(amount) || string(pi.Currency) != Currency {
		return PaymentIntent{}, apperr.Wrap(fmt.Errorf("the processor answered intent %q with amount %d %s (asked %d %s), client secret set: %t",
			pi.ID, pi.Amount, pi.Currency, amount, Currency, pi.ClientSecret != ""), apperr.Internal, "internal error")
	}
	s.env.Logger.InfoContext(ctx, "payment intent created", "paymentIntentId", pi.ID, "customerId", customer.ID, "storeId", a.StoreID,
		"amount", amount.AED(), "deliveryType", a.DeliveryType, "deliveryFee", fee.AED(), "lines", len(q.Lines))
	return PaymentIntent{
		PaymentIntentID: pi.ID, ClientSecret: pi.ClientSecret, Amount: amount.AED(), Currency: Currency,
		PublishableKey: s.publishableKey, Subtotal: q.Subtotal, DeliveryFee: fee.AED(),
	}, nil
}

// checkoutMetadata is the payment's metadata (interface section 4.6), what
// the webhook turns into the order (orderFrom): our customer and store ids,
// the delivery address as a JSON-encoded object (the saved address's text,
// its city and area ids, the profile's phone), the delivery type and fee.
// The processor keeps values of at most 500 characters: a longer address is
// FAILED_PRECONDITION rather than cut.
func checkoutMetadata(customerID, storeID string, addr *addresses.Address, phone, deliveryType string, fee money.Fils) (map[string]string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // "&" stays one character of the 500
	if err := enc.Encode(DeliveryAddress{FullAddress: addr.FullAddress, City: addr.City.ID, Area: addr.Area.ID, PhoneNumber: phone}); err != nil {
		return nil, err
	}
	encoded := string(bytes.TrimSpace(buf.Bytes()))
	if n := utf8.RuneCountInString(encoded); n > MaxMetadataValue {
		return nil, apperr.New(apperr.FailedPrecondition,
			"the delivery address is too long to travel with the payment (%d characters with the phone and place ids, at most %d): shorten the address's fullAddress",
			n, MaxMetadataValue).WithDetails(map[string]any{"reason": "address_too_long", "field": "addressId"})
	}
	return map[string]string{
		"customerId":      customerID,
		"storeId":         storeID,
		"deliveryAddress": encoded,
		"deliveryType":    deliveryType,
		"deliveryFee":     decimalAED(fee),
	}, nil
}

// decimalAED writes a non-negative amount with two decimals ("10.00").
func decimalAED(f money.Fils) string {
	return fmt.Sprintf("%d.%02d", f/100, f%100)
}

// processorFailure is what a failed call to the processor means to the
// client: UNAVAILABLE when the processor cannot be reached, is failing, limits
// us, or refuses our key (all logged for the operator); INTERNAL when it
// refused what we sent, which the checks above should have prevented.
func (s *svc) processorFailure(ctx context.Context, err error) error {
	unavailable := apperr.New(apperr.Unavailable, "the payment processor is unavailable; try again shortly")
	var se *stripe.Error
	if !errors.As(err, &se) {
		s.env.Logger.WarnContext(ctx, "payment processor unreachable", "err", err)
		return unavailable
	}
	switch {
	case se.HTTPStatusCode == http.StatusUnauthorized || se.HTTPStatusCode == http.StatusForbidden:
		s.env.Logger.ErrorContext(ctx, "the payment processor refused the secret key: check "+EnvSecretKey, "status", se.HTTPStatusCode, "message", se.Msg)
		return unavailable
	case se.HTTPStatusCode == http.StatusTooManyRequests || se.HTTPStatusCode >= 500 || se.Type == stripe.ErrorTypeAPI:
		s.env.Logger.WarnContext(ctx, "payment processor failing", "status", se.HTTPStatusCode, "type", se.Type, "message", se.Msg)
		return unavailable
	}
	return apperr.Wrap(fmt.Errorf("the payment processor refused the payment intent: status %d, %s %s: %s (param %q)",
		se.HTTPStatusCode, se.Type, se.Code, se.Msg, se.Param), apperr.Internal, "internal error")
}
