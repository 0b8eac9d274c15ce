package payouts

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/metric"

	"github.com/gofiber/fiber/v2"

	"marketplace/libs/apperr"
	"marketplace/libs/contracts/catalog"
	"marketplace/libs/contracts/customers"
	"marketplace/libs/contracts/payments"
	contract "marketplace/libs/contracts/payouts"
	"marketplace/libs/contracts/platformconfig"
	"marketplace/libs/events"
	"marketplace/libs/httpserver"
	"marketplace/libs/money"
	"marketplace/libs/ops"
	"marketplace/libs/service"
	"marketplace/libs/store"
	"marketplace/services/payouts/domain"
	"marketplace/services/payouts/storage"
)

// Module is the payouts-and-wallets service.
var Module = service.Module{
	Name: contract.Service, Build: build,
	Publishes: []string{contract.TopicPayouts, contract.TopicWallets},
	Consumes:  []string{catalog.Topic, customers.TopicOrders, payments.Topic},
	Calls:     []string{catalog.Service, platformconfig.Service, customers.Service, payments.Service},
	Settings:  func() any { return &Settings{} },
}

// Settings are the payouts service's own, from the environment.
type Settings struct {
	// ReleaseInterval is how often held earnings that are due move from the
	// pending to the available balance.
	ReleaseInterval time.Duration `env:"PAYOUTS_RELEASE_INTERVAL" default:"1m"`
	// CSVMaxRows caps the rows of a payouts or wallets CSV export (larger:
	// FAILED_PRECONDITION too_many_rows).
	CSVMaxRows int `env:"PAYOUTS_CSV_MAX_ROWS" default:"100000"`
}

// Validate refuses a cap that would turn the export's limit off by accident
// (as the customers service's ORDERS_EXPORT_MAX_ROWS): 1 to
// defaultMaxCSVRows.
func (s *Settings) Validate() error {
	if s.CSVMaxRows < 1 || s.CSVMaxRows > defaultMaxCSVRows {
		return fmt.Errorf("PAYOUTS_CSV_MAX_ROWS must be 1 to %d, not %d", defaultMaxCSVRows, s.CSVMaxRows)
	}
	return nil
}

// GroupID is the consumer group of the service's event consumer.
const GroupID = "payouts"

type svc struct {
	env service.Env
	// the repositories (storage)
	wallets     *storage.Wallets
	ledger      *storage.Ledger
	payouts     *storage.Payouts
	adjustments *storage.Adjustments
	totals      *storage.Totals
	orders      *storage.Orders
	statement   *storage.Statement
	fees        *storage.PlatformFees
	accounts    *storage.Accounts
	now         func() time.Time
	catalog     *catalog.Client
	// storeOf looks a store up in the catalog (nil when it does not exist);
	// a stub in unit tests.
	storeOf func(ctx context.Context, id string) (*catalog.Store, error)
	// storeRef is the catalog's store as the access checks read it (the
	// statement's CSV route checks owner-or-admin itself); a stub in unit
	// tests.
	storeRef func(ctx context.Context, id string) (*ops.StoreRef, error)
	status   *events.ConsumerStatus
	interval time.Duration
	// maxCSVRows caps an export's rows (defaultMaxCSVRows; lowered in tests).
	maxCSVRows int
	// exports: one CSV export per caller at a time (ADR 0157).
	exports httpserver.ExportSlots
	// settings reads the wallet settings in force (the platform
	// configuration service; a stub in unit tests).
	settings func(ctx context.Context) (*domain.WalletSettings, error)
	// lastSettings are the last wallet settings read, for earnings credited
	// while the configuration service cannot answer.
	lastSettings atomic.Pointer[domain.WalletSettings]
	// contacts reads stores' names and owners' contacts from the catalog,
	// uncached (contacts.go); a stub in unit tests.
	contacts func(ctx context.Context, storeIDs []string) (map[string]catalog.StoreContact, error)
	// orderFacts asks the customers service about orders (confirm.go); a
	// stub in unit tests.
	orderFacts func(ctx context.Context, orderIDs []string) (map[string]customers.OrderFacts, error)
	// createTransfer, voidTransfer and transferFacts ask the payments
	// service for a payout's transfer through the processor, to void it
	// before a move by hand, and about transfers by payout id
	// (transfers.go); stubs in unit tests.
	createTransfer func(ctx context.Context, args payments.TransferArgs) (*payments.Transfer, error)
	voidTransfer   func(ctx context.Context, payoutID string) (*payments.TransferVoid, error)
	transferFacts  func(ctx context.Context, payoutIDs []string) (map[string]payments.Transfer, error)
	// moneyFacts asks the payments service about disputes (disputes.go); a
	// stub in unit tests.
	moneyFacts func(ctx context.Context, args payments.MoneyFactsArgs) (*payments.MoneyFacts, error)
	// moneyTotals asks the customers service for its sums of the orders'
	// money (platform.go); a stub in unit tests.
	moneyTotals func(ctx context.Context) (*customers.MoneyTotals, error)
	// unconfirmed counts delivered-order events the customers service did
	// not confirm (confirm.go).
	unconfirmed metric.Int64Counter
	// unconfirmedStores counts store events the catalog did not confirm
	// (confirm.go).
	unconfirmedStores metric.Int64Counter
}

func build(_ context.Context, env service.Env) (*service.Built, error) {
	settings, _ := env.Settings.(*Settings)
	if settings == nil {
		settings = &Settings{ReleaseInterval: time.Minute}
	}
	s := newSvc(env, settings.ReleaseInterval)
	if settings.CSVMaxRows > 0 {
		s.maxCSVRows = settings.CSVMaxRows
	}
	pc := platformconfig.NewClient(env.Calls)
	s.settings = func(ctx context.Context) (*domain.WalletSettings, error) {
		w, err := pc.WalletSettings(ctx)
		if err != nil {
			return nil, err
		}
		return settingsFromAED(w)
	}
	b := &service.Built{
		Registry:   s.registry(),
		Indexes:    append(storage.Indexes(), events.ConsumerIndexes()...),
		Background: []func(context.Context) error{s.consume, s.releaseLoop, s.carryForward},
		Checks:     []httpserver.Check{{Name: "consumer:" + GroupID, Fn: s.status.Check}},
		Routes: []ops.Route{{Method: fiber.MethodGet, Path: RouteStatementCSV, Access: ops.StoreOwnerOrAdmin, StoreParam: "storeId", Handler: s.statementCSVRoute,
			Summary: "The store's wallet statement from `from` to `to` (query, epoch ms, at most 366 days) as CSV: the rows of stores.wallet.getStatement between an opening and a closing balance row. For the store's owner or an administrator."}},
	}
	b.Routes = append(b.Routes, s.exportRoutes()...)
	return b, nil
}

func newSvc(env service.Env, interval time.Duration) *svc {
	now := env.Now
	if now == nil {
		now = time.Now
	}
	if interval <= 0 {
		interval = time.Minute
	}
	s := &svc{env: env, now: now, catalog: catalog.NewClient(env.Calls), status: events.NewConsumerStatus(0), interval: interval, maxCSVRows: defaultMaxCSVRows}
	r := storage.New(env.DB)
	s.wallets, s.ledger, s.payouts, s.adjustments, s.totals = r.Wallets, r.Ledger, r.Payouts, r.Adjustments, r.Totals
	s.orders, s.statement, s.fees, s.accounts = r.Orders, r.Statement, r.Fees, r.Accounts
	s.storeOf = s.catalog.Store
	s.storeRef = s.catalog.StoreRef
	s.orderFacts = customers.NewClient(env.Calls).OrderFacts
	s.moneyTotals = customers.NewClient(env.Calls).MoneyTotals
	s.moneyFacts = payments.NewClient(env.Calls).MoneyFacts
	s.contacts = s.catalog.StoreContacts
	pay := payments.NewClient(env.Calls)
	s.createTransfer = pay.CreateTransfer
	s.voidTransfer = func(ctx context.Context, payoutID string) (*payments.TransferVoid, error) {
		return pay.VoidTransfer(ctx, payments.VoidTransferArgs{PayoutID: payoutID})
	}
	s.transferFacts = func(ctx context.Context, payoutIDs []string) (map[string]payments.Transfer, error) {
		f, err := pay.MoneyFacts(ctx, payments.MoneyFactsArgs{PayoutIDs: payoutIDs})
		if err != nil {
			return nil, err
		}
		return f.Transfers, nil
	}
	s.unconfirmed = newUnconfirmedCounter()
	s.unconfirmedStores = newUnconfirmedStoresCounter()
	return s
}

func settingsFromAED(w *platformconfig.WalletSettings) (*domain.WalletSettings, error) {
	var out domain.WalletSettings
	for _, f := range []struct {
		dst *money.Fils
		v   float64
	}{{&out.MinPayout, w.MinPayoutAmount}, {&out.MaxPayout, w.MaxPayoutAmount}, {&out.ProcessingFee, w.PayoutProcessingFee}} {
		v, err := money.FromAED(f.v)
		if err != nil {
			return nil, apperr.Wrap(err, apperr.Internal, "the platform configuration returned an unreadable amount")
		}
		*f.dst = v
	}
	out.HoldDays = w.PendingBalanceHoldDays
	// A configuration service older than disputes answers no dispute fee:
	// the defaults then (docs/adr/0147).
	out.DisputeFee, out.DisputeFeeChargedTo = domain.DefaultWalletSettings.DisputeFee, domain.DefaultWalletSettings.DisputeFeeChargedTo
	if w.DisputeFee != nil {
		fee, err := money.FromAED(*w.DisputeFee)
		if err != nil {
			return nil, apperr.Wrap(err, apperr.Internal, "the platform configuration returned an unreadable dispute fee")
		}
		out.DisputeFee = fee
	}
	if w.DisputeFeeChargedTo != "" {
		out.DisputeFeeChargedTo = w.DisputeFeeChargedTo
	}
	return &out, nil
}

func (s *svc) registry() *ops.Registry {
	return ops.NewRegistry(contract.Service,
		// The store's owner.
		ops.NewMutation("stores.payouts.requestPayout", ops.StoreOwner,
			"Request a payout of the store's available balance to a UAE bank account; returns the payout id. The amount lies between the configuration's minPayoutAmount and maxPayoutAmount (defaults 100 and 50,000 AED) and exceeds the payoutProcessingFee (default 2 AED), which is kept from it; outside them, FAILED_PRECONDITION with the settings and the available balance in its message and details. Earnings reach the available balance pendingBalanceHoldDays (default 7) after delivery; until then a request they would cover is FAILED_PRECONDITION insufficient_balance, saying when the oldest held earning is released (details.nextReleaseAt). The amount leaves the available balance at once; the payout then goes requested, approved, processing, completed (or cancelled when rejected, failed). saveBankAccount: true also saves bankDetails as the store's bank account (stores.payouts.setBankAccount), in the same transaction.", s.requestPayout, ops.StoreArg("storeId")),
		ops.NewQuery("stores.payouts.getBankAccount", ops.StoreOwner,
			"The store's saved payout bank account (IBAN, ibanLast4, bankName, accountHolderName, updatedAt), null when none is saved or it was saved by someone who no longer owns the store (after a handover the former owner's account is never offered).", s.getBankAccount, ops.StoreArg("storeId")),
		ops.NewMutation("stores.payouts.setBankAccount", ops.StoreOwner,
			"Save the store's payout bank account (bankDetails as requestPayout's; the IBAN a valid UAE IBAN, else INVALID_ARGUMENT at bankDetails.IBAN); returns it. The store's owner is told (event payouts.bank_account_changed). A save whose access check the store's handover to another owner overtook is PERMISSION_DENIED (details.reason store_handed_over), as requestPayout.", s.setBankAccount, ops.StoreArg("storeId")),
		ops.NewQuery("stores.payouts.listPayouts", ops.StoreOwnerOrAdmin,
			"The store's payouts (paginated), with their history: of one status when given, requested from `from` to `to` when given (epoch ms, inclusive; at most 366 days, else INVALID_ARGUMENT range_too_large); sort newest (default), oldest, amount_desc or amount_asc (by requested amount; not with a date range: INVALID_ARGUMENT sort_with_range).", s.listPayouts, ops.StoreArg("storeId")),
		ops.NewQuery("stores.payouts.countPayouts", ops.StoreOwnerOrAdmin,
			"How many payouts stores.payouts.listPayouts lists with the same filters (status, from, to): count, at most 10,000 (then capped is true).", s.countPayouts, ops.StoreArg("storeId")),
		ops.NewQuery("stores.wallet.getWallet", ops.StoreOwnerOrAdmin,
			"The store's wallet: balances and statistics. availableBalance may be negative after refunds or lost disputes (a debt, also as debt: later releases repay it first, and no payout can be requested meanwhile); disputedBalance is the store's share of open disputes.", s.getWallet, ops.StoreArg("storeId")),
		ops.NewQuery("stores.wallet.getStatement", ops.StoreOwnerOrAdmin,
			"The store's wallet statement from `from` to `to` (epoch ms, inclusive; at most 366 days, else INVALID_ARGUMENT range_too_large; at most 5,000 entries, else FAILED_PRECONDITION too_many_entries): openingBalance, every change of the balances in order (earnings, releases, adjustments, payouts, refunds, disputes) with its signed amount and the running balance (available + pending + disputed, which may be negative: a debt), and closingBalance, in AED. A payout's entry shows the payout's status now. The same as CSV: GET /api/stores/{storeId}/statement.csv?from=&to=.", s.getStatement, ops.StoreArg("storeId")),
		ops.NewQuery("stores.wallet.getUpcomingReleases", ops.StoreOwnerOrAdmin,
			"What the store's pending balance will release, by Asia/Dubai calendar day of the release: releases [{day (YYYY-MM-DD), at (epoch ms of the earliest release that day), amount (AED still held of the earnings released that day, after early releases and deductions), count}], earliest day first. At most 5,000 held earnings are read, oldest first: more is true when there are others.", s.getUpcomingReleases, ops.StoreArg("storeId")),
		ops.NewQuery("stores.wallet.listStatementEntries", ops.StoreOwnerOrAdmin,
			"The store's statement entries, newest first (paginated): every change of its balances as stores.wallet.getStatement gives it (kind, signed changes of available, pending and disputed, the balances after it and their sum, the running balance; a payout's entry with the payout's status now), an earning's with releaseAt (when it is released). An administrator's early release (move_pending_to_available) is an entry too. To administrators, an adjustment's entry names who made it: adjustedBy (the administrator's id) and adjustedByName (their name, when their token stated one); the store's owner gets neither (docs/adr/0168). Optional kind (an entry kind), orderId (the entries of one order), from and to (the entries made then: epoch ms, inclusive; at most 366 days, else INVALID_ARGUMENT range_too_large) and sort (newest, the default, or oldest).", s.listStatementEntries, ops.StoreArg("storeId")),
		ops.NewQuery("stores.wallet.listTransactions", ops.StoreOwnerOrAdmin,
			"The store's wallet transactions, newest first (paginated). metadata is for administrators only: an adjustment's adminUserId and, when the administrator's token stated a name, adminName (docs/adr/0168).", s.listTransactions, ops.StoreArg("storeId")),
		// The administrators.
		ops.NewQuery("admins.payoutOperations.getPendingPayouts", ops.Admin,
			"Open payouts (requested, approved, processing), oldest request first. A payout whose store was handed to another owner after its request (admins.catalog.updateStore) is flagged: handedOver, and handedOverAt once this service has heard of the handover.", s.getPendingPayouts),
		ops.NewQuery("admins.payoutOperations.listPayouts", ops.Admin,
			"Every payout (paginated), of one status (or open: requested, approved or processing) and one store when given, requested from `from` to `to` (epoch ms, inclusive) when given; sort newest (default), oldest, amount_desc or amount_asc (by requested amount; not with a date range: INVALID_ARGUMENT sort_with_range). With the store's owner and wallet figures, as getPayout.", s.listAllPayouts),
		ops.NewQuery("admins.payoutOperations.countPayouts", ops.Admin,
			"How many payouts admins.payoutOperations.listPayouts lists with the same filters (status or open, storeId, from, to; a range of at most 366 days, else INVALID_ARGUMENT range_too_large): count, at most 10,000 (then capped is true).", s.countAllPayouts),
		ops.NewQuery("admins.payoutOperations.searchPayouts", ops.Admin,
			fmt.Sprintf("Payouts (administrators) by query (%d to %d characters, else INVALID_ARGUMENT): a payout's id, the end of one (its short form, the last %d hex digits, with or without #), or any part of a transaction reference (any case), among the newest %d payouts by request date (partial: true when there are older ones; a whole id finds any payout); and the newest payouts of each of storeIds (at most %d: stores found by name). At most %d, each with matchedBy (id, reference or store).",
				domain.MinSearchLength, domain.MaxSearchLength, domain.ShortIDLength, domain.MaxSearchScan, domain.MaxSearchStores, domain.MaxSearchHits), s.searchPayouts),
		ops.NewMutation("admins.payoutOperations.approvePayouts", ops.Admin,
			"Approve 1 to 50 requested payouts (payoutIds, each once) in one transaction: all or none. Whose store each payout's is now is asked first (the catalog unreachable: UNAVAILABLE, nothing changed); a payout of a store handed over since its request needs its id in confirmHandover, as approvePayout's confirmHandover. Any payout refused is FAILED_PRECONDITION bulk_refused and changes nothing: details.refused lists each refused payout {payoutId, code, reason, message}. Returns {payouts (after the move, in the order given), total (their requested amounts, AED)}.", s.approvePayouts),
		ops.NewMutation("admins.payoutOperations.rejectPayouts", ops.Admin,
			"Reject 1 to 50 requested payouts (payoutIds, each once) with one rejectionReason, in one transaction: all or none (their amounts return to the available balances). Any payout refused is FAILED_PRECONDITION bulk_refused and changes nothing: details.refused lists each {payoutId, code, reason, message}. Returns {payouts, total} as approvePayouts.", s.rejectPayouts),
		ops.NewQuery("admins.payoutOperations.listWallets", ops.Admin,
			"Every store's wallet (paginated), sorted by available_desc (default), available_asc, pending_desc|asc, disputed_desc|asc or updated_desc|asc; inDebt: only the wallets whose available balance is below zero (sorted by available balance). Each with its store's name and owner (the catalog's now, else the wallet's copy) and updatedAt.", s.listWallets),
		ops.NewQuery("admins.payoutOperations.getWalletTotals", ops.Admin,
			"Every wallet's figures summed (AED): wallets, availableBalance, pendingBalance, disputedBalance, debt (the sum of the debts) and inDebt (how many), totalEarnings, totalPayouts, totalOrders. Reads every wallet.", s.getWalletTotals),
		ops.NewQuery("admins.payoutOperations.getPayoutStatistics", ops.Admin,
			"Payout figures: open, processing, completed today and this month (Asia/Dubai), top stores.", s.getPayoutStatistics),
		ops.NewQuery("admins.payoutOperations.getPayout", ops.Admin,
			"One payout with everything recorded on it.", s.getPayout),
		ops.NewMutation("admins.payoutOperations.approvePayout", ops.Admin,
			"Approve a requested payout (requested to approved); returns the payout. A payout of a store handed to another owner since its request (handedOver) is FAILED_PRECONDITION (details.reason store_handed_over) unless confirmHandover is true: its bank account is the former owner's.", s.approvePayout),
		ops.NewMutation("admins.payoutOperations.rejectPayout", ops.Admin,
			"Reject a requested payout (its amount returns to the available balance); returns the payout.", s.rejectPayout),
		ops.NewMutation("admins.payoutOperations.markPayoutAsProcessing", ops.Admin,
			"Mark an approved payout as being paid (approved to processing); returns the payout. Needs confirmHandover: true for a payout of a store handed over since its request, as approvePayout.", s.markPayoutAsProcessing),
		ops.NewMutation("admins.payoutOperations.completePayout", ops.Admin,
			"Complete a payout being paid (processing to completed); returns the payout. Needs confirmHandover: true for a payout of a store handed over since its request, as approvePayout. A payout sent through the processor whose transfer is pending is FAILED_PRECONDITION processor_transfer_pending (settled: processor_transfer_settled): the processor's outcome settles it.", s.completePayout),
		ops.NewMutation("admins.payoutOperations.markPayoutAsFailed", ops.Admin,
			"Mark an approved or processing payout failed, optionally restoring its amount; returns the payout. A payout sent through the processor whose transfer is pending is FAILED_PRECONDITION processor_transfer_pending (settled: processor_transfer_settled): the processor's outcome settles it.", s.markPayoutAsFailed),
		ops.NewMutation("admins.payoutOperations.sendPayoutThroughProcessor", ops.Admin,
			"Send an approved payout's net amount to the store's bank account (the payout's bankDetails) through the payment processor, and mark it processing (method third_party, the processor's transfer id as transactionReference); returns the payout. The processor's outcome completes the payout, or fails it with its amount restored to the available balance (by \"processor\" in its history). Calling again is safe: the same transfer is sent once. The processor refusing the transfer is FAILED_PRECONDITION (details.reason processor_refused; nothing sent), unreachable UNAVAILABLE (call again). Needs confirmHandover: true for a payout of a store handed over since its request, as markPayoutAsProcessing.", s.sendPayoutThroughProcessor),
		ops.NewMutation("admins.payoutOperations.adjustWalletBalance", ops.Admin,
			"Adjust a store's wallet, with a reason kept in the ledger; returns the wallet. The administrator is recorded by adminUserId and, when it is the caller and their token states a name, by that name (adminName on the transaction's metadata and the wallet.adjusted event), which administrators alone read. move_pending_to_available releases held earnings before their hold (pendingBalanceHoldDays) is over, oldest first: in development, what makes a new store's earnings payable at once.", s.adjustWalletBalance),
		ops.NewQuery("admins.payoutOperations.reconcileWallet", ops.Admin,
			"Recompute a store's wallet from its ledger and compare it with the balances.", s.reconcileWallet),
		ops.NewMutation("admins.payoutOperations.releaseDueEarnings", ops.Admin,
			"Release now the held earnings whose hold is over (the release loop does it every minute).", s.releaseDueEarnings),
		ops.NewQuery("admins.finance.reconcilePlatform", ops.Admin,
			"Prove that no money went missing, over every store: captured − refunded − disputesLost + otherCurrencyDelivered = notDelivered + paymentDifferences − excess + commissionKept + storeBalances + openPayouts + paidOut + payoutFees + failedKept + disputeFeesCharged − adjustmentsNet, computed in fils. Answers balanced, difference (left − right) and every term, in AED (terms) and in fils (termsFils, differenceFils); disputeFeesBorneByPlatform is listed outside the sum. The sums of the customers service and of this service are not one snapshot: the equation holds at quiescence, once every refund, dispute, delivery and transfer event has been consumed (asOf: when it was read). Orders paid in another currency are counted apart (otherCurrencyOrders); the AED total of those delivered, which their store was credited from, is otherCurrencyDelivered. A full scan of the orders, wallets, payouts and ledger: an administrator's check.", s.reconcilePlatform),
	).WithResolvers(ops.Resolvers{Store: s.catalog.StoreRef})
}

// tx runs fn in one transaction (DB.Tx: inside a keyed mutation, its
// DB.Joined one), with the repositories' calls inside fn in it (a DB.Tx
// with a transaction's context joins it). It runs fn again, at most store.ContentionAttempts times,
// when a compare-and-set missed (store.ErrConflict) or a concurrent first
// upsert of the same record (a wallet, a running total) made it fail on a
// unique index, as can happen on MongoDB.
func (s *svc) tx(ctx context.Context, what string, fn func(ctx context.Context) error) error {
	_, err := store.Retry(ctx, what, func(ctx context.Context) (struct{}, error) {
		err := s.env.DB.Tx(ctx, fn)
		if store.IsDuplicate(err) {
			return struct{}{}, store.ErrConflict
		}
		return struct{}{}, err
	})
	return err
}

// CheckUAEIBAN returns the normalised IBAN, or why it is not a valid UAE
// IBAN (domain.CheckUAEIBAN).
func CheckUAEIBAN(s string) (string, error) { return domain.CheckUAEIBAN(s) }

// nowMs is the service clock in epoch milliseconds.
func (s *svc) nowMs() int64 { return s.now().UnixMilli() }
