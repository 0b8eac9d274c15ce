package payouts

// admins.finance.reconcilePlatform (docs/adr/0151): the platform proves that
// nothing went missing. The customers service sums the orders' money
// (customers.orders.getMoneyTotals); this service sums its own records in one
// read transaction (domain.PlatformTerms), in fils; the equation
// (domain.PlatformEquation) balances exactly when every event has been
// consumed: the two reads are not one snapshot across services, so a refund
// the processor confirmed a moment ago may be in the customers' sums before
// its reversal is in a wallet. asOf says when the sums were read.

import (
	"context"

	"marketplace/services/payouts/domain"
)

type reconcilePlatformArgs struct {
	AdminUserID string `json:"adminUserId" op:"required,nonblank"`
}

// PlatformReconciliation is reconcilePlatform's answer: the equation, its
// terms in AED (terms) and in fils (termsFils: exact), left − right
// (difference, differenceFils), balanced when it is 0, and when it was read
// (asOf, epoch ms).
type PlatformReconciliation struct {
	Balanced       bool               `json:"balanced"`
	Difference     float64            `json:"difference"`
	DifferenceFils int64              `json:"differenceFils"`
	Equation       string             `json:"equation"`
	Terms          map[string]float64 `json:"terms"`
	TermsFils      map[string]int64   `json:"termsFils"`
	// Orders and Delivered count the orders paid in AED; OtherCurrencyOrders
	// those paid in another currency, outside the equation.
	Orders              int   `json:"orders"`
	Delivered           int   `json:"delivered"`
	OtherCurrencyOrders int   `json:"otherCurrencyOrders"`
	AsOf                int64 `json:"asOf"`
}

// reconcilePlatform sums the platform's money: see the top of this file.
func (s *svc) reconcilePlatform(ctx context.Context, _ *reconcilePlatformArgs) (*PlatformReconciliation, error) {
	asOf := s.nowMs()
	ct, err := s.moneyTotals(ctx)
	if err != nil {
		return nil, err
	}
	t := domain.PlatformTerms{CustomerTotals: domain.CustomerTotals{Captured: ct.Captured, Refunded: ct.Refunded, DisputesLost: ct.DisputesLost,
		NotDelivered: ct.NotDelivered, PaymentDifferences: ct.PaymentDifferences, OtherCurrencyDelivered: ct.OtherCurrencyDelivered}}
	err = s.env.DB.Tx(ctx, func(ctx context.Context) error {
		t = domain.PlatformTerms{CustomerTotals: t.CustomerTotals}
		if err := s.orders.EachCredited(ctx, t.AddOrder); err != nil {
			return err
		}
		if err := s.wallets.Each(ctx, t.AddWallet); err != nil {
			return err
		}
		if err := s.payouts.Each(ctx, t.AddPayout); err != nil {
			return err
		}
		if err := s.ledger.EachOfTypes(ctx, domain.PlatformTxTypes, t.AddTransaction); err != nil {
			return err
		}
		return s.fees.Each(ctx, t.AddPlatformFee)
	})
	if err != nil {
		return nil, err
	}
	d := t.Difference()
	out := &PlatformReconciliation{Balanced: d == 0, Difference: d.AED(), DifferenceFils: int64(d), Equation: domain.PlatformEquation,
		Terms: map[string]float64{}, TermsFils: map[string]int64{}, Orders: ct.Orders, Delivered: ct.Delivered,
		OtherCurrencyOrders: ct.OtherCurrencyOrders, AsOf: asOf}
	for _, n := range t.Named() {
		out.Terms[n.Name], out.TermsFils[n.Name] = n.Fils.AED(), int64(n.Fils)
	}
	if !out.Balanced {
		s.env.Logger.InfoContext(ctx, "payouts: the platform's money does not balance (it must once every event is consumed)",
			"differenceFils", int64(d), "terms", out.TermsFils)
	}
	return out, nil
}
