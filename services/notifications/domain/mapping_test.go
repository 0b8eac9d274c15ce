package domain

import (
	"encoding/json"
	"errors"
	"maps"
	"strings"
	"testing"
	"time"
)

var evTime = time.Date(2026, 3, 1, 12, 30, 0, 123_000_000, time.UTC)

func envelope(typ, data string) Event {
	return Event{ID: "evt_" + strings.ReplaceAll(typ, ".", "_"), Type: typ, Time: evTime, Data: json.RawMessage(data)}
}

const orderCreatedData = `{"orderId":"ord_1","customerId":"cus_1","customerUserId":"u_cust","storeId":"sto_1",
	"storeName":"Falafel House","storeOwnerUserId":"u_owner","totalFils":5750,"subtotalFils":5000,"deliveryFeeFils":750,
	"paymentIntentId":"pi_1","status":"confirmed"}`

// want is what a test expects of one notification.
type want struct {
	recipientType, userID, typ, title, priority string
	bodyHas                                     []string
	data                                        map[string]string
}

func TestNotificationsFor(t *testing.T) {
	cases := []struct {
		name    string
		env     Event
		want    []want
		wantErr bool // a handled type with bad data
		ignored bool // a type that is not handled
	}{
		{
			name: "order created notifies customer and store owner",
			env:  envelope(EventOrderCreated, orderCreatedData),
			want: []want{
				{RecipientUser, "u_cust", TypeOrderCreated, "Order confirmed", PriorityNormal,
					[]string{"Falafel House", "AED 57.50"}, map[string]string{"orderId": "ord_1", "storeId": "sto_1", "paymentIntentId": "pi_1"}},
				{RecipientUser, "u_owner", TypeNewOrder, "New order", PriorityNormal,
					[]string{"Falafel House", "AED 57.50"}, map[string]string{"orderId": "ord_1", "storeId": "sto_1", "paymentIntentId": "pi_1"}},
			},
		},
		{
			name: "a partial refund tells the customer and the store's owner",
			env: envelope(EventOrderRefunded, `{"refundId":"rfd_1","orderId":"ord_1","storeId":"sto_1","storeOwnerUserId":"u_owner",
				"customerUserId":"u_cust","amountFils":3000,"refundedAmountFils":3000,"currency":"aed","refundStatus":"partially_refunded","origin":"admin"}`),
			want: []want{
				{RecipientUser, "u_cust", TypeOrderRefunded, "Refund of AED 30.00", PriorityNormal, []string{"AED 30.00 was refunded to your card"},
					map[string]string{"orderId": "ord_1", "storeId": "sto_1", "refundId": "rfd_1"}},
				{RecipientUser, "u_owner", TypeOrderRefunded, "Order refunded", PriorityNormal, []string{"AED 30.00", "AED 30.00 refunded in all"},
					map[string]string{"orderId": "ord_1", "storeId": "sto_1", "refundId": "rfd_1"}},
			},
		},
		{
			name: "the last refund says everything was refunded",
			env: envelope(EventOrderRefunded, `{"refundId":"rfd_2","orderId":"ord_1","customerUserId":"u_cust","amountFils":5705,
				"refundedAmountFils":8705,"currency":"aed","refundStatus":"refunded"}`),
			want: []want{{RecipientUser, "u_cust", TypeOrderRefunded, "Refund of AED 57.05", PriorityNormal, []string{"everything you paid"},
				map[string]string{"orderId": "ord_1", "refundId": "rfd_2"}}},
		},
		{
			name: "a refund of an order paid in another currency is told in it",
			env: envelope(EventOrderRefunded, `{"refundId":"rfd_3","orderId":"ord_1","customerUserId":"u_cust","amountFils":1234,
				"refundedAmountFils":1234,"currency":"usd","refundStatus":"refunded"}`),
			want: []want{{RecipientUser, "u_cust", TypeOrderRefunded, "Refund of USD 12.34", PriorityNormal, nil, map[string]string{"orderId": "ord_1", "refundId": "rfd_3"}}},
		},
		{
			name: "a failed refund asks the administrators",
			env: envelope(EventRefundFailed, `{"refundId":"rfd_1","orderId":"ord_1","storeId":"sto_1","amountFils":3000,"currency":"aed",
				"failureReason":"expired_or_canceled_card."}`),
			want: []want{{RecipientAdmin, "", TypeRefundFailed, "Refund failed", PriorityHigh, []string{"AED 30.00", "expired_or_canceled_card. Nothing"},
				map[string]string{"orderId": "ord_1", "storeId": "sto_1", "refundId": "rfd_1"}}},
		},
		{
			name: "a refund event without its refund id is bad data",
			env:  envelope(EventOrderRefunded, `{"orderId":"ord_1","customerUserId":"u_cust","amountFils":1}`), wantErr: true,
		},
		{
			name: "a dispute asks the administrators, with its deadline",
			env: envelope(EventDisputeOpened, `{"disputeId":"dp_1","paymentIntentId":"pi_1","orderId":"ord_1","storeId":"sto_1","amountFils":9000,
				"currency":"aed","reason":"product_not_received","status":"open","dueBy":1796104800000,"openedAt":1795500000000}`),
			want: []want{{RecipientAdmin, "", TypeDisputeOpened, "Payment disputed", PriorityHigh,
				[]string{"AED 90.00", "product not received", "1 Dec 2026 06:00 UTC"},
				map[string]string{"disputeId": "dp_1", "orderId": "ord_1", "storeId": "sto_1", "paymentIntentId": "pi_1"}}},
		},
		{
			name: "order created without customer user notifies only the owner",
			env:  envelope(EventOrderCreated, `{"orderId":"ord_1","customerUserId":"","storeName":"S","storeOwnerUserId":"u_owner","totalFils":1000}`),
			want: []want{{RecipientUser, "u_owner", TypeNewOrder, "New order", PriorityNormal, []string{"AED 10.00", " S."},
				map[string]string{"orderId": "ord_1"}}},
		},
		{
			name: "order created without any user notifies nobody",
			env:  envelope(EventOrderCreated, `{"orderId":"ord_1","totalFils":1000}`),
			want: []want{},
		},
		{
			name: "order created for the store's own owner gives both notifications",
			env:  envelope(EventOrderCreated, `{"orderId":"ord_1","customerUserId":"u_x","storeOwnerUserId":"u_x","totalFils":100}`),
			want: []want{
				{RecipientUser, "u_x", TypeOrderCreated, "Order confirmed", PriorityNormal, []string{"the store", "AED 1.00"}, map[string]string{"orderId": "ord_1"}},
				{RecipientUser, "u_x", TypeNewOrder, "New order", PriorityNormal, []string{"AED 1.00"}, map[string]string{"orderId": "ord_1"}},
			},
		},
		{
			name: "an order held for payment review tells the customer and the administrators, not the store",
			env: envelope(EventOrderCreated, `{"orderId":"ord_1","customerUserId":"u_cust","storeId":"sto_1","storeName":"Bakery",
				"storeOwnerUserId":"u_owner","totalFils":421750,"paymentIntentId":"pi_1","paymentStatus":"under_review","amountPaidFils":2250,"currency":"aed","status":"pending"}`),
			want: []want{
				{RecipientUser, "u_cust", TypeOrderPaymentReview, "Order received: payment under review", PriorityNormal,
					[]string{"AED 22.50", "AED 4217.50", "Bakery"}, map[string]string{"orderId": "ord_1", "storeId": "sto_1", "paymentIntentId": "pi_1"}},
				{RecipientAdmin, "", TypePaymentReview, "Payment does not match its order", PriorityHigh,
					[]string{"AED 22.50", "AED 4217.50"}, map[string]string{"orderId": "ord_1", "storeId": "sto_1", "paymentIntentId": "pi_1"}},
			},
		},
		{
			name: "a payment that found the cart empty asks the administrators to cancel and refund, not the store",
			env: envelope(EventOrderCreated, `{"orderId":"ord_2","customerUserId":"u_cust","storeId":"sto_1","storeName":"Bakery",
				"storeOwnerUserId":"u_owner","totalFils":0,"paymentIntentId":"pi_2","paymentStatus":"under_review","amountPaidFils":8705,"currency":"aed",
				"reviewReason":"cart_empty","status":"pending"}`),
			want: []want{
				{RecipientUser, "u_cust", TypeOrderPaymentReview, "Payment received: nothing to order", PriorityNormal,
					[]string{"AED 87.05", "Bakery", "no items", "refund"}, map[string]string{"orderId": "ord_2", "storeId": "sto_1", "paymentIntentId": "pi_2"}},
				{RecipientAdmin, "", TypePaymentReview, "Payment without items", PriorityHigh,
					[]string{"AED 87.05", "Bakery", "cancel the order and refund"}, map[string]string{"orderId": "ord_2", "storeId": "sto_1", "paymentIntentId": "pi_2"}},
			},
		},
		{
			name: "a held order confirmed by an administrator reaches its store",
			env: envelope(EventOrderStatusChanged, `{"orderId":"ord_1","customerUserId":"u_cust","storeId":"sto_1","storeName":"Bakery",
				"storeOwnerUserId":"u_owner","from":"pending","to":"confirmed","changedBy":"admin-1"}`),
			want: []want{
				{RecipientUser, "u_cust", TypeOrderStatus, "Order confirmed", PriorityNormal, []string{"Bakery", "confirmed"},
					map[string]string{"orderId": "ord_1", "storeId": "sto_1", "status": "confirmed", "previousStatus": "pending"}},
				{RecipientUser, "u_owner", TypeNewOrder, "New order", PriorityNormal, []string{"Bakery"},
					map[string]string{"orderId": "ord_1", "storeId": "sto_1"}},
			},
		},
		{name: "order created: total is a string", env: envelope(EventOrderCreated, `{"orderId":"ord_1","totalFils":"5750"}`), wantErr: true},
		{name: "order created: no orderId", env: envelope(EventOrderCreated, `{"customerUserId":"u","totalFils":100}`), wantErr: true},
		{name: "order created: data is an array", env: envelope(EventOrderCreated, `[1]`), wantErr: true},
		{name: "order created: data is null", env: envelope(EventOrderCreated, `null`), wantErr: true},
		{name: "order created: no data", env: envelope(EventOrderCreated, ``), wantErr: true},
		{
			name: "status change notifies the customer with the new status",
			env: envelope(EventOrderStatusChanged, `{"orderId":"ord_1","customerUserId":"u_cust","storeId":"sto_1","storeName":"Falafel House",
				"storeOwnerUserId":"u_owner","from":"preparing","to":"out_for_delivery","changedBy":"u_owner"}`),
			want: []want{{RecipientUser, "u_cust", TypeOrderStatus, "Order out for delivery", PriorityNormal,
				[]string{"Falafel House", "out for delivery"},
				map[string]string{"orderId": "ord_1", "storeId": "sto_1", "status": "out_for_delivery", "previousStatus": "preparing"}}},
		},
		{
			name: "status change to an unknown status names it",
			env:  envelope(EventOrderStatusChanged, `{"orderId":"ord_1","customerUserId":"u","to":"on_hold"}`),
			want: []want{{RecipientUser, "u", TypeOrderStatus, "Order on hold", PriorityNormal, []string{"is now on hold"},
				map[string]string{"orderId": "ord_1", "status": "on_hold"}}},
		},
		{
			name: "status change without customer user notifies nobody",
			env:  envelope(EventOrderStatusChanged, `{"orderId":"ord_1","to":"delivered","storeOwnerUserId":"u_owner"}`),
			want: []want{},
		},
		{name: "status change: no to", env: envelope(EventOrderStatusChanged, `{"orderId":"ord_1","customerUserId":"u"}`), wantErr: true},
		{name: "status change: to is a number", env: envelope(EventOrderStatusChanged, `{"orderId":"ord_1","to":3}`), wantErr: true},
		{
			name: "payment failure notifies the customer, high priority",
			env: envelope(EventPaymentFailed, `{"paymentIntentId":"pi_9","customerId":"cus_1","customerUserId":"u_cust","storeId":"sto_1",
				"amountFils":4200,"currency":"aed","failureMessage":"Your card was declined."}`),
			want: []want{{RecipientUser, "u_cust", TypePaymentFailed, "Payment failed", PriorityHigh,
				[]string{"AED 42.00", "Your card was declined", "try again"},
				map[string]string{"paymentIntentId": "pi_9", "storeId": "sto_1"}}},
		},
		{
			name: "a payment in a zero-decimal currency is shown in its own units",
			env:  envelope(EventPaymentFailed, `{"paymentIntentId":"pi_9","customerUserId":"u_cust","amountFils":1234,"currency":"jpy"}`),
			want: []want{{RecipientUser, "u_cust", TypePaymentFailed, "Payment failed", PriorityHigh,
				[]string{"JPY 1234 could not"}, map[string]string{"paymentIntentId": "pi_9"}}},
		},
		{
			name: "payment failure without customer user notifies nobody",
			env:  envelope(EventPaymentFailed, `{"paymentIntentId":"pi_9","customerUserId":"","amountFils":4200}`),
			want: []want{},
		},
		{name: "payment failure: amount is an object", env: envelope(EventPaymentFailed, `{"paymentIntentId":"pi_9","amountFils":{}}`), wantErr: true},
		{name: "payment failure: no payment intent", env: envelope(EventPaymentFailed, `{"customerUserId":"u"}`), wantErr: true},
		{
			name: "offensive flag goes to the admin inbox, high priority",
			env: envelope(EventReviewFlagRaised, `{"flagId":"flg_1","reviewId":"rev_1","storeId":"sto_1","reason":"offensive",
				"description":"Insults the staff","flaggedByUserId":"u_flagger"}`),
			want: []want{{RecipientAdmin, "", TypeReviewFlagged, "Review flagged", PriorityHigh, []string{"offensive", "Insults the staff"},
				map[string]string{"flagId": "flg_1", "reviewId": "rev_1", "storeId": "sto_1", "reason": "offensive", "flaggedByUserId": "u_flagger"}}},
		},
		{
			name: "fake flag is high priority",
			env:  envelope(EventReviewFlagRaised, `{"flagId":"flg_1","reviewId":"rev_1","reason":"fake"}`),
			want: []want{{RecipientAdmin, "", TypeReviewFlagged, "Review flagged", PriorityHigh, []string{"flagged as fake"},
				map[string]string{"flagId": "flg_1", "reviewId": "rev_1", "reason": "fake"}}},
		},
		{
			name: "spam flag is normal priority",
			env:  envelope(EventReviewFlagRaised, `{"flagId":"flg_1","reviewId":"rev_1","reason":"spam"}`),
			want: []want{{RecipientAdmin, "", TypeReviewFlagged, "Review flagged", PriorityNormal, []string{"flagged as spam"},
				map[string]string{"flagId": "flg_1", "reviewId": "rev_1", "reason": "spam"}}},
		},
		{name: "flag: no review", env: envelope(EventReviewFlagRaised, `{"flagId":"flg_1","reason":"spam"}`), wantErr: true},
		{name: "flag: bad JSON", env: envelope(EventReviewFlagRaised, `{"flagId":`), wantErr: true},
		{
			name: "a delivered order tells the customer and invites a review of the store",
			env: envelope(EventOrderStatusChanged, `{"orderId":"ord_1","customerUserId":"u_cust","storeId":"sto_1","storeName":"Falafel House",
				"storeOwnerUserId":"u_owner","from":"out_for_delivery","to":"delivered","changedBy":"u_owner"}`),
			want: []want{
				{RecipientUser, "u_cust", TypeOrderStatus, "Order delivered", PriorityNormal, []string{"Falafel House", "delivered"},
					map[string]string{"orderId": "ord_1", "storeId": "sto_1", "status": "delivered", "previousStatus": "out_for_delivery"}},
				{RecipientUser, "u_cust", TypeReviewInvitation, "How was Falafel House?", PriorityNormal, []string{"Falafel House", "Rate the store"},
					map[string]string{"orderId": "ord_1", "storeId": "sto_1"}},
			},
		},
		{
			name: "an order moving before delivery invites no review",
			env:  envelope(EventOrderStatusChanged, `{"orderId":"ord_1","customerUserId":"u_cust","storeName":"S","from":"confirmed","to":"preparing"}`),
			want: []want{{RecipientUser, "u_cust", TypeOrderStatus, "Order being prepared", PriorityNormal, []string{"being prepared"},
				map[string]string{"orderId": "ord_1", "status": "preparing", "previousStatus": "confirmed"}}},
		},
		{
			name: "a store's response reaches the review's author",
			env: envelope(EventReviewStoreResponded, `{"reviewId":"rev_1","storeId":"sto_1","storeName":"Bakery","customerUserId":"u_author",
				"comment":"Thank you for coming!","respondedAt":1,"updated":false,"respondedByUserId":"u_owner"}`),
			want: []want{{RecipientUser, "u_author", TypeReviewResponse, "Bakery responded to your review", PriorityNormal,
				[]string{"Thank you for coming!"}, map[string]string{"reviewId": "rev_1", "storeId": "sto_1"}}},
		},
		{
			name: "a changed response says so",
			env:  envelope(EventReviewStoreResponded, `{"reviewId":"rev_1","customerUserId":"u_author","comment":"Updated","updated":true}`),
			want: []want{{RecipientUser, "u_author", TypeReviewResponse, "the store updated its response to your review", PriorityNormal,
				[]string{": Updated"}, map[string]string{"reviewId": "rev_1"}}},
		},
		{name: "store response: no reviewId", env: envelope(EventReviewStoreResponded, `{"customerUserId":"u"}`), wantErr: true},
		{
			name: "a hidden review's author is told",
			env: envelope(EventReviewHidden, `{"reviewId":"rev_1","storeId":"sto_1","storeName":"Bakery","customerId":"cus_1","customerUserId":"u_author",
				"rating":1,"hidden":true,"byUserId":"admin-1","adminName":"Mariam Al Mansoori","flagId":"flg_1","adminNotes":"internal"}`),
			want: []want{{RecipientUser, "u_author", TypeReviewHidden, "Your review was hidden", PriorityNormal,
				[]string{"Bakery", "hidden by our moderators"}, map[string]string{"reviewId": "rev_1", "storeId": "sto_1"}}},
		},
		{
			name: "a review shown again: its author is told",
			env: envelope(EventReviewShown, `{"reviewId":"rev_1","storeName":"Bakery","customerUserId":"u_author","rating":1,
				"byUserId":"admin-1","adminName":"Mariam Al Mansoori"}`),
			want: []want{{RecipientUser, "u_author", TypeReviewShown, "Your review is visible again", PriorityNormal,
				[]string{"Bakery", "visible to other customers again"}, map[string]string{"reviewId": "rev_1"}}},
		},
		{name: "hidden: rating is a string", env: envelope(EventReviewHidden, `{"reviewId":"rev_1","rating":"1"}`), wantErr: true},
		{name: "a new review notifies nobody", env: envelope("review.created", `{"reviewId":"rev_1","customerUserId":"u"}`), ignored: true},
		{name: "a flag's resolution notifies nobody", env: envelope("review.flag_resolved", `{"flagId":"flg_1"}`), ignored: true},
		{name: "other order event is ignored", env: envelope("order.shipped", `{"orderId":"ord_1"}`), ignored: true},
		{name: "unknown event with bad data is ignored", env: envelope("payout.teleported", `nonsense`), ignored: true},
		{name: "wallet credits are not notified", env: envelope("wallet.credited", `{"walletId":"wal_1","storeOwnerUserId":"u_owner"}`), ignored: true},
		{
			name: "a payout request goes to the admin inbox",
			env: envelope(EventPayoutRequested, `{"payoutId":"pay_1","storeId":"sto_1","storeName":"Bakery","storeOwnerUserId":"u_owner",
				"requestedBy":"u_owner","requestedAmountFils":50000,"processingFeeFils":200,"netAmountFils":49800,"status":"requested"}`),
			want: []want{{RecipientAdmin, "", TypePayoutRequested, "Payout requested", PriorityNormal,
				[]string{"Bakery", "AED 500.00", "AED 498.00", "AED 2.00"}, map[string]string{"payoutId": "pay_1", "storeId": "sto_1", "status": "requested"}}},
		},
		{
			name: "an approved payout tells its store's owner",
			env: envelope(EventPayoutApproved, `{"payoutId":"pay_1","storeId":"sto_1","storeName":"Bakery","storeOwnerUserId":"u_owner",
				"requestedAmountFils":50000,"status":"approved","from":"requested","adminUserId":"admin-1"}`),
			want: []want{{RecipientUser, "u_owner", TypePayoutApproved, "Payout approved", PriorityNormal,
				[]string{"AED 500.00", "Bakery", "approved"}, map[string]string{"payoutId": "pay_1", "storeId": "sto_1", "status": "approved"}}},
		},
		{
			name: "a rejected payout tells the owner why, high priority",
			env: envelope(EventPayoutRejected, `{"payoutId":"pay_1","storeName":"Bakery","storeOwnerUserId":"u_owner","requestedAmountFils":50000,
				"status":"cancelled","reason":"IBAN does not match the owner.","balanceRestored":true}`),
			want: []want{{RecipientUser, "u_owner", TypePayoutRejected, "Payout rejected", PriorityHigh,
				[]string{"rejected: IBAN does not match the owner. The amount is back"}, map[string]string{"payoutId": "pay_1", "status": "cancelled"}}},
		},
		{
			name: "a payout being paid names the method",
			env: envelope(EventPayoutProcessing, `{"payoutId":"pay_1","storeOwnerUserId":"u_owner","requestedAmountFils":50000,"status":"processing",
				"processingMethod":"bank_transfer"}`),
			want: []want{{RecipientUser, "u_owner", TypePayoutProcessing, "Payout on its way", PriorityNormal,
				[]string{"being paid by bank transfer", "the store"}, map[string]string{"payoutId": "pay_1", "status": "processing"}}},
		},
		{
			name: "a completed payout says what was sent",
			env: envelope(EventPayoutCompleted, `{"payoutId":"pay_1","storeOwnerUserId":"u_owner","requestedAmountFils":50000,"netAmountFils":49800,
				"status":"completed","transactionReference":"TRX-42"}`),
			want: []want{{RecipientUser, "u_owner", TypePayoutCompleted, "Payout completed", PriorityNormal,
				[]string{"AED 498.00 sent", "TRX-42"}, map[string]string{"payoutId": "pay_1", "status": "completed"}}},
		},
		{
			name: "a failed payout without the balance restored, high priority",
			env: envelope(EventPayoutFailed, `{"payoutId":"pay_1","storeOwnerUserId":"u_owner","requestedAmountFils":50000,"status":"failed",
				"reason":"Account closed"}`),
			want: []want{{RecipientUser, "u_owner", TypePayoutFailed, "Payout failed", PriorityHigh,
				[]string{"failed: Account closed", "contact you"}, map[string]string{"payoutId": "pay_1", "status": "failed"}}},
		},
		{
			name: "a failed payout with the balance restored",
			env: envelope(EventPayoutFailed, `{"payoutId":"pay_1","storeOwnerUserId":"u_owner","requestedAmountFils":50000,"status":"failed",
				"reason":"Account closed","balanceRestored":true}`),
			want: []want{{RecipientUser, "u_owner", TypePayoutFailed, "Payout failed", PriorityHigh,
				[]string{"back in your available balance"}, map[string]string{"payoutId": "pay_1", "status": "failed"}}},
		},
		{
			name: "a payout the store's handover cancelled: the administrators and the former owner, high priority",
			env: envelope(EventPayoutCancelled, `{"payoutId":"pay_1","storeId":"sto_1","storeName":"Bakery","storeOwnerUserId":"u_former",
				"requestedBy":"u_former","requestedAmountFils":50000,"status":"cancelled","from":"requested","reason":"store handed over","balanceRestored":true}`),
			want: []want{
				{RecipientAdmin, "", TypePayoutCancelled, "Payout cancelled: store handed over", PriorityHigh,
					[]string{"AED 500.00 from Bakery requested by u_former was cancelled (store handed over)", "store's available balance", "Settle it with u_former"},
					map[string]string{"payoutId": "pay_1", "storeId": "sto_1", "status": "cancelled", "requestedBy": "u_former"}},
				{RecipientUser, "u_former", TypePayoutCancelled, "Payout cancelled", PriorityHigh,
					[]string{"Your payout of AED 500.00 from Bakery was cancelled: store handed over.", "not be paid to your account", "store's available balance"},
					map[string]string{"payoutId": "pay_1", "storeId": "sto_1", "status": "cancelled", "requestedBy": "u_former"}},
			},
		},
		{
			name: "a cancelled payout names its requester when the payouts service knew the name (the id stays in data)",
			env: envelope(EventPayoutCancelled, `{"payoutId":"pay_1","storeId":"sto_1","storeName":"Bakery","storeOwnerUserId":"u_former",
				"requestedBy":"u_former","requestedByName":"Noor Hassan","requestedAmountFils":50000,"status":"cancelled","from":"requested","reason":"store handed over","balanceRestored":true}`),
			want: []want{
				{RecipientAdmin, "", TypePayoutCancelled, "Payout cancelled: store handed over", PriorityHigh,
					[]string{"AED 500.00 from Bakery requested by Noor Hassan was cancelled (store handed over)", "Settle it with Noor Hassan, the store's former owner"},
					map[string]string{"payoutId": "pay_1", "storeId": "sto_1", "status": "cancelled", "requestedBy": "u_former"}},
				{RecipientUser, "u_former", TypePayoutCancelled, "Payout cancelled", PriorityHigh,
					[]string{"Your payout of AED 500.00 from Bakery was cancelled: store handed over."},
					map[string]string{"payoutId": "pay_1", "storeId": "sto_1", "status": "cancelled", "requestedBy": "u_former"}},
			},
		},
		{
			name: "a cancelled payout without an owner still reaches the administrators",
			env:  envelope(EventPayoutCancelled, `{"payoutId":"pay_1","requestedAmountFils":50000,"status":"cancelled","reason":"store handed over"}`),
			want: []want{{RecipientAdmin, "", TypePayoutCancelled, "Payout cancelled: store handed over", PriorityHigh,
				[]string{"AED 500.00 from the store"}, map[string]string{"payoutId": "pay_1", "status": "cancelled"}}},
		},
		{name: "payout cancelled: no payoutId", env: envelope(EventPayoutCancelled, `{"storeOwnerUserId":"u"}`), wantErr: true},
		{
			name: "a payout move without an owner notifies nobody",
			env:  envelope(EventPayoutApproved, `{"payoutId":"pay_1","requestedAmountFils":50000,"status":"approved"}`),
			want: []want{},
		},
		{name: "payout: no payoutId", env: envelope(EventPayoutApproved, `{"storeOwnerUserId":"u"}`), wantErr: true},
		{name: "payout: amount is a string", env: envelope(EventPayoutRequested, `{"payoutId":"pay_1","requestedAmountFils":"5"}`), wantErr: true},
		{
			name: "a wallet adjustment tells the owner what and why",
			env: envelope(EventWalletAdjusted, `{"walletId":"wal_1","storeId":"sto_1","storeName":"Bakery","storeOwnerUserId":"u_owner",
				"type":"penalty","adjustmentType":"deduct_balance","amountFils":1500,"reason":"Late delivery refund","adminUserId":"admin-1",
				"adminName":"Mariam Al Mansoori"}`),
			want: []want{{RecipientUser, "u_owner", TypeWalletAdjusted, "Wallet adjusted", PriorityNormal,
				[]string{"AED 15.00 was deducted from the available balance of Bakery: Late delivery refund."},
				map[string]string{"walletId": "wal_1", "storeId": "sto_1", "adjustmentType": "deduct_balance"}}},
		},
		{
			name: "a move of pending to available",
			env: envelope(EventWalletAdjusted, `{"walletId":"wal_1","storeOwnerUserId":"u_owner","adjustmentType":"move_pending_to_available",
				"amountFils":1500,"reason":"Early release"}`),
			want: []want{{RecipientUser, "u_owner", TypeWalletAdjusted, "Wallet adjusted", PriorityNormal,
				[]string{"AED 15.00 of the pending balance of the store is now available: Early release."},
				map[string]string{"walletId": "wal_1", "adjustmentType": "move_pending_to_available"}}},
		},
		{name: "wallet adjusted: no walletId", env: envelope(EventWalletAdjusted, `{"storeOwnerUserId":"u"}`), wantErr: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := For(c.env)
			switch {
			case c.ignored:
				if !errors.Is(err, ErrNotHandled) {
					t.Fatalf("err = %v, want ErrNotHandled", err)
				}
				return
			case c.wantErr:
				if err == nil || errors.Is(err, ErrNotHandled) {
					t.Fatalf("err = %v, want a data error", err)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			if len(got) != len(c.want) {
				t.Fatalf("%d notifications, want %d: %+v", len(got), len(c.want), got)
			}
			for i, w := range c.want {
				n := got[i]
				if n.RecipientType != w.recipientType || n.RecipientUserID != w.userID || n.Type != w.typ ||
					n.Title != w.title || n.Priority != w.priority {
					t.Errorf("notification %d = %+v, want %+v", i, n, w)
				}
				for _, s := range w.bodyHas {
					if !strings.Contains(n.Body, s) {
						t.Errorf("notification %d body %q lacks %q", i, n.Body, s)
					}
				}
				if !maps.Equal(n.Data, w.data) {
					t.Errorf("notification %d data = %v, want %v", i, n.Data, w.data)
				}
				if n.EventID != c.env.ID || n.EventType != c.env.Type || n.EventTime != evTime.UnixMilli() || n.Read || n.ID != "" {
					t.Errorf("notification %d event fields = %+v", i, n)
				}
			}
		})
	}
}

func TestLongTextIsClipped(t *testing.T) {
	long := strings.Repeat("é", 1000)
	got, err := For(envelope(EventReviewFlagRaised, `{"flagId":"flg_1","reviewId":"rev_1","reason":"other","description":"`+long+`"}`))
	if err != nil || len(got) != 1 {
		t.Fatal(got, err)
	}
	if n := len([]rune(got[0].Body)); n > 400 || !strings.HasSuffix(got[0].Body, "…") {
		t.Fatalf("body of %d characters: %q", n, got[0].Body)
	}
}

// TestAdministratorsUnnamedToTheirRecipients: the events that name an
// administrator (docs/adr/0168) tell the review's author and the store's
// owner that moderators or the platform acted, never who: no notification
// built from them carries the administrator's name or id.
func TestAdministratorsUnnamedToTheirRecipients(t *testing.T) {
	for _, env := range []Event{
		envelope(EventReviewHidden, `{"reviewId":"rev_1","storeName":"Bakery","customerUserId":"u_author","rating":1,"hidden":true,
			"byUserId":"admin-1","adminName":"Mariam Al Mansoori","flagId":"flg_1"}`),
		envelope(EventReviewShown, `{"reviewId":"rev_1","storeName":"Bakery","customerUserId":"u_author","rating":1,
			"byUserId":"admin-1","adminName":"Mariam Al Mansoori"}`),
		envelope(EventWalletAdjusted, `{"walletId":"wal_1","storeId":"sto_1","storeOwnerUserId":"u_owner","adjustmentType":"add_balance",
			"amountFils":1500,"reason":"Goodwill","adminUserId":"admin-1","adminName":"Mariam Al Mansoori"}`),
	} {
		got, err := For(env)
		if err != nil || len(got) == 0 {
			t.Fatalf("%s: %v, %d notifications", env.Type, err, len(got))
		}
		for _, n := range got {
			b, err := json.Marshal(n)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(b), "Mariam") || strings.Contains(string(b), "admin-1") {
				t.Errorf("%s: the notification to %s names the administrator: %s", env.Type, n.RecipientUserID, b)
			}
		}
	}
}
