package reviews

import (
	"testing"

	"marketplace/libs/apperr"
)

// by decision lists the decisions of one decided status: without a status,
// or of pending flags (no decision), it is INVALID_ARGUMENT.
func TestFlagListByDecisionNeedsADecidedStatus(t *testing.T) {
	s := func(v string) *string { return &v }
	for _, status := range []*string{nil, s("pending")} {
		if _, err := flagList(status, nil, nil, nil, s("decision")); apperr.From(err).Code != apperr.InvalidArgument {
			t.Errorf("status %v by decision: %v", status, err)
		}
	}
	for _, status := range []string{"dismissed", "resolved"} {
		l, err := flagList(s(status), nil, nil, s("newest"), s("decision"))
		if err != nil || !l.ByDecision || !l.Newest || l.Status != status {
			t.Errorf("%s by decision: %+v %v", status, l, err)
		}
	}
	if l, err := flagList(nil, nil, nil, nil, s("report")); err != nil || l.ByDecision {
		t.Errorf("by report: %+v %v", l, err)
	}
}
