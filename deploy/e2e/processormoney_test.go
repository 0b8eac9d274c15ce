package e2e

import (
	"net/url"
	"strings"
	"testing"

	"marketplace/deploy/processor"
	st "marketplace/deploy/systemtest"
)

// Refunds and disputes through the all-in-one's processor simulator
// (docs/adr/0149-refunds-and-disputes-at-the-processor.md): the payments
// service asks the simulator for each refund and turns its queued webhooks
// into the order's refunds and the disputes' records.

// paidThroughProcessor pays store A's lines of user-1's cart (87.05 AED)
// through checkout and the simulator; it returns the intent.
func paidThroughProcessor(t *testing.T, s *st.Sys) (*checkout, string) {
	t.Helper()
	c := newCheckout(t, s)
	in := okAs[intentView](t, s.Mutation(c.user, opCreateIntent, c.args(c.storeA, "standard")))
	if r := confirm(t, s, in, processor.CardSucceeds); r.Status != 200 {
		t.Fatalf("confirm: %d %s", r.Status, r.Body)
	}
	eventually(t, "the order", func() bool { return orderOf(t, s, c.user, in.PaymentIntentID) != nil })
	return c, in.PaymentIntentID
}

// atSimulator posts a simulator-only request with the secret key.
func atSimulator(t *testing.T, s *st.Sys, path string, form url.Values) st.Result {
	t.Helper()
	return s.DoAt(s.ProcessorURL, "POST", path, strings.NewReader(form.Encode()),
		map[string]string{"Authorization": "Bearer " + s.ProcessorKey, "Content-Type": "application/x-www-form-urlencoded"})
}

type disputeView struct {
	DisputeID       string  `json:"disputeId"`
	PaymentIntentID string  `json:"paymentIntentId"`
	OrderID         string  `json:"orderId"`
	StoreID         string  `json:"storeId"`
	Amount          float64 `json:"amount"`
	Status          string  `json:"status"`
	DueBy           int64   `json:"dueBy"`
	ClosedAt        *int64  `json:"closedAt"`
}

func disputesOf(t *testing.T, s *st.Sys, token, path string, args map[string]any) []disputeView {
	t.Helper()
	args["paginationOpts"] = map[string]any{"numItems": 20}
	return okAs[struct {
		Page []disputeView `json:"page"`
	}](t, s.Query(token, path, args)).Page
}

// TestRefundsThroughTheProcessor: a partial refund, then the rest, each asked
// of the simulator and confirmed by its charge.refunded: the order's
// refundedAmount and refundStatus follow; a refund the processor fails
// (refund.failed) fails with its reason and refunds nothing.
func TestRefundsThroughTheProcessor(t *testing.T) {
	s := st.Start(t)
	c, intent := paidThroughProcessor(t, s)
	o := moneyOf(t, s, c.admin, intent)

	st.MustOK(t, s.Mutation(c.admin, "admins.orders.refundOrder", map[string]any{"orderId": o.ID, "reason": "late", "amount": 10}))
	eventually(t, "the partial refund confirmed", func() bool {
		m := moneyOf(t, s, c.admin, intent)
		return m.RefundedAmount == 10 && m.RefundStatus == "partially_refunded" && len(m.Refunds) == 1 && m.Refunds[0].Status == "succeeded"
	})
	st.MustOK(t, s.Mutation(c.owner, "stores.orders.refundOrder", map[string]any{"orderId": o.ID, "reason": "the rest"}))
	eventually(t, "the rest confirmed", func() bool {
		m := moneyOf(t, s, c.admin, intent)
		return inFils(m.RefundedAmount) == 87_05 && m.RefundStatus == "refunded" && len(m.Refunds) == 2 && m.Refunds[1].Status == "succeeded"
	})
	rec := simulatorRecord(t, s, intent)
	if len(rec.Refunds) != 2 {
		t.Fatalf("the processor holds %d refunds", len(rec.Refunds))
	}

	// A second paid order whose refund the processor fails (refund.failed):
	// nothing refunded, the failure's reason on the order.
	c.fillCart(t)
	in := okAs[intentView](t, s.Mutation(c.user, opCreateIntent, c.args(c.storeA, "standard")))
	if r := confirm(t, s, in, processor.CardSucceeds); r.Status != 200 {
		t.Fatalf("confirm: %d %s", r.Status, r.Body)
	}
	eventually(t, "the second order", func() bool { return orderOf(t, s, c.user, in.PaymentIntentID) != nil })
	st.MustOK(t, atSimulator(t, s, "/simulator/controls", url.Values{"type": {"refund.*"}, "objectId": {in.PaymentIntentID}, "action": {"fail"},
		"failureCode": {"expired_or_canceled_card"}}))
	second := moneyOf(t, s, c.admin, in.PaymentIntentID)
	st.MustOK(t, s.Mutation(c.admin, "admins.orders.refundOrder", map[string]any{"orderId": second.ID, "reason": "late", "amount": 5}))
	eventually(t, "the refund failed", func() bool {
		m := moneyOf(t, s, c.admin, in.PaymentIntentID)
		return len(m.Refunds) == 1 && m.Refunds[0].Status == "failed" && strings.Contains(m.Refunds[0].FailureReason, "expired_or_canceled_card") && m.RefundedAmount == 0
	})
}

// TestARefundMadeAtTheProcessorIsOfTheIntentsOrder: a refund made at the
// processor (its dashboard: no refundId) whose metadata names another order
// refunds the order its payment intent paid for; the order named is untouched.
func TestARefundMadeAtTheProcessorIsOfTheIntentsOrder(t *testing.T) {
	s := st.Start(t)
	c, intent := paidThroughProcessor(t, s)
	o := moneyOf(t, s, c.admin, intent)
	c.fillCart(t)
	in := okAs[intentView](t, s.Mutation(c.user, opCreateIntent, c.args(c.storeA, "standard")))
	if r := confirm(t, s, in, processor.CardSucceeds); r.Status != 200 {
		t.Fatalf("confirm: %d %s", r.Status, r.Body)
	}
	eventually(t, "the other order", func() bool { return orderOf(t, s, c.user, in.PaymentIntentID) != nil })
	other := moneyOf(t, s, c.admin, in.PaymentIntentID)

	st.MustOK(t, atSimulator(t, s, "/v1/refunds", url.Values{"payment_intent": {intent}, "amount": {"500"}, "metadata[orderId]": {other.ID}}))
	eventually(t, "the refund on the intent's order", func() bool {
		m := moneyOf(t, s, c.admin, intent)
		return m.RefundedAmount == 5 && len(m.Refunds) == 1 && m.Refunds[0].Origin == "processor" && m.Refunds[0].Status == "succeeded"
	})
	if m := moneyOf(t, s, c.admin, in.PaymentIntentID); m.ID != other.ID || m.RefundedAmount != 0 || len(m.Refunds) != 0 || inFils(*m.RefundableAmount) != 87_05 {
		t.Fatalf("the order the metadata named was refunded: %+v", m)
	}
	if m := moneyOf(t, s, c.admin, intent); m.ID != o.ID || inFils(*m.RefundableAmount) != 82_05 {
		t.Fatalf("the intent's order %+v", m)
	}
}

// TestDisputesThroughTheProcessor: a dispute opened at the simulator is
// listed to administrators and to the store's owner (open, by deadline),
// not to another owner; closed lost at the simulator, it is listed lost.
func TestDisputesThroughTheProcessor(t *testing.T) {
	s := st.Start(t)
	c, intent := paidThroughProcessor(t, s)
	o := moneyOf(t, s, c.admin, intent)
	var opened struct {
		ID string `json:"id"`
	}
	st.MustOK(t, atSimulator(t, s, "/simulator/payment_intents/"+intent+"/disputes", url.Values{"reason": {"product_not_received"}})).Decode(t, &opened)
	var open []disputeView
	eventually(t, "the dispute listed", func() bool {
		open = disputesOf(t, s, c.admin, "admins.disputes.listDisputes", map[string]any{"status": "open"})
		return len(open) == 1
	})
	d := open[0]
	if d.DisputeID != opened.ID || d.PaymentIntentID != intent || d.OrderID != o.ID || d.StoreID != c.storeA || inFils(d.Amount) != 87_05 || d.DueBy == 0 || d.ClosedAt != nil {
		t.Fatalf("dispute %+v", d)
	}
	if mine := disputesOf(t, s, c.owner, "stores.disputes.listDisputes", map[string]any{"storeId": c.storeA}); len(mine) != 1 || mine[0].DisputeID != d.DisputeID {
		t.Fatalf("the owner's list %+v", mine)
	}
	expectError(t, s.Query(s.Token("owner-2"), "stores.disputes.listDisputes", map[string]any{"storeId": c.storeA, "paginationOpts": map[string]any{"numItems": 5}}), "PERMISSION_DENIED")

	st.MustOK(t, atSimulator(t, s, "/simulator/disputes/"+d.DisputeID+"/close", url.Values{"outcome": {"lost"}}))
	eventually(t, "the dispute lost", func() bool {
		lost := disputesOf(t, s, c.admin, "admins.disputes.listDisputes", map[string]any{"status": "lost"})
		return len(lost) == 1 && lost[0].ClosedAt != nil
	})
	if open := disputesOf(t, s, c.owner, "stores.disputes.listDisputes", map[string]any{"storeId": c.storeA, "status": "open"}); len(open) != 0 {
		t.Fatalf("still open %+v", open)
	}
}
