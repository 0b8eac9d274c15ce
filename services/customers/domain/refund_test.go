package domain

import (
	"strings"
	"testing"

	"marketplace/libs/apperr"
	contract "marketplace/libs/contracts/customers"
	"marketplace/libs/money"
)

// paidOrder is an order of twoLines (2 × 12.50 + 1 × 40.00) plus a 10.00
// delivery fee: 75.00 paid, confirmed at 1000.
func paidOrder() Order {
	return NewPaidOrder("o1", customer, shop, twoLines, payment(75_00, "aed"), terms, 1000)
}

func fils(f money.Fils) *money.Fils { return &f }

func reasonOf(err error) string {
	if err == nil {
		return ""
	}
	r, _ := apperr.From(err).Details["reason"].(string)
	return r
}

func codeOf(err error) apperr.Code {
	if err == nil {
		return ""
	}
	return apperr.CodeOf(err)
}

// TestRequestRefundAmounts: what one refund reserves, by amount, by line or
// all that is left; the delivery fee goes with the last of the order (D2).
func TestRequestRefundAmounts(t *testing.T) {
	cases := []struct {
		name   string
		before []RefundRequest
		req    RefundRequest
		amount money.Fils // 0: refused with code/reason
		code   apperr.Code
		reason string
		full   bool
	}{
		{name: "all that is left", req: RefundRequest{}, amount: 75_00, full: true},
		{name: "by amount", req: RefundRequest{Amount: fils(30_00)}, amount: 30_00},
		{name: "by amount, all of it", req: RefundRequest{Amount: fils(75_00)}, amount: 75_00, full: true},
		{name: "one fils over", req: RefundRequest{Amount: fils(75_01)}, code: apperr.FailedPrecondition, reason: ReasonRefundExceedsPayment},
		{name: "zero", req: RefundRequest{Amount: fils(0)}, code: apperr.InvalidArgument},
		{name: "one line, no fee", req: RefundRequest{Lines: []RefundLine{{ProductID: "p2", Quantity: 1}}}, amount: 40_00},
		{name: "one of two breads", req: RefundRequest{Lines: []RefundLine{{ProductID: "p1", Quantity: 1}}}, amount: 12_50},
		{name: "every line: the fee goes with them", req: RefundRequest{Lines: []RefundLine{{ProductID: "p1", Quantity: 2}, {ProductID: "p2", Quantity: 1}}}, amount: 75_00, full: true},
		{name: "the last line after the others: with the fee", before: []RefundRequest{{Lines: []RefundLine{{ProductID: "p1", Quantity: 2}}}},
			req: RefundRequest{Lines: []RefundLine{{ProductID: "p2", Quantity: 1}}}, amount: 50_00},
		{name: "every line after a refund by amount: refused, the fee is not left out", before: []RefundRequest{{Amount: fils(5_00)}},
			req: RefundRequest{Lines: []RefundLine{{ProductID: "p1", Quantity: 2}, {ProductID: "p2", Quantity: 1}}}, code: apperr.FailedPrecondition, reason: ReasonRefundExceedsPayment},
		{name: "the last line after lines and an amount: refused, not without its fee", before: []RefundRequest{{Lines: []RefundLine{{ProductID: "p1", Quantity: 2}}}, {Amount: fils(1)}},
			req: RefundRequest{Lines: []RefundLine{{ProductID: "p2", Quantity: 1}}}, code: apperr.FailedPrecondition, reason: ReasonRefundExceedsPayment},
		{name: "the rest of the lines after an amount: 52.50 of 50.00 left", before: []RefundRequest{{Lines: []RefundLine{{ProductID: "p1", Quantity: 1}}}, {Amount: fils(12_50)}},
			req: RefundRequest{Lines: []RefundLine{{ProductID: "p1", Quantity: 1}, {ProductID: "p2", Quantity: 1}}}, code: apperr.FailedPrecondition, reason: ReasonRefundExceedsPayment},
		{name: "a line that does not complete the order, the fee stays", before: []RefundRequest{{Lines: []RefundLine{{ProductID: "p1", Quantity: 1}}}, {Amount: fils(12_50)}},
			req: RefundRequest{Lines: []RefundLine{{ProductID: "p2", Quantity: 1}}}, amount: 40_00},
		{name: "a line that does not complete the order after an amount", before: []RefundRequest{{Amount: fils(30_00)}},
			req: RefundRequest{Lines: []RefundLine{{ProductID: "p2", Quantity: 1}}}, amount: 40_00},
		{name: "more of a line than ordered", req: RefundRequest{Lines: []RefundLine{{ProductID: "p1", Quantity: 3}}}, code: apperr.FailedPrecondition, reason: ReasonRefundExceedsPayment},
		{name: "a line refunded twice", before: []RefundRequest{{Lines: []RefundLine{{ProductID: "p2", Quantity: 1}}}},
			req: RefundRequest{Lines: []RefundLine{{ProductID: "p2", Quantity: 1}}}, code: apperr.FailedPrecondition, reason: ReasonRefundExceedsPayment},
		{name: "same product twice in one request", req: RefundRequest{Lines: []RefundLine{{ProductID: "p1", Quantity: 2}, {ProductID: "p1", Quantity: 1}}}, code: apperr.FailedPrecondition, reason: ReasonRefundExceedsPayment},
		{name: "no such line", req: RefundRequest{Lines: []RefundLine{{ProductID: "p9", Quantity: 1}}}, code: apperr.InvalidArgument},
		{name: "amount and lines", req: RefundRequest{Amount: fils(1_00), Lines: []RefundLine{{ProductID: "p2", Quantity: 1}}}, code: apperr.InvalidArgument},
		{name: "reserved refunds count", before: []RefundRequest{{Amount: fils(70_00)}}, req: RefundRequest{Amount: fils(5_01)}, code: apperr.FailedPrecondition, reason: ReasonRefundExceedsPayment},
		{name: "the rest after a reservation", before: []RefundRequest{{Amount: fils(70_00)}}, req: RefundRequest{}, amount: 5_00},
		{name: "nothing left", before: []RefundRequest{{}}, req: RefundRequest{}, code: apperr.FailedPrecondition, reason: ReasonNothingToRefund},
	}
	for _, c := range cases {
		o := paidOrder()
		for i, b := range c.before {
			b.ID, b.Admin = "r"+string(rune('a'+i)), true
			if _, _, err := o.RequestRefund(b, 2000); err != nil {
				t.Fatalf("%s: before %d: %v", c.name, i, err)
			}
		}
		c.req.ID, c.req.Admin, c.req.Origin, c.req.Reason, c.req.By = "r1", true, RefundByAdmin, "damaged", "admin1"
		r, ev, err := o.RequestRefund(c.req, 3000)
		if c.amount == 0 {
			if err == nil || codeOf(err) != c.code || reasonOf(err) != c.reason {
				t.Errorf("%s: %v (%s, %q), want %s %q", c.name, err, codeOf(err), reasonOf(err), c.code, c.reason)
			}
			if len(o.Refunds) != len(c.before) {
				t.Errorf("%s: refused, yet the order keeps %d refunds", c.name, len(o.Refunds))
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if r.Amount != c.amount || ev.Amount != c.amount || ev.Full != c.full || r.Status != RefundRequested || ev.RefundID != "r1" ||
			ev.OrderID != "o1" || ev.PaymentIntentID != "pi_1" || ev.Currency != "aed" || ev.Origin != RefundByAdmin || ev.RequestedBy != "admin1" {
			t.Errorf("%s: refund %+v, event %+v; want %d (full %v)", c.name, r, ev, c.amount, c.full)
		}
		if o.Reserved() < c.amount || o.Refundable() != 75_00-o.Reserved() {
			t.Errorf("%s: reserved %d, refundable %d", c.name, o.Reserved(), o.Refundable())
		}
	}
}

// TestLinesThatCompleteTheOrderTakeTheFee: lines that complete the order are
// refunded with its delivery fee whenever what is left allows it (after a
// refund the processor cut short, too); when refunds by amount or a lost
// dispute took part of the order, they are refused saying what is left, what
// the lines and the fee cost, and that all that is left is the way (D2): the
// fee is never silently left out.
func TestLinesThatCompleteTheOrderTakeTheFee(t *testing.T) {
	all := []RefundLine{{ProductID: "p1", Quantity: 2}, {ProductID: "p2", Quantity: 1}}
	admin := func(id string) RefundRequest {
		return RefundRequest{ID: id, Admin: true, Origin: RefundByAdmin, Reason: "returned"}
	}

	// The processor refunded 20.00 of a 25.00 line refund: 55.00 left, the
	// last line and the fee (50.00) fit.
	o := paidOrder()
	first := admin("r1")
	first.Lines = all[:1]
	if _, _, err := o.RequestRefund(first, 2000); err != nil {
		t.Fatal(err)
	}
	o.SettleRefund(Settlement{RefundID: "r1", Succeeded: true, Amount: 20_00}, 2001)
	last := admin("r2")
	last.Lines = all[1:]
	if r, _, err := o.RequestRefund(last, 2002); err != nil || r.Amount != 50_00 || !r.DeliveryFee {
		t.Fatalf("the last line after a short refund: %+v %v", r, err)
	}
	if o.Refundable() != 5_00 {
		t.Fatalf("refundable %d, want the 5.00 the processor kept", o.Refundable())
	}

	// A lost dispute of 10.00: 65.00 left, every line and the fee cost 75.00.
	o = paidOrder()
	o.NoteDispute("dp_1", 10_00, "", "lost")
	every := admin("r1")
	every.Lines = all
	_, _, err := o.RequestRefund(every, 2000)
	e := apperr.From(err)
	if err == nil || e.Code != apperr.FailedPrecondition || e.Details["reason"] != ReasonRefundExceedsPayment || e.Details["refundableAmount"] != 65.0 ||
		e.Details["linesAmount"] != 65.0 || e.Details["deliveryFee"] != 10.0 || len(o.Refunds) != 0 {
		t.Fatalf("every line after a lost dispute: %v %v, %d refunds", err, e.Details, len(o.Refunds))
	}
	for _, want := range []string{"65.00 AED left", "10.00 AED delivery fee", "75.00 AED in all", "all that is left"} {
		if !strings.Contains(e.Message, want) {
			t.Errorf("message %q says not %q", e.Message, want)
		}
	}
	// All that is left is refunded, the fee with it.
	if r, _, err := o.RequestRefund(admin("r2"), 2001); err != nil || r.Amount != 65_00 {
		t.Fatalf("all that is left: %+v %v", r, err)
	}
}

// TestUnkeyedRetriesOfARefund: a refund asked without an Idempotency-Key that
// repeats one still requested or already refunded (same kind of caller,
// reason and amount in fils, lines or all that is left) less than 10 minutes
// before is refused refund_duplicate with the earlier refund's id; a keyed
// call, another request, a failed earlier refund or an older one is not.
func TestUnkeyedRetriesOfARefund(t *testing.T) {
	const minute = 60 * 1000
	bread := []RefundLine{{ProductID: "p1", Quantity: 1}, {ProductID: "p2", Quantity: 1}}
	breadSwapped := []RefundLine{{ProductID: "p2", Quantity: 1}, {ProductID: "p1", Quantity: 1}}
	admin := RefundRequest{Reason: "damaged", Origin: RefundByAdmin, By: "admin1", Admin: true, Unkeyed: true}
	with := func(r RefundRequest, f func(*RefundRequest)) RefundRequest { f(&r); return r }
	ten := func(r *RefundRequest) { r.Amount = fils(10_00) }
	cases := []struct {
		name   string
		first  RefundRequest
		settle string // "succeeded" or "failed": the first refund settled before the second
		second RefundRequest
		after  int64 // ms after the first
		dup    bool
	}{
		{name: "the same amount again", first: with(admin, ten), second: with(admin, ten), after: minute, dup: true},
		{name: "the same amount by another administrator", first: with(admin, ten), second: with(admin, func(r *RefundRequest) { ten(r); r.By = "admin2" }), after: minute, dup: true},
		{name: "the same amount with a key", first: with(admin, ten), second: with(admin, func(r *RefundRequest) { ten(r); r.Unkeyed = false }), after: minute},
		{name: "another amount", first: with(admin, ten), second: with(admin, func(r *RefundRequest) { r.Amount = fils(10_01) }), after: minute},
		{name: "another reason", first: with(admin, ten), second: with(admin, func(r *RefundRequest) { ten(r); r.Reason = "late" }), after: minute},
		{name: "the store's owner after an administrator", first: with(admin, ten),
			second: with(admin, func(r *RefundRequest) { ten(r); r.Admin, r.Origin, r.By = false, RefundByStore, "owner1" }), after: minute},
		{name: "just under 10 minutes later", first: with(admin, ten), second: with(admin, ten), after: 10*minute - 1, dup: true},
		{name: "10 minutes later", first: with(admin, ten), second: with(admin, ten), after: 10 * minute},
		// A card refund often succeeds before a timed-out client asks again.
		{name: "after the first succeeded", first: with(admin, ten), settle: RefundSucceeded, second: with(admin, ten), after: minute, dup: true},
		{name: "10 minutes after the first succeeded", first: with(admin, ten), settle: RefundSucceeded, second: with(admin, ten), after: 10 * minute},
		{name: "after the first failed", first: with(admin, ten), settle: RefundFailed, second: with(admin, ten), after: minute},
		{name: "the same lines, in another order", first: with(admin, func(r *RefundRequest) { r.Lines = bread }),
			second: with(admin, func(r *RefundRequest) { r.Lines = breadSwapped }), after: minute, dup: true},
		{name: "other lines", first: with(admin, func(r *RefundRequest) { r.Lines = bread }),
			second: with(admin, func(r *RefundRequest) { r.Lines = bread[:1] }), after: minute},
		{name: "the line's price as an amount", first: with(admin, func(r *RefundRequest) { r.Lines = bread[:1] }),
			second: with(admin, func(r *RefundRequest) { r.Amount = fils(12_50) }), after: minute},
		{name: "all that is left again", first: admin, second: admin, after: minute, dup: true},
		{name: "all that is left after an amount", first: with(admin, ten), second: admin, after: minute},
	}
	for _, c := range cases {
		o := paidOrder()
		c.first.ID, c.second.ID = "r1", "r2"
		if _, _, err := o.RequestRefund(c.first, 2000); err != nil {
			t.Fatalf("%s: first: %v", c.name, err)
		}
		if c.settle != "" {
			o.SettleRefund(Settlement{RefundID: "r1", Succeeded: c.settle == RefundSucceeded, Amount: o.Refunds[0].Amount}, 2001)
		}
		r, _, err := o.RequestRefund(c.second, 2000+c.after)
		if !c.dup {
			if err != nil || r.ID != "r2" || len(o.Refunds) != 2 {
				t.Errorf("%s: %+v %v", c.name, r, err)
			}
			continue
		}
		e := apperr.From(err)
		if err == nil || e.Code != apperr.FailedPrecondition || e.Details["reason"] != ReasonRefundDuplicate || e.Details["refundId"] != "r1" ||
			!strings.Contains(e.Message, "Idempotency-Key") || len(o.Refunds) != 1 {
			t.Errorf("%s: %v %v, %d refunds", c.name, err, e.Details, len(o.Refunds))
		}
	}
	// Cancellations are never taken for retries.
	o := paidOrder()
	if _, _, err := o.RequestRefund(with(admin, ten), 2000); err != nil {
		t.Fatal(err)
	}
	if o.RefundOnCancel("r2", "admin1", 2001) == nil {
		t.Fatal("the cancellation's refund was refused")
	}
}

// TestStoreRefundWindow: a store's owner refunds an order from confirmed until
// 14 days after its delivery, never a held one; an administrator any time.
func TestStoreRefundWindow(t *testing.T) {
	const delivered = int64(1796104800000) // 2026-12-01 10:00 Dubai
	const until = delivered + 14*24*60*60*1000
	at := func(statuses ...string) Order {
		o := paidOrder()
		for i, s := range statuses {
			if _, err := o.Move(s, "owner1", false, delivered-int64(len(statuses)-1-i)); err != nil {
				t.Fatal(err)
			}
		}
		return o
	}
	held := NewPaidOrder("o2", customer, shop, twoLines, payment(80_00, "aed"), terms, 1000)
	cancelled := at(StatusCancelled)
	cases := []struct {
		name   string
		o      Order
		now    int64
		admin  bool
		reason string // "": allowed
	}{
		{"confirmed", at(), delivered, false, ""},
		{"preparing", at(StatusPreparing), delivered, false, ""},
		{"out for delivery", at(StatusPreparing, StatusOutForDelivery), delivered, false, ""},
		{"delivered, last ms of the window", at(StatusPreparing, StatusOutForDelivery, StatusDelivered), until, false, ""},
		{"delivered, one ms late", at(StatusPreparing, StatusOutForDelivery, StatusDelivered), until + 1, false, ReasonRefundWindowClosed},
		{"delivered long ago, administrator", at(StatusPreparing, StatusOutForDelivery, StatusDelivered), until + 1e9, true, ""},
		{"held for review", held, delivered, false, ReasonRefundNotAllowed},
		{"held, administrator", held, delivered, true, ""},
		{"cancelled", cancelled, delivered, false, ReasonRefundNotAllowed},
	}
	for _, c := range cases {
		o := c.o
		_, _, err := o.RequestRefund(RefundRequest{ID: "r1", Amount: fils(1_00), Admin: c.admin, Origin: RefundByStore}, c.now)
		if c.reason == "" && err != nil || c.reason != "" && reasonOf(err) != c.reason {
			t.Errorf("%s: %v, want reason %q", c.name, err, c.reason)
		}
		if c.reason == ReasonRefundWindowClosed {
			if e := apperr.From(err); e.Details["deliveredAt"] != delivered || e.Details["refundableUntil"] != until {
				t.Errorf("%s: details %v", c.name, e.Details)
			}
		}
	}
}

// TestSettleRefund: the processor's outcome is applied once; a failure frees
// the reservation; success adds to refundedAmount and sets the refund status.
func TestSettleRefund(t *testing.T) {
	o := paidOrder()
	if _, _, err := o.RequestRefund(RefundRequest{ID: "r1", Amount: fils(30_00), Admin: true, Origin: RefundByAdmin}, 2000); err != nil {
		t.Fatal(err)
	}
	if _, _, err := o.RequestRefund(RefundRequest{ID: "r2", Amount: fils(45_00), Admin: true, Origin: RefundByAdmin}, 2000); err != nil {
		t.Fatal(err)
	}
	if o.Refundable() != 0 || o.RefundStatus() != "" {
		t.Fatalf("refundable %d, status %q", o.Refundable(), o.RefundStatus())
	}
	ok, failed := o.SettleRefund(Settlement{RefundID: "r1", ProcessorRefundID: "re_1", Succeeded: true, Amount: 30_00}, 3000)
	if ok == nil || failed != nil || ok.RefundedAmount != 30_00 || ok.RefundStatus != contract.OrderRefundPartial || o.RefundedAmount != 30_00 {
		t.Fatalf("settle r1: %+v %+v", ok, failed)
	}
	if again, f := o.SettleRefund(Settlement{RefundID: "r1", Succeeded: true, Amount: 30_00}, 3001); again != nil || f != nil || o.RefundedAmount != 30_00 {
		t.Fatalf("settled twice: %+v, refunded %d", again, o.RefundedAmount)
	}
	ok, failed = o.SettleRefund(Settlement{RefundID: "r2", Succeeded: false, FailureReason: "insufficient_funds"}, 3002)
	if ok != nil || failed == nil || failed.Amount != 45_00 || failed.FailureReason != "insufficient_funds" || o.Refundable() != 45_00 {
		t.Fatalf("fail r2: %+v %+v, refundable %d", ok, failed, o.Refundable())
	}
	if again, _ := o.SettleRefund(Settlement{RefundID: "r2", Succeeded: true, Amount: 45_00}, 3003); again != nil || o.RefundedAmount != 30_00 {
		t.Fatalf("a failed refund succeeded later: %+v", again)
	}
	// A refund made at the processor, unknown here, is recorded as it says.
	ok, _ = o.SettleRefund(Settlement{RefundID: "re_dash", ProcessorRefundID: "re_dash", Succeeded: true, Amount: 45_00}, 3004)
	if ok == nil || ok.Origin != RefundByProcessor || o.RefundedAmount != 75_00 || o.RefundStatus() != contract.OrderRefundFull || o.Refundable() != 0 {
		t.Fatalf("processor refund: %+v, refunded %d", ok, o.RefundedAmount)
	}
	if v := o.View(true); v.RefundedAmount != 75 || v.RefundStatus != "refunded" || *v.RefundableAmount != 0 || len(v.Refunds) != 3 {
		t.Fatalf("view %+v", v)
	}
}

// TestDisputesAndRefunds: an open dispute stops refunds; a lost one lowers
// what is left; a cancellation of a paid order refunds all that is left.
func TestDisputesAndRefunds(t *testing.T) {
	o := paidOrder()
	o.NoteDispute("dp_1", 20_00, "", "open")
	if _, _, err := o.RequestRefund(RefundRequest{ID: "r1", Admin: true}, 2000); reasonOf(err) != ReasonDisputeOpen {
		t.Fatalf("refund while disputed: %v", err)
	}
	if o.RefundOnCancel("r1", "admin1", 2000) != nil {
		t.Fatal("cancellation refunded a disputed payment")
	}
	if !o.NoteDispute("dp_1", 20_00, "", "lost") || o.NoteDispute("dp_1", 20_00, "", "won") {
		t.Fatal("a closed dispute changed again")
	}
	if o.Refundable() != 55_00 {
		t.Fatalf("refundable after a lost dispute %d", o.Refundable())
	}
	ev := o.RefundOnCancel("r2", "admin1", 2001)
	if ev == nil || ev.Amount != 55_00 || ev.Origin != RefundByCancellation {
		t.Fatalf("cancellation refund %+v", ev)
	}
	if o.RefundOnCancel("r3", "admin1", 2002) != nil {
		t.Fatal("refunded twice on cancellation")
	}
}

// TestCancelByCustomer: before preparation only, never a held order.
func TestCancelByCustomer(t *testing.T) {
	o := paidOrder()
	if err := o.CancelByCustomer(); err != nil {
		t.Fatal(err)
	}
	if _, err := o.Move(StatusPreparing, "owner1", false, 2000); err != nil {
		t.Fatal(err)
	}
	if err := o.CancelByCustomer(); reasonOf(err) != ReasonStatusNotAllowed {
		t.Fatalf("preparing: %v", err)
	}
	held := NewPaidOrder("o2", customer, shop, twoLines, payment(80_00, "aed"), terms, 1000)
	if err := held.CancelByCustomer(); codeOf(err) != apperr.FailedPrecondition {
		t.Fatalf("held: %v", err)
	}
}

// TestMoneyTotals: what each order adds to the platform's totals.
func TestMoneyTotals(t *testing.T) {
	var tot contract.MoneyTotals
	delivered := paidOrder() // 75.00, refunded 30.00
	for _, s := range []string{StatusPreparing, StatusOutForDelivery, StatusDelivered} {
		if _, err := delivered.Move(s, "owner1", false, 2000); err != nil {
			t.Fatal(err)
		}
	}
	delivered.RequestRefund(RefundRequest{ID: "r1", Amount: fils(30_00), Admin: true}, 3000)
	delivered.SettleRefund(Settlement{RefundID: "r1", Succeeded: true, Amount: 30_00}, 3001)
	delivered.AddToTotals(&tot)
	open := paidOrder() // 75.00, a lost dispute of 20.00 and 10.00 reserved (not refunded)
	open.NoteDispute("dp_1", 20_00, "", "open")
	open.NoteDispute("dp_1", 20_00, "", "lost")
	open.RequestRefund(RefundRequest{ID: "r2", Amount: fils(10_00), Admin: true}, 3000)
	open.AddToTotals(&tot)
	overpaid := NewPaidOrder("o3", customer, shop, twoLines, payment(80_00, "aed"), terms, 1000) // held, accepted, delivered
	for _, s := range []string{StatusConfirmed, StatusPreparing, StatusOutForDelivery, StatusDelivered} {
		if _, err := overpaid.Move(s, "admin1", true, 2000); err != nil {
			t.Fatal(err)
		}
	}
	overpaid.AddToTotals(&tot)
	dollars := NewPaidOrder("o4", customer, shop, twoLines, payment(20_00, "usd"), terms, 1000)
	dollars.AddToTotals(&tot)
	accepted := NewPaidOrder("o5", customer, shop, twoLines, payment(20_00, "usd"), terms, 1000) // held, accepted, delivered
	for _, s := range []string{StatusConfirmed, StatusPreparing, StatusOutForDelivery, StatusDelivered} {
		if _, err := accepted.Move(s, "admin1", true, 2000); err != nil {
			t.Fatal(err)
		}
	}
	accepted.AddToTotals(&tot)
	want := contract.MoneyTotals{Orders: 3, Delivered: 2, Captured: 230_00, Refunded: 30_00, DisputesLost: 20_00, NotDelivered: 55_00,
		PaymentDifferences: 5_00, OtherCurrencyOrders: 2, OtherCurrencyDelivered: accepted.Total,
		DeliveredStoreEarnings: 2 * terms.StoreEarnings, DeliveredCommission: 2 * terms.Platform}
	if accepted.Total != 75_00 {
		t.Fatalf("the accepted order's total %d", accepted.Total)
	}
	if tot != want {
		t.Fatalf("totals\n%+v, want\n%+v", tot, want)
	}
}

// TestCancelledOrdersAreRefundedAllThatIsLeft: refunds that cannot block a
// cancelled order's refund: fifty small ones (review finding), one reserved
// before the cancellation that fails, and a dispute open at cancellation.
func TestCancelledOrdersAreRefundedAllThatIsLeft(t *testing.T) {
	o := paidOrder()
	for i := range MaxRefunds {
		r, _, err := o.RequestRefund(RefundRequest{ID: "s" + string(rune('A'+i)), Amount: fils(1), Origin: RefundByStore}, 2000)
		if err != nil {
			t.Fatal(err)
		}
		o.SettleRefund(Settlement{RefundID: r.ID, Succeeded: i%2 == 0, Amount: 1}, 2001)
	}
	if _, _, err := o.RequestRefund(RefundRequest{ID: "x", Amount: fils(1), Origin: RefundByStore}, 2002); err != nil {
		t.Fatalf("failed refunds count against the cap: %v", err)
	}
	for len(o.Refunds) < MaxRefunds+25 {
		o.RequestRefund(RefundRequest{ID: "y" + string(rune('A'+len(o.Refunds))), Amount: fils(1), Origin: RefundByStore}, 2003)
	}
	if _, _, err := o.RequestRefund(RefundRequest{ID: "z", Amount: fils(1), Origin: RefundByStore}, 2004); reasonOf(err) != ReasonTooManyRefunds {
		t.Fatalf("the 51st live refund: %v", err)
	}
	if _, err := o.Move(StatusCancelled, "user1", true, 2005); err != nil {
		t.Fatal(err)
	}
	if ev := o.RefundOnCancel("c1", "user1", 2005); ev == nil || ev.Amount != o.Paid()-o.RefundedAmount-(o.Reserved()-ev.Amount) {
		t.Fatalf("the cancellation refunded nothing: %+v", ev)
	}

	// A refund reserved before the cancellation fails: the rest is asked
	// once the cancellation's own refund is settled.
	p := paidOrder()
	p.RequestRefund(RefundRequest{ID: "r1", Amount: fils(10_00), Origin: RefundByStore}, 2000)
	p.Move(StatusCancelled, "user1", true, 2001)
	cancel := p.RefundOnCancel("c1", "user1", 2001)
	if cancel == nil || cancel.Amount != 65_00 {
		t.Fatalf("cancellation %+v", cancel)
	}
	p.SettleRefund(Settlement{RefundID: "r1", FailureReason: "declined"}, 2002)
	if p.RefundOwed("o1", 2002) != nil {
		t.Fatal("asked again while the cancellation's refund is reserved")
	}
	p.SettleRefund(Settlement{RefundID: "c1", Succeeded: true, Amount: 65_00}, 2003)
	if owed := p.RefundOwed("o2", 2003); owed == nil || owed.Amount != 10_00 || owed.Origin != RefundByCancellation {
		t.Fatalf("the freed 10.00 was not asked: %+v", owed)
	}
	p.SettleRefund(Settlement{RefundID: "o2", Succeeded: true, Amount: 10_00}, 2004)
	if p.RefundOwed("o3", 2004) != nil || p.RefundedAmount != 75_00 {
		t.Fatalf("refunded %d", p.RefundedAmount)
	}
	// The cancellation's own refund failing is not asked again.
	q := paidOrder()
	q.Move(StatusCancelled, "user1", true, 2000)
	q.RefundOnCancel("c1", "user1", 2000)
	q.SettleRefund(Settlement{RefundID: "c1", FailureReason: "declined"}, 2001)
	if q.RefundOwed("c2", 2001) != nil {
		t.Fatal("a failed cancellation refund was asked again")
	}

	// A dispute open at the cancellation: the rest once it closes.
	d := paidOrder()
	d.NoteDispute("dp_1", 20_00, "", "open")
	d.Move(StatusCancelled, "user1", true, 2000)
	if d.RefundOnCancel("c1", "user1", 2000) != nil || d.RefundOwed("c1", 2000) != nil {
		t.Fatal("refunded while disputed")
	}
	d.NoteDispute("dp_1", 20_00, "", "lost")
	if owed := d.RefundOwed("c2", 2001); owed == nil || owed.Amount != 55_00 {
		t.Fatalf("after the lost dispute: %+v", owed)
	}
}
