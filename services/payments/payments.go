package payments

import (
	"context"
	"fmt"
	"net/url"

	"github.com/gofiber/fiber/v2"
	"github.com/stripe/stripe-go/v86"

	"marketplace/libs/contracts/addresses"
	"marketplace/libs/contracts/catalog"
	"marketplace/libs/contracts/customers"
	contract "marketplace/libs/contracts/payments"
	"marketplace/libs/events"
	"marketplace/libs/httpserver"
	"marketplace/libs/ops"
	"marketplace/libs/service"
	"marketplace/services/payments/storage"
)

// Module is the payments service.
var Module = service.Module{Name: "payments", Build: build, Publishes: []string{contract.Topic},
	Consumes: []string{customers.TopicOrders},
	Calls:    []string{customers.Service, catalog.Service, addresses.Service}, Settings: func() any { return &Settings{} }}

// Settings are the payments service's own, from the environment.
type Settings struct {
	WebhookSecret  string `env:"PROCESSOR_WEBHOOK_SECRET" secret:"true"`
	PublishableKey string `env:"PROCESSOR_PUBLISHABLE_KEY"`
	// The processor's API (Stripe's, or anything that speaks it: the
	// all-in-one's simulator) and the secret key checkout creates payment
	// intents with.
	APIURL    string `env:"PROCESSOR_API_URL" default:"https://api.stripe.com"`
	SecretKey string `env:"PROCESSOR_SECRET_KEY" secret:"true"`
}

// Validate refuses a processor URL that is not an absolute http(s) URL.
func (s *Settings) Validate() error {
	u, err := url.Parse(s.APIURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%s must be an absolute http(s) URL, got %q", EnvAPIURL, s.APIURL)
	}
	return nil
}

// Names of the settings, for messages.
const (
	EnvWebhookSecret  = "PROCESSOR_WEBHOOK_SECRET"
	EnvPublishableKey = "PROCESSOR_PUBLISHABLE_KEY"
	EnvAPIURL         = "PROCESSOR_API_URL"
	EnvSecretKey      = "PROCESSOR_SECRET_KEY"
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
	env       service.Env
	customers *customers.Client
	// orderFacts asks the customers service about orders (their refunds);
	// a stub in unit tests.
	orderFacts     func(ctx context.Context, orderIDs []string) (map[string]customers.OrderFacts, error)
	catalog        *catalog.Client
	addresses      *addresses.Client
	processor      *stripe.Client // nil without a secret key: checkout is unavailable
	webhookSecret  string
	publishableKey string
	intents        *storage.Intents
	processed      *storage.Processed
	transfers      *storage.Transfers
	refunds        *storage.Refunds
	disputes       *storage.Disputes
	status         *events.ConsumerStatus // the refund requests' consumer (refunds.go)
	// failureRead, when set (tests), runs in a failure's transaction between
	// reading the intent's status and writing its document.
	failureRead func()
}

func build(_ context.Context, env service.Env) (*service.Built, error) {
	return newSvc(env).built(), nil
}

// newSvc is the service on env, its settings read and warned about.
func newSvc(env service.Env) *svc {
	settings, _ := env.Settings.(*Settings)
	if settings == nil {
		settings = &Settings{}
	}
	s := &svc{
		env:            env,
		customers:      customers.NewClient(env.Calls),
		catalog:        catalog.NewClient(env.Calls),
		addresses:      addresses.NewClient(env.Calls),
		processor:      newProcessor(settings, env.Logger),
		webhookSecret:  settings.WebhookSecret,
		publishableKey: settings.PublishableKey,
		intents:        storage.NewIntents(env.DB),
		processed:      storage.NewProcessed(env.DB),
		transfers:      storage.NewTransfers(env.DB),
		refunds:        storage.NewRefunds(env.DB),
		disputes:       storage.NewDisputes(env.DB),
		status:         events.NewConsumerStatus(0),
	}
	if s.webhookSecret == "" {
		env.Logger.Warn(EnvWebhookSecret + " is not set: every webhook delivery will be refused")
	}
	if s.publishableKey == "" {
		env.Logger.Warn(EnvPublishableKey + " is not set: /processor/config answers an empty publishable key")
	}
	if s.processor == nil {
		env.Logger.Warn(EnvSecretKey + " is not set: customers.checkout.createPaymentIntent answers UNAVAILABLE")
	}
	s.orderFacts = s.customers.OrderFacts
	return s
}

// built is what the service serves.
func (s *svc) built() *service.Built {
	return &service.Built{
		// Checkout's payment intent; the processor reaches this service
		// through the routes below.
		Indexes: append(storage.Indexes(), events.ConsumerIndexes()...),
		Registry: ops.NewRegistry("payments",
			ops.NewMutation("customers.checkout.createPaymentIntent", ops.Customer,
				"Start paying for the caller's cart lines of a store: creates the processor's payment intent for the lines plus the delivery fee, with the metadata the webhook turns into the order.",
				s.createPaymentIntent),
			// The payouts service's transfers through the processor (transfers.go).
			ops.NewMutation(contract.OpCreateTransfer, ops.Internal,
				"Send a payout's net amount (fils) to the store's bank account through the processor, once per payout id (a second call answers the first transfer); the processor's refusal is FAILED_PRECONDITION (nothing sent), the processor unreachable UNAVAILABLE (call again: the same transfer is asked).",
				s.createTransfer, ops.CalledBy("payouts")),
			ops.NewMutation(contract.OpVoidTransfer, ops.Internal,
				"Before a move by hand of a payout sent through the processor: void its transfer if it was not yet asked of the processor (voided: never sent; createTransfer then answers FAILED_PRECONDITION transfer_voided), else answer the transfer as it is (pending, paid or failed).",
				s.voidTransfer, ops.CalledBy("payouts")),
			ops.NewQuery(contract.OpGetMoneyFacts, ops.Internal,
				"What this service has of disputes (by dispute id) and transfers (by payout id); unknown ids absent (the payouts service settles payouts only as confirmed here).",
				s.getMoneyFacts, ops.CalledBy("payouts")),
			// Disputes (disputes.go).
			ops.NewQuery("admins.disputes.listDisputes", ops.Admin,
				"Customers' disputes of charges, every store's (paginated), optionally of one status (open, won, lost, or closed: won or lost) and one storeId, opened from `from` to `to` when given (epoch ms, inclusive; at most 366 days, else INVALID_ARGUMENT range_too_large). sort: due (by their deadline at the processor, dueBy, soonest first; only with status open, else INVALID_ARGUMENT due_needs_open, and not with a date range: sort_with_range), newest or oldest (by openedAt). By default open ones by due without a range, otherwise newest. Amounts in AED.",
				s.listDisputes),
			ops.NewQuery("stores.disputes.listDisputes", ops.StoreOwnerOrAdmin,
				"The store's disputes (paginated), optionally of one status and opened from `from` to `to`, sorted as admins.disputes.listDisputes (sort due, newest or oldest, with the same rules).",
				s.listStoreDisputes, ops.StoreArg("storeId")),
		).WithResolvers(ops.Resolvers{Customer: s.customers.CustomerRef, Store: s.catalog.StoreRef}),
		// The orders' refund requests (refunds.go).
		Background: []func(context.Context) error{s.consume},
		Checks:     []httpserver.Check{{Name: "consumer:" + GroupID, Fn: s.status.Check}},
		// The gateway forwards exactly these (GET /ops lists them); a refusal
		// of its own (rate limit, payments unreachable) keeps the webhook's
		// { error, retryAfter } body.
		Routes: []ops.Route{
			{Method: fiber.MethodPost, Path: "/processor/webhook", Access: ops.Public, Errors: ops.ErrorsSimple,
				Summary: "The payment processor's signed webhook.", Doc: webhookDoc, Handler: s.webhook,
				// Verified first thing by its signature; the processor sends from a
				// few addresses and retries, so a per-IP limit would only delay orders.
				SenderLimited: true},
			{Method: fiber.MethodGet, Path: "/processor/config", Access: ops.Public, Errors: ops.ErrorsSimple,
				Summary: "The processor's publishable key.", Doc: configDoc, Handler: s.config},
		},
	}
}

// config answers GET /processor/config.
func (s *svc) config(c *fiber.Ctx) error {
	return c.JSON(fiber.Map{"publishableKey": s.publishableKey})
}
