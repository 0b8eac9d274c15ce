package payouts

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
	}
	for _, c := range cases {
		if got := RestoresBalance(c.m, c.restore); got != c.restores {
			t.Errorf("RestoresBalance(%s, %v) = %v", c.m, c.restore, got)
		}
		if got := TxStatusAfter(c.m, c.restore); got != c.tx {
			t.Errorf("TxStatusAfter(%s, %v) = %q, want %q", c.m, c.restore, got, c.tx)
		}
		if got := Event(c.m.To()); got != c.event {
			t.Errorf("event of %s = %q, want %q", c.m, got, c.event)
		}
		// The payout's transaction counts against available exactly while the
		// amount is not restored: the ledger follows the balance.
		status := TxPending
		if c.m != MoveApprove && c.m != MoveReject {
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
