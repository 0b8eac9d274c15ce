package domain

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"marketplace/libs/apperr"
	contract "marketplace/libs/contracts/reviews"
)

// wantErr fails unless err has the code and a message containing text ("" for
// no error at all).
func wantErr(t *testing.T, what string, err error, code apperr.Code, text string) {
	t.Helper()
	if code == "" {
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return
	}
	e := apperr.From(err)
	if err == nil || e.Code != code || !strings.Contains(e.Message, text) {
		t.Fatalf("%s: got %v, want %s %q", what, err, code, text)
	}
}

func ptr[T any](v T) *T { return &v }

// aReview is a visible, verified review of 4 stars by cus_1 (user usr_1).
func aReview() *Review {
	return &Review{ID: "rev_1", StoreID: "sto_1", StoreName: "Shop", CustomerID: "cus_1", UserID: "usr_1", CustomerName: "Ann",
		OrderID: "ord_1", Rating: 4, Title: "Good", Comment: "Fast", PhotoIDs: []string{"ph_1"}, Verified: true, VerifiedBy: "ord_1",
		CreatedAt: 100, UpdatedAt: 100}
}

var (
	ann = Author{CustomerID: "cus_1", UserID: "usr_1", Name: "Ann B."}
	bob = Author{CustomerID: "cus_2", UserID: "usr_2", Name: "Bob"}
)

// TestOnlyTheAuthorEdits: updateReview's author check (interface section 5,
// rule 2; 7.2 "update or delete by a non-author").
func TestOnlyTheAuthorEdits(t *testing.T) {
	cases := []struct {
		name string
		by   Author
		code apperr.Code
	}{
		{"the author", ann, ""},
		{"another customer", bob, apperr.PermissionDenied},
		{"a caller without a customer profile", Author{}, apperr.PermissionDenied},
	}
	for _, c := range cases {
		r := aReview()
		_, err := r.Apply(Edit{Rating: ptr(2)}, c.by, 200)
		wantErr(t, c.name, err, c.code, "only the review's author may edit it")
		if c.code != "" && !reflect.DeepEqual(r, aReview()) {
			t.Fatalf("%s: a refused edit changed the review: %+v", c.name, r)
		}
		if err := r.CheckAuthor(c.by.CustomerID, "edit"); (err == nil) != (c.code == "") {
			t.Fatalf("%s: CheckAuthor %v", c.name, err)
		}
	}
}

func TestEdit(t *testing.T) {
	cases := []struct {
		name   string
		hidden bool
		edit   Edit
		fields []string
		delta  Delta
		code   apperr.Code
		check  func(t *testing.T, r *Review)
	}{
		{name: "the same values change nothing", edit: Edit{Rating: ptr(4), Title: ptr("Good"), PhotoIDs: []string{"ph_1"}}},
		{name: "a new rating moves the statistics", edit: Edit{Rating: ptr(2)}, fields: []string{"rating"}, delta: Rerate(4, 2),
			check: func(t *testing.T, r *Review) {
				if r.Rating != 2 || r.UpdatedAt != 200 || r.CustomerName != "Ann B." || len(r.Edits) != 1 {
					t.Fatalf("%+v", r)
				}
				if v := r.Edits[0]; v.Rating != 4 || v.Title != "Good" || v.WrittenAt != 100 || v.ReplacedAt != 200 {
					t.Fatalf("version kept %+v", v)
				}
			}},
		{name: "a hidden review's new rating leaves the statistics", hidden: true, edit: Edit{Rating: ptr(2)}, fields: []string{"rating"}},
		{name: "every field", edit: Edit{Rating: ptr(5), Title: ptr("T"), Comment: ptr("C"), PhotoIDs: []string{}},
			fields: []string{"rating", "title", "comment", "photoIds"}, delta: Rerate(4, 5),
			check: func(t *testing.T, r *Review) {
				if r.PhotoIDs == nil || len(r.PhotoIDs) != 0 || r.Title != "T" || r.Comment != "C" {
					t.Fatalf("%+v", r)
				}
			}},
		{name: "removing the title keeps the comment", edit: Edit{Title: ptr("")}, fields: []string{"title"}},
		{name: "removing both", edit: Edit{Title: ptr(""), Comment: ptr("")}, code: apperr.InvalidArgument},
		{name: "a rating above 5", edit: Edit{Rating: ptr(6)}, code: apperr.InvalidArgument},
	}
	for _, c := range cases {
		r := aReview()
		r.Hidden = c.hidden
		got, err := r.Apply(c.edit, ann, 200)
		wantErr(t, c.name, err, c.code, "")
		if c.code != "" {
			continue
		}
		if !reflect.DeepEqual(got.Fields, c.fields) || got.Delta != c.delta || got.PreviousRating != 4 {
			t.Fatalf("%s: %+v, want fields %v delta %+v", c.name, got, c.fields, c.delta)
		}
		if len(c.fields) == 0 && !reflect.DeepEqual(r, aReview()) {
			t.Fatalf("%s: an edit of nothing changed the review: %+v", c.name, r)
		}
		if c.check != nil {
			c.check(t, r)
		}
	}
}

func TestEditKeepsAtMostMaxEdits(t *testing.T) {
	r := aReview()
	for i := range MaxEdits + 3 {
		if _, err := r.Apply(Edit{Comment: ptr(fmt.Sprint("v", i))}, ann, int64(200+i)); err != nil {
			t.Fatal(err)
		}
	}
	if len(r.Edits) != MaxEdits || r.Edits[MaxEdits-1].Comment != fmt.Sprint("v", MaxEdits+1) || r.Edits[0].Comment != "v2" {
		t.Fatalf("%d versions, first %q, last %q", len(r.Edits), r.Edits[0].Comment, r.Edits[len(r.Edits)-1].Comment)
	}
}

func TestCheckEditAndDraft(t *testing.T) {
	wantErr(t, "empty edit", CheckEdit(Edit{}), apperr.InvalidArgument, "give at least one of rating, title, comment, photoIds")
	wantErr(t, "photo twice", CheckEdit(Edit{PhotoIDs: []string{"a", "b", "a"}}), apperr.InvalidArgument, "repeats photoIds[0]")
	wantErr(t, "rating 0", CheckEdit(Edit{Rating: ptr(0)}), apperr.InvalidArgument, "must be at least 1")
	wantErr(t, "an empty photo list", CheckEdit(Edit{PhotoIDs: []string{}}), "", "")
	ok := Draft{StoreID: "sto_1", Rating: 5, Title: "t"}
	wantErr(t, "draft", CheckDraft(ok), "", "")
	for name, d := range map[string]Draft{
		"no title or comment": {Rating: 3},
		"rating 0":            {Rating: 0, Title: "t"},
		"rating 6":            {Rating: 6, Title: "t"},
		"a photo twice":       {Rating: 3, Comment: "c", PhotoIDs: []string{"x", "x"}},
	} {
		wantErr(t, name, CheckDraft(d), apperr.InvalidArgument, "")
	}
}

func TestNewReview(t *testing.T) {
	d := Draft{StoreID: "sto_1", StoreName: "Shop", OrderID: "ord_1", Rating: 5, Title: "t"}
	r := NewReview("rev_9", d, ann, Verdict{By: "ord_1"}, 300)
	if !r.Verified || r.VerifiedBy != "ord_1" || r.PhotoIDs == nil || r.CreatedAt != 300 || r.UpdatedAt != 300 || r.CustomerName != "Ann B." {
		t.Fatalf("%+v", r)
	}
	if r.Created() != Add(5, true) {
		t.Fatal("a new review counts in the statistics")
	}
	if u := NewReview("rev_8", d, ann, Verdict{}, 300); u.Verified || u.VerifiedBy != "" || u.Created() != Add(5, false) {
		t.Fatalf("unverified %+v", u)
	}
}

// TestOnlyTheAuthorDeletes: deleteReview's author check, and the statistics
// change of a deletion (a hidden review has left them already).
func TestOnlyTheAuthorDeletes(t *testing.T) {
	r := aReview()
	_, err := r.Delete(bob.CustomerID)
	wantErr(t, "another customer", err, apperr.PermissionDenied, "only the review's author may delete it")
	d, err := r.Delete(ann.CustomerID)
	if err != nil || d != Remove(4, true) {
		t.Fatalf("delta %+v, %v", d, err)
	}
	r.Hidden = true
	if d, err := r.Delete(ann.CustomerID); err != nil || !d.Zero() {
		t.Fatalf("a hidden review's deletion: delta %+v, %v", d, err)
	}
}

// TestNoSelfVote: a customer cannot vote on their own review (interface 2.2,
// 7.2), nor on a hidden one.
func TestNoSelfVote(t *testing.T) {
	r := aReview()
	changed, err := r.Vote(ann.CustomerID, nil, true)
	wantErr(t, "own review", err, apperr.FailedPrecondition, "you cannot vote on your own review")
	if changed || r.Helpful != 0 {
		t.Fatal("a refused vote counted")
	}
	wantErr(t, "CheckVoter", r.CheckVoter(ann.CustomerID), apperr.FailedPrecondition, "you cannot vote on your own review")
	wantErr(t, "another customer", r.CheckVoter(bob.CustomerID), "", "")
	r.Hidden = true
	_, err = r.Vote(bob.CustomerID, nil, true)
	wantErr(t, "hidden review", err, apperr.FailedPrecondition, "review rev_1 is hidden by the moderators")
}

// TestVotes: one vote per customer, changeable: counters and the Wilson score
// follow it.
func TestVotes(t *testing.T) {
	cases := []struct {
		name            string
		prev            *bool
		helpful         bool
		changed         bool
		wantH, wantN    int
		startH, startNH int
	}{
		{"first helpful vote", nil, true, true, 3, 1, 2, 1},
		{"first not-helpful vote", nil, false, true, 2, 2, 2, 1},
		{"the same vote again", ptr(true), true, false, 2, 1, 2, 1},
		{"helpful to not helpful", ptr(true), false, true, 1, 2, 2, 1},
		{"not helpful to helpful", ptr(false), true, true, 3, 0, 2, 1},
	}
	for _, c := range cases {
		r := aReview()
		r.Helpful, r.NotHelpful, r.Wilson = c.startH, c.startNH, Wilson(c.startH, c.startNH)
		changed, err := r.Vote(bob.CustomerID, c.prev, c.helpful)
		if err != nil || changed != c.changed || r.Helpful != c.wantH || r.NotHelpful != c.wantN || r.Wilson != Wilson(c.wantH, c.wantN) {
			t.Fatalf("%s: changed %v, %d/%d wilson %v, %v", c.name, changed, r.Helpful, r.NotHelpful, r.Wilson, err)
		}
	}
	if VoteID("rev_1", "cus_2") == VoteID("rev_1", "cus_3") || VoteID("rev_1", "cus_2") != VoteID("rev_1", "cus_2") {
		t.Fatal("VoteID")
	}
}

// TestHidingChangesTheStatistics: hiding a review takes it out of its store's
// statistics, showing it again puts it back, and deciding the state it
// already has changes nothing.
func TestHidingChangesTheStatistics(t *testing.T) {
	m := Moderation{ByUserID: "adm_1", At: 500, AdminNotes: "spam"}
	for _, verified := range []bool{true, false} {
		r := aReview()
		r.Verified = verified
		d, changed := r.SetHidden(true, m)
		if !changed || d != Remove(4, verified) || !r.Hidden || r.Moderation == nil || r.Moderation.AdminNotes != "spam" {
			t.Fatalf("hide (verified %v): %+v %v %+v", verified, d, changed, r)
		}
		if d, changed := r.SetHidden(true, m); changed || !d.Zero() {
			t.Fatal("hiding a hidden review changed something")
		}
		m2 := Moderation{Visible: true, ByUserID: "adm_2", At: 600}
		d, changed = r.SetHidden(false, m2)
		if !changed || d != Add(4, verified) || r.Hidden || r.Moderation.ByUserID != "adm_2" {
			t.Fatalf("show (verified %v): %+v %v %+v", verified, d, changed, r)
		}
		if d, changed := r.SetHidden(false, m2); changed || !d.Zero() {
			t.Fatal("showing a shown review changed something")
		}
	}
	if VisibilityEvent(true) != contract.EventHidden || VisibilityEvent(false) != contract.EventShown {
		t.Fatal("VisibilityEvent")
	}
}

// TestReviewMethodsKeepTheStatisticsEqualToARecount: any sequence of edits,
// hides, shows, withdrawals and deletions through the review's own methods
// leaves the statistics, changed by the deltas they return, equal to a
// recount of the reviews.
func TestReviewMethodsKeepTheStatisticsEqualToARecount(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for run := range 100 {
		var reviews []*Review
		var s Stats
		for step := range 80 {
			op := rng.IntN(6)
			if len(reviews) == 0 {
				op = 0
			}
			var r *Review
			if len(reviews) > 0 {
				r = reviews[rng.IntN(len(reviews))]
			}
			switch op {
			case 0:
				v := Verdict{}
				if rng.IntN(2) == 0 {
					v.By = fmt.Sprint("ord_", step)
				}
				n := NewReview(fmt.Sprint("rev_", step), Draft{StoreID: "sto_1", Rating: 1 + rng.IntN(5), Title: "t"}, ann, v, int64(step))
				reviews = append(reviews, n)
				s = s.Apply(n.Created())
			case 1:
				e, err := r.Apply(Edit{Rating: ptr(1 + rng.IntN(5))}, ann, int64(step))
				if err != nil {
					t.Fatal(err)
				}
				s = s.Apply(e.Delta)
			case 2:
				d, _ := r.SetHidden(true, Moderation{At: int64(step)})
				s = s.Apply(d)
			case 3:
				d, _ := r.SetHidden(false, Moderation{Visible: true, At: int64(step)})
				s = s.Apply(d)
			case 4:
				s = s.Apply(r.Unverify())
			case 5:
				d, err := r.Delete(ann.CustomerID)
				if err != nil {
					t.Fatal(err)
				}
				s = s.Apply(d)
				for i := range reviews {
					if reviews[i] == r {
						reviews = append(reviews[:i], reviews[i+1:]...)
						break
					}
				}
			}
			rated := make([]RatedReview, len(reviews))
			for i, r := range reviews {
				rated[i] = RatedReview{Rating: r.Rating, Verified: r.Verified, Hidden: r.Hidden}
			}
			if got := Recount(rated); got != s {
				t.Fatalf("run %d step %d (op %d): statistics %+v, recount %+v", run, step, op, s, got)
			}
		}
	}
}

// TestUnverify: a cancelled order withdraws the verification of the review it
// gave it; a visible review takes one from the verified count.
func TestUnverify(t *testing.T) {
	r := aReview()
	if d := r.Unverify(); d != Unverify() || r.Verified || r.VerifiedBy != "" {
		t.Fatalf("%+v %+v", d, r)
	}
	if d := r.Unverify(); !d.Zero() {
		t.Fatal("withdrawn twice")
	}
	h := aReview()
	h.Hidden = true
	if d := h.Unverify(); !d.Zero() || h.Verified {
		t.Fatalf("hidden: %+v %+v", d, h)
	}
}

func TestSeenBy(t *testing.T) {
	r := aReview()
	for _, v := range []*Viewer{nil, {Sub: "usr_2"}, {Sub: "usr_1"}, {Sub: "adm", Admin: true}} {
		if !r.SeenBy(v) {
			t.Fatalf("a shown review hidden from %+v", v)
		}
	}
	r.Hidden = true
	for v, want := range map[*Viewer]bool{nil: false, {Sub: "usr_2"}: false, {Sub: "usr_1"}: true, {Sub: "adm", Admin: true}: true} {
		if r.SeenBy(v) != want {
			t.Fatalf("hidden review seen by %+v: %v", v, !want)
		}
	}
	wantErr(t, "ErrNoReview", ErrNoReview("rev_1"), apperr.NotFound, "review rev_1 does not exist")
}

// TestStoreResponse: one response per review (7.2 "second store response"),
// changed only once added, never on a hidden review.
func TestStoreResponse(t *testing.T) {
	r := aReview()
	_, err := r.Respond("thanks", "usr_o", true, 100)
	wantErr(t, "update before add", err, apperr.NotFound, "review rev_1 has no store response yet: add one with addStoreResponse")
	got, err := r.Respond("thanks", "usr_o", false, 100)
	if err != nil || got != (StoreResponse{Comment: "thanks", RespondedAt: 100, ByUserID: "usr_o"}) || r.Response == nil {
		t.Fatalf("%+v %v", got, err)
	}
	_, err = r.Respond("again", "usr_o", false, 150)
	wantErr(t, "second response", err, apperr.AlreadyExists, "the store has already responded to review rev_1: change it with updateStoreResponse")
	got, err = r.Respond("thank you", "usr_o2", true, 200)
	if err != nil || got != (StoreResponse{Comment: "thank you", RespondedAt: 100, UpdatedAt: 200, ByUserID: "usr_o2"}) {
		t.Fatalf("%+v %v", got, err)
	}
	h := aReview()
	h.Hidden = true
	_, err = h.Respond("x", "usr_o", false, 100)
	wantErr(t, "hidden", err, apperr.FailedPrecondition, "review rev_1 is hidden by the moderators")
}

// TestFlagging: one's own review cannot be flagged, nor a hidden one; a new
// flag is pending.
func TestFlagging(t *testing.T) {
	r := aReview()
	_, err := NewFlag("flg_1", r, ann, "spam", "", 100)
	wantErr(t, "own review", err, apperr.FailedPrecondition, "you cannot flag your own review: edit or delete it instead")
	f, err := NewFlag("flg_1", r, bob, "spam", "ads", 100)
	if err != nil || f.Status != contract.FlagStatusPending || f.StoreID != "sto_1" || f.UserID != "usr_2" || f.CustomerName != "Bob" {
		t.Fatalf("%+v %v", f, err)
	}
	r.Hidden = true
	_, err = NewFlag("flg_2", r, bob, "spam", "", 100)
	wantErr(t, "hidden", err, apperr.FailedPrecondition, "review rev_1 is already hidden by the moderators")
}

// TestDecideFlag: a pending flag is dismissed (the review stays) or resolved
// by hiding the review, which resolves its other pending flags; a decided
// flag cannot be decided again.
func TestDecideFlag(t *testing.T) {
	pending := func(id string) *Flag {
		return &Flag{ID: id, ReviewID: "rev_1", StoreID: "sto_1", UserID: "usr_2", Reason: "spam", Status: contract.FlagStatusPending}
	}
	f := pending("flg_1")
	hide, _, _, err := f.Decide(Decision{Action: contract.ActionDismiss, AdminUserID: "adm", AdminName: "Mariam", AdminNotes: "fine"}, 500)
	if err != nil || hide || f.Resolution.AdminName != "Mariam" || f.Status != contract.FlagStatusDismissed || f.Resolution.Through != ThroughResolveFlag || f.Resolution.ResolvedAt != 500 {
		t.Fatalf("dismiss: %+v %v", f, err)
	}
	_, _, _, err = f.Decide(Decision{Action: contract.ActionHideReview}, 600)
	wantErr(t, "decided twice", err, apperr.FailedPrecondition, "flag flg_1 was already dismissed")

	f = pending("flg_2")
	hide, others, m, err := f.Decide(Decision{Action: contract.ActionHideReview, AdminUserID: "adm", AdminName: "Mariam", AdminNotes: "spam"}, 700)
	if err != nil || !hide || others.AdminName != "Mariam" || f.Status != contract.FlagStatusResolved || others.ByFlag != "flg_2" || m.Visible || m.FlagID != "flg_2" || m.At != 700 {
		t.Fatalf("hide: %+v %+v %+v %v", f, others, m, err)
	}
	if ev := f.Settled(); ev.Status != contract.FlagStatusResolved || ev.Action != contract.ActionHideReview || ev.FlaggedByUserID != "usr_2" || ev.ResolvedAt != 700 {
		t.Fatalf("event %+v", ev)
	}
	settled, err := ResolveByHiding([]Flag{*pending("flg_3"), *pending("flg_4")}, others)
	if err != nil || len(settled) != 2 {
		t.Fatal(err)
	}
	for _, s := range settled {
		if s.Status != contract.FlagStatusResolved || s.Resolution.Action != contract.ActionHideReview || s.Resolution.ByFlag != "flg_2" || s.Resolution.AdminName != "Mariam" {
			t.Fatalf("%+v", s)
		}
	}
	mv, res := VisibilityDecision(false, "adm", "Noor", "n", 800)
	if mv.Visible || mv.ByUserID != "adm" || res.AdminName != "Noor" || res.Through != ThroughVisibility || res.Action != contract.ActionHideReview {
		t.Fatalf("%+v %+v", mv, res)
	}
}

// TestCloneSharesNothing: what Update keeps as loaded is not changed by the
// methods run on the review (else store.Changes would miss their changes).
func TestCloneSharesNothing(t *testing.T) {
	r := aReview()
	r.Edits = make([]Version, 1, 8)
	r.Response = &StoreResponse{Comment: "a"}
	r.Moderation = &Moderation{AdminNotes: "x"}
	before := r.Clone()
	if _, err := r.Apply(Edit{Comment: ptr("new"), PhotoIDs: []string{"ph_2"}}, ann, 200); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Respond("b", "usr_o", true, 200); err != nil {
		t.Fatal(err)
	}
	r.PhotoIDs[0] = "changed"
	if before.Comment != "Fast" || len(before.Edits) != 1 || before.Response.Comment != "a" || before.PhotoIDs[0] != "ph_1" {
		t.Fatalf("the loaded copy changed: %+v", before)
	}
}

// TestModerationNamed: hiding through a flag, hiding and showing again name
// the administrator beside their id on the review's moderation (adminName,
// left out when their token stated none: docs/adr/0168).
func TestModerationNamed(t *testing.T) {
	f := &Flag{ID: "flg_1", ReviewID: "rev_1", Status: contract.FlagStatusPending}
	_, _, m, err := f.Decide(Decision{Action: contract.ActionHideReview, AdminUserID: "adm", AdminName: "Mariam"}, 700)
	if err != nil || m.ByUserID != "adm" || m.ByName != "Mariam" {
		t.Fatalf("hide through a flag: %+v %v", m, err)
	}
	for _, visible := range []bool{false, true} {
		mv, _ := VisibilityDecision(visible, "adm", "Noor", "", 800)
		if mv.Visible != visible || mv.ByUserID != "adm" || mv.ByName != "Noor" {
			t.Errorf("visible %v: %+v", visible, mv)
		}
		r := aReview()
		r.Hidden = visible
		if _, changed := r.SetHidden(!visible, mv); !changed || r.Moderation.ByName != "Noor" {
			t.Errorf("visible %v: review's moderation %+v", visible, r.Moderation)
		}
	}
	b, _ := json.Marshal(Moderation{ByUserID: "adm", ByName: "Noor"})
	if !strings.Contains(string(b), `"adminUserId":"adm","adminName":"Noor"`) {
		t.Errorf("moderation as served: %s", b)
	}
	mv, _ := VisibilityDecision(false, "adm", "", "", 800)
	if b, _ := json.Marshal(mv); strings.Contains(string(b), "adminName") {
		t.Errorf("an unnamed decision: %s", b)
	}
}
