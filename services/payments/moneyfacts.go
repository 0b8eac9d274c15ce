package payments

import (
	"context"

	contract "marketplace/libs/contracts/payments"
)

// getMoneyFacts answers payments.money.getFacts: the disputes and the
// transfers (by payout id) asked for that exist (addDisputeFacts,
// addTransferFacts).
func (s *svc) getMoneyFacts(ctx context.Context, a *contract.MoneyFactsArgs) (*contract.MoneyFacts, error) {
	out := &contract.MoneyFacts{Disputes: map[string]contract.Dispute{}, Transfers: map[string]contract.Transfer{}}
	if err := s.addDisputeFacts(ctx, a.DisputeIDs, out.Disputes); err != nil {
		return nil, err
	}
	if err := s.addTransferFacts(ctx, a.PayoutIDs, out.Transfers); err != nil {
		return nil, err
	}
	return out, nil
}
