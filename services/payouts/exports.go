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
	max := s.maxCSVRows
	n, err := s.payouts.CountPayouts(ctx, f, int64(max)+1)
	if err != nil {
		return nil, err
	}
	if n > int64(max) {
		return nil, httpserver.TooManyRows(max)
	}
	return func(row func(...string) error) error {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), exportTimeout)
		defer cancel()
		o := page.Opts{NumItems: page.MaxItems}
		for {
			r, err := s.payouts.ListPayouts(ctx, f, "requestDate", true, o)
			if err != nil {
				return err
			}
			for i := range r.Page {
				if err := row(payoutRow(&r.Page[i])...); err != nil {
					return err
				}
			}
			if r.IsDone {
				return nil
			}
			o.Cursor = &r.ContinueCursor
		}
	}, nil
}

// walletsExport checks the wallets export (row cap) and returns its rows:
// every wallet, highest available balance first, named by the catalog
// (else the wallet's copy).
func (s *svc) walletsExport(ctx context.Context) (httpserver.CSVRows, error) {
	max := s.maxCSVRows
	n, err := s.wallets.CountAll(ctx, int64(max)+1)
	if err != nil {
		return nil, err
	}
	if n > int64(max) {
		return nil, httpserver.TooManyRows(max)
	}
	return func(row func(...string) error) error {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), exportTimeout)
		defer cancel()
		o := page.Opts{NumItems: page.MaxItems}
		for {
			r, err := s.wallets.ListWallets(ctx, false, "availableBalance", true, o)
			if err != nil {
				return err
			}
			storeIDs := make([]string, len(r.Page))
			for i, w := range r.Page {
				storeIDs[i] = w.StoreID
			}
			cctx, ccancel := context.WithTimeout(ctx, contactsTimeout)
			contacts, cerr := s.contacts(cctx, storeIDs)
			ccancel()
			for i := range r.Page {
				w := &r.Page[i]
				name, owner := w.StoreName, w.OwnerUserID
				if c, ok := contacts[w.StoreID]; ok && cerr == nil {
					name, owner = c.Name, c.OwnerUserID
				}
				if err := row(w.ID, w.StoreID, name, owner, aed(w.AvailableBalance), aed(w.PendingBalance), aed(w.DisputedBalance), aed(w.Debt()),
					aed(w.TotalEarnings), aed(w.TotalPayouts), strconv.FormatInt(w.TotalOrders, 10), strconv.FormatInt(w.UpdatedAt, 10)); err != nil {
					return err
				}
			}
			if r.IsDone {
				return nil
			}
			o.Cursor = &r.ContinueCursor
		}
	}, nil
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
			Summary: "Every store's wallet, highest available balance first, as CSV: the rows of admins.payoutOperations.listWallets (sort available_desc), with debt, totals and updatedAt. At most 100,000 rows (else FAILED_PRECONDITION too_many_rows). For administrators."},
	}
}
