// Package payouts is the payouts-and-wallets context: one wallet per store, a
// ledger of wallet transactions that always sums to the balances, the
// earnings of delivered orders held and then released, store owners' payout
// requests and the administrators' workflow over them (approve, reject, mark
// processing, complete, mark failed), what a store's handover does to them,
// payouts sent through the processor (sendPayoutThroughProcessor, settled by
// the payments service's transfer events), manual wallet adjustments and the
// payout statistics.
//
// It is laid out as every service is (README.md lists its rules and the
// tests that hold them):
//
//	domain/    the entities and their rules, without a database: Wallet
//	           (Change: no overdraft; Credit; SettleMove), Transaction (the
//	           ledger: Effect, Recompute, Reconcile), Payout (Apply: the moves
//	           of section 3.1 and the handover's confirmation; FlagHandover),
//	           earnings (NewEarning, Releasable, TakeHeld), the UAE IBAN and
//	           the statistics
//	storage/   the repositories, the only code with filters, updates, indexes
//	           and collection calls
//	*.go       the operations: payouts.go (module, registry), wallets.go
//	           (getWallet, listTransactions, adjustWalletBalance,
//	           reconcileWallet), workflow.go (requestPayout, the moves, the
//	           work queue, statistics), earnings.go (the consumer, the release
//	           of held earnings), confirm.go (asking the customers service and
//	           the catalog what an event claims), handover.go, transfers.go
//	           (payouts through the processor), platform.go (the platform's
//	           reconciliation), contacts.go, view.go (the
//	           answers' shapes)
//
// Every balance change is one transaction holding the change (the domain's
// rule, saved with a compare-and-set on the wallet as read), its wallet
// transaction (unique source key), and its event in the outbox. The
// decisions behind it are in docs/adr (README.md, "Money, payouts and
// wallets").
package payouts
