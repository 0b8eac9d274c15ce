package reviews

import (
	"context"
	"testing"

	"marketplace/libs/apperr"
	"marketplace/libs/auth"
	"marketplace/libs/ops"
	"marketplace/services/reviews/domain"
)

// The operations on the in-memory engine: each rule the domain holds is
// also applied by the operation that needs it, with the statistics, in one
// transaction.

// as is ctx of customer id (user "usr_"+id).
func as(id string) context.Context {
	ctx := auth.WithIdentity(context.Background(), &auth.Identity{Sub: "usr_" + id})
	return ops.WithCustomer(ctx, &ops.CustomerRef{ID: id, UserID: "usr_" + id, Name: id})
}

func admin() context.Context {
	return auth.WithIdentity(context.Background(), &auth.Identity{Sub: "adm", Roles: []string{auth.RoleAdmin}})
}

// seed writes visible review id of store sto_1 by customer cus_1 (4 stars,
// verified) and counts it in the statistics.
func seed(t *testing.T, s *svc, id string) {
	t.Helper()
	ctx := context.Background()
	r := domain.NewReview(id, domain.Draft{StoreID: "sto_1", Rating: 4, Title: "t"}, domain.Author{CustomerID: "cus_1", UserID: "usr_cus_1"},
		domain.Verdict{By: "ord_" + id}, 1)
	err := s.atomically(ctx, func(ctx context.Context) error {
		if err := s.reviews.Insert(ctx, r); err != nil {
			return err
		}
		return s.stats.Change(ctx, "sto_1", r.Created(), 1)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func statsOf(t *testing.T, s *svc) domain.Stats {
	t.Helper()
	d, err := s.stats.Of(context.Background(), "sto_1")
	if err != nil || d == nil {
		t.Fatalf("%v %v", d, err)
	}
	return d.Stats()
}

func TestOperationsKeepTheStatistics(t *testing.T) {
	s, _ := slotsSvc(t)
	seed(t, s, "rev_1")
	seed(t, s, "rev_2")
	one, two := domain.Add(4, true), domain.Stats{}.Apply(domain.Add(4, true)).Apply(domain.Add(4, true))
	if st := statsOf(t, s); st != two {
		t.Fatalf("seeded %+v", st)
	}
	hide := &visibilityArgs{ReviewID: "rev_1", AdminUserID: "adm", Visible: false}
	if _, err := s.setReviewVisibility(admin(), hide); err != nil {
		t.Fatal(err)
	}
	if st := statsOf(t, s); st != (domain.Stats{}).Apply(one) {
		t.Fatalf("after hiding: %+v", st)
	}
	if _, err := s.setReviewVisibility(admin(), hide); err != nil { // again: nothing changes
		t.Fatal(err)
	}
	if st := statsOf(t, s); st.Count != 1 {
		t.Fatalf("after hiding twice: %+v", st)
	}
	// A hidden review's edit and deletion leave the statistics.
	if _, err := s.updateReview(as("cus_1"), &updateArgs{ReviewID: "rev_1", Rating: ptrTo(1)}); err != nil {
		t.Fatal(err)
	}
	if st := statsOf(t, s); st.Count != 1 || st.Sum != 4 {
		t.Fatalf("after editing a hidden review: %+v", st)
	}
	if _, err := s.setReviewVisibility(admin(), &visibilityArgs{ReviewID: "rev_1", AdminUserID: "adm", Visible: true}); err != nil {
		t.Fatal(err)
	}
	if st := statsOf(t, s); st.Count != 2 || st.Sum != 5 || st.Stars[1] != 1 || st.Verified != 2 {
		t.Fatalf("after showing it again: %+v", st)
	}
	if _, err := s.deleteReview(as("cus_1"), &reviewArgs{ReviewID: "rev_2"}); err != nil {
		t.Fatal(err)
	}
	if st := statsOf(t, s); st.Count != 1 || st.Sum != 1 || st.Verified != 1 {
		t.Fatalf("after deleting: %+v", st)
	}
}

func TestOperationsApplyTheAuthorAndVoterRules(t *testing.T) {
	s, _ := slotsSvc(t)
	seed(t, s, "rev_1")
	_, err := s.updateReview(as("cus_2"), &updateArgs{ReviewID: "rev_1", Rating: ptrTo(1)})
	if e := apperr.From(err); e == nil || e.Code != apperr.PermissionDenied || e.Message != "only the review's author may edit it" {
		t.Fatalf("edit by another customer: %v", err)
	}
	_, err = s.deleteReview(as("cus_2"), &reviewArgs{ReviewID: "rev_1"})
	if e := apperr.From(err); e == nil || e.Code != apperr.PermissionDenied {
		t.Fatalf("delete by another customer: %v", err)
	}
	_, err = s.voteOnReview(as("cus_1"), &voteArgs{ReviewID: "rev_1", IsHelpful: true})
	if e := apperr.From(err); e == nil || e.Code != apperr.FailedPrecondition || e.Message != "you cannot vote on your own review" {
		t.Fatalf("self-vote: %v", err)
	}
	v, err := s.voteOnReview(as("cus_2"), &voteArgs{ReviewID: "rev_1", IsHelpful: true})
	if err != nil || v.HelpfulCount != 1 {
		t.Fatalf("%+v %v", v, err)
	}
	v, err = s.voteOnReview(as("cus_2"), &voteArgs{ReviewID: "rev_1", IsHelpful: false})
	if err != nil || v.HelpfulCount != 0 || v.NotHelpfulCount != 1 {
		t.Fatalf("changed vote %+v %v", v, err)
	}
	r, err := s.reviews.Find(context.Background(), "rev_1")
	if err != nil || r.Helpful != 0 || r.NotHelpful != 1 || r.Rating != 4 {
		t.Fatalf("stored %+v %v", r, err)
	}
}

func ptrTo[T any](v T) *T { return &v }
