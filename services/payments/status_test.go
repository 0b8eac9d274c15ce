package payments

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/stripe/stripe-go/v86/webhook"

	"marketplace/libs/apperr"
)

func TestStatusMapping(t *testing.T) {
	cases := []struct {
		err  error
		want int
		body fiber.Map
	}{
		{apperr.Invalid("metadata.storeId", "is required"), 400, fiber.Map{"error": "metadata.storeId: is required"}},
		{apperr.New(apperr.NotFound, "customer does not exist"), 400, fiber.Map{"error": "customer does not exist"}},
		{apperr.New(apperr.Unavailable, "customers is unreachable"), 503, fiber.Map{"error": "customers is unreachable", "retryAfter": RetryAfterSeconds}},
		{apperr.New(apperr.FailedPrecondition, "there is no active platform configuration"), 500, fiber.Map{"error": "there is no active platform configuration", "eventId": "evt_1"}},
		{apperr.New(apperr.Internal, "internal error"), 500, fiber.Map{"error": "internal error", "eventId": "evt_1"}},
		{apperr.New(apperr.AlreadyExists, "exists"), 500, fiber.Map{"error": "exists", "eventId": "evt_1"}},
		{apperr.New(apperr.PermissionDenied, "no"), 500, fiber.Map{"error": "no", "eventId": "evt_1"}},
		{apperr.New(apperr.Unauthenticated, "no"), 500, fiber.Map{"error": "no", "eventId": "evt_1"}},
		{apperr.New(apperr.RateLimited, "slow down"), 500, fiber.Map{"error": "slow down", "eventId": "evt_1"}},
		// An untyped error is a bug or a database failure: retry, and do not leak its text.
		{errors.New("disk on fire"), 500, fiber.Map{"error": "internal error", "eventId": "evt_1"}},
		{fmt.Errorf("wrapped: %w", apperr.New(apperr.Unavailable, "down")), 503, fiber.Map{"error": "down", "retryAfter": RetryAfterSeconds}},
	}
	for _, c := range cases {
		if got := statusOf(c.err); got != c.want {
			t.Errorf("statusOf(%v) = %d, want %d", c.err, got, c.want)
		}
		a := failure(c.err, "evt_1")
		if a.status != c.want || fmt.Sprint(a.json) != fmt.Sprint(c.body) {
			t.Errorf("failure(%v) = %d %v, want %d %v", c.err, a.status, a.json, c.want, c.body)
		}
	}
}

func TestSignatureErrors(t *testing.T) {
	body := []byte(`{"id":"evt_1","type":"x"}`)
	const secret = "whsec_test"
	good := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: body, Secret: secret}).Header
	stale := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: body, Secret: secret, Timestamp: time.Now().Add(-301 * time.Second)}).Header
	other := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: body, Secret: "whsec_other"}).Header
	_, otherSig, _ := strings.Cut(other, ",")
	_, goodSig, _ := strings.Cut(good, ",")
	ts, _, _ := strings.Cut(good, ",")
	cases := []struct {
		header string
		want   string // "" = valid
	}{
		{good, ""},
		{ts + "," + otherSig + "," + goodSig, ""}, // several v1: one matching is enough
		{good + ",v0=abc,scheme=x", ""},           // unknown parts are ignored
		{stale, "older than the 300 s tolerance"},
		{other, "no valid signature"},
		{ts + "," + otherSig, "no valid signature"},
		{ts, "no valid signature"},
		{"garbage", "malformed"},
		{"t=abc," + goodSig, "malformed"},
		{goodSig, "older than"}, // no timestamp: year 1
	}
	for _, c := range cases {
		err := webhook.ValidatePayload(body, c.header, secret)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q refused: %v", c.header, err)
		case c.want != "" && err == nil:
			t.Errorf("%q accepted", c.header)
		case c.want != "" && !strings.Contains(signatureError(err), c.want):
			t.Errorf("%q: %q, want it to contain %q", c.header, signatureError(err), c.want)
		}
	}
	if err := webhook.ValidatePayload(append(body, ' '), good, secret); err == nil {
		t.Error("a changed body was accepted")
	}
}
