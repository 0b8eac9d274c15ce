package domain

import (
	"testing"

	"marketplace/libs/apperr"
)

func TestEveryTypeHasOneKind(t *testing.T) {
	all := []string{TypeOrderCreated, TypeNewOrder, TypeOrderStatus, TypePaymentFailed, TypeReviewFlagged, TypeOrderPaymentReview,
		TypePaymentReview, TypePayoutRequested, TypePayoutApproved, TypePayoutRejected, TypePayoutProcessing, TypePayoutCompleted,
		TypePayoutFailed, TypeWalletAdjusted, TypePayoutCancelled, TypeOrderRefunded, TypeRefundFailed, TypeDisputeOpened,
		TypeBankAccountChanged, TypeReviewInvitation, TypeReviewResponse, TypeReviewHidden, TypeReviewShown}
	of := map[string]string{}
	n := 0
	for k, ts := range kinds {
		for _, ty := range ts {
			n++
			if other, ok := of[ty]; ok {
				t.Errorf("%s is of %s and %s", ty, other, k)
			}
			of[ty] = k
		}
	}
	for _, ty := range all {
		if of[ty] == "" {
			t.Errorf("%s has no kind", ty)
		}
	}
	if n != len(all) {
		t.Errorf("kinds list %d types, the service has %d", n, len(all))
	}
}

func TestInboxFilter(t *testing.T) {
	s := func(v string) *string { return &v }
	i := func(v int64) *int64 { return &v }
	yes := true
	f, err := NewInboxFilter(nil, s(KindPayouts), s("oldest"), &yes, i(100), i(200))
	if err != nil || f.Read != "unread" || !f.Oldest || f.Kind != KindPayouts {
		t.Fatalf("%+v %v", f, err)
	}
	for _, c := range []struct {
		n    Notification
		want bool
	}{
		{Notification{Type: TypePayoutApproved, CreationTime: 100}, true},
		{Notification{Type: TypeBankAccountChanged, CreationTime: 200}, true},
		{Notification{Type: TypePayoutApproved, CreationTime: 99}, false},
		{Notification{Type: TypePayoutApproved, CreationTime: 201}, false},
		{Notification{Type: TypePayoutApproved, CreationTime: 150, Read: true}, false},
		{Notification{Type: TypeNewOrder, CreationTime: 150}, false},
	} {
		if f.Matches(&c.n) != c.want {
			t.Errorf("%+v: Matches %v", c.n, !c.want)
		}
	}
	read, _ := NewInboxFilter(s("read"), nil, nil, nil, nil, nil)
	if read.Oldest || !read.Matches(&Notification{Read: true, Type: TypeNewOrder}) || read.Matches(&Notification{Type: TypeNewOrder}) {
		t.Errorf("read filter %+v", read)
	}
	if _, err := NewInboxFilter(s("read"), nil, nil, &yes, nil, nil); apperr.From(err).Code != apperr.InvalidArgument {
		t.Errorf("read=read with unreadOnly: %v", err)
	}
	if _, err := NewInboxFilter(nil, nil, nil, nil, i(2), i(1)); apperr.From(err).Code != apperr.InvalidArgument {
		t.Errorf("reversed period: %v", err)
	}
}

func TestInboxCountOf(t *testing.T) {
	for n, want := range map[int64]InboxCount{0: {}, 10_000: {Count: 10_000}, 10_001: {Count: 10_000, Capped: true}} {
		if got := InboxCountOf(n, false); got != want {
			t.Errorf("InboxCountOf(%d) = %+v, want %+v", n, got, want)
		}
	}
	// A count of the newest MaxInboxScan records only is a lower bound.
	if got := InboxCountOf(3, true); got != (InboxCount{Count: 3, Capped: true}) {
		t.Errorf("partial count of 3: %+v", got)
	}
}
