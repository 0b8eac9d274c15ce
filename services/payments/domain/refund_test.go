package domain

import (
	"testing"
	"time"
)

// TestRefundVerdictFor: the whole table of refund.go. Final statuses stay
// final; news of a refund not yet recorded records it, whoever heard first.
func TestRefundVerdictFor(t *testing.T) {
	cases := []struct {
		status string
		news   RefundNews
		want   RefundVerdict
	}{
		{RefundNone, NewsSubmitted, RefundRecord},
		{RefundNone, NewsRefused, RefundRecord},
		{RefundNone, NewsSucceeded, RefundRecord}, // the webhook before the consumer's record
		{RefundNone, NewsFailed, RefundRecord},
		{RefundSubmitted, NewsSubmitted, RefundIgnore}, // a redelivered request
		{RefundSubmitted, NewsRefused, RefundIgnore},
		{RefundSubmitted, NewsSucceeded, RefundSettle},
		{RefundSubmitted, NewsFailed, RefundSettle},
		{RefundSucceeded, NewsSubmitted, RefundFill},
		{RefundSucceeded, NewsRefused, RefundIgnore},
		{RefundSucceeded, NewsSucceeded, RefundIgnore}, // a later charge.refunded lists it again
		{RefundSucceeded, NewsFailed, RefundContradict},
		{RefundFailed, NewsSubmitted, RefundFill},
		{RefundFailed, NewsRefused, RefundIgnore},
		{RefundFailed, NewsSucceeded, RefundContradict},
		{RefundFailed, NewsFailed, RefundIgnore},
	}
	for _, c := range cases {
		if got := RefundVerdictFor(c.status, c.news); got != c.want {
			t.Errorf("RefundVerdictFor(%q, %d) = %d, want %d", c.status, c.news, got, c.want)
		}
	}
}

// TestRefundVerdictTells: only a refund reaching succeeded or failed is
// published; a submission never is.
func TestRefundVerdictTells(t *testing.T) {
	for _, c := range []struct {
		v    RefundVerdict
		news RefundNews
		want bool
	}{
		{RefundRecord, NewsSubmitted, false},
		{RefundRecord, NewsRefused, true},
		{RefundRecord, NewsSucceeded, true},
		{RefundRecord, NewsFailed, true},
		{RefundSettle, NewsSucceeded, true},
		{RefundSettle, NewsFailed, true},
		{RefundFill, NewsSubmitted, false},
		{RefundIgnore, NewsSucceeded, false},
		{RefundContradict, NewsFailed, false},
	} {
		if got := c.v.Tells(c.news); got != c.want {
			t.Errorf("%d.Tells(%d) = %v, want %v", c.v, c.news, got, c.want)
		}
	}
}

// TestApplyRefund: what each verdict writes.
func TestApplyRefund(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	asked := RefundFact{News: NewsSubmitted, RefundID: "rf_1", OrderID: "ord_1", PaymentIntentID: "pi_1", Requested: 5000, Full: true,
		Currency: "aed", ProcessorRefundID: "re_1", Origin: OriginMarketplace}

	// The consumer first: submitted, the requested amount until the processor names one.
	v, r := Apply(nil, asked, now)
	if v != RefundRecord || r.Status != RefundSubmitted || r.Amount != 5000 || r.ProcessorRefundID != "re_1" || !r.SubmittedAt.Equal(now) || !r.SettledAt.IsZero() {
		t.Fatalf("submitted: %d %+v", v, r)
	}
	// Then the webhook: the processor's amount wins (a full refund of what the processor had left).
	done := RefundFact{News: NewsSucceeded, RefundID: "rf_1", PaymentIntentID: "pi_1", Amount: 4800, ProcessorRefundID: "re_1", EventID: "evt_1"}
	v, s := Apply(r, done, now.Add(time.Minute))
	if v != RefundSettle || s.Status != RefundSucceeded || s.Amount != 4800 || s.EventID != "evt_1" || s.Requested != 5000 || !s.SettledAt.Equal(now.Add(time.Minute)) {
		t.Fatalf("settled: %d %+v", v, s)
	}
	if r.Status != RefundSubmitted {
		t.Fatal("Apply changed the refund it was handed")
	}
	// Again: nothing.
	if v, w := Apply(s, done, now); v != RefundIgnore || w != nil {
		t.Fatalf("duplicate: %d %+v", v, w)
	}

	// The webhook first: recorded succeeded from its own facts; the consumer
	// then only fills in what it asked.
	v, w := Apply(nil, RefundFact{News: NewsSucceeded, RefundID: "rf_2", OrderID: "ord_1", PaymentIntentID: "pi_1", Amount: 700,
		ProcessorRefundID: "", Origin: OriginMarketplace, EventID: "evt_2"}, now)
	if v != RefundRecord || w.Status != RefundSucceeded || w.Amount != 700 || w.SettledAt.IsZero() || !w.SubmittedAt.IsZero() {
		t.Fatalf("webhook first: %d %+v", v, w)
	}
	v, f := Apply(w, RefundFact{News: NewsSubmitted, RefundID: "rf_2", Requested: 700, ProcessorRefundID: "re_2"}, now)
	if v != RefundFill || f.Status != RefundSucceeded || f.ProcessorRefundID != "re_2" || f.Requested != 700 || f.Amount != 700 {
		t.Fatalf("fill: %d %+v", v, f)
	}
	if v, g := Apply(f, RefundFact{News: NewsSubmitted, RefundID: "rf_2", ProcessorRefundID: "re_2"}, now); v != RefundIgnore || g != nil {
		t.Fatalf("fill again: %d %+v", v, g)
	}

	// A refusal: failed at once, with the reason.
	v, x := Apply(nil, RefundFact{News: NewsRefused, RefundID: "rf_3", Requested: 900, FailureReason: "amount_too_large"}, now)
	if v != RefundRecord || x.Status != RefundFailed || x.FailureReason != "amount_too_large" || x.Amount != 900 || x.SettledAt.IsZero() {
		t.Fatalf("refused: %d %+v", v, x)
	}
	// A failure settles a submitted refund with its reason.
	v, y := Apply(r, RefundFact{News: NewsFailed, RefundID: "rf_1", PaymentIntentID: "pi_1", ProcessorRefundID: "re_1",
		FailureReason: "expired_or_canceled_card"}, now)
	if v != RefundSettle || y.Status != RefundFailed || y.FailureReason != "expired_or_canceled_card" || y.Amount != 5000 {
		t.Fatalf("failed: %d %+v", v, y)
	}
	// A success after the failure contradicts it: nothing written.
	if v, z := Apply(y, done, now); v != RefundContradict || z != nil {
		t.Fatalf("contradiction: %d %+v", v, z)
	}
}

// TestMisnamedRefundNews: news from the webhook names its refund by metadata
// anyone can type: of another payment intent, or of another processor
// refund than the one recorded, it is misnamed and changes nothing of the
// refund it names, whatever its status; the consumer's own news is never
// misnamed, and a refund whose processor id is not known yet is settled by
// news of its intent.
func TestMisnamedRefundNews(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	pending := &Refund{ID: "rf_1", OrderID: "ord_1", PaymentIntentID: "pi_1", Amount: 5000, Currency: "aed", ProcessorRefundID: "re_1",
		Status: RefundSubmitted, Origin: OriginMarketplace}
	unknown := *pending
	unknown.ProcessorRefundID = ""
	succeeded := *pending
	succeeded.Status = RefundSucceeded
	failed := *pending
	failed.Status = RefundFailed
	news := func(n RefundNews, intent, re string) RefundFact {
		return RefundFact{News: n, RefundID: "rf_1", OrderID: "ord_1", PaymentIntentID: intent, Amount: 5000, ProcessorRefundID: re, EventID: "evt_1"}
	}
	cases := []struct {
		name string
		cur  *Refund
		f    RefundFact
		want RefundVerdict
	}{
		{"its success", pending, news(NewsSucceeded, "pi_1", "re_1"), RefundSettle},
		{"its failure", pending, news(NewsFailed, "pi_1", "re_1"), RefundSettle},
		{"a success of another intent", pending, news(NewsSucceeded, "pi_2", "re_9"), RefundMisnamed},
		{"a failure of another intent", pending, news(NewsFailed, "pi_2", "re_9"), RefundMisnamed},
		{"another refund of its intent", pending, news(NewsSucceeded, "pi_1", "re_9"), RefundMisnamed},
		{"another intent, its processor id", pending, news(NewsSucceeded, "pi_2", "re_1"), RefundMisnamed},
		{"processor id not known yet: its intent", &unknown, news(NewsSucceeded, "pi_1", "re_5"), RefundSettle},
		{"processor id not known yet: another intent", &unknown, news(NewsSucceeded, "pi_2", "re_5"), RefundMisnamed},
		{"a success of another refund after its own", &succeeded, news(NewsSucceeded, "pi_1", "re_9"), RefundMisnamed},
		{"a failure of another intent after it failed", &failed, news(NewsFailed, "pi_2", "re_9"), RefundMisnamed},
		{"its own success again", &succeeded, news(NewsSucceeded, "pi_1", "re_1"), RefundIgnore},
		{"the consumer's submission", &unknown, news(NewsSubmitted, "pi_1", "re_1"), RefundIgnore},
		{"the consumer's refusal", pending, news(NewsRefused, "pi_1", ""), RefundIgnore},
	}
	for _, c := range cases {
		before := *c.cur
		v, next := Apply(c.cur, c.f, now)
		if v != c.want {
			t.Errorf("%s: verdict %d, want %d", c.name, v, c.want)
		}
		if v == RefundMisnamed && next != nil {
			t.Errorf("%s: misnamed news writes %+v", c.name, next)
		}
		if *c.cur != before {
			t.Errorf("%s: Apply changed the refund it was handed", c.name)
		}
	}
}
