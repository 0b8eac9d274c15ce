package contracts

import (
	"marketplace/libs/contracts/catalog"
	"marketplace/libs/contracts/customers"
	"marketplace/libs/contracts/payments"
	"marketplace/libs/contracts/payouts"
	"marketplace/libs/contracts/reviews"
)

// Enum is a set of string values whose meanings are part of a published
// contract (Enums lists them): an order's statuses, a payout's,
// a flag's reasons. A value's meaning may never change: a value that comes to
// mean something else is a new value (a breaking change), so the contracts
// publish each meaning and `make contracts-check` compares them with the
// snapshot's (tools/oasdiff/enummeanings), the one thing oasdiff cannot see.
type Enum struct {
	Name   string
	Values []EnumValue
}

// EnumValue is one value of an Enum and what it means.
type EnumValue struct {
	Value   string
	Meaning string
}

// Enums are the value sets the published contracts carry, with what each
// value means. The contracts publish the meanings (x-enum-meanings) and
// `make contracts-check` fails when one changes: a value never comes to mean
// something else; a new meaning is a new value. Every enumerated argument,
// answer field and event payload field must list values of one of these
// (gateway/apischema.AddEnumMeanings refuses the contracts otherwise).
var Enums = []Enum{
	{Name: "orderStatus", Values: []EnumValue{
		{Value: customers.StatusPending, Meaning: "paid and placed; the store has not accepted it yet"},
		{Value: customers.StatusConfirmed, Meaning: "the store accepted it"},
		{Value: customers.StatusPreparing, Meaning: "the store is preparing it"},
		{Value: customers.StatusOutForDelivery, Meaning: "on its way to the delivery address"},
		{Value: customers.StatusDelivered, Meaning: "handed to the customer; its store earnings are credited (held, then released to the store's available balance)"},
		{Value: customers.StatusCancelled, Meaning: "cancelled before delivery; it earns the store nothing"},
	}},
	// Order lists (issue 32; docs/adr/0159, 0160).
	{Name: "orderSort", Values: []EnumValue{
		{Value: "newest", Meaning: "by creation time, newest first"},
		{Value: "oldest", Meaning: "by creation time, oldest first"},
		{Value: "total_desc", Meaning: "by total, largest first"},
		{Value: "total_asc", Meaning: "by total, smallest first"},
	}},
	{Name: "orderChangeRole", Values: []EnumValue{
		{Value: "customer", Meaning: "the order's customer made the change (a cancellation)"},
		{Value: "store", Meaning: "the store's owner made the change"},
		{Value: "administrator", Meaning: "an administrator made the change"},
		{Value: "system", Meaning: "the marketplace made the change (the payment that placed the order)"},
	}},
	{Name: "paymentStatus", Values: []EnumValue{
		{Value: customers.PaymentPaid, Meaning: "the processor charged the order's total"},
		{Value: customers.PaymentUnderReview, Meaning: "the processor charged an amount or currency other than the order's total: held for an administrator's review"},
	}},
	{Name: "orderRefundStatus", Values: []EnumValue{
		{Value: customers.OrderRefundPartial, Meaning: "the processor refunded part of what was paid"},
		{Value: customers.OrderRefundFull, Meaning: "the processor refunded all that was paid"},
	}},
	{Name: "refundStatus", Values: []EnumValue{
		{Value: customers.RefundStatusRequested, Meaning: "asked of the processor; its amount is reserved, not yet refunded"},
		{Value: customers.RefundStatusSucceeded, Meaning: "the processor confirmed it (final)"},
		{Value: customers.RefundStatusFailed, Meaning: "the processor refused or failed it; nothing was refunded (final)"},
	}},
	{Name: "refundOrigin", Values: []EnumValue{
		{Value: customers.RefundByAdmin, Meaning: "an administrator refunded the order"},
		{Value: customers.RefundByStore, Meaning: "the store's owner refunded the order"},
		{Value: customers.RefundByCancellation, Meaning: "the paid order was cancelled and refunded in full"},
		{Value: customers.RefundByProcessor, Meaning: "made at the processor, outside the marketplace"},
		{Value: "marketplace", Meaning: "asked by the marketplace (an order's refund)"},
	}},
	{Name: "disputeStatus", Values: []EnumValue{
		{Value: payments.DisputeOpen, Meaning: "the customer disputed the charge; the store's share is held"},
		{Value: payments.DisputeWon, Meaning: "closed in the marketplace's favour; the held share is released (final)"},
		{Value: payments.DisputeLost, Meaning: "closed in the customer's favour; the held share is debited (final)"},
	}},
	{Name: "transferStatus", Values: []EnumValue{
		{Value: payments.TransferPending, Meaning: "sent to the processor; not yet paid"},
		{Value: payments.TransferPaid, Meaning: "the money reached the store's bank account (final)"},
		{Value: payments.TransferFailed, Meaning: "the processor could not pay it (final)"},
	}},
	{Name: "deliveryType", Values: []EnumValue{
		{Value: customers.DeliveryStandard, Meaning: "standard delivery: 10 AED, free from a 100 AED store subtotal"},
		{Value: customers.DeliveryExpress, Meaning: "express delivery: 20 AED"},
	}},
	{Name: "storeTier", Values: []EnumValue{
		{Value: catalog.TierBasic, Meaning: "the basic commission tier"},
		{Value: catalog.TierPremium, Meaning: "the premium commission tier"},
		{Value: catalog.TierEnterprise, Meaning: "the enterprise commission tier"},
	}},
	{Name: "payoutStatus", Values: []EnumValue{
		{Value: payouts.StatusRequested, Meaning: "the store owner asked for it; the amount has left the available balance"},
		{Value: payouts.StatusApproved, Meaning: "an administrator approved it; not yet sent"},
		{Value: payouts.StatusProcessing, Meaning: "being sent to the store's bank account"},
		{Value: payouts.StatusCompleted, Meaning: "the money reached the store (final)"},
		{Value: payouts.StatusCancelled, Meaning: "rejected by an administrator; the amount went back to the available balance (final)"},
		{Value: payouts.StatusFailed, Meaning: "sending failed; the amount went back to the available balance only when the administrator asked for it (final)"},
	}},
	{Name: "payoutProcessingMethod", Values: []EnumValue{
		{Value: payouts.MethodBankTransfer, Meaning: "a bank transfer to the store's IBAN"},
		{Value: payouts.MethodManual, Meaning: "paid by hand outside the platform"},
		{Value: payouts.MethodThirdParty, Meaning: "through a third-party payout provider"},
	}},
	{Name: "walletAdjustmentType", Values: []EnumValue{
		{Value: payouts.AdjustAddBalance, Meaning: "adds the amount to the available balance (a bonus)"},
		{Value: payouts.AdjustDeductBalance, Meaning: "takes the amount from the available balance (a penalty)"},
		{Value: payouts.AdjustAddPending, Meaning: "adds the amount to the pending (held) balance"},
		{Value: payouts.AdjustDeductPending, Meaning: "takes the amount from the pending (held) balance"},
		{Value: payouts.AdjustMovePendingToAvailable, Meaning: "moves the amount from the pending to the available balance"},
	}},
	{Name: "walletTransactionType", Values: []EnumValue{
		{Value: "earning", Meaning: "a delivered order's store earnings, into the pending (held) balance"},
		{Value: "release", Meaning: "held earnings moved from pending to available"},
		{Value: "payout", Meaning: "a payout request, out of the available balance"},
		{Value: "bonus", Meaning: "an administrator's add_balance adjustment"},
		{Value: "penalty", Meaning: "an administrator's deduct_balance adjustment"},
		{Value: "pending_credit", Meaning: "an administrator's add_pending adjustment"},
		{Value: "pending_debit", Meaning: "an administrator's deduct_pending adjustment"},
	}},
	{Name: "walletMoveKind", Values: []EnumValue{
		{Value: payouts.MoveRefund, Meaning: "a refund's store share left the wallet: from the order's held earning (pending) first, the rest from available, which may go negative (a debt)"},
		{Value: payouts.MoveDisputeHold, Meaning: "a dispute's store share moved into the disputed balance, from the order's held earning (pending) first, the rest from available"},
		{Value: payouts.MoveDisputeRelease, Meaning: "a won dispute's share moved from the disputed balance back to available"},
		{Value: payouts.MoveDisputeLoss, Meaning: "a lost dispute's share left the disputed balance, with the dispute fee out of available when the store bears it"},
	}},
	{Name: "disputeFeeChargedTo", Values: []EnumValue{
		{Value: "store", Meaning: "a lost dispute's fee is charged to the store's available balance"},
		{Value: "platform", Meaning: "a lost dispute's fee is borne by the platform"},
	}},
	{Name: "flagReason", Values: []EnumValue{
		{Value: reviews.ReasonSpam, Meaning: "advertising or repeated content"},
		{Value: reviews.ReasonInappropriate, Meaning: "content unfit for the marketplace"},
		{Value: reviews.ReasonFake, Meaning: "not a genuine experience of the store"},
		{Value: reviews.ReasonOffensive, Meaning: "insults or abuse"},
		{Value: reviews.ReasonIrrelevant, Meaning: "not about the store or its order"},
		{Value: reviews.ReasonOther, Meaning: "another reason, in the flag's description"},
	}},
	{Name: "flagStatus", Values: []EnumValue{
		{Value: reviews.FlagStatusPending, Meaning: "awaiting an administrator"},
		{Value: reviews.FlagStatusDismissed, Meaning: "an administrator decided the review stays"},
		{Value: reviews.FlagStatusResolved, Meaning: "an administrator hid the review"},
	}},
	{Name: "flagAction", Values: []EnumValue{
		{Value: reviews.ActionDismiss, Meaning: "dismiss the flag; the review stays visible"},
		{Value: reviews.ActionHideReview, Meaning: "hide the review; each of its pending flags is resolved"},
	}},
	{Name: "reviewSort", Values: []EnumValue{
		{Value: "newest", Meaning: "by creation time, newest first"},
		{Value: "oldest", Meaning: "by creation time, oldest first"},
		{Value: "highest_rating", Meaning: "by rating, highest first"},
		{Value: "lowest_rating", Meaning: "by rating, lowest first"},
		{Value: "most_helpful", Meaning: "by helpful votes, most first"},
	}},
	{Name: "flagListBy", Values: []EnumValue{
		{Value: "report", Meaning: "ordered, and the period taken, by the time the flag was raised"},
		{Value: "decision", Meaning: "ordered, and the period taken, by the time the flag was decided (dismissed or resolved flags only)"},
	}},
	{Name: "salesGranularity", Values: []EnumValue{
		{Value: "day", Meaning: "one bucket per Asia/Dubai calendar day, from midnight"},
		{Value: "week", Meaning: "one bucket per week, from Monday midnight in Asia/Dubai"},
	}},
	{Name: "payoutSort", Values: []EnumValue{
		{Value: "newest", Meaning: "by request date, newest first"},
		{Value: "oldest", Meaning: "by request date, oldest first"},
		{Value: "amount_desc", Meaning: "by requested amount, largest first"},
		{Value: "amount_asc", Meaning: "by requested amount, smallest first"},
	}},
	// The administrators' payouts list and count (the queue; docs/adr/0179):
	// one status, or the open ones.
	{Name: "payoutStatusFilter", Values: []EnumValue{
		{Value: "open", Meaning: "the open payouts: requested, approved or processing"},
		{Value: payouts.StatusRequested, Meaning: "the payouts requested, not yet decided"},
		{Value: payouts.StatusApproved, Meaning: "the payouts approved, not yet sent"},
		{Value: payouts.StatusProcessing, Meaning: "the payouts being sent"},
		{Value: payouts.StatusCompleted, Meaning: "the payouts completed"},
		{Value: payouts.StatusCancelled, Meaning: "the payouts rejected"},
		{Value: payouts.StatusFailed, Meaning: "the payouts whose sending failed"},
	}},
	// Disputes lists (issue 32; docs/adr/0171).
	{Name: "disputeStatusFilter", Values: []EnumValue{
		{Value: payments.DisputeOpen, Meaning: "the open disputes"},
		{Value: payments.DisputeWon, Meaning: "the disputes won"},
		{Value: payments.DisputeLost, Meaning: "the disputes lost"},
		{Value: "closed", Meaning: "the closed disputes: won or lost"},
	}},
	{Name: "disputeSort", Values: []EnumValue{
		{Value: "due", Meaning: "by the deadline at the processor, soonest first (open disputes only)"},
		{Value: "newest", Meaning: "by the time opened, newest first"},
		{Value: "oldest", Meaning: "by the time opened, oldest first"},
	}},
	{Name: "walletSort", Values: []EnumValue{
		{Value: "available_desc", Meaning: "by available balance, highest first"},
		{Value: "available_asc", Meaning: "by available balance, lowest (most in debt) first"},
		{Value: "pending_desc", Meaning: "by pending balance, highest first"},
		{Value: "pending_asc", Meaning: "by pending balance, lowest first"},
		{Value: "disputed_desc", Meaning: "by disputed balance, highest first"},
		{Value: "disputed_asc", Meaning: "by disputed balance, lowest first"},
		{Value: "updated_desc", Meaning: "by the wallet's last change, latest first"},
		{Value: "updated_asc", Meaning: "by the wallet's last change, earliest first"},
	}},
	// The administrators' search (docs/adr/0169): what a hit matched.
	{Name: "payoutSearchMatch", Values: []EnumValue{
		{Value: "id", Meaning: "the payout's id is the query, or ends with it (its number)"},
		{Value: "reference", Meaning: "the payout's transaction reference contains the query (any case)"},
		{Value: "store", Meaning: "the payout is of a store the caller named (storeIds)"},
	}},
	{Name: "reviewSearchMatch", Values: []EnumValue{
		{Value: "name", Meaning: "the reviewer's name holds every word of the query"},
		{Value: "comment", Meaning: "the review's title and comment hold every word of the query"},
	}},
	// Inboxes and products (issue 32; docs/adr/0172, 0173).
	{Name: "notificationReadFilter", Values: []EnumValue{
		{Value: "read", Meaning: "only the notifications marked read"},
		{Value: "unread", Meaning: "only the notifications not marked read"},
	}},
	{Name: "notificationKind", Values: []EnumValue{
		{Value: "orders", Meaning: "about orders: placed, moved, held for a payment review"},
		{Value: "payments", Meaning: "about payments: failed, refunded, refunds failed, disputed"},
		{Value: "payouts", Meaning: "about payouts, wallet adjustments and the bank account"},
		{Value: "reviews", Meaning: "about reviews: invitations, responses, flags, hidden or shown"},
	}},
	{Name: "productSort", Values: []EnumValue{
		{Value: "added", Meaning: "by creation time, first added first"},
		{Value: "newest", Meaning: "by creation time, newest first"},
		{Value: "price", Meaning: "by price, lowest first"},
		{Value: "price_desc", Meaning: "by price, highest first"},
	}},
}
