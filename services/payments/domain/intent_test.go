package domain

import "testing"

// TestVerdictFor: the whole table. Events of an intent already settled are
// acknowledged and change nothing, except the processor's word that it was
// charged (a success after a cancellation), which still makes the order.
func TestVerdictFor(t *testing.T) {
	cases := []struct {
		status, event string
		want          Verdict
	}{
		{IntentOpen, TypeSucceeded, ActOnEvent},
		{IntentOpen, TypeFailed, ActOnEvent},
		{IntentOpen, TypeCanceled, ActOnEvent},
		{IntentSucceeded, TypeSucceeded, ActOnEvent}, // the customers service makes one order per intent
		{IntentSucceeded, TypeFailed, IgnoreEvent},
		{IntentSucceeded, TypeCanceled, IgnoreEvent},
		{IntentCanceled, TypeSucceeded, ActAndWarn}, // the charge is the processor's word
		{IntentCanceled, TypeFailed, IgnoreEvent},
		{IntentCanceled, TypeCanceled, IgnoreEvent},
		{IntentOpen, "payment_intent.created", ActOnEvent}, // not ours to judge: the webhook answers it unhandled
	}
	for _, c := range cases {
		if got := VerdictFor(c.status, c.event); got != c.want {
			t.Errorf("VerdictFor(%q, %q) = %d, want %d", c.status, c.event, got, c.want)
		}
	}
}

func TestSettled(t *testing.T) {
	for status, want := range map[string]bool{IntentOpen: false, IntentSucceeded: true, IntentCanceled: true} {
		if Settled(status) != want {
			t.Errorf("Settled(%q) = %v", status, !want)
		}
	}
}

// TestSettledBy: an intent settled before its state document existed is
// known by its recorded succeeded or canceled event.
func TestSettledBy(t *testing.T) {
	for ev, want := range map[string]string{TypeSucceeded: IntentSucceeded, TypeCanceled: IntentCanceled, TypeFailed: IntentOpen, "": IntentOpen} {
		if got := SettledBy(ev); got != want {
			t.Errorf("SettledBy(%q) = %q, want %q", ev, got, want)
		}
	}
}
