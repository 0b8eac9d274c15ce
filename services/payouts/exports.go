package payouts

// CSV exports of payouts and wallets (docs/adr/0163), streamed with
// httpserver.StreamCSV: the period (at most 366 days) and the row cap
// (FAILED_PRECONDITION too_many_rows, counted on the same index the rows
// are read on) are checked before the first byte; the rows are then read
// by keyset pages, never held whole. Each row is the list operation's item
// (admins.payoutOperations.listPayouts, listWallets) for the same filters.

import (
	"context"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"marketplace/libs/apperr"
	"marketplace/libs/httpserver"
	"marketplace/libs/ids"
	"marketplace/libs/money"
	"marketplace/libs/ops"
	"marketplace/libs/page"
	"marketplace/services/payouts/domain"
	"marketplace/services/payouts/storage"
)

// The export routes.
const (
	RouteStorePayoutsCSV = "/api/stores/:storeId/payouts.csv"
	RouteAdminPayoutsCSV = "/api/admin/payouts.csv"
	RouteAdminWalletsCSV = "/api/admin/wallets.csv"
)

// defaultMaxCSVRows caps an export's rows (svc.maxCSVRows; lowered in tests).
const defaultMaxCSVRows = 100_000

// exportTimeout bounds the reading of an export's rows after its answer
// started.
const exportTimeout = 5 * time.Minute

var payoutsCSVHeader = []string{"payoutId", "requestDate", "storeId", "storeName", "status", "requestedAmount", "processingFee", "netAmount",
	"IBAN", "bankName", "accountHolderName", "requestedBy", "approvedDate", "completedDate", "rejectionReason", "failureReason"}

var walletsCSVHeader = []string{"walletId", "storeId", "storeName", "ownerUserId", "availableBalance", "pendingBalance", "disputedBalance", "debt",
	"totalEarnings", "totalPayouts", "totalOrders", "updatedAt"}

func aed(f money.Fils) string { return strconv.FormatFloat(f.AED(), 'f', 2, 64) }

func msText(p *int64) string {
	if p == nil {
		return ""
	}
	return strconv.FormatInt(*p, 10)
}

func payoutRow(p *domain.Payout) []string {
	return []string{p.ID, strconv.FormatInt(p.RequestDate, 10), p.StoreID, p.StoreName, p.Status, aed(p.RequestedAmount), aed(p.ProcessingFee),
		aed(p.NetAmount), p.BankDetails.IBAN, p.BankDetails.BankName, p.BankDetails.AccountHolderName, p.RequestedBy, msText(p.ApprovedDate),
		msText(p.CompletedDate), p.RejectionReason, p.FailureReason}
}

// payoutsExport checks a payouts export (period, filters, row cap) and
// returns its rows, to run after the answer started. storeID is the
// route's store ("" for all stores, then storeText filters).
func (s *svc) payoutsExport(ctx context.Context, storeID, storeText, statusText, from, to string) (httpserver.CSVRows, error) {
	f := storage.PayoutFilter{}
	fromMs, toMs, err := httpserver.ParsePeriod(from, to, maxStatementDays)
	if err != nil {
		return nil, err
	}
	f.From, f.To = &fromMs, &toMs
	if storeID == "" && storeText != "" {
		if !ids.Valid("stores", storeText) {
			return nil, apperr.Invalid("storeId", "is not a store id")
		}
		storeID = storeText
	}
	if storeID != "" {
		f.StoreID = &storeID
	}
	if statusText != "" {
		switch statusText {
		case domain.StatusRequested, domain.StatusApproved, domain.StatusProcessing, domain.StatusCompleted, domain.StatusCancelled, domain.StatusFailed:
			f.Status = &statusText
		default:
			return nil, apperr.Invalid("status", "must be one of requested, approved, processing, completed, cancelled, failed")
		}
	}
	count := func(max int64) (int64, error) { return s.payouts.CountPayouts(ctx, f, max+1) }
	return httpserver.CountedRows(ctx, int64(s.maxCSVRows), exportTimeout, count, func(ctx context.Context, row func(...string) error) error {
		return page.Each(func(o page.Opts) (page.Result[domain.Payout], error) {
			return s.payouts.ListPayouts(ctx, f, "requestDate", true, o)
		},
			func(ps []domain.Payout) error {
				for i := range ps {
					if err := row(payoutRow(&ps[i])...); err != nil {
						return err
					}
				}
				return nil
			})
	})
}

// walletsExport checks the wallets export (row cap) and returns its rows:
// every wallet in the order of its id, named by the catalog (else the
// wallet's copy). The id never changes: a balance that moves while the
// export runs (an earning, a payout) neither skips a wallet nor writes it
// twice, as paging on the balance would (ADR 0175).
func (s *svc) walletsExport(ctx context.Context) (httpserver.CSVRows, error) {
	count := func(max int64) (int64, error) { return s.wallets.CountAll(ctx, max+1) }
	return httpserver.CountedRows(ctx, int64(s.maxCSVRows), exportTimeout, count, func(ctx context.Context, row func(...string) error) error {
		return page.Each(func(o page.Opts) (page.Result[domain.Wallet], error) { return s.wallets.ListWalletsByID(ctx, o) }, func(ws []domain.Wallet) error {
			return s.walletRows(ctx, ws, row)
		})
	})
}

// walletRows writes the wallets' rows, named by the catalog (else the
// wallet's copy).
func (s *svc) walletRows(ctx context.Context, ws []domain.Wallet, row func(...string) error) error {
	storeIDs := make([]string, len(ws))
	for i, w := range ws {
		storeIDs[i] = w.StoreID
	}
	cctx, ccancel := context.WithTimeout(ctx, contactsTimeout)
	contacts, cerr := s.contacts(cctx, storeIDs)
	ccancel()
	for i := range ws {
		w := &ws[i]
		name, owner := w.StoreName, w.OwnerUserID
		if c, ok := contacts[w.StoreID]; ok && cerr == nil {
			name, owner = c.Name, c.OwnerUserID
		}
		if err := row(w.ID, w.StoreID, name, owner, aed(w.AvailableBalance), aed(w.PendingBalance), aed(w.DisputedBalance), aed(w.Debt()),
			aed(w.TotalEarnings), aed(w.TotalPayouts), strconv.FormatInt(w.TotalOrders, 10), strconv.FormatInt(w.UpdatedAt, 10)); err != nil {
			return err
		}
	}
	return nil
}

// callerKey is the key of the caller's export slot (svc.exports): one
// export per caller at a time (ADR 0157).
func callerKey(c *fiber.Ctx) string { return ops.Caller(c.UserContext()).Sub }

func (s *svc) storePayoutsCSVRoute(c *fiber.Ctx) error {
	st := ops.StoreOf(c.UserContext())
	return s.exports.StreamCSV(c, callerKey(c), "payouts-"+st.ID+".csv", payoutsCSVHeader, func() (httpserver.CSVRows, error) {
		return s.payoutsExport(c.UserContext(), st.ID, "", c.Query("status"), c.Query("from"), c.Query("to"))
	})
}

func (s *svc) adminPayoutsCSVRoute(c *fiber.Ctx) error {
	return s.exports.StreamCSV(c, callerKey(c), "payouts.csv", payoutsCSVHeader, func() (httpserver.CSVRows, error) {
		return s.payoutsExport(c.UserContext(), "", c.Query("storeId"), c.Query("status"), c.Query("from"), c.Query("to"))
	})
}

func (s *svc) adminWalletsCSVRoute(c *fiber.Ctx) error {
	return s.exports.StreamCSV(c, callerKey(c), "wallets.csv", walletsCSVHeader, func() (httpserver.CSVRows, error) {
		return s.walletsExport(c.UserContext())
	})
}

// exportRoutes are the payouts and wallets exports' routes.
func (s *svc) exportRoutes() []ops.Route {
	return []ops.Route{
		{Method: fiber.MethodGet, Path: RouteStorePayoutsCSV, Access: ops.StoreOwnerOrAdmin, StoreParam: "storeId", Handler: s.storePayoutsCSVRoute,
			Summary: "The store's payouts requested from `from` to `to` (query, epoch ms, inclusive, at most 366 days), of one `status` when given, newest first, as CSV: the rows of admins.payoutOperations.listPayouts for the same filters. At most 100,000 rows (else FAILED_PRECONDITION too_many_rows). For the store's owner or an administrator."},
		{Method: fiber.MethodGet, Path: RouteAdminPayoutsCSV, Access: ops.Admin, Handler: s.adminPayoutsCSVRoute,
			Summary: "Every payout requested from `from` to `to` (query, epoch ms, inclusive, at most 366 days), of one `status` and one `storeId` when given, newest first, as CSV: the rows of admins.payoutOperations.listPayouts for the same filters. At most 100,000 rows (else FAILED_PRECONDITION too_many_rows). For administrators."},
		{Method: fiber.MethodGet, Path: RouteAdminWalletsCSV, Access: ops.Admin, Handler: s.adminWalletsCSVRoute,
			Summary: "Every store's wallet, in the order of the wallets' ids (stable while balances change), as CSV: the items of admins.payoutOperations.listWallets, with debt, totals and updatedAt. At most 100,000 rows (else FAILED_PRECONDITION too_many_rows). For administrators."},
	}
}
