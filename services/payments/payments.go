package payments

import (
	"context"

	"github.com/gofiber/fiber/v2"

	"marketplace/libs/contracts/catalog"
	"marketplace/libs/contracts/customers"
	contract "marketplace/libs/contracts/payments"
	"marketplace/libs/ops"
	"marketplace/libs/service"
)

// Module is the payments service.
var Module = service.Module{Name: "payments", Build: build, Publishes: []string{contract.Topic},
	Calls: []string{customers.Service, catalog.Service}, Settings: func() any { return &Settings{} }}

// Settings are the payments service's own, from the environment.
type Settings struct {
	WebhookSecret  string `env:"PROCESSOR_WEBHOOK_SECRET" secret:"true"`
	PublishableKey string `env:"PROCESSOR_PUBLISHABLE_KEY"`
}

// Names of the settings, for messages.
const (
	EnvWebhookSecret  = "PROCESSOR_WEBHOOK_SECRET"
	EnvPublishableKey = "PROCESSOR_PUBLISHABLE_KEY"
)

// Topic carries the events of this service; EventPaymentFailed is published
// for a failed payment with a PaymentFailed (the contract's).
const (
	Topic              = contract.Topic
	EventPaymentFailed = contract.EventPaymentFailed
)

// PaymentFailed is the data of payment.failed.
type PaymentFailed = contract.PaymentFailed

type svc struct {
	env            service.Env
	customers      *customers.Client
	catalog        *catalog.Client
	webhookSecret  string
	publishableKey string
}

func build(_ context.Context, env service.Env) (*service.Built, error) {
	settings, _ := env.Settings.(*Settings)
	if settings == nil {
		settings = &Settings{}
	}
	s := &svc{
		env:            env,
		customers:      customers.NewClient(env.Calls),
		catalog:        catalog.NewClient(env.Calls),
		webhookSecret:  settings.WebhookSecret,
		publishableKey: settings.PublishableKey,
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
		// The gateway forwards exactly these (GET /ops lists them); a refusal
		// of its own (rate limit, payments unreachable) keeps the webhook's
		// { error, retryAfter } body.
		Routes: []ops.Route{
			{Method: fiber.MethodPost, Path: "/processor/webhook", Access: ops.Public, Errors: ops.ErrorsSimple,
				Summary: "The payment processor's signed webhook.", Handler: s.webhook},
			{Method: fiber.MethodGet, Path: "/processor/config", Access: ops.Public, Errors: ops.ErrorsSimple,
				Summary: "The processor's publishable key.", Handler: s.config},
		},
	}, nil
}

// config answers GET /processor/config.
func (s *svc) config(c *fiber.Ctx) error {
	return c.JSON(fiber.Map{"publishableKey": s.publishableKey})
}
