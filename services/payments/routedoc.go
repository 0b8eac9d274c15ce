package payments

import (
	"net/http"

	"github.com/gofiber/fiber/v2"

	"marketplace/libs/ops"
)

// The documentation of the routes (GET /ops lists it; the OpenAPI document
// and docs/api.md are generated from it). The statuses are those of the
// table at the top of webhook.go; the black-box tests validate real answers
// of the webhook against this documentation.

// webhookEvent is the body of POST /processor/webhook as the processor sends
// it (a Stripe-style event); metadata.go reads it field by field.
type webhookEvent struct {
	ID         string `json:"id" doc:"The event's id (evt_...): a redelivery carries the same id and is answered as already processed."`
	Type       string `json:"type" doc:"payment_intent.succeeded creates the order from the customer's cart; payment_intent.payment_failed notifies the customer; payment_intent.canceled is recorded and the cart kept (a failure or cancellation of an intent already succeeded or canceled changes nothing); payout.paid and payout.failed (data.object a payout) settle the transfer of the marketplace payout named in its metadata.payoutId, for the payouts service (a duplicate or late one changes nothing); charge.refunded (data.object a charge with its refunds list) confirms each succeeded refund once, refund.failed (a refund) fails one, charge.dispute.created and charge.dispute.closed (a dispute) open and close a dispute (late and duplicate ones change nothing); any other type is answered 200 and ignored (its data is not read)."`
	APIVersion string `json:"api_version,omitempty" doc:"May be present; not checked (only the signature is)."`
	Data       struct {
		Object webhookIntent `json:"object"`
	} `json:"data"`
}

// webhookIntent is the payment intent of the payment_intent.* events.
type webhookIntent struct {
	ID               string          `json:"id" doc:"The payment intent's id (pi_...): the order's paymentIntentId; a payment intent makes at most one order."`
	Amount           int64           `json:"amount" doc:"Minor units of the currency (fils for AED), a whole non-negative JSON number; positive for succeeded and payment_failed. A paid amount that does not match the order's total holds the order for review."`
	Currency         string          `json:"currency" pattern:"^[A-Za-z]{3}$" doc:"The three-letter ISO code (aed), any case."`
	Metadata         webhookMetadata `json:"metadata,omitempty"`
	LastPaymentError *struct {
		Message string `json:"message" doc:"Why the payment failed: shown to the customer in the failure notification."`
	} `json:"last_payment_error,omitempty"`
}

// webhookMetadata are the metadata keys the checkout writes (interface 4.6);
// succeeded and payment_failed events need all of them, canceled none.
type webhookMetadata struct {
	CustomerID      string `json:"customerId,omitempty" pattern:"^cus_[0-9a-fA-F]{24}$" doc:"The paying customer's profile id (an id of the customers table): the order is made from this customer's cart."`
	StoreID         string `json:"storeId,omitempty" pattern:"^sto_[0-9a-fA-F]{24}$" doc:"The store (an id of the stores table) whose cart lines become the order."`
	DeliveryAddress string `json:"deliveryAddress,omitempty" doc:"A JSON-encoded string of an object with fullAddress, city, area and phoneNumber, each a non-empty string."`
	DeliveryType    string `json:"deliveryType,omitempty" doc:"The delivery type the customer chose (non-empty text)."`
	DeliveryFee     string `json:"deliveryFee,omitempty" pattern:"^[0-9]+(\\.[0-9]+)?$" doc:"The delivery fee in AED as a decimal string such as \"10.00\" (at most two significant decimals)."`
}

// Bodies of the webhook's JSON answers.
type (
	webhookUnhandled struct {
		Message   string `json:"message" doc:"Unhandled event type"`
		EventType string `json:"eventType"`
	}
	webhookRefused struct {
		Error string `json:"error"`
	}
	webhookFailed struct {
		Error   string `json:"error"`
		EventID string `json:"eventId"`
	}
	webhookUnavailable struct {
		Error      string `json:"error"`
		RetryAfter int    `json:"retryAfter" doc:"seconds"`
	}
	processorConfig struct {
		PublishableKey string `json:"publishableKey" doc:"the processor's publishable key (PROCESSOR_PUBLISHABLE_KEY)"`
	}
)

var webhookDoc = &ops.RouteDoc{
	Description: "Processing order: verify the signature against PROCESSOR_WEBHOOK_SECRET; read the event and the payment's metadata; create the order (payment_intent.succeeded: paymentMethod card, paymentStatus paid, status confirmed), or record the failure (notifying the customer) or the cancellation; the purchased lines leave the cart and the customer and the store are notified. The processor retries every answer that is not 2xx, so the status says whether a retry can help.",
	Headers: []ops.HeaderDoc{{
		Name: SignatureHeader, Required: true,
		Description: "`t=<unix seconds>,v1=<hex HMAC-SHA256 of \"<t>.<raw body>\" with PROCESSOR_WEBHOOK_SECRET>` (several v1 entries may appear); a timestamp more than 300 s old or ahead is refused.",
	}},
	Body: []ops.BodyDoc{ops.JSONBody[webhookEvent]()},
	Responses: []ops.ResponseDoc{
		{Status: http.StatusOK, Description: "Handled, or handled before: text `" + textOrderCreated + "<orderId>`, `" + textOrderAlreadyProcessed + "` (a payment intent that already made its order), `" + textEventAlreadyProcessed + "` (a redelivered event), `" + textFailureRecorded + "`, `" + textCancelRecorded + "` or `" + textIntentSettled + "` (a failure or cancellation of a payment intent that already succeeded or was canceled: nothing changes, no notice is sent); for refunds and disputes `" + textRefundsRecorded + "<n>`, `" + textRefundFailed + "`, `" + textDisputeOpened + "`, `" + textDisputeClosed + "won|lost`, `" + textDisputeStatus + "<status>` (an inquiry closed without a chargeback) or `" + textNothingNew + "` (news already heard, late, or contradicting a final status: nothing changes); or, for an event type this service does not act on, JSON `{ message: \"Unhandled event type\", eventType }`. A payment that does not fit its cart (an amount or currency that does not match the order's total, or no cart lines of the store at all: a second payment of the same cart, or a cart emptied before paying) still creates its order, held for review (paymentStatus under_review). A payout event answers text `" + textTransferPaid + "`, `" + textTransferFailed + "`, `" + textTransferSettled + "` (a duplicate or late one), `" + textTransferNotOurs + "` or `" + textTransferUnknown + "`.",
			Bodies: []ops.BodyDoc{{ContentType: fiber.MIMETextPlain, Schema: &ops.Schema{Type: ops.Types{"string"}}}, ops.JSONBody[webhookUnhandled]()}},
		{Status: http.StatusBadRequest, Description: "What was sent is wrong and sending it again will not help: no webhook secret configured, a missing, malformed, stale, future-dated or non-matching signature, a body that is not an event, a payment intent, charge, refund or dispute without id or with a bad amount (the message names the field), metadata that cannot become an order (the message names the field), or a customer or store of the metadata that does not exist, or a payout event that contradicts its transfer (another payout id, amount, currency or status). Nothing is written.",
			Bodies: []ops.BodyDoc{ops.JSONBody[webhookRefused]()}},
		{Status: http.StatusRequestEntityTooLarge, Description: "The body is over the server's limit (HTTP_BODY_LIMIT, 6 MiB by default): nothing is read or written; a processor event is far smaller.",
			Bodies: []ops.BodyDoc{ops.JSONBody[webhookRefused]()}},
		{Status: http.StatusInternalServerError, Description: "Processing failed in a way a later retry may fix: no platform configuration is in force to price the order's commission, another failure of the customers service, a refund or dispute of a payment intent whose order is not recorded yet, or a database failure. Malformed input is never a 500, nor is a paid cart without items of the store (200, held for review).",
			Bodies: []ops.BodyDoc{ops.JSONBody[webhookFailed]()}},
		{Status: http.StatusServiceUnavailable, Description: "A dependency (the customers or catalog service, or the processor asked for the store of an older order's disputed intent) is down or did not answer in time; retry after retryAfter seconds (also the Retry-After header).",
			Bodies:  []ops.BodyDoc{ops.JSONBody[webhookUnavailable]()},
			Headers: []ops.HeaderDoc{{Name: fiber.HeaderRetryAfter, Description: "seconds", Schema: &ops.Schema{Type: ops.Types{"integer"}}}}},
	},
}

var configDoc = &ops.RouteDoc{
	Responses: []ops.ResponseDoc{{Status: http.StatusOK, Description: "The processor's publishable key, for the client's payment form.",
		Bodies: []ops.BodyDoc{ops.JSONBody[processorConfig]()}}},
}
