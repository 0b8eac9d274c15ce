package domain

import (
	"testing"

	contract "marketplace/libs/contracts/payouts"
)

var allStatuses = []string{StatusRequested, StatusApproved, StatusProcessing, StatusCompleted, StatusCancelled, StatusFailed}

// The whole table of section 3.1, and every move it does not list refused.
func TestPayoutMovesMatrix(t *testing.T) {
	allowed := map[Move]map[string]string{ // move -> from -> to
		MoveApprove:    {StatusRequested: StatusApproved},
		MoveReject:     {StatusRequested: StatusCancelled},
		MoveProcessing: {StatusApproved: StatusProcessing},
		MoveComplete:   {StatusProcessing: StatusCompleted},
		MoveFail:       {StatusApproved: StatusFailed, StatusProcessing: StatusFailed},
		MoveHandover:   {StatusRequested: StatusCancelled},
	}
	if len(allowed) != len(moves) {
		t.Errorf("the table has %d moves, the test %d", len(moves), len(allowed))
	}
	for m, froms := range allowed {
		for _, from := range allStatuses {
			to, ok := froms[from]
			if CanMove(m, from) != ok {
				t.Errorf("CanMove(%s, %s) = %v, want %v", m, from, !ok, ok)
			}
			if ok && m.To() != to {
				t.Errorf("%s from %s leads to %s, want %s", m, from, m.To(), to)
			}
		}
	}
	// Final statuses allow nothing.
	for _, final := range []string{StatusCompleted, StatusCancelled, StatusFailed} {
		for m := range allowed {
			if CanMove(m, final) {
				t.Errorf("%s allowed from final status %s", m, final)
			}
		}
		if Open(final) {
			t.Errorf("%s is open", final)
		}
	}
	for _, s := range OpenStatuses {
		if !Open(s) {
			t.Errorf("%s is not open", s)
		}
	}
}

// What each move does to the balance and the payout's wallet transaction:
// the restored amount and the transaction's status always agree under Effect.
func TestPayoutMoveEffects(t *testing.T) {
	cases := []struct {
		m        Move
		restore  bool
		restores bool
		tx       string
		event    string
	}{
		{MoveApprove, false, false, TxCompleted, contract.EventPayoutApproved},
		{MoveReject, false, true, TxCancelled, contract.EventPayoutRejected},
		{MoveProcessing, false, false, "", contract.EventPayoutProcessing},
		{MoveComplete, false, false, "", contract.EventPayoutCompleted},
		{MoveFail, false, false, "", contract.EventPayoutFailed},
		{MoveFail, true, true, TxFailed, contract.EventPayoutFailed},
		{MoveHandover, false, true, TxCancelled, contract.EventPayoutCancelled},
	}
	for _, c := range cases {
		if got := RestoresBalance(c.m, c.restore); got != c.restores {
			t.Errorf("RestoresBalance(%s, %v) = %v", c.m, c.restore, got)
		}
		if got := TxStatusAfter(c.m, c.restore); got != c.tx {
			t.Errorf("TxStatusAfter(%s, %v) = %q, want %q", c.m, c.restore, got, c.tx)
		}
		if got := c.m.Event(); got != c.event {
			t.Errorf("event of %s = %q, want %q", c.m, got, c.event)
		}
		// The payout's transaction counts against available exactly while the
		// amount is not restored: the ledger follows the balance.
		status := TxPending
		if c.m != MoveApprove && c.m != MoveReject && c.m != MoveHandover {
			status = TxCompleted // approved before
		}
		if s := TxStatusAfter(c.m, c.restore); s != "" {
			status = s
		}
		counted := Effect(TxPayout, status, 100).Available == -100
		if counted == c.restores {
			t.Errorf("%s (restore %v): transaction %s counted=%v but restores=%v", c.m, c.restore, status, counted, c.restores)
		}
	}
	if Event(StatusRequested) != contract.EventPayoutRequested {
		t.Error("requested event")
	}
}

// A handover cancels what is still requested, flags what is being paid, and
// leaves the final statuses alone; the moves that pay on need the
// confirmation, those that stop the payment never do.
func TestHandoverRules(t *testing.T) {
	want := map[string]HandoverAction{
		StatusRequested: HandoverCancel, StatusApproved: HandoverFlag, StatusProcessing: HandoverFlag,
		StatusCompleted: HandoverNone, StatusCancelled: HandoverNone, StatusFailed: HandoverNone,
	}
	for _, s := range allStatuses {
		if got := OnHandover(s); got != want[s] {
			t.Errorf("OnHandover(%s) = %v, want %v", s, got, want[s])
		}
		// A flagged payout can still be paid on (with the confirmation) or
		// stopped; a cancelled one is gone.
		if want[s] == HandoverFlag && !(CanMove(MoveFail, s) && (CanMove(MoveProcessing, s) || CanMove(MoveComplete, s))) {
			t.Errorf("a flagged %s payout can neither be paid on nor failed", s)
		}
	}
	pays := map[Move]bool{MoveApprove: true, MoveProcessing: true, MoveComplete: true, MoveReject: false, MoveFail: false, MoveHandover: false}
	for m, p := range pays {
		if PaysOut(m) != p {
			t.Errorf("PaysOut(%s) = %v, want %v", m, !p, p)
		}
	}
	for _, c := range []struct {
		atRequest, now string
		flagged, want  bool
	}{
		{"owner-1", "owner-1", false, false},
		{"owner-1", "owner-2", false, true}, // the catalog has another owner now (its event not heard yet)
		{"owner-1", "owner-1", true, true},  // handed over and back: the record keeps the flag
		{"owner-1", "", false, true},        // the catalog has no such store
		{"owner-1", "owner-2", true, true},
	} {
		if got := HandedOver(c.atRequest, c.now, c.flagged); got != c.want {
			t.Errorf("HandedOver(%q, %q, %v) = %v", c.atRequest, c.now, c.flagged, got)
		}
	}
	for _, c := range []struct {
		checked     string
		checkedV    int64
		wallet      string
		walletV     int64
		handedOver  bool
		explanation string
	}{
		{"owner-1", 1, "owner-1", 1, false, "the same version"},
		{"owner-1", 1, "owner-2", 2, true, "the copy is newer and names another owner: handed over after the check"},
		{"owner-1", 2, "owner-1", 3, false, "newer, same owner (a rename)"},
		{"owner-1", 3, "owner-2", 2, false, "handed back: the check is newer than the copy"},
		{"owner-1", 2, "owner-2", 2, false, "the same version: the copy cannot name another owner than the check (a forged copy is the catalog's business)"},
		{"owner-1", 0, "owner-2", 5, false, "no version from the check (an older catalog): nothing to tell"},
		{"owner-1", 1, "", 2, false, "a copy without an owner"},
		{"owner-1", 1, "owner-2", 0, false, "a copy without a version"},
	} {
		if got := HandedOverSinceCheck(c.checked, c.checkedV, c.wallet, c.walletV); got != c.handedOver {
			t.Errorf("%s: HandedOverSinceCheck = %v", c.explanation, got)
		}
	}
}
