package payouts

// The administrators' search of payouts (docs/adr/0169): by a payout's id
// (whole, or its short form: the end of it), by a transaction reference
// (any part, any case), and through stores the caller found by name
// (storeIds: the console's search asks the catalog first). Bounded: at most
// domain.MaxSearchHits answers, reading at most domain.MaxSearchScan payouts
// (newest request first) plus domain.MaxSearchHits of each store given.

import (
	"cmp"
	"context"
	"slices"

	"marketplace/services/payouts/domain"
)

type searchPayoutsArgs struct {
	Query    string   `json:"query" op:"required,max=400"`
	StoreIDs []string `json:"storeIds" op:"id=stores,max=10"`
}

// PayoutHit is a payout a search found, and what of it matched (id,
// reference or store).
type PayoutHit struct {
	ID                   string  `json:"_id"`
	StoreID              string  `json:"storeId"`
	StoreName            string  `json:"storeName"`
	RequestedAmount      float64 `json:"requestedAmount"`
	Status               string  `json:"status"`
	RequestDate          int64   `json:"requestDate"`
	TransactionReference *string `json:"transactionReference"`
	MatchedBy            string  `json:"matchedBy" enum:"id|reference|store"`
}

// PayoutHits are a search's answer: partial when the payouts it read by
// id and reference stopped at domain.MaxSearchScan before the oldest.
type PayoutHits struct {
	Payouts []PayoutHit `json:"payouts"`
	Partial bool        `json:"partial"`
}

func (s *svc) searchPayouts(ctx context.Context, a *searchPayoutsArgs) (PayoutHits, error) {
	q, err := domain.NewPayoutQuery(a.Query)
	if err != nil {
		return PayoutHits{}, err
	}
	out := PayoutHits{Payouts: []PayoutHit{}}
	seen := map[string]bool{}
	add := func(p *domain.Payout, by string) {
		if !seen[p.ID] && len(out.Payouts) < domain.MaxSearchHits {
			seen[p.ID] = true
			out.Payouts = append(out.Payouts, PayoutHit{ID: p.ID, StoreID: p.StoreID, StoreName: p.StoreName, RequestedAmount: p.RequestedAmount.AED(),
				Status: p.Status, RequestDate: p.RequestDate, TransactionReference: strPtr(p.TransactionReference), MatchedBy: by})
		}
	}
	if q.ID != "" {
		p, err := s.payouts.Get(ctx, q.ID)
		if err != nil {
			return PayoutHits{}, err
		}
		if p != nil {
			add(p, domain.MatchedID)
		}
	} else {
		ps, err := s.payouts.Newest(ctx, domain.MaxSearchScan+1) // one more: are there older ones?
		if err != nil {
			return PayoutHits{}, err
		}
		out.Partial = len(ps) > domain.MaxSearchScan
		ps = ps[:min(len(ps), domain.MaxSearchScan)]
		for i := range ps {
			if by := q.Match(&ps[i]); by != "" {
				add(&ps[i], by)
			}
		}
	}
	var ofStores []domain.Payout
	for _, id := range slices.Compact(slices.Sorted(slices.Values(a.StoreIDs))) {
		ps, err := s.payouts.NewestOfStore(ctx, id, domain.MaxSearchHits)
		if err != nil {
			return PayoutHits{}, err
		}
		ofStores = append(ofStores, ps...)
	}
	slices.SortStableFunc(ofStores, func(x, y domain.Payout) int { return cmp.Compare(y.RequestDate, x.RequestDate) })
	for i := range ofStores {
		add(&ofStores[i], domain.MatchedStore)
	}
	return out, nil
}
