package payments

import (
	"context"

	contract "marketplace/libs/contracts/payments"
)

// getMoneyFacts answers payments.money.getFacts: the transfers of the payout
// ids asked for that exist (addTransferFacts). Disputes are the disputes'
// part of this service (answered empty here).
func (s *svc) getMoneyFacts(ctx context.Context, a *contract.MoneyFactsArgs) (*contract.MoneyFacts, error) {
	out := &contract.MoneyFacts{Disputes: map[string]contract.Dispute{}, Transfers: map[string]contract.Transfer{}}
	if err := s.addTransferFacts(ctx, a.PayoutIDs, out.Transfers); err != nil {
		return nil, err
	}
	return out, nil
}
