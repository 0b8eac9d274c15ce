package e2e

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"marketplace/deploy/processor"
	st "marketplace/deploy/systemtest"
)

// The refusals a newcomer meets first (issue 21, item 2) say how to do it
// right: the statuses an order may take next, the payout bounds and the
// balance, the earnings' hold and its end, the argument meant, the shape of
// a coordinate. Each test checks the code, the message and the details.

// expectDetails checks an error answer (expectError) and that its details
// hold want's keys with want's values (numbers as JSON numbers, lists as
// lists), and returns the details.
func expectDetails(t testing.TB, r st.Result, code string, want map[string]any, msgHas ...string) map[string]any {
	t.Helper()
	expectError(t, r, code, msgHas...)
	var e struct {
		Error struct {
			Details map[string]any `json:"details"`
		} `json:"error"`
	}
	_ = json.Unmarshal(r.Body, &e)
	for k, v := range want {
		w, _ := json.Marshal(v)
		var wv any
		_ = json.Unmarshal(w, &wv)
		if !reflect.DeepEqual(e.Error.Details[k], wv) {
			t.Errorf("details.%s: want %s, got %s", k, w, r.Body)
		}
	}
	return e.Error.Details
}

// TestIllegalOrderMoveNamesTheAllowedStatuses: a move the status machine
// refuses lists the statuses allowed from the current one, in the message and
// in details; from delivered, none.
func TestIllegalOrderMoveNamesTheAllowedStatuses(t *testing.T) {
	s := st.Start(t)
	sh := newShop(t, s)
	if r := deliver(s, processor.Event("evt_moves_1", "payment_intent.succeeded", sh.payment("pi_moves_1"))); r.Status != 200 {
		t.Fatalf("order: %d %s", r.Status, r.Body)
	}
	order := orderOf(t, s, sh.user, "pi_moves_1")
	move := func(status string) st.Result {
		return s.Mutation(sh.owner, "stores.orders.updateOrderStatus", map[string]any{"orderId": order.ID, "status": status})
	}
	expectDetails(t, move("delivered"), "FAILED_PRECONDITION",
		map[string]any{"reason": "status_not_allowed", "current": "confirmed", "requested": "delivered", "allowed": []string{"preparing", "cancelled"}},
		"an order cannot move from confirmed to delivered", "from confirmed it may move to preparing or cancelled",
		"pending, confirmed, preparing, out_for_delivery, delivered")
	st.MustOK(t, move("preparing"))
	expectDetails(t, move("preparing"), "FAILED_PRECONDITION",
		map[string]any{"current": "preparing", "requested": "preparing", "allowed": []string{"out_for_delivery", "cancelled"}},
		"may move to out_for_delivery or cancelled")
	st.MustOK(t, move("out_for_delivery"))
	st.MustOK(t, move("delivered"))
	expectDetails(t, move("cancelled"), "FAILED_PRECONDITION",
		map[string]any{"reason": "status_not_allowed", "current": "delivered", "requested": "cancelled", "allowed": []string{}},
		"delivered is final, no status follows it")
}

// TestPayoutBoundsRefusalGivesTheSettingsAndBalance: an amount under the
// minimum payout, above the maximum or not above the fee names the minimum,
// the maximum, the fee and the available balance, in AED as the
// configuration has them.
func TestPayoutBoundsRefusalGivesTheSettingsAndBalance(t *testing.T) {
	s := st.Start(t)
	w := newPayoutsWorld(t, s, false)
	cfg := initConfig(t, s)
	w.credit(t, w.store, w.wallet, 150.5)
	expectDetails(t, w.request(w.owner, w.store, 40), "FAILED_PRECONDITION",
		map[string]any{"field": "amount", "reason": "below_minimum_payout", "amount": 40, "minPayoutAmount": 100, "maxPayoutAmount": 50000,
			"processingFee": 2, "availableBalance": 150.5},
		"amount: the minimum payout is 100.00 AED", "40.00 AED asked", "from 100.00 to 50000.00 AED", "processing fee of 2.00 AED", "150.50 AED available")
	expectDetails(t, w.request(w.owner, w.store, 50000.01), "FAILED_PRECONDITION",
		map[string]any{"reason": "above_maximum_payout", "maxPayoutAmount": 50000, "availableBalance": 150.5},
		"amount: the maximum payout is 50000.00 AED", "150.50 AED available")
	// A fee equal to the minimum: the minimum itself would pay out nothing.
	st.MustOK(t, s.Mutation(w.admin, pcUpdate, map[string]any{"adminUserId": "admin-1", "configId": cfg,
		"walletSettings": map[string]any{"minPayoutAmount": 5, "payoutProcessingFee": 5}}))
	expectDetails(t, w.request(w.owner, w.store, 5), "FAILED_PRECONDITION",
		map[string]any{"reason": "not_above_fee", "minPayoutAmount": 5, "processingFee": 5, "availableBalance": 150.5},
		"amount: must exceed the processing fee of 5.00 AED", "from 5.00 to 50000.00 AED", "150.50 AED available")
	expectBalances(t, w.getWallet(t, w.owner, w.store), 150.5, 0)
}

// TestPayoutRefusedByHeldEarningsNamesTheHold: earnings still held make a
// payout they would cover insufficient_balance, naming the pending amount,
// pendingBalanceHoldDays, when the oldest held earning is released and the
// adjustment that releases it earlier; after that adjustment the same
// request passes.
func TestPayoutRefusedByHeldEarningsNamesTheHold(t *testing.T) {
	s := st.Start(t)
	sh := newShop(t, s)
	w := &payoutsWorld{s: s, admin: sh.admin, owner: sh.owner, store: sh.storeA}
	w.wallet = w.getWallet(t, w.owner, w.store).ID
	if r := deliver(s, processor.Event("evt_hold_1", "payment_intent.succeeded", sh.payment("pi_hold_1"))); r.Status != 200 {
		t.Fatalf("order: %d %s", r.Status, r.Body)
	}
	moveOrder(t, s, sh.owner, orderOf(t, s, sh.user, "pi_hold_1").ID)
	eventually(t, "the delivered order's earnings", func() bool { return w.getWallet(t, w.owner, w.store).PendingBalance == 80.7 })
	earnings := txOf(w.transactions(t, w.admin, w.store), "earning")
	if len(earnings) != 1 || earnings[0].ReleaseDate == nil {
		t.Fatalf("earnings %+v", earnings)
	}
	release := *earnings[0].ReleaseDate
	expectDetails(t, w.request(w.owner, w.store, 100), "FAILED_PRECONDITION",
		map[string]any{"reason": "insufficient_balance", "balance": "available", "amount": 100, "availableBalance": 0, "pendingBalance": 80.7,
			"pendingBalanceHoldDays": 7, "nextReleaseAt": release, "nextReleaseAmount": 80.7},
		"insufficient available balance: 0.00 AED available, 100.00 AED needed",
		"80.70 AED pending: earnings are held 7 days after delivery (pendingBalanceHoldDays)",
		"the oldest (80.70 AED) is released at "+time.UnixMilli(release).UTC().Format(time.RFC3339),
		"move_pending_to_available")
	// Released by an administrator, with more credited: the request passes.
	st.MustOK(t, w.adjust(w.store, w.wallet, "move_pending_to_available", 80.7))
	w.credit(t, w.store, w.wallet, 19.3)
	okID(t, w.request(w.owner, w.store, 100))
	// Nothing held: the refusal says only what is short.
	expectDetails(t, w.request(w.owner, w.store, 100), "FAILED_PRECONDITION",
		map[string]any{"reason": "insufficient_balance", "availableBalance": 0, "pendingBalance": 0},
		"insufficient available balance: 0.00 AED available, 100.00 AED needed")
}
