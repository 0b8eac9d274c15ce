package payments

import (
	"context"

	"github.com/gofiber/fiber/v2"

	"marketplace/libs/ops"
	"marketplace/libs/service"
)

// Module is the payments service.
var Module = service.Module{Name: "payments", Build: build}

// Settings read once at build time.
const (
	EnvWebhookSecret  = "PROCESSOR_WEBHOOK_SECRET"
	EnvPublishableKey = "PROCESSOR_PUBLISHABLE_KEY"
)

// Topic carries the events of this service.
const Topic = "payments"

// EventPaymentFailed is the type of the event published for a failed payment.
const EventPaymentFailed = "payment.failed"

// PaymentFailed is the data of a payment.failed event (subject: the payment
// intent id). Amounts are AED numbers, as everywhere at the interface.
type PaymentFailed struct {
	PaymentIntentID string  `json:"paymentIntentId"`
	CustomerID      string  `json:"customerId"`
	CustomerUserID  string  `json:"customerUserId"`
	StoreID         string  `json:"storeId"`
	Amount          float64 `json:"amount"`
	Currency        string  `json:"currency"`
	FailureMessage  string  `json:"failureMessage"` // the processor's last_payment_error.message, may be ""
}

// The operations of other services this service calls.
const (
	customersService = "customers"
	opCreateOrder    = "customers.cartToOrder.createOrderFromCart"
	opGetProfiles    = "customers.profile.getProfiles"
	catalogService   = "catalog"
	opGetStore       = "stores.catalog.getStore"
)

type svc struct {
	env            service.Env
	webhookSecret  string
	publishableKey string
}

func build(_ context.Context, env service.Env) (*service.Built, error) {
	s := &svc{
		env:            env,
		webhookSecret:  env.Getenv(EnvWebhookSecret),
		publishableKey: env.Getenv(EnvPublishableKey),
	}
	if s.webhookSecret == "" {
		env.Logger.Warn(EnvWebhookSecret + " is not set: every webhook delivery will be refused")
	}
	if s.publishableKey == "" {
		env.Logger.Warn(EnvPublishableKey + " is not set: /processor/config answers an empty publishable key")
	}
	return &service.Built{
		// No operations: the processor reaches this service only through the
		// routes below. processed events need no extra index: _id is unique.
		Registry: ops.NewRegistry("payments"),
		Routes: func(app *fiber.App) {
			app.Post("/processor/webhook", s.webhook)
			app.Get("/processor/config", s.config)
		},
	}, nil
}

// config answers GET /processor/config.
func (s *svc) config(c *fiber.Ctx) error {
	return c.JSON(fiber.Map{"publishableKey": s.publishableKey})
}
