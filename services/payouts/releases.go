package payouts

// What is due to be released (docs/adr/0163): the store's held earnings
// grouped by the Dubai calendar day of their release time, for the owner's
// dashboard.

import (
	"context"
	"sort"

	"marketplace/libs/money"
	"marketplace/libs/ops"
	"marketplace/services/payouts/domain"
)

// maxUpcomingEarnings bounds the held earnings getUpcomingReleases reads.
const maxUpcomingEarnings = 5000

// UpcomingRelease is one Dubai day of releases: At is the earliest release
// time that day (epoch ms), Amount what is still held of the earnings
// released that day (AED), Count how many.
type UpcomingRelease struct {
	Day    string  `json:"day"`
	At     int64   `json:"at"`
	Amount float64 `json:"amount"`
	Count  int     `json:"count"`
}

// UpcomingReleases is getUpcomingReleases's answer. More: the store holds
// more than maxUpcomingEarnings earnings and only the oldest were read.
type UpcomingReleases struct {
	Releases []UpcomingRelease `json:"releases"`
	More     bool              `json:"more"`
}

// getUpcomingReleases groups the store's held earnings (what is left of
// each after early releases and deductions) by the Dubai day of their
// release, earliest day first.
func (s *svc) getUpcomingReleases(ctx context.Context, _ *storeArgs) (*UpcomingReleases, error) {
	st := ops.StoreOf(ctx)
	held, err := s.ledger.HeldWithRelease(ctx, domain.WalletIDOf(st.ID), maxUpcomingEarnings+1)
	if err != nil {
		return nil, err
	}
	out := &UpcomingReleases{Releases: []UpcomingRelease{}}
	if len(held) > maxUpcomingEarnings {
		held, out.More = held[:maxUpcomingEarnings], true
	}
	out.Releases = GroupReleases(held)
	return out, nil
}

// GroupReleases groups held earnings by the Dubai day of their ReleaseAt,
// earliest day first, summing what each still holds.
func GroupReleases(held []domain.Transaction) []UpcomingRelease {
	type day struct {
		at     int64
		amount money.Fils
		count  int
	}
	days := map[string]*day{}
	for _, t := range held {
		if t.HeldRemaining <= 0 {
			continue
		}
		k := domain.DubaiDay(t.ReleaseAt)
		d := days[k]
		if d == nil {
			d = &day{at: t.ReleaseAt}
			days[k] = d
		}
		d.at = min(d.at, t.ReleaseAt)
		d.amount += t.HeldRemaining
		d.count++
	}
	out := make([]UpcomingRelease, 0, len(days))
	for k, d := range days {
		out = append(out, UpcomingRelease{Day: k, At: d.at, Amount: d.amount.AED(), Count: d.count})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Day < out[j].Day })
	return out
}
