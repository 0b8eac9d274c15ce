// Package payments is the payment processor's side of the platform. It answers
// the processor's webhook (POST /processor/webhook, signed the way Stripe signs,
// verified with stripe-go's webhook package) and tells the storefront the
// processor's publishable key (GET /processor/config).
//
// A succeeded payment becomes an order through the customers service's internal
// customers.cartToOrder.createOrderFromCart, which builds the order from the
// cart, removes the purchased cart items and guarantees one order per payment
// intent (a payment that finds no cart lines of its store still makes one, held
// for review with reason cart_empty, so that a charge is never lost). A failed payment is published as a payment.failed event (topic
// "payments", through the outbox) for the notifications service. A canceled
// payment is recorded and leaves the cart alone. Every processed event id is
// kept (collection processedWebhookEvents, _id = event id), so a redelivery is
// answered "already processed" without doing the work twice.
//
// For the payouts service it sends a payout's net amount to the store's bank
// account through the processor (internal payments.transfers.createTransfer,
// once per payout), settles that transfer from the processor's payout.paid and
// payout.failed webhooks (published as payment.transfer_paid and
// payment.transfer_failed) and answers payments.money.getFacts (transfers.go,
// docs/adr/0150-payouts-through-the-processor.md).
//
// Its one public operation is checkout's; the gateway forwards exactly the two
// /processor routes to it.
package payments
