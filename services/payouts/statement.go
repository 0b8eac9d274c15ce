package payouts

// Statements (docs/adr/0147): a store's wallet over a period, read from the
// statement journal (journal.go: one entry per balance change, releases
// and moves between balances included), as stores.wallet.getStatement and
// as CSV from GET /api/stores/:storeId/statement.csv. A balance is
// available + pending + disputed; each entry's balance is the wallet's
// after it, so the running balance equals the wallet by construction.

import (
	"context"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"marketplace/libs/apperr"
	"marketplace/libs/httpserver"
	"marketplace/libs/ops"
	"marketplace/services/payouts/domain"
)

// Bounds of a statement.
const (
	maxStatementDays    = 366
	maxStatementEntries = 5000
	dayMs               = int64(24 * 60 * 60 * 1000)
)

// RouteStatementCSV is the statement's CSV route.
const RouteStatementCSV = "/api/stores/:storeId/statement.csv"

// EntryHeld is the status of a statement's earning while it is held.
const EntryHeld = "held"

type statementArgs struct {
	StoreID string `json:"storeId" op:"required,id=stores"`
	From    int64  `json:"from" op:"required,min=0"`
	To      int64  `json:"to" op:"required,min=0"`
}

// StatementEntryView is one entry of a statement (AED). Status is a payout
// entry's payout's status now (it agrees with the payout), an earning's
// "held" while it is held (until its release; ADR 0175), "completed" for
// the others.
type StatementEntryView struct {
	Seq              int64   `json:"seq"`
	At               int64   `json:"at"`
	Kind             string  `json:"kind"`
	Description      string  `json:"description"`
	Amount           float64 `json:"amount"`
	Balance          float64 `json:"balance"`
	AvailableChange  float64 `json:"availableChange"`
	PendingChange    float64 `json:"pendingChange"`
	DisputedChange   float64 `json:"disputedChange"`
	AvailableBalance float64 `json:"availableBalance"`
	PendingBalance   float64 `json:"pendingBalance"`
	DisputedBalance  float64 `json:"disputedBalance"`
	Status           string  `json:"status"`
	TransactionID    string  `json:"transactionId,omitempty"`
	AdjustmentID     string  `json:"adjustmentId,omitempty"`
	PayoutID         string  `json:"payoutId,omitempty"`
	OrderID          string  `json:"orderId,omitempty"`
	RefundID         string  `json:"refundId,omitempty"`
	DisputeID        string  `json:"disputeId,omitempty"`
}

// Statement is getStatement's answer.
type Statement struct {
	StoreID        string               `json:"storeId"`
	From           int64                `json:"from"`
	To             int64                `json:"to"`
	OpeningBalance float64              `json:"openingBalance"`
	Entries        []StatementEntryView `json:"entries"`
	ClosingBalance float64              `json:"closingBalance"`
}

// checkPeriod refuses a period that is reversed or longer than
// maxStatementDays (INVALID_ARGUMENT).
func checkPeriod(from, to int64) error {
	if from > to {
		return apperr.Invalid("to", "must not be before from (%d > %d)", from, to)
	}
	if to-from > maxStatementDays*dayMs {
		return apperr.Invalid("to", "a statement covers at most %d days; ask for shorter periods", maxStatementDays).
			WithDetails(map[string]any{"field": "to", "reason": "range_too_large", "maxDays": maxStatementDays})
	}
	return nil
}

// getStatement is the store's statement from from to to (epoch ms,
// inclusive): the balance before from, every entry of the period in the
// order of the changes with its running balance, and the balance after the
// last. At most maxStatementEntries entries: more is FAILED_PRECONDITION
// (too_many_entries), a shorter period answers.
func (s *svc) getStatement(ctx context.Context, a *statementArgs) (*Statement, error) {
	if err := checkPeriod(a.From, a.To); err != nil {
		return nil, err
	}
	st := ops.StoreOf(ctx)
	walletID := domain.WalletIDOf(st.ID)
	out := &Statement{StoreID: st.ID, From: a.From, To: a.To, Entries: []StatementEntryView{}}
	err := s.env.DB.Tx(ctx, func(ctx context.Context) error {
		before, err := s.statement.Before(ctx, walletID, a.From)
		if err != nil {
			return err
		}
		if before != nil {
			out.OpeningBalance = before.Balance.AED()
		}
		es, err := s.statement.Between(ctx, walletID, a.From, a.To, maxStatementEntries+1)
		if err != nil {
			return err
		}
		if len(es) > maxStatementEntries {
			return apperr.New(apperr.FailedPrecondition, "the period has more than %d entries; ask for a shorter period", maxStatementEntries).
				WithDetails(map[string]any{"reason": "too_many_entries", "maxEntries": maxStatementEntries})
		}
		views, err := s.entryViews(ctx, es)
		if err != nil {
			return err
		}
		out.Entries = append(out.Entries, views...)
		out.ClosingBalance = out.OpeningBalance
		if len(es) > 0 {
			out.ClosingBalance = es[len(es)-1].Balance.AED()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// entryViews are the entries as the interface shows them, each payout's
// with the payout's status now and each earning's held or not (read in the
// caller's transaction).
func (s *svc) entryViews(ctx context.Context, es []domain.StatementEntry) ([]StatementEntryView, error) {
	statuses := map[string]string{}
	var earnings []string
	for _, e := range es {
		if e.Kind == domain.KindEarning && e.Refs.TransactionID != "" {
			earnings = append(earnings, e.Refs.TransactionID)
		}
		if id := e.Refs.PayoutID; id != "" && statuses[id] == "" {
			p, err := s.payouts.Get(ctx, id)
			if err != nil {
				return nil, err
			}
			statuses[id] = "unknown"
			if p != nil {
				statuses[id] = p.Status
			}
		}
	}
	held, err := s.ledger.Earnings(ctx, earnings)
	if err != nil {
		return nil, err
	}
	out := make([]StatementEntryView, 0, len(es))
	for _, e := range es {
		status := domain.TxCompleted
		if e.Refs.PayoutID != "" {
			status = statuses[e.Refs.PayoutID]
		}
		if e.Kind == domain.KindEarning && held[e.Refs.TransactionID].StillHeld() {
			status = EntryHeld
		}
		out = append(out, StatementEntryView{Seq: e.Seq, At: e.At, Kind: e.Kind, Description: e.Description,
			Amount: e.Amount.AED(), Balance: e.Balance.AED(), AvailableChange: e.Change.Available.AED(), PendingChange: e.Change.Pending.AED(),
			DisputedChange: e.Change.Disputed.AED(), AvailableBalance: e.After.Available.AED(), PendingBalance: e.After.Pending.AED(),
			DisputedBalance: e.After.Disputed.AED(), Status: status, TransactionID: e.Refs.TransactionID, AdjustmentID: e.Refs.AdjustmentID,
			PayoutID: e.Refs.PayoutID, OrderID: e.Refs.OrderID, RefundID: e.Refs.RefundID, DisputeID: e.Refs.DisputeID})
	}
	return out, nil
}

// statementCSVHeader is the CSV's first row.
var statementCSVHeader = []string{"seq", "at", "kind", "description", "amount", "balance", "availableChange", "pendingChange", "disputedChange",
	"availableBalance", "pendingBalance", "disputedBalance", "status", "transactionId", "adjustmentId", "payoutId", "orderId", "refundId", "disputeId"}

// statementCSV is the statement of the route's store (its access,
// StoreOwnerOrAdmin, resolved it: ops.StoreOf) from from to to (the route's
// query text) as CSV rows: an opening row, one row per entry (the same rows
// as getStatement), a closing row, each as wide as the header. Every refusal
// (the period, too many entries) comes from here, before the first byte.
func (s *svc) statementCSV(ctx context.Context, from, to string) ([][]string, error) {
	st := ops.StoreOf(ctx)
	var a statementArgs
	a.StoreID = st.ID
	var err error
	if a.From, a.To, err = httpserver.ParsePeriod(from, to, maxStatementDays); err != nil {
		return nil, err
	}
	stmt, err := s.getStatement(ctx, &a)
	if err != nil {
		return nil, err
	}
	aed := func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
	rows := [][]string{{"", strconv.FormatInt(a.From, 10), "opening_balance", "Opening balance", "", aed(stmt.OpeningBalance)}}
	for _, e := range stmt.Entries {
		rows = append(rows, []string{strconv.FormatInt(e.Seq, 10), strconv.FormatInt(e.At, 10), e.Kind, e.Description, aed(e.Amount), aed(e.Balance),
			aed(e.AvailableChange), aed(e.PendingChange), aed(e.DisputedChange), aed(e.AvailableBalance), aed(e.PendingBalance), aed(e.DisputedBalance),
			e.Status, e.TransactionID, e.AdjustmentID, e.PayoutID, e.OrderID, e.RefundID, e.DisputeID})
	}
	rows = append(rows, []string{"", strconv.FormatInt(a.To, 10), "closing_balance", "Closing balance", "", aed(stmt.ClosingBalance)})
	for i := range rows { // every row as wide as the header
		rows[i] = append(rows[i], make([]string, len(statementCSVHeader)-len(rows[i]))...)
	}
	return rows, nil
}

// statementCSVRoute answers GET RouteStatementCSV?from=&to= (access
// StoreOwnerOrAdmin on the path's storeId, checked before it runs).
func (s *svc) statementCSVRoute(c *fiber.Ctx) error {
	return s.exports.StreamCSV(c, callerKey(c), "statement-"+ops.StoreOf(c.UserContext()).ID+".csv", statementCSVHeader, func() (httpserver.CSVRows, error) {
		rows, err := s.statementCSV(c.UserContext(), c.Query("from"), c.Query("to"))
		return httpserver.CSVRowsOf(rows), err
	})
}
