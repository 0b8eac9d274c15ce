package payments

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/stripe/stripe-go/v86"

	"marketplace/libs/apperr"
	"marketplace/libs/contracts/addresses"
	"marketplace/libs/contracts/customers"
	"marketplace/libs/ids"
	"marketplace/libs/money"
	"marketplace/libs/service"
)

func savedAddress(full string) *addresses.Address {
	return &addresses.Address{ID: ids.New("customerAddresses"), FullAddress: full, IsActive: true,
		City: &addresses.CityRef{ID: ids.New("cities"), Name: "Dubai"}, Area: &addresses.AreaRef{ID: ids.New("areas"), Name: "Marina"}}
}

// What checkout writes is what the webhook reads: the metadata of a payment
// intent, read back by the webhook's own parser, is the order request the
// checkout meant.
func TestCheckoutMetadataIsWhatTheWebhookReads(t *testing.T) {
	for _, c := range []struct {
		full string
		fee  money.Fils
	}{
		{"Villa 7, Street 3 & Sons <Jumeirah>", 10_00},
		{"فيلا ٧، شارع ٣، جميرا", 0},
		{`Flat "12", Tower\B`, 20_00},
	} {
		addr := savedAddress(c.full)
		meta, err := checkoutMetadata(testCustomer, testStore, addr, "+971501111111", customers.DeliveryExpress, c.fee)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]any{}
		for k, v := range meta {
			m[k] = v
		}
		p, err := parseIntent(intentJSON(t, "pi_x", 12345, "aed", m))
		if err != nil {
			t.Fatal(err)
		}
		o, err := orderFrom(p)
		if err != nil {
			t.Fatalf("%q: the webhook refuses the checkout's metadata: %v", c.full, err)
		}
		want := orderRequest{CustomerID: testCustomer, StoreID: testStore, PaymentIntentID: "pi_x",
			DeliveryAddress: DeliveryAddress{FullAddress: c.full, City: addr.City.ID, Area: addr.Area.ID, PhoneNumber: "+971501111111"},
			DeliveryType:    customers.DeliveryExpress, DeliveryFee: c.fee, AmountPaid: 12345, Currency: "aed"}
		if *o != want {
			t.Errorf("read back %+v, want %+v", *o, want)
		}
		if strings.Contains(meta["deliveryAddress"], `\u0026`) {
			t.Errorf("the address is HTML-escaped, which wastes the processor's 500 characters: %s", meta["deliveryAddress"])
		}
	}
}

// The processor keeps metadata values of at most 500 characters (not bytes):
// an address whose encoding is longer is refused, naming the reason.
func TestCheckoutMetadataRefusesAnAddressTooLongForTheProcessor(t *testing.T) {
	base, err := checkoutMetadata(testCustomer, testStore, savedAddress(""), "+971501111111", "standard", 0)
	if err != nil {
		t.Fatal(err)
	}
	room := MaxMetadataValue - len([]rune(base["deliveryAddress"]))
	fits := savedAddress(strings.Repeat("ش", room)) // two bytes each: characters count
	if meta, err := checkoutMetadata(testCustomer, testStore, fits, "+971501111111", "standard", 0); err != nil || len([]rune(meta["deliveryAddress"])) != MaxMetadataValue {
		t.Fatalf("an address of exactly %d characters: %v", MaxMetadataValue, err)
	}
	_, err = checkoutMetadata(testCustomer, testStore, savedAddress(strings.Repeat("ش", room+1)), "+971501111111", "standard", 0)
	if !apperr.Is(err, apperr.FailedPrecondition) || apperr.From(err).Details["reason"] != "address_too_long" {
		t.Fatalf("one character over: %v", err)
	}
}

func TestDecimalAED(t *testing.T) {
	for f, want := range map[money.Fils]string{0: "0.00", 5: "0.05", 10_00: "10.00", 12_35: "12.35", MaxCharge: "999999.99"} {
		if got := decimalAED(f); got != want {
			t.Errorf("decimalAED(%d) = %q, want %q", f, got, want)
		}
		if back, err := parseFee(decimalAED(f)); err != nil || back != f {
			t.Errorf("the webhook reads %q as %d, %v", decimalAED(f), back, err)
		}
	}
}

// The operation's deliveryType enumeration is the contract's list, which the
// customers service prices.
func TestDeliveryTypesAreTheContracts(t *testing.T) {
	f, _ := reflect.TypeOf(checkoutArgs{}).FieldByName("DeliveryType")
	tag := f.Tag.Get("op")
	_, enum, ok := strings.Cut(tag, "enum=")
	if !ok || strings.Split(enum, ",")[0] != strings.Join(customers.DeliveryTypes, "|") {
		t.Fatalf("deliveryType is declared %q; the contract lists %v", tag, customers.DeliveryTypes)
	}
}

func TestSettingsRefuseABadProcessorURL(t *testing.T) {
	for _, u := range []string{"api.stripe.com", "ftp://x", "http://", "://x"} {
		if err := (&Settings{APIURL: u}).Validate(); err == nil {
			t.Errorf("%q accepted", u)
		}
	}
	for _, u := range []string{"https://api.stripe.com", "http://127.0.0.1:12111"} {
		if err := (&Settings{APIURL: u}).Validate(); err != nil {
			t.Errorf("%q refused: %v", u, err)
		}
	}
}

// How the processor's failures reach the client: the processor unreachable,
// failing, limiting us or refusing our key is UNAVAILABLE (retry later); the
// processor refusing what we sent is INTERNAL (our bug, logged).
func TestProcessorFailures(t *testing.T) {
	s := &svc{env: service.Env{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}}
	for _, c := range []struct {
		name   string
		status int // 0: nothing listens
		body   string
		want   apperr.Code
	}{
		{"bad key", 401, `{"error":{"type":"invalid_request_error","message":"Invalid API Key provided: sk_t****"}}`, apperr.Unavailable},
		{"rate limited", 429, `{"error":{"type":"invalid_request_error","code":"rate_limit","message":"Too many requests"}}`, apperr.Unavailable},
		{"processor error", 500, `{"error":{"type":"api_error","message":"Something went wrong"}}`, apperr.Unavailable},
		{"a proxy's page", 502, `<html>Bad gateway</html>`, apperr.Unavailable},
		{"refused request", 400, `{"error":{"type":"invalid_request_error","code":"amount_too_small","param":"amount","message":"Amount must be at least 2.00 aed"}}`, apperr.Internal},
		{"unreachable", 0, "", apperr.Unavailable},
	} {
		t.Run(c.name, func(t *testing.T) {
			url := closedURL(t)
			if c.status != 0 {
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Stripe-Should-Retry", "false") // answer at once
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(c.status)
					io.WriteString(w, c.body)
				}))
				defer srv.Close()
				url = srv.URL
			}
			pc := newProcessor(&Settings{APIURL: url, SecretKey: "sk_test_x"}, s.env.Logger)
			_, err := pc.V1PaymentIntents.Create(context.Background(), &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(1000), Currency: stripe.String("aed")})
			if err == nil {
				t.Fatal("no error")
			}
			if got := apperr.CodeOf(s.processorFailure(context.Background(), err)); got != c.want {
				t.Fatalf("%v -> %s, want %s", err, got, c.want)
			}
		})
	}
}

// closedURL is an address nothing listens on.
func closedURL(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u := "http://" + ln.Addr().String()
	ln.Close()
	return u
}

// The processor's answers are logged at debug level by stripe-go, whole: a
// payment intent's client secret never reaches the log.
func TestProcessorLogHidesClientSecrets(t *testing.T) {
	const secret = "pi_123_secret_abcdefghijklmnopqrstuvwxy"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id": "pi_123", "object": "payment_intent", "amount": 1000, "currency": "aed", "client_secret": "`+secret+`", "metadata": {}}`)
	}))
	defer srv.Close()
	var logs strings.Builder
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	pc := newProcessor(&Settings{APIURL: srv.URL, SecretKey: "sk_test_x"}, logger)
	pi, err := pc.V1PaymentIntents.Create(context.Background(), &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(1000), Currency: stripe.String("aed")})
	if err != nil || pi.ClientSecret != secret {
		t.Fatalf("create: %+v %v", pi, err)
	}
	if !strings.Contains(logs.String(), "Response:") || !strings.Contains(logs.String(), "[redacted]") {
		t.Fatalf("the processor's answer was not logged (redacted) at debug level:\n%s", logs.String())
	}
	if strings.Contains(logs.String(), "abcdefghijklmnopqrstuvwxy") {
		t.Fatalf("the client secret is in the log:\n%s", logs.String())
	}
}
