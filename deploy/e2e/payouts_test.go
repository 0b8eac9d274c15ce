package e2e

import (
	"fmt"
	"slices"
	"testing"
	"time"

	st "marketplace/deploy/systemtest"
	"marketplace/libs/clocktest"
)

// Payouts and wallets, black-box through the gateway: the workflow of section
// 3.1 with every refused move, payout requests and their limits, the wallet
// adjustments, earnings from delivered orders through the hold, the
// statistics, the notifications, and the concurrency rules, with the ledger
// reconciled after each.

const (
	opRequestPayout   = "stores.payouts.requestPayout"
	opListPayouts     = "stores.payouts.listPayouts"
	opGetWallet       = "stores.wallet.getWallet"
	opListTx          = "stores.wallet.listTransactions"
	opPending         = "admins.payoutOperations.getPendingPayouts"
	opStatistics      = "admins.payoutOperations.getPayoutStatistics"
	opGetPayout       = "admins.payoutOperations.getPayout"
	opApprove         = "admins.payoutOperations.approvePayout"
	opReject          = "admins.payoutOperations.rejectPayout"
	opProcessing      = "admins.payoutOperations.markPayoutAsProcessing"
	opComplete        = "admins.payoutOperations.completePayout"
	opFail            = "admins.payoutOperations.markPayoutAsFailed"
	opAdjust          = "admins.payoutOperations.adjustWalletBalance"
	opReconcile       = "admins.payoutOperations.reconcileWallet"
	opReleaseEarnings = "admins.payoutOperations.releaseDueEarnings"

	// validIBAN is the UAE's published example IBAN (mod 97 = 1).
	validIBAN = "AE070331234567890123456"
)

// newTestClock is the services' clock in tests that move time.
func newTestClock(t time.Time) *clocktest.Clock { return clocktest.New(t) }

type walletView struct {
	ID               string  `json:"_id"`
	StoreID          string  `json:"storeId"`
	AvailableBalance float64 `json:"availableBalance"`
	PendingBalance   float64 `json:"pendingBalance"`
	TotalEarnings    float64 `json:"totalEarnings"`
	TotalPayouts     float64 `json:"totalPayouts"`
	LastPayoutDate   *int64  `json:"lastPayoutDate"`
	TotalOrders      int64   `json:"totalOrders"`
}

type txView struct {
	ID           string            `json:"_id"`
	Type         string            `json:"type"`
	Amount       float64           `json:"amount"`
	Status       string            `json:"status"`
	Description  string            `json:"description"`
	CreationTime int64             `json:"_creationTime"`
	ReleaseDate  *int64            `json:"releaseDate"`
	Metadata     map[string]string `json:"metadata"`
}

type payoutView struct {
	ID              string  `json:"_id"`
	CreationTime    int64   `json:"_creationTime"`
	StoreID         string  `json:"storeId"`
	StoreName       string  `json:"storeName"`
	StoreOwnerName  string  `json:"storeOwnerName"`
	StoreOwnerPhone string  `json:"storeOwnerPhone"`
	RequestedAmount float64 `json:"requestedAmount"`
	ProcessingFee   float64 `json:"processingFee"`
	NetAmount       float64 `json:"netAmount"`
	BankDetails     struct {
		IBAN              string `json:"IBAN"`
		BankName          string `json:"bankName"`
		AccountHolderName string `json:"accountHolderName"`
	} `json:"bankDetails"`
	Status               string  `json:"status"`
	RequestDate          int64   `json:"requestDate"`
	ApprovedDate         *int64  `json:"approvedDate"`
	RequestedBy          string  `json:"requestedBy"`
	CurrentWalletBalance float64 `json:"currentWalletBalance"`
	TotalEarnings        float64 `json:"totalEarnings"`
	TotalOrders          int64   `json:"totalOrders"`
	ApprovedBy           *string `json:"approvedBy"`
	ProcessingMethod     *string `json:"processingMethod"`
	TransactionReference *string `json:"transactionReference"`
	CompletedDate        *int64  `json:"completedDate"`
	RejectionReason      *string `json:"rejectionReason"`
	FailureReason        *string `json:"failureReason"`
	BalanceRestored      bool    `json:"balanceRestored"`
	AdminNotes           *string `json:"adminNotes"`
	History              []struct {
		Action         string  `json:"action"`
		From           *string `json:"from"`
		To             string  `json:"to"`
		By             string  `json:"by"`
		At             int64   `json:"at"`
		Notes          *string `json:"notes"`
		Reason         *string `json:"reason"`
		Method         *string `json:"method"`
		Reference      *string `json:"reference"`
		RestoreBalance *bool   `json:"restoreBalance"`
	} `json:"history"`
}

type reconciliation struct {
	WalletID     string `json:"walletId"`
	Wallet       any    `json:"wallet"`
	Ledger       any    `json:"ledger"`
	Transactions int    `json:"transactions"`
	Consistent   bool   `json:"consistent"`
}

// payoutsWorld: an active configuration, administrators and a store owned by
// owner-1 ("Bakery") whose wallet is known.
type payoutsWorld struct {
	s             *st.Sys
	admin, owner  string // tokens of admin-1 and owner-1
	store, wallet string
}

func newPayoutsWorld(t *testing.T, s *st.Sys, withConfig bool) *payoutsWorld {
	t.Helper()
	w := &payoutsWorld{s: s, admin: s.Token("admin-1", "admin"), owner: s.Token("owner-1")}
	if withConfig {
		initConfig(t, s)
	}
	w.store = newStore(t, s, w.admin, "Bakery", "owner-1", "", "")
	w.wallet = w.getWallet(t, w.owner, w.store).ID
	return w
}

// everyPage walks a paged query (paginationOpts, page, isDone,
// continueCursor) with args, two items at a time so that the cursors are
// used, and returns every item in order: the payouts world's lists (the
// statement's entries, the wallets overview, every store's payouts).
func everyPage[T any](t testing.TB, s *st.Sys, token, op string, args map[string]any) []T {
	t.Helper()
	var out []T
	var cursor any
	for {
		a := map[string]any{"paginationOpts": map[string]any{"numItems": 2, "cursor": cursor}}
		for k, v := range args {
			a[k] = v
		}
		var p struct {
			Page           []T    `json:"page"`
			IsDone         bool   `json:"isDone"`
			ContinueCursor string `json:"continueCursor"`
		}
		st.MustOK(t, s.Query(token, op, a)).Decode(t, &p)
		out = append(out, p.Page...)
		if p.IsDone {
			return out
		}
		cursor = p.ContinueCursor
	}
}

func (w *payoutsWorld) getWallet(t testing.TB, token, store string) walletView {
	t.Helper()
	return okAs[walletView](t, w.s.Query(token, opGetWallet, map[string]any{"storeId": store}))
}

func (w *payoutsWorld) adjust(store, wallet, kind string, amount any, more ...any) st.Result {
	return w.s.Mutation(w.admin, opAdjust, adjustArgs(store, wallet, kind, amount, more...))
}

func adjustArgs(store, wallet, kind string, amount any, more ...any) map[string]any {
	return withArgs(map[string]any{"storeId": store, "walletId": wallet, "adjustmentType": kind, "amount": amount, "reason": "Adjusted by a test", "adminUserId": "admin-1"}, more)
}

// withArgs adds the name, value pairs of more to args.
func withArgs(args map[string]any, more []any) map[string]any {
	for i := 0; i+1 < len(more); i += 2 {
		args[more[i].(string)] = more[i+1]
	}
	return args
}

// credit puts amount into the store's available balance.
func (w *payoutsWorld) credit(t testing.TB, store, wallet string, amount float64) {
	t.Helper()
	st.MustOK(t, w.adjust(store, wallet, "add_balance", amount))
}

func bank() map[string]any {
	return map[string]any{"IBAN": validIBAN, "bankName": "Emirates NBD", "accountHolderName": "Sara Al Marri"}
}

func (w *payoutsWorld) request(token, store string, amount any) st.Result {
	return w.s.Mutation(token, opRequestPayout, requestArgs(store, amount))
}

func requestArgs(store string, amount any) map[string]any {
	return map[string]any{"storeId": store, "amount": amount, "bankDetails": bank()}
}

func (w *payoutsWorld) move(op, payout string, more ...any) st.Result {
	return w.s.Mutation(w.admin, op, moveArgsOf(payout, more...))
}

func moveArgsOf(payout string, more ...any) map[string]any {
	return withArgs(map[string]any{"payoutId": payout, "adminUserId": "admin-1"}, more)
}

// moveArgs are the arguments each move needs besides the payout.
var moveArgs = map[string][]any{
	opApprove: nil, opComplete: nil, opReject: {"rejectionReason", "r"},
	opProcessing: {"processingMethod", "manual"}, opFail: {"failureReason", "f"},
}

// expectNoMoves: every move of a payout in a final status is refused.
func (w *payoutsWorld) expectNoMoves(t testing.TB, payout, status string) {
	t.Helper()
	for op, more := range moveArgs {
		expectError(t, w.move(op, payout, more...), "FAILED_PRECONDITION", status)
	}
}

// pay takes a requested payout through approval, processing and completion.
func (w *payoutsWorld) pay(t testing.TB, payout string) payoutView {
	t.Helper()
	st.MustOK(t, w.move(opApprove, payout))
	st.MustOK(t, w.move(opProcessing, payout, "processingMethod", "bank_transfer"))
	return okAs[payoutView](t, w.move(opComplete, payout))
}

func (w *payoutsWorld) transactions(t testing.TB, token, store string) []txView {
	t.Helper()
	var r struct {
		Page []txView `json:"page"`
	}
	st.MustOK(t, w.s.Query(token, opListTx, map[string]any{"storeId": store, "paginationOpts": map[string]any{"numItems": 100, "cursor": nil}})).Decode(t, &r)
	return r.Page
}

func (w *payoutsWorld) payout(t testing.TB, id string) payoutView {
	t.Helper()
	return okAs[payoutView](t, w.s.Query(w.admin, opGetPayout, map[string]any{"payoutId": id}))
}

func (w *payoutsWorld) pending(t testing.TB, args map[string]any) []payoutView {
	t.Helper()
	return okAs[[]payoutView](t, w.s.Query(w.admin, opPending, args))
}

// reconciled requires the store's wallet to equal its recomputation from the
// ledger.
func (w *payoutsWorld) reconciled(t testing.TB, store string) reconciliation {
	t.Helper()
	r := okAs[reconciliation](t, w.s.Query(w.admin, opReconcile, map[string]any{"storeId": store}))
	if !r.Consistent {
		t.Fatalf("the wallet of %s differs from its ledger: %+v", store, r)
	}
	return r
}

func txOf(txs []txView, typ string) []txView {
	var out []txView
	for _, x := range txs {
		if x.Type == typ {
			out = append(out, x)
		}
	}
	return out
}

func expectBalances(t testing.TB, got walletView, available, pending float64) {
	t.Helper()
	if got.AvailableBalance != available || got.PendingBalance != pending {
		t.Fatalf("balances %.2f available, %.2f pending; want %.2f and %.2f (%+v)", got.AvailableBalance, got.PendingBalance, available, pending, got)
	}
}

// TestPayoutWorkflow takes payouts through every move of section 3.1 and
// tries every move the table refuses, checking after each what it did to
// the wallet, the payout's wallet transaction, the payout's history and the
// store owner's and administrators' inboxes.
func TestPayoutWorkflow(t *testing.T) {
	clock := newTestClock(time.Now())
	s := st.Start(t, st.WithClock(clock.Now))
	w := newPayoutsWorld(t, s, true)
	w.credit(t, w.store, w.wallet, 2000)

	// Request: the amount leaves the available balance at once.
	p1 := okID(t, w.request(w.owner, w.store, 500))
	expectBalances(t, w.getWallet(t, w.owner, w.store), 1500, 0)
	pt := txOf(w.transactions(t, w.owner, w.store), "payout")
	if len(pt) != 1 || pt[0].Amount != 500 || pt[0].Status != "pending" {
		t.Fatalf("payout transactions %+v", pt)
	}
	got := w.payout(t, p1)
	if got.Status != "requested" || got.RequestedAmount != 500 || got.ProcessingFee != 2 || got.NetAmount != 498 || got.ApprovedDate != nil ||
		got.RequestedBy != "owner-1" || got.BankDetails.IBAN != validIBAN || got.BankDetails.BankName != "Emirates NBD" || got.StoreName != "Bakery" ||
		got.RequestDate != clock.Now().UnixMilli() || len(got.History) != 1 || got.History[0].By != "owner-1" {
		t.Fatalf("requested payout %+v", got)
	}

	// Moves a requested payout does not allow.
	expectError(t, w.move(opProcessing, p1, "processingMethod", "manual"), "FAILED_PRECONDITION", "requested", "approved")
	expectError(t, w.move(opComplete, p1), "FAILED_PRECONDITION", "processing")
	expectError(t, w.move(opFail, p1, "failureReason", "x"), "FAILED_PRECONDITION", "approved or processing")

	// approve: status approved, approvedDate set, the transaction completed.
	clock.Advance(time.Hour)
	approved := okAs[payoutView](t, w.move(opApprove, p1, "adminNotes", "Checked the IBAN"))
	if approved.Status != "approved" || approved.ApprovedDate == nil || *approved.ApprovedDate != clock.Now().UnixMilli() ||
		approved.ApprovedBy == nil || *approved.ApprovedBy != "admin-1" || approved.AdminNotes == nil || *approved.AdminNotes != "Checked the IBAN" ||
		len(approved.History) != 2 || approved.History[1].Action != "approvePayout" || *approved.History[1].From != "requested" ||
		approved.History[1].By != "admin-1" || approved.History[1].Notes == nil || approved.CurrentWalletBalance != 1500 {
		t.Fatalf("approve answered %+v", approved)
	}
	if pt := txOf(w.transactions(t, w.owner, w.store), "payout"); pt[0].Status != "completed" {
		t.Fatalf("payout transaction after approval: %+v", pt)
	}
	expectBalances(t, w.getWallet(t, w.owner, w.store), 1500, 0)
	expectError(t, w.move(opApprove, p1), "FAILED_PRECONDITION", "approved")
	expectError(t, w.move(opReject, p1, "rejectionReason", "late"), "FAILED_PRECONDITION")
	expectError(t, w.move(opComplete, p1), "FAILED_PRECONDITION")

	// markPayoutAsProcessing: method and reference recorded.
	processing := okAs[payoutView](t, w.move(opProcessing, p1, "processingMethod", "bank_transfer", "transactionReference", "REF-1"))
	if processing.Status != "processing" || *processing.ProcessingMethod != "bank_transfer" || *processing.TransactionReference != "REF-1" ||
		*processing.History[2].Method != "bank_transfer" || *processing.History[2].Reference != "REF-1" {
		t.Fatalf("processing answered %+v", processing)
	}
	expectError(t, w.move(opProcessing, p1, "processingMethod", "manual"), "FAILED_PRECONDITION")
	expectError(t, w.move(opApprove, p1), "FAILED_PRECONDITION")

	// completePayout: a given reference overrides; total payouts and last payout date.
	clock.Advance(2 * time.Hour)
	done := okAs[payoutView](t, w.move(opComplete, p1, "transactionReference", "REF-2"))
	if done.Status != "completed" || *done.TransactionReference != "REF-2" || done.CompletedDate == nil || *done.CompletedDate != clock.Now().UnixMilli() {
		t.Fatalf("complete answered %+v", done)
	}
	wallet := w.getWallet(t, w.owner, w.store)
	if wallet.TotalPayouts != 500 || wallet.LastPayoutDate == nil || *wallet.LastPayoutDate != clock.Now().UnixMilli() {
		t.Fatalf("wallet after completion %+v", wallet)
	}
	expectBalances(t, wallet, 1500, 0)
	w.expectNoMoves(t, p1, "completed")

	// rejectPayout: the amount returns, the transaction is cancelled.
	p2 := okID(t, w.request(w.owner, w.store, 300))
	expectBalances(t, w.getWallet(t, w.owner, w.store), 1200, 0)
	expectError(t, w.move(opReject, p2), "INVALID_ARGUMENT", "rejectionReason")
	rejected := okAs[payoutView](t, w.move(opReject, p2, "rejectionReason", "The IBAN belongs to someone else"))
	if rejected.Status != "cancelled" || *rejected.RejectionReason != "The IBAN belongs to someone else" || !rejected.BalanceRestored ||
		*rejected.History[1].Reason != "The IBAN belongs to someone else" {
		t.Fatalf("reject answered %+v", rejected)
	}
	expectBalances(t, w.getWallet(t, w.owner, w.store), 1500, 0)
	w.expectNoMoves(t, p2, "cancelled")

	// markPayoutAsFailed from approved, restoring the balance: transaction failed.
	p3 := okID(t, w.request(w.owner, w.store, 200))
	st.MustOK(t, w.move(opApprove, p3))
	failed := okAs[payoutView](t, w.move(opFail, p3, "failureReason", "Bank refused", "restoreBalance", true))
	if failed.Status != "failed" || *failed.FailureReason != "Bank refused" || !failed.BalanceRestored || !*failed.History[2].RestoreBalance {
		t.Fatalf("fail answered %+v", failed)
	}
	expectBalances(t, w.getWallet(t, w.owner, w.store), 1500, 0)

	// ... and from processing without restoring: the amount stays paid out.
	p4 := okID(t, w.request(w.owner, w.store, 250))
	st.MustOK(t, w.move(opApprove, p4))
	st.MustOK(t, w.move(opProcessing, p4, "processingMethod", "third_party"))
	expectError(t, w.move(opFail, p4), "INVALID_ARGUMENT", "failureReason")
	failed = okAs[payoutView](t, w.move(opFail, p4, "failureReason", "Provider lost it"))
	if failed.Status != "failed" || failed.BalanceRestored {
		t.Fatalf("fail without restoring answered %+v", failed)
	}
	expectBalances(t, w.getWallet(t, w.owner, w.store), 1250, 0)
	w.expectNoMoves(t, p4, "failed")
	w.expectNoMoves(t, p3, "failed")
	statusOf := map[string]string{}
	for _, x := range txOf(w.transactions(t, w.owner, w.store), "payout") {
		statusOf[x.Description] = x.Status
	}
	want := map[string]string{"Payout " + p1: "completed", "Payout " + p2: "cancelled", "Payout " + p3: "failed", "Payout " + p4: "completed"}
	for k, v := range want {
		if statusOf[k] != v {
			t.Errorf("transaction of %s is %q, want %q", k, statusOf[k], v)
		}
	}
	w.reconciled(t, w.store)

	// Bad calls: INVALID_ARGUMENT naming the field, NOT_FOUND, PERMISSION_DENIED.
	expectError(t, w.move(opProcessing, p4, "processingMethod", "carrier_pigeon"), "INVALID_ARGUMENT", "processingMethod")
	expectError(t, w.move(opApprove, "pay_nope"), "INVALID_ARGUMENT", "payoutId")
	expectError(t, w.move(opApprove, missingLike(p1)), "NOT_FOUND")
	expectError(t, s.Mutation(w.admin, opApprove, map[string]any{"payoutId": p1, "adminUserId": "admin-2"}), "PERMISSION_DENIED")
	expectError(t, s.Mutation(w.owner, opApprove, map[string]any{"payoutId": p1, "adminUserId": "owner-1"}), "PERMISSION_DENIED")
	expectError(t, s.Query(w.owner, opPending, nil), "PERMISSION_DENIED")

	// The work queue: open payouts only, oldest request first, limit, store filter.
	p5 := okID(t, w.request(w.owner, w.store, 100))
	clock.Advance(time.Minute)
	p6 := okID(t, w.request(w.owner, w.store, 110))
	st.MustOK(t, w.move(opApprove, p6))
	other := newStore(t, s, w.admin, "Florist", "owner-2", "", "")
	otherWallet := w.getWallet(t, w.admin, other).ID
	w.credit(t, other, otherWallet, 1000)
	clock.Advance(time.Minute)
	p7 := okID(t, w.request(s.Token("owner-2"), other, 120))
	var queue []payoutView
	eventually(t, "the owners' names reach the wallets", func() bool {
		queue = w.pending(t, nil)
		return len(queue) == 3 && queue[0].StoreOwnerName == "Owner of Bakery" && queue[2].StoreOwnerName == "Owner of Florist"
	})
	if ids := []string{queue[0].ID, queue[1].ID, queue[2].ID}; !slices.Equal(ids, []string{p5, p6, p7}) {
		t.Fatalf("queue %v, want %v", ids, []string{p5, p6, p7})
	}
	q := queue[1]
	if q.Status != "approved" || q.ApprovedDate == nil || q.StoreOwnerPhone != "+971500000000" || q.StoreName != "Bakery" ||
		q.CurrentWalletBalance != 1250-100-110 || q.TotalEarnings != 0 || q.TotalOrders != 0 || q.RequestedAmount != 110 || q.NetAmount != 108 {
		t.Fatalf("queue item %+v", q)
	}
	if queue[0].ApprovedDate != nil {
		t.Fatalf("a requested payout has an approvedDate: %+v", queue[0])
	}
	if got := w.pending(t, map[string]any{"limit": 2}); len(got) != 2 || got[1].ID != p6 {
		t.Fatalf("limit 2: %+v", got)
	}
	if got := w.pending(t, map[string]any{"storeId": other}); len(got) != 1 || got[0].ID != p7 {
		t.Fatalf("store filter: %+v", got)
	}
	expectError(t, s.Query(w.admin, opPending, map[string]any{"limit": 0}), "INVALID_ARGUMENT", "limit")

	// The store's owner lists their payouts, without the administrators' notes.
	var mine struct {
		Page []payoutView `json:"page"`
	}
	st.MustOK(t, s.Query(w.owner, opListPayouts, map[string]any{"storeId": w.store, "paginationOpts": map[string]any{"numItems": 10, "cursor": nil}})).Decode(t, &mine)
	if len(mine.Page) != 6 || mine.Page[len(mine.Page)-1].ID != p1 || mine.Page[len(mine.Page)-1].AdminNotes != nil || mine.Page[len(mine.Page)-1].History[1].Notes != nil {
		t.Fatalf("the owner's payouts: %+v", mine.Page)
	}

	// Notifications: the owner hears of each move, the administrators of each request.
	eventually(t, "the payout notifications", func() bool {
		ns := inbox(t, s, w.owner)
		return count(ns, "payout_approved") == 4 && count(ns, "payout_processing") == 2 && count(ns, "payout_completed") == 1 &&
			count(ns, "payout_rejected") == 1 && count(ns, "payout_failed") == 2 && count(ns, "wallet_adjusted") == 1
	})
	eventually(t, "the administrators hear of each request", func() bool { return count(inbox(t, s, w.admin), "payout_requested") == 7 })
	for _, n := range inbox(t, s, w.owner) {
		if (n.Type == "payout_failed" || n.Type == "payout_rejected") && n.Priority != "high" {
			t.Errorf("%s is %s priority", n.Type, n.Priority)
		}
		if n.Type == "payout_completed" && n.Data["payoutId"] != p1 {
			t.Errorf("payout_completed data %v", n.Data)
		}
	}
	if ns := inbox(t, s, s.Token("owner-2")); count(ns, "payout_approved")+count(ns, "payout_completed") != 0 {
		t.Fatalf("another owner heard of Bakery's payouts: %+v", ns)
	}
	w.reconciled(t, w.store)
	w.reconciled(t, other)
}

// TestPayoutRequestRules: the limits of a payout request (configuration
// minimum and maximum, the available balance, the fee), the bank details and
// who may ask; a refused request changes no balance and writes no
// transaction.
func TestPayoutRequestRules(t *testing.T) {
	s := st.Start(t)
	w := newPayoutsWorld(t, s, false)
	w.credit(t, w.store, w.wallet, 60000)

	// Without an active configuration the limits are unknown.
	expectError(t, w.request(w.owner, w.store, 500), "FAILED_PRECONDITION", "configuration")
	cfg := initConfig(t, s)

	before := len(w.transactions(t, w.admin, w.store))
	refused := []struct {
		name string
		r    st.Result
		code string
		has  []string
	}{
		{"below the minimum", w.request(w.owner, w.store, 99.99), "FAILED_PRECONDITION", []string{"minimum", "100.00"}},
		{"above the maximum", w.request(w.owner, w.store, 50000.01), "FAILED_PRECONDITION", []string{"maximum", "50000.00"}},
		{"zero", w.request(w.owner, w.store, 0), "INVALID_ARGUMENT", []string{"amount"}},
		{"negative", w.request(w.owner, w.store, -100), "INVALID_ARGUMENT", []string{"amount"}},
		{"three decimals", w.request(w.owner, w.store, 100.001), "INVALID_ARGUMENT", []string{"amount"}},
		{"a string", w.request(w.owner, w.store, "100"), "INVALID_ARGUMENT", []string{"amount"}},
	}
	for _, iban := range []string{"AE070331234567890123457", "GB82WEST12345698765432", "AE07033123456789012345", "AE07 0331 2345 6789 0123 4X6", "not an iban"} {
		refused = append(refused, struct {
			name string
			r    st.Result
			code string
			has  []string
		}{"IBAN " + iban, s.Mutation(w.owner, opRequestPayout, map[string]any{"storeId": w.store, "amount": 500,
			"bankDetails": map[string]any{"IBAN": iban, "bankName": "ENBD", "accountHolderName": "Sara"}}), "INVALID_ARGUMENT", []string{"bankDetails.IBAN"}})
	}
	for _, f := range []string{"IBAN", "bankName", "accountHolderName"} {
		b := bank()
		delete(b, f)
		refused = append(refused, struct {
			name string
			r    st.Result
			code string
			has  []string
		}{"no " + f, s.Mutation(w.owner, opRequestPayout, map[string]any{"storeId": w.store, "amount": 500, "bankDetails": b}),
			"INVALID_ARGUMENT", []string{"bankDetails." + f}})
	}
	refused = append(refused, []struct {
		name string
		r    st.Result
		code string
		has  []string
	}{
		{"no bank details", s.Mutation(w.owner, opRequestPayout, map[string]any{"storeId": w.store, "amount": 500}), "INVALID_ARGUMENT", []string{"bankDetails"}},
		{"an unknown argument", s.Mutation(w.owner, opRequestPayout, map[string]any{"storeId": w.store, "amount": 500, "bankDetails": bank(), "currency": "usd"}), "INVALID_ARGUMENT", []string{"currency"}},
		{"an administrator", w.request(w.admin, w.store, 500), "PERMISSION_DENIED", nil},
		{"another owner", w.request(s.Token("owner-2"), w.store, 500), "PERMISSION_DENIED", nil},
		{"anonymous", w.request("", w.store, 500), "UNAUTHENTICATED", nil},
		{"a missing store", w.request(w.owner, missingLike(w.store), 500), "NOT_FOUND", nil},
	}...)
	for _, c := range refused {
		t.Run(c.name, func(t *testing.T) { expectError(t, c.r, c.code, c.has...) })
	}
	if after := len(w.transactions(t, w.admin, w.store)); after != before {
		t.Fatalf("refused requests wrote %d transactions", after-before)
	}
	expectBalances(t, w.getWallet(t, w.owner, w.store), 60000, 0)

	// The limits themselves pass; IBANs written in groups or lower case are kept normalised.
	p := okID(t, s.Mutation(w.owner, opRequestPayout, map[string]any{"storeId": w.store, "amount": 100,
		"bankDetails": map[string]any{"IBAN": "ae07 0331 2345 6789 0123 456", "bankName": "ENBD", "accountHolderName": "Sara"}}))
	if got := w.payout(t, p); got.BankDetails.IBAN != validIBAN || got.NetAmount != 98 {
		t.Fatalf("payout %+v", got)
	}
	okID(t, w.request(w.owner, w.store, 50000))
	expectBalances(t, w.getWallet(t, w.owner, w.store), 9900, 0)
	// More than the available balance.
	expectError(t, w.request(w.owner, w.store, 9900.01), "FAILED_PRECONDITION", "insufficient", "9900.00")

	// The settings in force decide: a new minimum, maximum and fee.
	st.MustOK(t, s.Mutation(w.admin, pcUpdate, map[string]any{"adminUserId": "admin-1", "configId": cfg,
		"walletSettings": map[string]any{"minPayoutAmount": 50, "maxPayoutAmount": 1000, "payoutProcessingFee": 5}}))
	expectError(t, w.request(w.owner, w.store, 1000.01), "FAILED_PRECONDITION", "maximum", "1000.00")
	p = okID(t, w.request(w.owner, w.store, 50))
	if got := w.payout(t, p); got.ProcessingFee != 5 || got.NetAmount != 45 || got.RequestedAmount != 50 {
		t.Fatalf("payout under the new settings %+v", got)
	}
	w.reconciled(t, w.store)
}

// TestWalletAdjustments: each of the five adjustments with its effect and
// its transaction (none for a move), reason and notes where the interface
// puts them, and every refusal, which changes nothing.
func TestWalletAdjustments(t *testing.T) {
	s := st.Start(t)
	w := newPayoutsWorld(t, s, true)
	if w.wallet == "" || w.getWallet(t, w.admin, w.store).ID != w.wallet {
		t.Fatal("the owner and an administrator see different wallets")
	}
	steps := []struct {
		kind               string
		amount             float64
		available, pending float64
		tx                 string
	}{
		{"add_balance", 300, 300, 0, "bonus"},
		{"add_pending", 200, 300, 200, "pending_credit"},
		{"move_pending_to_available", 50, 350, 150, ""},
		{"deduct_pending", 25.5, 350, 124.5, "pending_debit"},
		{"deduct_balance", 100.25, 249.75, 124.5, "penalty"},
	}
	for i, c := range steps {
		reason := fmt.Sprintf("Step %d: %s", i, c.kind)
		nextMillisecond() // the newest transaction is the latest created, to the millisecond
		got := okAs[walletView](t, w.adjust(w.store, w.wallet, c.kind, c.amount, "reason", reason, "adminNotes", "ticket #"+fmt.Sprint(i)))
		expectBalances(t, got, c.available, c.pending)
		expectBalances(t, w.getWallet(t, w.owner, w.store), c.available, c.pending)
		txs := w.transactions(t, w.admin, w.store)
		if c.tx == "" {
			if len(txs) != i { // a move records no transaction
				t.Fatalf("%s recorded a transaction: %+v", c.kind, txs)
			}
			continue
		}
		last := txs[0] // newest first
		if last.Type != c.tx || last.Amount != c.amount || last.Status != "completed" || last.Description != reason ||
			last.Metadata["adminNotes"] != "ticket #"+fmt.Sprint(i) || last.Metadata["adminUserId"] != "admin-1" {
			t.Fatalf("%s transaction %+v", c.kind, last)
		}
		w.reconciled(t, w.store)
	}
	// The store's owner sees the transactions without their metadata.
	for _, x := range w.transactions(t, w.owner, w.store) {
		if x.Metadata != nil {
			t.Fatalf("the owner sees metadata: %+v", x)
		}
	}
	if w.getWallet(t, w.owner, w.store).TotalEarnings != 0 {
		t.Fatal("adjustments are not earnings")
	}

	before := len(w.transactions(t, w.admin, w.store))
	other := newStore(t, s, w.admin, "Florist", "owner-2", "", "")
	otherWallet := w.getWallet(t, w.admin, other).ID
	for _, c := range []struct {
		name string
		r    st.Result
		code string
		has  []string
	}{
		{"deduct more than available", w.adjust(w.store, w.wallet, "deduct_balance", 249.76), "FAILED_PRECONDITION", []string{"insufficient available balance"}},
		{"deduct more than pending", w.adjust(w.store, w.wallet, "deduct_pending", 124.51), "FAILED_PRECONDITION", []string{"insufficient pending balance"}},
		{"move more than pending", w.adjust(w.store, w.wallet, "move_pending_to_available", 124.51), "FAILED_PRECONDITION", []string{"pending"}},
		{"zero", w.adjust(w.store, w.wallet, "add_balance", 0), "INVALID_ARGUMENT", []string{"amount"}},
		{"negative", w.adjust(w.store, w.wallet, "deduct_balance", -5), "INVALID_ARGUMENT", []string{"amount"}},
		{"three decimals", w.adjust(w.store, w.wallet, "add_balance", 0.001), "INVALID_ARGUMENT", []string{"amount"}},
		{"unknown kind", w.adjust(w.store, w.wallet, "add_everything", 5), "INVALID_ARGUMENT", []string{"adjustmentType"}},
		{"no reason", w.adjust(w.store, w.wallet, "add_balance", 5, "reason", " "), "INVALID_ARGUMENT", []string{"reason"}},
		{"another store's wallet", w.adjust(w.store, otherWallet, "add_balance", 5), "INVALID_ARGUMENT", []string{"walletId"}},
		{"a malformed wallet id", w.adjust(w.store, w.store, "add_balance", 5), "INVALID_ARGUMENT", []string{"walletId"}},
		{"a missing wallet", w.adjust(w.store, missingLike(w.wallet), "add_balance", 5), "NOT_FOUND", nil},
		{"a missing store", w.adjust(missingLike(w.store), "wal_"+missingLike(w.store)[4:], "add_balance", 5), "NOT_FOUND", []string{"store"}},
		{"another admin's id", s.Mutation(w.admin, opAdjust, map[string]any{"storeId": w.store, "walletId": w.wallet, "adjustmentType": "add_balance",
			"amount": 5, "reason": "r", "adminUserId": "admin-9"}), "PERMISSION_DENIED", nil},
		{"the store's owner", s.Mutation(w.owner, opAdjust, map[string]any{"storeId": w.store, "walletId": w.wallet, "adjustmentType": "add_balance",
			"amount": 5, "reason": "r", "adminUserId": "owner-1"}), "PERMISSION_DENIED", nil},
	} {
		t.Run(c.name, func(t *testing.T) { expectError(t, c.r, c.code, c.has...) })
	}
	expectBalances(t, w.getWallet(t, w.owner, w.store), 249.75, 124.5)
	if after := len(w.transactions(t, w.admin, w.store)); after != before {
		t.Fatalf("refused adjustments wrote %d transactions", after-before)
	}
	eventually(t, "the owner hears of each adjustment", func() bool { return count(inbox(t, s, w.owner), "wallet_adjusted") == 5 })
	w.reconciled(t, w.store)
	w.reconciled(t, other)
}
