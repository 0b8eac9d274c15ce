package main

import (
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
)

// The wallet model can fail: hand-written histories that some order of the
// operations explains pass, and each way of breaking a rule of the wallet
// (an overdraft, a value never written, a stale read, a refusal the state
// does not justify, a move off the table) is rejected, with porcupine's view
// of the history written out.

// hop is one operation of a hand-written history: on store "s1" unless in
// names another, called at call and answered at ret (-1: never answered).
func hop(client int, call, ret int64, in walletInput, out walletOutput) porcupine.Operation {
	if in.Store == "" {
		in.Store = "s1"
	}
	if ret < 0 {
		return porcupine.Operation{ClientId: client, Input: in, Call: call, Output: walletOutput{}, Return: math.MaxInt64}
	}
	out.Answered = true
	return porcupine.Operation{ClientId: client, Input: in, Call: call, Output: out, Return: ret}
}

func adjustOp(kind string, amount int64) walletInput {
	return walletInput{Kind: opAdjust, Adjust: kind, Amount: amount}
}

func wallet(available, pending int64) walletOutput {
	return walletOutput{Wallet: &walletFigures{Available: available, Pending: pending}}
}

func readOp() walletInput { return walletInput{Kind: opRead} }

func wallet3(available, pending, disputed int64) walletOutput {
	return walletOutput{Wallet: &walletFigures{Available: available, Pending: pending, Disputed: disputed}}
}

// applied is an effect that surely happened between call (its trigger's
// call) and ret (when the test saw it settled).
func applied(client int, call, ret int64, in walletInput) porcupine.Operation {
	if in.Store == "" {
		in.Store = "s1"
	}
	return porcupine.Operation{ClientId: client, Input: in, Call: call, Output: walletOutput{Applied: true}, Return: ret}
}

// order o1: total 100.00, commission 10.00, the store's earnings 90.00.
func orderOp(kind string, amount int64) walletInput {
	return walletInput{Kind: kind, Order: "o1", Total: 100_00, Commission: 10_00, Earnings: 90_00, Amount: amount}
}

func closeOp(outcome string, fee int64) walletInput {
	in := orderOp(opDisputeClose, 0)
	in.Outcome, in.Fee = outcome, fee
	return in
}

// requested is a request's answer: the payout it made.
func requested(payoutID string) walletOutput { return walletOutput{PayoutID: payoutID} }

// refusal is a refusal for reason; detail names the short balance
// (insufficient_balance) or the payout's status (payout_status).
func refusal(reason, detail string) walletOutput {
	return walletOutput{Refusal: reason, Detail: detail}
}

// short is an insufficient_balance refusal naming balance (available or
// pending).
func short(balance string) walletOutput { return refusal(refusalInsufficient, balance) }

// shortWith is a request refused for its amount, its details showing the
// available balance.
func shortWith(available int64) walletOutput {
	out := short("available")
	out.Wallet = &walletFigures{Available: available}
	return out
}

// credited is o1's credit (90.00 held as pending), applied by the events'
// client 9 between call and ret.
func credited(call, ret int64) porcupine.Operation {
	return applied(9, call, ret, orderOp(opCredit, 0))
}

// unanswered is an operation called at call by client that never got an
// answer: it may have happened or not.
func unanswered(client int, call int64, in walletInput) porcupine.Operation {
	return hop(client, call, -1, in, walletOutput{})
}

// onStore is in on another store than "s1".
func onStore(store string, in walletInput) walletInput {
	in.Store = store
	return in
}

// released: o1 delivered and credited, its earning released by hand, a
// payout of 80.00 requested: available 10.00.
func released() []porcupine.Operation {
	return []porcupine.Operation{
		credited(0, 50),
		hop(0, 60, 70, adjustOp("move_pending_to_available", 90_00), wallet(90_00, 0)),
		hop(0, 71, 80, requestOp(1, 80_00), requested("p1")),
	}
}

func requestOp(seq int, amount int64) walletInput {
	return walletInput{Kind: opRequest, Seq: seq, Amount: amount}
}

func moveOp(payout, move string, restore bool) walletInput {
	return walletInput{Kind: opMove, Payout: payout, Move: move, Restore: restore}
}

func moved(status string, amount, available int64, restored bool) walletOutput {
	return walletOutput{Payout: &payoutFigures{Status: status, Amount: amount, Available: available, Restored: restored}}
}

// funded: 500.00 AED in, 30.00 pending; then a payout p1 of 300.00.
func funded() []porcupine.Operation {
	return []porcupine.Operation{
		hop(0, 0, 10, adjustOp("add_balance", 500_00), wallet(500_00, 0)),
		hop(0, 11, 20, adjustOp("add_pending", 30_00), wallet(500_00, 30_00)),
		hop(0, 21, 30, requestOp(1, 300_00), requested("p1")),
	}
}

func TestWalletModelAcceptsLinearizableHistories(t *testing.T) {
	cases := map[string][]porcupine.Operation{
		"sequential, every kind": append(funded(),
			hop(0, 31, 40, readOp(), wallet(200_00, 30_00)),
			hop(0, 41, 50, adjustOp("move_pending_to_available", 10_00), wallet(210_00, 20_00)),
			hop(0, 51, 60, adjustOp("deduct_pending", 20_00), wallet(210_00, 0)),
			hop(0, 61, 70, adjustOp("deduct_pending", 1), short("pending")),
			hop(0, 71, 80, adjustOp("deduct_balance", 210_01), short("available")),
			hop(0, 81, 90, moveOp("p1", moveComplete, false), refusal(refusalPayoutStatus, payoutRequested)),
			hop(0, 91, 100, moveOp("p1", moveApprove, false), moved(payoutApproved, 300_00, 210_00, false)),
			hop(0, 101, 110, moveOp("p1", moveProcessing, false), moved(payoutProcessing, 300_00, 210_00, false)),
			hop(0, 111, 120, moveOp("p1", moveFail, true), moved(payoutFailed, 300_00, 510_00, true)),
			hop(0, 121, 130, moveOp("p1", moveReject, false), refusal(refusalPayoutStatus, payoutFailed)),
			hop(0, 131, 140, requestOp(2, 600_00), shortWith(510_00)),
			hop(0, 141, 150, adjustOp("deduct_balance", 510_00), wallet(0, 0)),
		),
		// Two concurrent requests of 300.00 from 500.00: one passes, the
		// other is refused with the balance after the first, and a read
		// overlapping both sees either side.
		"concurrent requests, one refused": {
			hop(0, 0, 10, adjustOp("add_balance", 500_00), wallet(500_00, 0)),
			hop(1, 20, 40, requestOp(1, 300_00), shortWith(200_00)),
			hop(2, 21, 41, requestOp(2, 300_00), requested("p2")),
			hop(3, 15, 45, readOp(), wallet(500_00, 0)),
			hop(0, 50, 60, readOp(), wallet(200_00, 0)),
		},
		// A move overlapping another of the same payout lost to it:
		// refused as changed meanwhile.
		"concurrent moves": append(funded(),
			hop(1, 40, 60, moveOp("p1", moveReject, false), moved(payoutCancelled, 300_00, 500_00, true)),
			hop(2, 41, 61, moveOp("p1", moveApprove, false), refusal(refusalChanged, "")),
			hop(0, 70, 80, readOp(), wallet(500_00, 30_00)),
		),
		// A request never answered happened: the reads after it see it.
		"unanswered, happened": append(funded(),
			unanswered(1, 31, requestOp(2, 100_00)),
			hop(0, 40, 50, readOp(), wallet(100_00, 30_00)),
			hop(0, 60, 70, readOp(), wallet(100_00, 30_00)),
		),
		// ... or did not.
		"unanswered, did not happen": append(funded(),
			unanswered(1, 31, adjustOp("deduct_balance", 100_00)),
			hop(0, 40, 50, readOp(), wallet(200_00, 30_00)),
		),
		// A refund of 50.00 after the release: the store's share 45.00
		// (commissionCum(50.00) = 5.00) leaves available, which goes to
		// -35.00 (a request of 5.00 overlapping it came first: -40.00), and
		// the next request is refused in debt.
		"a refund's reversal puts the wallet in debt": append(released(),
			applied(9, 81, 120, orderOp(opRefund, 50_00)),
			hop(1, 85, 95, requestOp(2, 5_00), requested("p2")),
			hop(2, 90, 100, readOp(), wallet3(5_00, 0, 0)),
			hop(0, 130, 140, readOp(), wallet3(-40_00, 0, 0)),
			hop(0, 141, 150, requestOp(3, 1_00), refusal(refusalDebt, "4000")),
			hop(0, 151, 160, adjustOp("add_balance", 50_00), wallet(10_00, 0)),
			hop(0, 161, 170, requestOp(4, 10_00), requested("p4")),
		),
		// A refund before the credit lowers it (90.00 − (30.00 − 3.00));
		// one after it takes from the held earning first: 20.00 of which the
		// store's 18.00 (commissionCum(50.00) − commissionCum(30.00) = 2.00).
		"refunds before and after the credit": {
			applied(8, 0, 20, orderOp(opRefund, 30_00)),
			credited(10, 40),
			hop(0, 50, 60, readOp(), wallet3(0, 63_00, 0)),
			applied(8, 61, 70, orderOp(opRefund, 20_00)),
			hop(0, 71, 80, adjustOp("move_pending_to_available", 45_00), wallet(45_00, 0)),
		},
		// Held earnings are taken oldest first: a deduction of 80.00 leaves
		// 10.00 of o1's, so a refund of 100.00 takes 10.00 from pending and
		// 80.00 from available.
		"a deduction takes the held earning, the refund the rest": {
			credited(0, 10),
			hop(0, 11, 20, adjustOp("add_balance", 100_00), wallet(100_00, 90_00)),
			hop(0, 21, 30, adjustOp("deduct_pending", 80_00), wallet(100_00, 10_00)),
			applied(9, 31, 40, orderOp(opRefund, 100_00)),
			hop(0, 41, 50, readOp(), wallet3(20_00, 0, 0)),
		},
		// A dispute of the whole order holds the share 90.00 (held earning
		// first); lost, it leaves disputed and the fee 15.00 leaves available;
		// a read in between shows the hold.
		"a dispute held, then lost with its fee": {
			credited(0, 10),
			applied(8, 11, 20, orderOp(opDisputeOpen, 100_00)),
			hop(0, 21, 30, readOp(), wallet3(0, 0, 90_00)),
			applied(8, 31, 40, closeOp(disputeLost, 15_00)),
			hop(0, 41, 50, readOp(), wallet3(-15_00, 0, 0)),
		},
		// Won, the share goes back where it was held from: here all of it
		// from the held earning, so back to pending.
		"a dispute won": {
			credited(0, 10),
			applied(8, 11, 20, orderOp(opDisputeOpen, 40_00)),
			hop(0, 21, 30, readOp(), wallet3(0, 54_00, 36_00)),
			applied(8, 31, 40, closeOp(disputeWon, 15_00)),
			hop(0, 41, 50, readOp(), wallet3(0, 90_00, 0)),
		},
		// The earning holds 10.00 after a deduction of 80.00: the hold of
		// 36.00 takes 10.00 from it and 26.00 from available; won, 10.00
		// go back to the earning (a later move_pending_to_available takes
		// it) and 26.00 to available.
		"a dispute won, held from pending and available": {
			credited(0, 10),
			hop(0, 11, 20, adjustOp("add_balance", 100_00), wallet(100_00, 90_00)),
			hop(0, 21, 30, adjustOp("deduct_pending", 80_00), wallet(100_00, 10_00)),
			applied(8, 31, 40, orderOp(opDisputeOpen, 40_00)),
			hop(0, 41, 50, readOp(), wallet3(74_00, 0, 36_00)),
			applied(8, 51, 60, closeOp(disputeWon, 15_00)),
			hop(0, 61, 70, readOp(), wallet3(100_00, 10_00, 0)),
			applied(9, 71, 80, orderOp(opRefund, 100_00)),
			hop(0, 81, 90, readOp(), wallet3(20_00, 0, 0)),
		},
		// A refund of 80.00 while a dispute of 40.00 holds 36.00 from the
		// held earning leaves 20.00 of the order: lost, the share is 18.00,
		// and the other 18.00 held go back to the earning (pending), not
		// to available.
		"a dispute lost after a refund, the rest back to the earning": {
			credited(0, 10),
			applied(8, 11, 20, orderOp(opDisputeOpen, 40_00)),
			applied(8, 21, 30, orderOp(opRefund, 80_00)),
			hop(0, 31, 40, readOp(), wallet3(-18_00, 0, 36_00)),
			applied(8, 41, 50, closeOp(disputeLost, 0)),
			hop(0, 51, 60, readOp(), wallet3(-18_00, 18_00, 0)),
		},
		// Before the credit nothing of the order is in the wallet: a
		// dispute of 30.00 opened and lost then lowers the credit by its
		// share 27.00 (commissionCum(30.00) = 3.00), as a refund does, and
		// only the fee 15.00 leaves available. The credit is 63.00.
		"a dispute lost before the credit lowers the credit": {
			applied(8, 0, 10, orderOp(opDisputeOpen, 30_00)),
			hop(0, 11, 20, readOp(), wallet3(0, 0, 0)),
			applied(8, 21, 30, closeOp(disputeLost, 15_00)),
			hop(0, 31, 40, readOp(), wallet3(-15_00, 0, 0)),
			credited(41, 50),
			hop(0, 51, 60, readOp(), wallet3(-15_00, 63_00, 0)),
			// A refund of the rest after the credit takes the store's
			// share 63.00 of 70.00 from the held earning: nothing is left.
			applied(8, 61, 70, orderOp(opRefund, 70_00)),
			hop(0, 71, 80, readOp(), wallet3(-15_00, 0, 0)),
		},
		// Won before the credit, nothing was held and nothing moves: the
		// credit is the whole earning, with nothing held for the dispute.
		"a dispute won before the credit": {
			applied(8, 0, 10, orderOp(opDisputeOpen, 40_00)),
			applied(8, 11, 20, closeOp(disputeWon, 15_00)),
			hop(0, 21, 30, readOp(), wallet3(0, 0, 0)),
			credited(31, 40),
			hop(0, 41, 50, readOp(), wallet3(0, 90_00, 0)),
		},
		// Still open at the credit, its share 36.00 is held then, from the
		// earning just credited; lost after, it leaves disputed and the
		// fee leaves available.
		"a dispute open at the credit, lost after it": {
			applied(8, 0, 10, orderOp(opDisputeOpen, 40_00)),
			credited(11, 20),
			hop(0, 21, 30, readOp(), wallet3(0, 54_00, 36_00)),
			applied(8, 31, 40, closeOp(disputeLost, 15_00)),
			hop(0, 41, 50, readOp(), wallet3(-15_00, 54_00, 0)),
		},
		// A store's operations do not touch another's wallet.
		"two wallets": append(funded(),
			hop(1, 5, 15, onStore("s2", adjustOp("add_balance", 1_00)), wallet(1_00, 0)),
			hop(1, 35, 45, onStore("s2", readOp()), wallet(1_00, 0)),
			hop(0, 35, 45, readOp(), wallet(200_00, 30_00)),
		),
	}
	for name, h := range cases {
		t.Run(name, func(t *testing.T) {
			res, path, err := checkWalletHistory(h, 10*time.Second, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			if res != porcupine.Ok {
				t.Fatalf("%s, want Ok (view: %s)", res, path)
			}
		})
	}
}

func TestWalletModelRejectsNonLinearizableHistories(t *testing.T) {
	cases := map[string][]porcupine.Operation{
		// Two concurrent payouts of 300.00 both pass on 500.00.
		"overdraft by two payouts": {
			hop(0, 0, 10, adjustOp("add_balance", 500_00), wallet(500_00, 0)),
			hop(1, 20, 40, requestOp(1, 300_00), requested("p1")),
			hop(2, 21, 41, requestOp(2, 300_00), requested("p2")),
		},
		"a read of a value never written": append(funded(),
			hop(0, 40, 50, readOp(), wallet(250_00, 30_00)),
		),
		// The read starts after the adjustment answered, yet misses it.
		"a stale read": append(funded(),
			hop(0, 40, 50, adjustOp("add_balance", 1_00), wallet(201_00, 30_00)),
			hop(1, 51, 60, readOp(), wallet(200_00, 30_00)),
		),
		"a refusal the balance does not justify": append(funded(),
			hop(0, 40, 50, adjustOp("deduct_balance", 200_00), short("available")),
		),
		"a refusal naming the wrong balance": append(funded(),
			hop(0, 40, 50, adjustOp("move_pending_to_available", 31_00), short("available")),
		),
		"a move off the table": append(funded(),
			hop(0, 40, 50, moveOp("p1", moveComplete, false), moved(payoutCompleted, 300_00, 200_00, false)),
		),
		"a failure restoring without being asked": append(funded(),
			hop(0, 40, 50, moveOp("p1", moveApprove, false), moved(payoutApproved, 300_00, 200_00, false)),
			hop(0, 60, 70, moveOp("p1", moveFail, false), moved(payoutFailed, 300_00, 500_00, true)),
		),
		"a rejection that keeps the money": append(funded(),
			hop(0, 40, 50, moveOp("p1", moveReject, false), moved(payoutCancelled, 300_00, 200_00, true)),
		),
		"changed meanwhile with no move": append(funded(),
			hop(0, 40, 50, moveOp("p1", moveApprove, false), refusal(refusalChanged, "")),
		),
		// A request that never answered either happened or not, not both.
		"unanswered, happened then undone": append(funded(),
			unanswered(1, 31, requestOp(2, 100_00)),
			hop(0, 40, 50, readOp(), wallet(100_00, 30_00)),
			hop(0, 60, 70, readOp(), wallet(200_00, 30_00)),
		),
		// The refund was seen settled at 120: a payout answered after it
		// passed while the wallet was in debt.
		"a payout requested while in debt": append(released(),
			applied(9, 81, 120, orderOp(opRefund, 50_00)),
			hop(1, 125, 135, requestOp(2, 5_00), requested("p2")),
		),
		// In debt, a request is refused wallet_in_debt before the amount
		// rules.
		"a request in debt refused for its amount": append(released(),
			applied(9, 81, 120, orderOp(opRefund, 50_00)),
			hop(1, 125, 135, requestOp(2, 5_00), shortWith(-35_00)),
		),
		// The refund's share taken twice (-80.00), or not at all.
		"a refund reversed twice": append(released(),
			applied(9, 81, 120, orderOp(opRefund, 50_00)),
			hop(0, 130, 140, readOp(), wallet3(-80_00, 0, 0)),
		),
		"a refund never reversed": append(released(),
			applied(9, 81, 120, orderOp(opRefund, 50_00)),
			hop(0, 130, 140, readOp(), wallet3(10_00, 0, 0)),
		),
		// The whole refund taken, commission included.
		"a refund taking the commission too": append(released(),
			applied(9, 81, 120, orderOp(opRefund, 50_00)),
			hop(0, 130, 140, readOp(), wallet3(-40_00, 0, 0)),
		),
		// A dispute's share taken from available while the earning held it.
		"a dispute hold from available first": {
			credited(0, 10),
			hop(0, 11, 20, adjustOp("add_balance", 100_00), wallet(100_00, 90_00)),
			applied(8, 21, 30, orderOp(opDisputeOpen, 40_00)),
			hop(0, 31, 40, readOp(), wallet3(64_00, 90_00, 36_00)),
		},
		// A won dispute's share held from the earning released to
		// available, as before ADR 0147's amendment.
		"a dispute won released to available": {
			credited(0, 10),
			applied(8, 11, 20, orderOp(opDisputeOpen, 40_00)),
			applied(8, 31, 40, closeOp(disputeWon, 15_00)),
			hop(0, 41, 50, readOp(), wallet3(36_00, 54_00, 0)),
		},
		// A dispute lost before the credit: its share 27.00 both lowers
		// the credit and leaves available (counted twice), or does neither.
		"a dispute lost before the credit taken twice": {
			applied(8, 0, 10, orderOp(opDisputeOpen, 30_00)),
			applied(8, 11, 20, closeOp(disputeLost, 15_00)),
			credited(21, 30),
			hop(0, 31, 40, readOp(), wallet3(-42_00, 63_00, 0)),
		},
		"a dispute lost before the credit taken from available, not the credit": {
			applied(8, 0, 10, orderOp(opDisputeOpen, 30_00)),
			applied(8, 11, 20, closeOp(disputeLost, 15_00)),
			credited(21, 30),
			hop(0, 31, 40, readOp(), wallet3(-42_00, 90_00, 0)),
		},
		"a dispute lost before the credit never reversed": {
			applied(8, 0, 10, orderOp(opDisputeOpen, 30_00)),
			applied(8, 11, 20, closeOp(disputeLost, 15_00)),
			credited(21, 30),
			hop(0, 31, 40, readOp(), wallet3(-15_00, 90_00, 0)),
		},
		// A refund before the credit: its share 27.00 lowers the credit; it
		// does not also leave available, and is not forgotten.
		"a refund before the credit taken twice": {
			applied(8, 0, 10, orderOp(opRefund, 30_00)),
			credited(11, 20),
			hop(0, 21, 30, readOp(), wallet3(-27_00, 63_00, 0)),
		},
		"a refund before the credit never reversed": {
			applied(8, 0, 10, orderOp(opRefund, 30_00)),
			credited(11, 20),
			hop(0, 21, 30, readOp(), wallet3(0, 90_00, 0)),
		},
		// A dispute won before the credit holds nothing at the credit, and
		// charges no fee.
		"a dispute won before the credit held at the credit": {
			applied(8, 0, 10, orderOp(opDisputeOpen, 40_00)),
			applied(8, 11, 20, closeOp(disputeWon, 15_00)),
			credited(21, 30),
			hop(0, 31, 40, readOp(), wallet3(0, 54_00, 36_00)),
		},
		"a dispute won before the credit charged the fee": {
			applied(8, 0, 10, orderOp(opDisputeOpen, 40_00)),
			applied(8, 11, 20, closeOp(disputeWon, 15_00)),
			credited(21, 30),
			hop(0, 31, 40, readOp(), wallet3(-15_00, 90_00, 0)),
		},
		"one payout id twice": append(funded(),
			hop(0, 40, 50, requestOp(2, 100_00), requested("p1")),
		),
	}
	for name, h := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			res, path, err := checkWalletHistory(h, 10*time.Second, dir)
			if err != nil {
				t.Fatal(err)
			}
			if res != porcupine.Illegal {
				t.Fatalf("%s, want Illegal", res)
			}
			b, err := os.ReadFile(path)
			if err != nil || !strings.Contains(string(b), "<html") {
				t.Fatalf("no visualization at %q: %v", path, err)
			}
		})
	}
}

// A read a kill may have made stale from the future is left out of the
// check: one answered by a process that was killed, after which that
// process answered no write sent later (a replay confirms nothing; a
// refusal commits nothing). The others stay.
func TestConfirmedReadsLeaveOutReadsAKillMayUndo(t *testing.T) {
	read := func(gen int, ret int64) porcupine.Operation {
		op := hop(0, ret-5, ret, readOp(), wallet(0, 0))
		op.Metadata = historyMeta{gen: gen, sent: ret - 5}
		return op
	}
	write := func(gen int, sent int64, out walletOutput, replayed bool) porcupine.Operation {
		op := hop(1, sent, sent+5, adjustOp("add_balance", 1), out)
		op.Metadata = historyMeta{gen: gen, sent: sent, replayed: replayed}
		return op
	}
	history := []porcupine.Operation{
		read(0, 10),                             // confirmed by the write sent at 20
		write(0, 20, wallet(1, 0), false),       //
		read(0, 30),                             // after the last write of process 0: dropped
		write(0, 40, wallet(1, 0), true),        // a replay: confirms nothing
		write(0, 50, short("available"), false), // a refusal: nothing
		read(1, 60),                             // process 1 was not killed: kept
	}
	kept, dropped := confirmedReads(history, map[int]bool{0: true})
	if dropped != 1 || len(kept) != 5 {
		t.Fatalf("dropped %d, kept %d: want 1 and 5", dropped, len(kept))
	}
	for _, op := range kept {
		if op.Input.(walletInput).Kind == opRead && op.Return == 30 {
			t.Fatal("the read answered after the last write of the killed process was kept")
		}
	}
	if _, dropped := confirmedReads(history, map[int]bool{}); dropped != 0 {
		t.Fatalf("no process killed: %d reads dropped, want none", dropped)
	}
}
