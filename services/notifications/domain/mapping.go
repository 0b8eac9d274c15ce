// Package domain holds the notifications' rules: which events notify whom,
// with what text and priority (For), how a notification is stamped when
// stored, and who may mark one read. No storage, no transport.
package domain

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"marketplace/libs/contracts/customers"
	"marketplace/libs/contracts/payments"
	payouts "marketplace/libs/contracts/payouts"
	"marketplace/libs/contracts/reviews"
	"marketplace/libs/money"
)

// Recipient types.
const (
	RecipientUser  = "user"
	RecipientAdmin = "admin"
)

// Priorities.
const (
	PriorityNormal = "normal"
	PriorityHigh   = "high"
)

// Notification types.
const (
	TypeOrderCreated  = "order_created"
	TypeNewOrder      = "new_order"
	TypeOrderStatus   = "order_status"
	TypePaymentFailed = "payment_failed"
	TypeReviewFlagged = "review_flagged"
	// A paid order whose payment does not match its total, held for review:
	// the customer is told, the administrators are asked to settle it.
	TypeOrderPaymentReview = "order_payment_review"
	TypePaymentReview      = "payment_review"
	// Payouts and wallets: the store's owner hears of each move of their
	// payout and of each adjustment of their wallet; the administrators of
	// each new payout request.
	TypePayoutRequested  = "payout_requested"
	TypePayoutApproved   = "payout_approved"
	TypePayoutRejected   = "payout_rejected"
	TypePayoutProcessing = "payout_processing"
	TypePayoutCompleted  = "payout_completed"
	TypePayoutFailed     = "payout_failed"
	TypeWalletAdjusted   = "wallet_adjusted"
	// A payout still requested when its store was handed to another owner
	// is cancelled: its former owner (who requested it) and the
	// administrators hear of it.
	TypePayoutCancelled = "payout_cancelled"
	// Refunds: the customer and the store's owner hear of each refund the
	// processor confirmed; the administrators of each that failed.
	TypeOrderRefunded = "order_refunded"
	TypeRefundFailed  = "refund_failed"
	// A customer disputed a charge: the administrators answer it.
	TypeDisputeOpened = "dispute_opened"
)

// Event types handled, as their producers' contracts declare them.
const (
	EventOrderCreated       = customers.EventOrderCreated
	EventOrderStatusChanged = customers.EventOrderStatusChanged
	EventPaymentFailed      = payments.EventPaymentFailed
	EventReviewFlagRaised   = reviews.EventFlagRaised
	EventPayoutRequested    = payouts.EventPayoutRequested
	EventPayoutApproved     = payouts.EventPayoutApproved
	EventPayoutRejected     = payouts.EventPayoutRejected
	EventPayoutProcessing   = payouts.EventPayoutProcessing
	EventPayoutCompleted    = payouts.EventPayoutCompleted
	EventPayoutFailed       = payouts.EventPayoutFailed
	EventPayoutCancelled    = payouts.EventPayoutCancelled
	EventWalletAdjusted     = payouts.EventWalletAdjusted
	EventOrderRefunded      = customers.EventOrderRefunded
	EventRefundFailed       = customers.EventRefundFailed
	EventDisputeOpened      = payments.EventDisputeOpened
)

// A store's bank account for payouts changed (the payouts service's event):
// its owner hears of it at once, with the account's last four digits and the
// time, so that a change they did not make (an account taken over) is seen.
const (
	TypeBankAccountChanged  = "bank_account_changed"
	EventBankAccountChanged = payouts.EventBankAccountChanged
)

// BankAccountChanged is payouts.bank_account_changed's payload.
type BankAccountChanged = payouts.BankAccountChanged

// dubai is the platform's time zone (UTC+4 all year) for times in English text.
var dubai = time.FixedZone("Dubai", 4*60*60)

// Reviews: a delivered order invites its customer to review the store; the
// review's author hears when the store responds and when the moderators hide
// or show the review.
const (
	TypeReviewInvitation = "review_invitation"
	TypeReviewResponse   = "review_response"
	TypeReviewHidden     = "review_hidden"
	TypeReviewShown      = "review_shown"

	EventReviewStoreResponded = reviews.EventStoreResponded
	EventReviewHidden         = reviews.EventHidden
	EventReviewShown          = reviews.EventShown
)

// Limits on the free text copied from events into a notification.
const (
	maxName = 100
	maxText = 300
)

// Notification is a stored notification (collection notifications).
type Notification struct {
	ID              string            `bson:"_id"`
	RecipientType   string            `bson:"recipientType"`
	RecipientUserID string            `bson:"recipientUserId,omitempty"`
	Type            string            `bson:"type"`
	Title           string            `bson:"title"`
	Body            string            `bson:"body"`
	Priority        string            `bson:"priority"`
	Data            map[string]string `bson:"data"`
	// Params are what the console renders the title and body from in the
	// viewer's language (docs/adr/0165): names, amounts (decimal major
	// units), statuses, reasons, times (epoch ms). Title and Body stay the
	// English text, for API clients and older consoles. Absent on
	// notifications written before.
	Params map[string]string `bson:"params,omitempty"`
	// RecipientRole is what the recipient is to the subject: customer,
	// store_owner or admin (absent on notifications written before).
	RecipientRole string `bson:"recipientRole,omitempty"`
	EventID       string `bson:"eventId"`
	EventType     string `bson:"eventType"`
	EventTime     int64  `bson:"eventTime"`
	Read          bool   `bson:"read"`
	ReadAt        *int64 `bson:"readAt,omitempty"`
	CreationTime  int64  `bson:"creationTime"`
}

// statusLabels name order statuses in notification text.
var statusLabels = map[string]string{
	"pending":          "pending",
	"confirmed":        "confirmed",
	"preparing":        "being prepared",
	"out_for_delivery": "out for delivery",
	"delivered":        "delivered",
	"cancelled":        "cancelled",
}

func statusLabel(s string) string {
	if l, ok := statusLabels[s]; ok {
		return l
	}
	return strings.ReplaceAll(clip(s, maxName), "_", " ")
}

// Event is what For reads of an event's envelope.
type Event struct {
	ID   string
	Type string
	Time time.Time
	Data json.RawMessage
}

// decode reads e's data, a JSON object, into v (libs/events' DecodeData).
func decode(e Event, v any) error {
	raw := bytes.TrimSpace(e.Data)
	if len(raw) == 0 || raw[0] != '{' {
		return fmt.Errorf("%s %s: data must be a JSON object", e.Type, e.ID)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("%s %s: bad data: %w", e.Type, e.ID, err)
	}
	return nil
}

func required(env Event, fields ...string) error {
	for i := 0; i < len(fields); i += 2 {
		if strings.TrimSpace(fields[i+1]) == "" {
			return fmt.Errorf("%s %s: data.%s is required", env.Type, env.ID, fields[i])
		}
	}
	return nil
}

// clip cuts s to at most n characters, marking the cut.
func clip(s string, n int) string {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

func aed(x money.Fils) string { return fmt.Sprintf("AED %.2f", x.AED()) }

// inCurrency is an amount in the minor units of currency, as text (AED when
// the currency is not said).
func inCurrency(x money.Fils, currency string) string {
	cur := strings.ToUpper(clip(currency, 8))
	if cur == "" {
		cur = "AED"
	}
	return fmt.Sprintf("%s %.*f", cur, money.MinorUnits(cur), money.Major(int64(x), cur))
}

func storeName(s string) string {
	if s = clip(s, maxName); s == "" {
		return "the store"
	}
	return s
}

// idMap keeps the non-empty values of key/value pairs.
func idMap(kv ...string) map[string]string {
	m := make(map[string]string, len(kv)/2)
	for i := 0; i < len(kv); i += 2 {
		if v := strings.TrimSpace(kv[i+1]); v != "" {
			m[kv[i]] = clip(v, maxName)
		}
	}
	return m
}

// Recipient roles.
const (
	RoleCustomer   = "customer"
	RoleStoreOwner = "store_owner"
	RoleAdmin      = "admin"
)

// ParamKeys are the params each type carries, every key always present
// (values may be empty): what the console renders a notification from
// (web/console/src/app/noteMessages.ts). Amounts are decimals of the major
// unit of currency (AED when a type has no currency), times epoch ms,
// flags "true" or "false".
var ParamKeys = map[string][]string{
	TypeOrderCreated:       {"storeName", "total"},
	TypeNewOrder:           {"storeName", "total"},
	TypeOrderPaymentReview: {"storeName", "paid", "currency", "total", "reviewReason"},
	TypePaymentReview:      {"storeName", "paid", "currency", "total", "reviewReason"},
	TypeOrderStatus:        {"storeName", "status", "previousStatus"},
	TypeReviewInvitation:   {"storeName"},
	TypeReviewResponse:     {"storeName", "comment", "updated"},
	TypeReviewHidden:       {"storeName"},
	TypeReviewShown:        {"storeName"},
	TypeOrderRefunded:      {"amount", "currency", "refundedAmount", "whole"},
	TypeRefundFailed:       {"amount", "currency", "failureReason"},
	TypeDisputeOpened:      {"amount", "currency", "reason", "dueBy"},
	TypePaymentFailed:      {"amount", "currency", "failureMessage"},
	TypeReviewFlagged:      {"reason", "description"},
	TypePayoutRequested:    payoutKeys,
	TypePayoutApproved:     payoutKeys,
	TypePayoutRejected:     payoutKeys,
	TypePayoutProcessing:   payoutKeys,
	TypePayoutCompleted:    payoutKeys,
	TypePayoutFailed:       payoutKeys,
	TypePayoutCancelled:    payoutKeys,
	TypeWalletAdjusted:     {"amount", "adjustmentType", "reason", "storeName"},
	TypeBankAccountChanged: {"ibanLast4", "changedAt", "byOwner"},
}

var payoutKeys = []string{"storeName", "requestedAmount", "netAmount", "processingFee", "reason", "method", "reference", "balanceRestored", "requestedBy", "requestedByName"}

// params keeps every key of key/value pairs, empty values too: each type's
// params always carry the same keys (ParamKeys).
func params(kv ...string) map[string]string {
	m := make(map[string]string, len(kv)/2)
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

// with gives n its recipient role and params.
func with(n Notification, role string, p map[string]string) Notification {
	n.RecipientRole, n.Params = role, p
	return n
}

// amount is an amount in the minor units of currency as a decimal of its
// major unit ("125.50"), AED when the currency is not said.
func amount(x money.Fils, currency string) string {
	cur := strings.ToUpper(clip(currency, 8))
	if cur == "" {
		cur = "AED"
	}
	return fmt.Sprintf("%.*f", money.MinorUnits(cur), money.Major(int64(x), cur))
}

// currencyOf is currency as the params carry it: upper case, AED when not said.
func currencyOf(currency string) string {
	if cur := strings.ToUpper(clip(currency, 8)); cur != "" {
		return cur
	}
	return "AED"
}

func flag(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// ErrNotHandled: For does not map the event's type.
var ErrNotHandled = errors.New("notifications: event type not handled")

// For maps an event to the notifications it causes, without _id and
// creationTime (set when stored). An event type that is not handled gives
// ErrNotHandled; a handled type with unreadable data gives another error.
func For(env Event) ([]Notification, error) {
	var eventTime int64
	if !env.Time.IsZero() {
		eventTime = env.Time.UnixMilli()
	}
	base := func(recipientType, userID, typ, title, body, priority string, data map[string]string) Notification {
		return Notification{
			RecipientType: recipientType, RecipientUserID: userID, Type: typ, Title: title, Body: body,
			Priority: priority, Data: data, EventID: env.ID, EventType: env.Type, EventTime: eventTime,
		}
	}
	var out []Notification
	switch env.Type {
	case EventOrderCreated:
		var d customers.OrderEvent
		if err := decode(env, &d); err != nil {
			return nil, err
		}
		if err := required(env, "orderId", d.OrderID); err != nil {
			return nil, err
		}
		data := idMap("orderId", d.OrderID, "storeId", d.StoreID, "paymentIntentId", d.PaymentIntentID)
		if d.PaymentStatus == customers.PaymentUnderReview {
			// Held: nothing for the store until an administrator confirms it.
			paid := fmt.Sprintf("%s %.*f", strings.ToUpper(clip(d.Currency, 8)), money.MinorUnits(d.Currency), money.Major(int64(d.AmountPaid), d.Currency))
			p := params("storeName", clip(d.StoreName, maxName), "paid", amount(d.AmountPaid, d.Currency), "currency", currencyOf(d.Currency),
				"total", amount(d.Total, "aed"), "reviewReason", clip(d.ReviewReason, maxName))
			if d.ReviewReason == customers.ReviewCartEmpty {
				// Paid with nothing of the store in the cart: an order of nothing,
				// which an administrator cancels (the payment is refunded).
				if u := strings.TrimSpace(d.CustomerUserID); u != "" {
					out = append(out, with(base(RecipientUser, u, TypeOrderPaymentReview, "Payment received: nothing to order",
						fmt.Sprintf("We received your payment of %s at %s, but your cart held no items of that store when it arrived (they may have been ordered with another payment). Our team is reviewing it and will contact you about a refund.",
							paid, storeName(d.StoreName)), PriorityNormal, data), RoleCustomer, p))
				}
				out = append(out, with(base(RecipientAdmin, "", TypePaymentReview, "Payment without items",
					fmt.Sprintf("A payment of %s at %s found no items of the store in the customer's cart (a second payment of the same cart, or a cart emptied before paying): cancel the order and refund the payment.",
						paid, storeName(d.StoreName)), PriorityHigh, data), RoleAdmin, p))
				break
			}
			if u := strings.TrimSpace(d.CustomerUserID); u != "" {
				out = append(out, with(base(RecipientUser, u, TypeOrderPaymentReview, "Order received: payment under review",
					fmt.Sprintf("We received your payment of %s for your order from %s, which does not match its total of %s. Our team is reviewing it and will contact you.",
						paid, storeName(d.StoreName), aed(d.Total)), PriorityNormal, data), RoleCustomer, p))
			}
			out = append(out, with(base(RecipientAdmin, "", TypePaymentReview, "Payment does not match its order",
				fmt.Sprintf("Order at %s was paid %s for a total of %s: confirm or cancel it.", storeName(d.StoreName), paid, aed(d.Total)),
				PriorityHigh, data), RoleAdmin, p))
			break
		}
		p := params("storeName", clip(d.StoreName, maxName), "total", amount(d.Total, "aed"))
		if u := strings.TrimSpace(d.CustomerUserID); u != "" {
			out = append(out, with(base(RecipientUser, u, TypeOrderCreated, "Order confirmed",
				fmt.Sprintf("Your order from %s for %s is confirmed.", storeName(d.StoreName), aed(d.Total)),
				PriorityNormal, data), RoleCustomer, p))
		}
		if u := strings.TrimSpace(d.StoreOwnerUserID); u != "" {
			out = append(out, with(base(RecipientUser, u, TypeNewOrder, "New order",
				fmt.Sprintf("New order for %s at %s.", aed(d.Total), storeName(d.StoreName)),
				PriorityNormal, data), RoleStoreOwner, params("storeName", clip(d.StoreName, maxName), "total", amount(d.Total, "aed"))))
		}
	case EventOrderStatusChanged:
		var d customers.OrderEvent
		if err := decode(env, &d); err != nil {
			return nil, err
		}
		if err := required(env, "orderId", d.OrderID, "to", d.To); err != nil {
			return nil, err
		}
		if u := strings.TrimSpace(d.CustomerUserID); u != "" {
			label := statusLabel(d.To)
			out = append(out, with(base(RecipientUser, u, TypeOrderStatus, "Order "+label,
				fmt.Sprintf("Your order from %s is now %s.", storeName(d.StoreName), label),
				PriorityNormal, idMap("orderId", d.OrderID, "storeId", d.StoreID, "status", d.To, "previousStatus", d.From)),
				RoleCustomer, params("storeName", clip(d.StoreName, maxName), "status", clip(d.To, maxName), "previousStatus", clip(d.From, maxName))))
		}
		// A delivered order invites its customer to review the store.
		if u := strings.TrimSpace(d.CustomerUserID); u != "" && d.To == customers.StatusDelivered {
			out = append(out, with(base(RecipientUser, u, TypeReviewInvitation, "How was "+storeName(d.StoreName)+"?",
				fmt.Sprintf("Your order from %s was delivered. Rate the store and help other customers choose.", storeName(d.StoreName)),
				PriorityNormal, idMap("orderId", d.OrderID, "storeId", d.StoreID)), RoleCustomer, params("storeName", clip(d.StoreName, maxName))))
		}
		// An order confirmed from pending (a held payment an administrator
		// accepted) reaches its store now.
		if u := strings.TrimSpace(d.StoreOwnerUserID); u != "" && d.From == customers.StatusPending && d.To == customers.StatusConfirmed {
			out = append(out, with(base(RecipientUser, u, TypeNewOrder, "New order",
				fmt.Sprintf("New order at %s.", storeName(d.StoreName)), PriorityNormal, idMap("orderId", d.OrderID, "storeId", d.StoreID)),
				RoleStoreOwner, params("storeName", clip(d.StoreName, maxName), "total", amount(d.Total, "aed"))))
		}
	case EventOrderRefunded:
		var d customers.OrderRefunded
		if err := decode(env, &d); err != nil {
			return nil, err
		}
		if err := required(env, "orderId", d.OrderID, "refundId", d.RefundID); err != nil {
			return nil, err
		}
		text, data := inCurrency(d.Amount, d.Currency), idMap("orderId", d.OrderID, "storeId", d.StoreID, "refundId", d.RefundID)
		whole := d.RefundStatus == customers.OrderRefundFull
		p := params("amount", amount(d.Amount, d.Currency), "currency", currencyOf(d.Currency), "refundedAmount", amount(d.RefundedAmount, d.Currency), "whole", flag(whole))
		if u := strings.TrimSpace(d.CustomerUserID); u != "" {
			body := fmt.Sprintf("%s was refunded to your card for your order", text)
			if whole {
				body += "; everything you paid for it is refunded"
			}
			out = append(out, with(base(RecipientUser, u, TypeOrderRefunded, "Refund of "+text, body+". It may take a few days to show on your statement.", PriorityNormal, data), RoleCustomer, p))
		}
		if u := strings.TrimSpace(d.StoreOwnerUserID); u != "" {
			out = append(out, with(base(RecipientUser, u, TypeOrderRefunded, "Order refunded",
				fmt.Sprintf("An order was refunded %s (%s refunded in all); the store's share of it is taken back from its wallet.", text, inCurrency(d.RefundedAmount, d.Currency)),
				PriorityNormal, data), RoleStoreOwner, p))
		}
	case EventRefundFailed:
		var d customers.RefundFailed
		if err := decode(env, &d); err != nil {
			return nil, err
		}
		if err := required(env, "orderId", d.OrderID, "refundId", d.RefundID); err != nil {
			return nil, err
		}
		body := fmt.Sprintf("The processor did not refund %s of an order", inCurrency(d.Amount, d.Currency))
		if r := clip(d.FailureReason, maxText); r != "" {
			body += ": " + strings.TrimRight(r, ".")
		}
		out = append(out, with(base(RecipientAdmin, "", TypeRefundFailed, "Refund failed", body+". Nothing was refunded; refund it again or contact the customer.",
			PriorityHigh, idMap("orderId", d.OrderID, "storeId", d.StoreID, "refundId", d.RefundID)), RoleAdmin,
			params("amount", amount(d.Amount, d.Currency), "currency", currencyOf(d.Currency), "failureReason", strings.TrimRight(clip(d.FailureReason, maxText), "."))))
	case EventDisputeOpened:
		var d payments.Dispute
		if err := decode(env, &d); err != nil {
			return nil, err
		}
		if err := required(env, "disputeId", d.DisputeID); err != nil {
			return nil, err
		}
		body := fmt.Sprintf("A customer disputed %s of a payment", inCurrency(d.Amount, d.Currency))
		if r := clip(d.Reason, maxName); r != "" {
			body += " (" + strings.ReplaceAll(r, "_", " ") + ")"
		}
		if d.DueBy > 0 {
			body += "; evidence is due by " + time.UnixMilli(d.DueBy).UTC().Format("2 Jan 2006 15:04 UTC")
		}
		dueBy := ""
		if d.DueBy > 0 {
			dueBy = fmt.Sprint(d.DueBy)
		}
		out = append(out, with(base(RecipientAdmin, "", TypeDisputeOpened, "Payment disputed", body+".", PriorityHigh,
			idMap("disputeId", d.DisputeID, "orderId", d.OrderID, "storeId", d.StoreID, "paymentIntentId", d.PaymentIntentID)), RoleAdmin,
			params("amount", amount(d.Amount, d.Currency), "currency", currencyOf(d.Currency), "reason", clip(d.Reason, maxName), "dueBy", dueBy)))
	case EventPaymentFailed:
		var d payments.PaymentFailed
		if err := decode(env, &d); err != nil {
			return nil, err
		}
		if err := required(env, "paymentIntentId", d.PaymentIntentID); err != nil {
			return nil, err
		}
		if u := strings.TrimSpace(d.CustomerUserID); u != "" {
			cur := strings.ToUpper(clip(d.Currency, 8))
			if cur == "" {
				cur = "AED"
			}
			body := fmt.Sprintf("Your payment of %s %.*f could not be completed", cur, money.MinorUnits(cur), money.Major(int64(d.Amount), cur))
			if m := clip(d.FailureMessage, maxText); m != "" {
				body += ": " + strings.TrimRight(m, ".")
			}
			body += ". Your cart was kept, so you can try again."
			out = append(out, with(base(RecipientUser, u, TypePaymentFailed, "Payment failed", body,
				PriorityHigh, idMap("paymentIntentId", d.PaymentIntentID, "storeId", d.StoreID)), RoleCustomer,
				params("amount", amount(d.Amount, d.Currency), "currency", currencyOf(d.Currency), "failureMessage", strings.TrimRight(clip(d.FailureMessage, maxText), "."))))
		}
	case EventReviewFlagRaised:
		var d reviews.FlagRaised
		if err := decode(env, &d); err != nil {
			return nil, err
		}
		if err := required(env, "flagId", d.FlagID, "reviewId", d.ReviewID); err != nil {
			return nil, err
		}
		priority := PriorityNormal
		if d.Reason == reviews.ReasonOffensive || d.Reason == reviews.ReasonFake {
			priority = PriorityHigh
		}
		body := "A review was flagged"
		if reason := clip(d.Reason, maxName); reason != "" {
			body += " as " + reason
		}
		if desc := clip(d.Description, maxText); desc != "" {
			body += ": " + desc
		}
		out = append(out, with(base(RecipientAdmin, "", TypeReviewFlagged, "Review flagged", body, priority,
			idMap("flagId", d.FlagID, "reviewId", d.ReviewID, "storeId", d.StoreID, "reason", d.Reason, "flaggedByUserId", d.FlaggedByUserID)), RoleAdmin,
			params("reason", clip(d.Reason, maxName), "description", clip(d.Description, maxText))))
	case EventPayoutRequested, EventPayoutApproved, EventPayoutRejected, EventPayoutProcessing, EventPayoutCompleted, EventPayoutFailed, EventPayoutCancelled:
		var d payouts.PayoutEvent
		if err := decode(env, &d); err != nil {
			return nil, err
		}
		if err := required(env, "payoutId", d.PayoutID); err != nil {
			return nil, err
		}
		out = append(out, payoutNotifications(env.Type, d, base)...)
	case EventWalletAdjusted:
		var d payouts.WalletEvent
		if err := decode(env, &d); err != nil {
			return nil, err
		}
		if err := required(env, "walletId", d.WalletID); err != nil {
			return nil, err
		}
		if u := strings.TrimSpace(d.StoreOwnerUserID); u != "" {
			out = append(out, with(base(RecipientUser, u, TypeWalletAdjusted, "Wallet adjusted", walletAdjustedBody(d), PriorityNormal,
				idMap("walletId", d.WalletID, "storeId", d.StoreID, "adjustmentType", d.AdjustmentType)), RoleStoreOwner,
				params("amount", amount(d.Amount, "aed"), "adjustmentType", clip(d.AdjustmentType, maxName), "reason", strings.TrimRight(clip(d.Reason, maxText), "."),
					"storeName", clip(d.StoreName, maxName))))
		}
	case EventReviewStoreResponded:
		var d reviews.StoreResponded
		if err := decode(env, &d); err != nil {
			return nil, err
		}
		if err := required(env, "reviewId", d.ReviewID); err != nil {
			return nil, err
		}
		if u := strings.TrimSpace(d.CustomerUserID); u != "" {
			title := storeName(d.StoreName) + " responded to your review"
			if d.Updated {
				title = storeName(d.StoreName) + " updated its response to your review"
			}
			body := title + "."
			if c := clip(d.Comment, maxText); c != "" {
				body = title + ": " + c
			}
			out = append(out, with(base(RecipientUser, u, TypeReviewResponse, title, body, PriorityNormal,
				idMap("reviewId", d.ReviewID, "storeId", d.StoreID)), RoleCustomer,
				params("storeName", clip(d.StoreName, maxName), "comment", clip(d.Comment, maxText), "updated", flag(d.Updated))))
		}
	case EventReviewHidden, EventReviewShown:
		var d reviews.Review
		if err := decode(env, &d); err != nil {
			return nil, err
		}
		if err := required(env, "reviewId", d.ReviewID); err != nil {
			return nil, err
		}
		if u := strings.TrimSpace(d.CustomerUserID); u != "" {
			typ, title := TypeReviewHidden, "Your review was hidden"
			body := fmt.Sprintf("Your review of %s was hidden by our moderators: other customers no longer see it.", storeName(d.StoreName))
			if env.Type == EventReviewShown {
				typ, title = TypeReviewShown, "Your review is visible again"
				body = fmt.Sprintf("Your review of %s is visible to other customers again.", storeName(d.StoreName))
			}
			out = append(out, with(base(RecipientUser, u, typ, title, body, PriorityNormal, idMap("reviewId", d.ReviewID, "storeId", d.StoreID)),
				RoleCustomer, params("storeName", clip(d.StoreName, maxName))))
		}
	case EventBankAccountChanged:
		var d BankAccountChanged
		if err := decode(env, &d); err != nil {
			return nil, err
		}
		if err := required(env, "walletId", d.WalletID); err != nil {
			return nil, err
		}
		if u := strings.TrimSpace(d.OwnerUserID); u != "" {
			at := d.EventTime
			if at == 0 {
				at = eventTime
			}
			last4 := clip(d.IBANLast4, 8)
			byOwner := strings.TrimSpace(d.ChangedBy) == "" || strings.TrimSpace(d.ChangedBy) == u
			body := fmt.Sprintf("The bank account your payouts are paid to was changed to the account ending %s", last4)
			if at > 0 {
				body += " on " + time.UnixMilli(at).In(dubai).Format("2 Jan 2006 at 15:04") + " (Dubai time)"
			}
			if !byOwner {
				body += " by an administrator"
			}
			body += ". If you did not make or ask for this change, contact us at once: payouts go to the new account."
			out = append(out, with(base(RecipientUser, u, TypeBankAccountChanged, "Bank account changed", body, PriorityHigh,
				idMap("walletId", d.WalletID, "storeId", d.StoreID)), RoleStoreOwner,
				params("ibanLast4", last4, "changedAt", fmt.Sprint(at), "byOwner", flag(byOwner))))
		}
	default:
		return nil, ErrNotHandled
	}
	return out, nil
}

// payoutNotifications: a new request goes to the admin inbox; every later
// move to the store's owner (a failure or a rejection with high priority).
func payoutNotifications(eventType string, d payouts.PayoutEvent, base func(recipientType, userID, typ, title, body, priority string, data map[string]string) Notification) []Notification {
	data := idMap("payoutId", d.PayoutID, "storeId", d.StoreID, "status", d.Status)
	store := storeName(d.StoreName)
	amount := aed(d.RequestedAmount)
	p := payoutParams(d)
	if eventType == EventPayoutRequested {
		return []Notification{with(base(RecipientAdmin, "", TypePayoutRequested, "Payout requested",
			fmt.Sprintf("%s requested a payout of %s (%s after the %s fee).", store, amount, aed(d.NetAmount), aed(d.ProcessingFee)),
			PriorityNormal, data), RoleAdmin, p)}
	}
	if eventType == EventPayoutCancelled {
		return payoutCancelledNotifications(d, data, base)
	}
	owner := strings.TrimSpace(d.StoreOwnerUserID)
	if owner == "" {
		return nil
	}
	reason := strings.TrimRight(clip(d.Reason, maxText), ".")
	typ, title, body, priority := "", "", "", PriorityNormal
	switch eventType {
	case EventPayoutApproved:
		typ, title = TypePayoutApproved, "Payout approved"
		body = fmt.Sprintf("Your payout of %s from %s was approved.", amount, store)
	case EventPayoutRejected:
		typ, title, priority = TypePayoutRejected, "Payout rejected", PriorityHigh
		body = fmt.Sprintf("Your payout of %s from %s was rejected", amount, store)
		if reason != "" {
			body += ": " + reason
		}
		body += ". The amount is back in your available balance."
	case EventPayoutProcessing:
		typ, title = TypePayoutProcessing, "Payout on its way"
		body = fmt.Sprintf("Your payout of %s from %s is being paid", amount, store)
		if m := methodLabels[d.ProcessingMethod]; m != "" {
			body += " by " + m
		}
		body += "."
	case EventPayoutCompleted:
		typ, title = TypePayoutCompleted, "Payout completed"
		body = fmt.Sprintf("Your payout of %s from %s was paid: %s sent to your account", amount, store, aed(d.NetAmount))
		if ref := clip(d.TransactionReference, maxName); ref != "" {
			body += " (reference " + ref + ")"
		}
		body += "."
	case EventPayoutFailed:
		typ, title, priority = TypePayoutFailed, "Payout failed", PriorityHigh
		body = fmt.Sprintf("Your payout of %s from %s failed", amount, store)
		if reason != "" {
			body += ": " + reason
		}
		if d.BalanceRestored {
			body += ". The amount is back in your available balance."
		} else {
			body += ". Our team will contact you about the amount."
		}
	}
	return []Notification{with(base(RecipientUser, owner, typ, title, body, priority, data), RoleStoreOwner, p)}
}

// payoutCancelledNotifications: a payout the store's handover cancelled. Its
// former owner (who requested it, to their bank account) is told that it
// will not be paid and where the amount went; the administrators, that the
// former owner's claim is theirs to settle.
func payoutCancelledNotifications(d payouts.PayoutEvent, data map[string]string, base func(recipientType, userID, typ, title, body, priority string, data map[string]string) Notification) []Notification {
	store, amount := storeName(d.StoreName), aed(d.RequestedAmount)
	reason := strings.TrimRight(clip(d.Reason, maxText), ".")
	if reason == "" {
		reason = "cancelled"
	}
	requester := clip(d.RequestedBy, maxName)
	if requester == "" {
		requester = clip(d.StoreOwnerUserID, maxName)
	}
	// Who requested it, by name when the payouts service knew it (the id
	// stays in data and params for a person who needs to copy it).
	named := clip(d.RequestedByName, maxName)
	if named == "" {
		named = requester
	}
	by, former := "", "the store's former owner"
	if requester != "" {
		by, former = " requested by "+named, named+", the store's former owner"
		data["requestedBy"] = requester
	}
	p := payoutParams(d)
	p["requestedBy"] = requester
	out := []Notification{with(base(RecipientAdmin, "", TypePayoutCancelled, "Payout cancelled: "+reason,
		fmt.Sprintf("The payout of %s from %s%s was cancelled (%s): the amount is back in the store's available balance. Settle it with %s.",
			amount, store, by, reason, former), PriorityHigh, data), RoleAdmin, p)}
	if owner := strings.TrimSpace(d.StoreOwnerUserID); owner != "" {
		out = append(out, with(base(RecipientUser, owner, TypePayoutCancelled, "Payout cancelled",
			fmt.Sprintf("Your payout of %s from %s was cancelled: %s. It will not be paid to your account; the amount went back to the store's available balance. Contact us to settle it.",
				amount, store, reason), PriorityHigh, data), RoleStoreOwner, p))
	}
	return out
}

// payoutParams are the params of every payout notification.
func payoutParams(d payouts.PayoutEvent) map[string]string {
	return params("storeName", clip(d.StoreName, maxName), "requestedAmount", amount(d.RequestedAmount, "aed"), "netAmount", amount(d.NetAmount, "aed"),
		"processingFee", amount(d.ProcessingFee, "aed"), "reason", strings.TrimRight(clip(d.Reason, maxText), "."), "method", clip(d.ProcessingMethod, maxName),
		"reference", clip(d.TransactionReference, maxName), "balanceRestored", flag(d.BalanceRestored), "requestedBy", clip(d.RequestedBy, maxName),
		"requestedByName", clip(d.RequestedByName, maxName))
}

var methodLabels = map[string]string{
	payouts.MethodBankTransfer: "bank transfer",
	payouts.MethodManual:       "a manual payment",
	payouts.MethodThirdParty:   "a payment provider",
}

// walletAdjustedBody says what an administrator did to a wallet, and why.
func walletAdjustedBody(d payouts.WalletEvent) string {
	amount, store := aed(d.Amount), storeName(d.StoreName)
	var body string
	switch d.AdjustmentType {
	case payouts.AdjustAddBalance:
		body = fmt.Sprintf("%s was added to the available balance of %s", amount, store)
	case payouts.AdjustDeductBalance:
		body = fmt.Sprintf("%s was deducted from the available balance of %s", amount, store)
	case payouts.AdjustAddPending:
		body = fmt.Sprintf("%s was added to the pending balance of %s", amount, store)
	case payouts.AdjustDeductPending:
		body = fmt.Sprintf("%s was deducted from the pending balance of %s", amount, store)
	case payouts.AdjustMovePendingToAvailable:
		body = fmt.Sprintf("%s of the pending balance of %s is now available", amount, store)
	default:
		body = fmt.Sprintf("The wallet of %s was adjusted by %s", store, amount)
	}
	if r := strings.TrimRight(clip(d.Reason, maxText), "."); r != "" {
		body += ": " + r
	}
	return body + "."
}
