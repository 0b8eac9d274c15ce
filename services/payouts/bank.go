package payouts

// The saved payout bank account (docs/adr/0162): one per wallet, saved by
// the store's owner, offered back only to the owner who saved it (after a
// handover the former owner's IBAN is never offered), validated as a payout
// request's, and every change told to the owner through the outbox
// (payouts.bank_account_changed) against account takeover.

import (
	"context"

	"marketplace/libs/apperr"
	contract "marketplace/libs/contracts/payouts"
	"marketplace/libs/ops"
	"marketplace/services/payouts/domain"
)

// BankAccountView is a saved bank account as the owner reads it.
type BankAccountView struct {
	IBAN              string `json:"IBAN"`
	IBANLast4         string `json:"ibanLast4"`
	BankName          string `json:"bankName"`
	AccountHolderName string `json:"accountHolderName"`
	UpdatedAt         int64  `json:"updatedAt"`
}

func bankAccountView(a *domain.BankAccount) *BankAccountView {
	return &BankAccountView{IBAN: a.IBAN, IBANLast4: domain.IBANLast4(a.IBAN), BankName: a.BankName, AccountHolderName: a.AccountHolderName, UpdatedAt: a.UpdatedAt}
}

// getBankAccount is the store's saved account, nil when none was saved or
// it was saved by someone who no longer owns the store.
func (s *svc) getBankAccount(ctx context.Context, _ *storeArgs) (*BankAccountView, error) {
	st := ops.StoreOf(ctx)
	a, err := s.accounts.Get(ctx, domain.WalletIDOf(st.ID))
	if err != nil {
		return nil, err
	}
	if !a.OfferedTo(st.OwnerUserID) || a.SavedBy != ops.Caller(ctx).Sub {
		return nil, nil
	}
	return bankAccountView(a), nil
}

type setBankAccountArgs struct {
	StoreID     string          `json:"storeId" op:"required,id=stores"`
	BankDetails bankDetailsArgs `json:"bankDetails" op:"required"`
}

// checkBank is the bank details as saved or paid to: the IBAN normalised,
// or INVALID_ARGUMENT at bankDetails.IBAN (as requestPayout answers).
func checkBank(b bankDetailsArgs) (domain.BankDetails, error) {
	iban, err := domain.CheckUAEIBAN(b.IBAN)
	if err != nil {
		return domain.BankDetails{}, apperr.Invalid("bankDetails.IBAN", "%v", err)
	}
	return domain.BankDetails{IBAN: iban, BankName: b.BankName, AccountHolderName: b.AccountHolderName}, nil
}

// setBankAccount saves the store's payout bank account, with its event, in
// one transaction; it returns the account saved.
func (s *svc) setBankAccount(ctx context.Context, a *setBankAccountArgs) (*BankAccountView, error) {
	b, err := checkBank(a.BankDetails)
	if err != nil {
		return nil, err
	}
	var out *domain.BankAccount
	err = s.tx(ctx, "the bank account", func(ctx context.Context) error {
		out, err = s.saveBankAccount(ctx, b)
		return err
	})
	if err != nil {
		return nil, err
	}
	s.env.Relay.Kick()
	return bankAccountView(out), nil
}

// saveBankAccount saves b as the store's account (the store and caller of
// ctx) and adds its payouts.bank_account_changed event, in the caller's
// transaction. Saving the same account again by the same owner changes
// nothing and tells no one.
func (s *svc) saveBankAccount(ctx context.Context, b domain.BankDetails) (*domain.BankAccount, error) {
	st, caller := ops.StoreOf(ctx), ops.Caller(ctx)
	walletID := domain.WalletIDOf(st.ID)
	// As requestPayout: an access check the wallet's copy of the store has
	// overtaken with another owner (a handover between the check and this
	// transaction) would record the former owner as savedBy.
	w, err := s.wallets.Get(ctx, walletID)
	if err != nil {
		return nil, err
	}
	if w != nil && domain.HandedOverSinceCheck(st.OwnerUserID, st.Version, w.OwnerUserID, w.StoreVersion) {
		return nil, apperr.New(apperr.PermissionDenied, "the store's bank account is its owner's to save: store %s was handed to another owner", st.ID).
			WithDetails(map[string]any{"reason": "store_handed_over"})
	}
	old, err := s.accounts.Get(ctx, walletID)
	if err != nil {
		return nil, err
	}
	now := s.nowMs()
	acc := &domain.BankAccount{ID: walletID, StoreID: st.ID, IBAN: b.IBAN, BankName: b.BankName, AccountHolderName: b.AccountHolderName,
		SavedBy: caller.Sub, UpdatedAt: now}
	if old != nil && old.IBAN == acc.IBAN && old.BankName == acc.BankName && old.AccountHolderName == acc.AccountHolderName && old.SavedBy == acc.SavedBy {
		return old, nil
	}
	if err := s.accounts.Save(ctx, acc); err != nil {
		return nil, err
	}
	_, err = s.env.Outbox.Add(ctx, contract.TopicWallets, contract.EventBankAccountChanged, walletID, contract.BankAccountChanged{
		StoreID: st.ID, WalletID: walletID, OwnerUserID: st.OwnerUserID, IBANLast4: domain.IBANLast4(acc.IBAN), ChangedBy: caller.Sub, EventTime: now})
	return acc, err
}
