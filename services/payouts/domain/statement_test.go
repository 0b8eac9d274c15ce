package domain

import "testing"

// An entry's time never goes back along the wallet's numbering: a change
// whose now was taken before another change committed (releaseDue takes
// now once per batch) is entered at the wallet's last entry's time, so a
// period of the statement stays a range of entries.
func TestStatementEntryTimesNeverGoBack(t *testing.T) {
	for _, c := range []struct {
		name              string
		journaledAt, now  int64
		wantAt, wantAfter int64
	}{
		{"now after the last entry", 5_000, 6_000, 6_000, 6_000},
		{"now before the last entry", 5_000, 4_000, 5_000, 5_000},
		{"now at the last entry", 5_000, 5_000, 5_000, 5_000},
		{"no last entry known", 0, 4_000, 4_000, 4_000},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := &Wallet{ID: "w1", MoveSeq: 3, JournaledAt: c.journaledAt}
			w.Journaled = w.Balances()
			before := w.Balances()
			w.AvailableBalance += 100
			es := StatementEntries(w, before, w.MoveSeq, StatementMove{Kind: "credit"}, c.now)
			if len(es) != 1 || es[0].At != c.wantAt || es[0].Seq != 4 || w.JournaledAt != c.wantAfter {
				t.Fatalf("entries %+v, journaledAt %d", es, w.JournaledAt)
			}
		})
	}
	// No change, no entry: the last entry's time stays.
	w := &Wallet{ID: "w1", MoveSeq: 3, JournaledAt: 5_000}
	if es := StatementEntries(w, w.Balances(), 3, StatementMove{Kind: "credit"}, 9_000); len(es) != 0 || w.JournaledAt != 5_000 {
		t.Fatalf("no change: %+v, %d", es, w.JournaledAt)
	}
	// The opening entry sets it.
	w = &Wallet{ID: "w2", AvailableBalance: 100}
	if e := CarriedForward(w, 7_000); e == nil || e.At != 7_000 || w.JournaledAt != 7_000 {
		t.Fatalf("carried forward: %+v, %d", e, w.JournaledAt)
	}
}
