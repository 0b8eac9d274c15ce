package payouts

import (
	"context"
	"errors"

	"marketplace/libs/store"
	"marketplace/services/payouts/domain"
)

// changeWallet is the one way the service changes a wallet's balances: it
// runs fn on the wallet (storage.Wallets.Update: a compare-and-set, fn run
// again on a fresh load after a concurrent change) and writes the change's
// statement entries (domain.StatementEntries: one per change, numbered by
// the wallet's MoveSeq under the same compare-and-set) in the caller's
// transaction. It returns the wallet as saved.
func (s *svc) changeWallet(ctx context.Context, walletID string, m domain.StatementMove, fn func(w *domain.Wallet) error) (*domain.Wallet, error) {
	var entries []domain.StatementEntry
	w, err := s.wallets.Update(ctx, walletID, func(w *domain.Wallet) error {
		if w.MoveSeq > 0 && w.JournaledAt == 0 { // last journaled by an older version
			last, err := s.statement.Last(ctx, w.ID)
			if err != nil {
				return err
			}
			if last != nil {
				w.JournaledAt = last.At
			}
		}
		before, seq := w.Balances(), w.MoveSeq
		if err := fn(w); err != nil {
			return err
		}
		entries = domain.StatementEntries(w, before, seq, m, w.UpdatedAt)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := s.statement.Insert(ctx, entries); err != nil {
		if store.IsDuplicate(err) {
			return nil, store.ErrConflict
		}
		return nil, err
	}
	return w, nil
}

// carryForward writes the opening carried_forward entry of every wallet
// older than the statement journal (domain.CarriedForward), each in its own
// transaction; a wallet that has entries is left alone, so running it again
// writes nothing. It runs at startup.
func (s *svc) carryForward(ctx context.Context) error {
	ids, err := s.wallets.Unjournaled(ctx)
	if err != nil {
		return err
	}
	for _, id := range ids {
		err := s.tx(ctx, "the wallet", func(ctx context.Context) error {
			var e *domain.StatementEntry
			_, err := s.wallets.Update(ctx, id, func(w *domain.Wallet) error {
				e = domain.CarriedForward(w, s.nowMs())
				return nil
			})
			if err != nil || e == nil {
				return err
			}
			return s.statement.Insert(ctx, []domain.StatementEntry{*e})
		})
		if err != nil && !errors.Is(err, domain.ErrNoWallet) {
			return err
		}
	}
	return nil
}
