package notifications

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"marketplace/libs/contracts/customers"
	"marketplace/libs/contracts/payments"
	"marketplace/libs/contracts/reviews"
	"marketplace/libs/events"
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
)

// Event types handled, as their producers' contracts declare them.
const (
	EventOrderCreated       = customers.EventOrderCreated
	EventOrderStatusChanged = customers.EventOrderStatusChanged
	EventPaymentFailed      = payments.EventPaymentFailed
	EventReviewFlagRaised   = reviews.EventFlagRaised
)

// Topics followed.
var Topics = []string{customers.TopicOrders, payments.Topic, reviews.Topic}

// Limits on the free text copied from events into a notification.
const (
	maxName = 100
	maxText = 300
)

// notificationDoc is a stored notification.
type notificationDoc struct {
	ID              string            `bson:"_id"`
	RecipientType   string            `bson:"recipientType"`
	RecipientUserID string            `bson:"recipientUserId,omitempty"`
	Type            string            `bson:"type"`
	Title           string            `bson:"title"`
	Body            string            `bson:"body"`
	Priority        string            `bson:"priority"`
	Data            map[string]string `bson:"data"`
	EventID         string            `bson:"eventId"`
	EventType       string            `bson:"eventType"`
	EventTime       int64             `bson:"eventTime"`
	Read            bool              `bson:"read"`
	ReadAt          *int64            `bson:"readAt,omitempty"`
	CreationTime    int64             `bson:"creationTime"`
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

// decodeData reads an event's data object into v. Anything but a JSON object
// whose fields have the expected types is an error.
func decodeData(env events.Envelope, v any) error {
	raw := bytes.TrimSpace(env.Data)
	if len(raw) == 0 || raw[0] != '{' {
		return fmt.Errorf("%s %s: data must be a JSON object", env.Type, env.ID)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("%s %s: bad data: %w", env.Type, env.ID, err)
	}
	return nil
}

func required(env events.Envelope, fields ...string) error {
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

var errNotHandled = errors.New("notifications: event type not handled")

// notificationsFor maps an event to the notifications it causes, without _id and
// creationTime (set when stored). An event type that is not handled gives
// errNotHandled; a handled type with unreadable data gives another error.
func notificationsFor(env events.Envelope) ([]notificationDoc, error) {
	var eventTime int64
	if !env.Time.IsZero() {
		eventTime = env.Time.UnixMilli()
	}
	base := func(recipientType, userID, typ, title, body, priority string, data map[string]string) notificationDoc {
		return notificationDoc{
			RecipientType: recipientType, RecipientUserID: userID, Type: typ, Title: title, Body: body,
			Priority: priority, Data: data, EventID: env.ID, EventType: env.Type, EventTime: eventTime,
		}
	}
	var out []notificationDoc
	switch env.Type {
	case EventOrderCreated:
		var d customers.OrderEvent
		if err := decodeData(env, &d); err != nil {
			return nil, err
		}
		if err := required(env, "orderId", d.OrderID); err != nil {
			return nil, err
		}
		data := idMap("orderId", d.OrderID, "storeId", d.StoreID, "paymentIntentId", d.PaymentIntentID)
		if d.PaymentStatus == customers.PaymentUnderReview {
			// Held: nothing for the store until an administrator confirms it.
			paid := fmt.Sprintf("%s %.*f", strings.ToUpper(clip(d.Currency, 8)), money.MinorUnits(d.Currency), money.Major(int64(d.AmountPaid), d.Currency))
			if u := strings.TrimSpace(d.CustomerUserID); u != "" {
				out = append(out, base(RecipientUser, u, TypeOrderPaymentReview, "Order received: payment under review",
					fmt.Sprintf("We received your payment of %s for your order from %s, which does not match its total of %s. Our team is reviewing it and will contact you.",
						paid, storeName(d.StoreName), aed(d.Total)), PriorityNormal, data))
			}
			out = append(out, base(RecipientAdmin, "", TypePaymentReview, "Payment does not match its order",
				fmt.Sprintf("Order at %s was paid %s for a total of %s: confirm or cancel it.", storeName(d.StoreName), paid, aed(d.Total)),
				PriorityHigh, data))
			break
		}
		if u := strings.TrimSpace(d.CustomerUserID); u != "" {
			out = append(out, base(RecipientUser, u, TypeOrderCreated, "Order confirmed",
				fmt.Sprintf("Your order from %s for %s is confirmed.", storeName(d.StoreName), aed(d.Total)),
				PriorityNormal, data))
		}
		if u := strings.TrimSpace(d.StoreOwnerUserID); u != "" {
			out = append(out, base(RecipientUser, u, TypeNewOrder, "New order",
				fmt.Sprintf("New order for %s at %s.", aed(d.Total), storeName(d.StoreName)),
				PriorityNormal, data))
		}
	case EventOrderStatusChanged:
		var d customers.OrderEvent
		if err := decodeData(env, &d); err != nil {
			return nil, err
		}
		if err := required(env, "orderId", d.OrderID, "to", d.To); err != nil {
			return nil, err
		}
		if u := strings.TrimSpace(d.CustomerUserID); u != "" {
			label := statusLabel(d.To)
			out = append(out, base(RecipientUser, u, TypeOrderStatus, "Order "+label,
				fmt.Sprintf("Your order from %s is now %s.", storeName(d.StoreName), label),
				PriorityNormal, idMap("orderId", d.OrderID, "storeId", d.StoreID, "status", d.To, "previousStatus", d.From)))
		}
		// An order confirmed from pending (a held payment an administrator
		// accepted) reaches its store now.
		if u := strings.TrimSpace(d.StoreOwnerUserID); u != "" && d.From == customers.StatusPending && d.To == customers.StatusConfirmed {
			out = append(out, base(RecipientUser, u, TypeNewOrder, "New order",
				fmt.Sprintf("New order at %s.", storeName(d.StoreName)), PriorityNormal, idMap("orderId", d.OrderID, "storeId", d.StoreID)))
		}
	case EventPaymentFailed:
		var d payments.PaymentFailed
		if err := decodeData(env, &d); err != nil {
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
			out = append(out, base(RecipientUser, u, TypePaymentFailed, "Payment failed", body,
				PriorityHigh, idMap("paymentIntentId", d.PaymentIntentID, "storeId", d.StoreID)))
		}
	case EventReviewFlagRaised:
		var d reviews.FlagRaised
		if err := decodeData(env, &d); err != nil {
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
		out = append(out, base(RecipientAdmin, "", TypeReviewFlagged, "Review flagged", body, priority,
			idMap("flagId", d.FlagID, "reviewId", d.ReviewID, "storeId", d.StoreID, "reason", d.Reason, "flaggedByUserId", d.FlaggedByUserID)))
	default:
		return nil, errNotHandled
	}
	return out, nil
}
