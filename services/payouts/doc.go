// Package payouts is the payouts-and-wallets context: one wallet per store, a
// ledger of wallet transactions that always sums to the balances, the
// earnings of delivered orders held and then released, store owners' payout
// requests and the administrators' workflow over them (approve, reject, mark
// processing, complete, mark failed), what a store's handover does to them,
// manual wallet adjustments and the payout statistics.
//
// Where things are:
//
//	ledger.go       the ledger arithmetic: transaction types, statuses and what they do to the balances
//	payoutstate.go  the payout status machine (the interface's section 3.1) and each move's effects
//	iban.go         the UAE IBAN rule (ISO 13616 mod 97)
//	stats.go        the statistics' definitions and the Dubai day and month
//	wallets.go      opening wallets, getWallet, listTransactions, adjustWalletBalance, reconcileWallet
//	earnings.go     the consumer (store.created, order.status_changed) and the release of held earnings
//	workflow.go     requestPayout, the administrators' moves, the work queue, statistics
//	handover.go     a store handed to another owner: its former owner's open payouts
//	totals.go       the running totals behind the statistics
//
// Every balance change is one transaction holding the change (a conditional
// update that cannot overdraw), its wallet transaction (unique source key),
// and its event in the outbox. The decisions behind all of it are in
// docs/adr (README.md, "Money, payouts and wallets").
package payouts
