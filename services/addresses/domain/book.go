package domain

import "marketplace/libs/apperr"

// Book is one customer's addresses, active or not, and the count kept of
// them (addressCounts: what the cap is held on). Its methods hold the rules
// between addresses: the cap, and at most one default, active, handed over
// when it leaves. A repository loads it whole (at most MaxAddresses) and
// saves what a method changed; the unique index and the conditional count
// hold the same rules against concurrent writers.
type Book struct {
	CustomerID string
	Count      int
	Addresses  []Address
}

// TooManyAddresses is the refusal of an address past MaxAddresses.
func TooManyAddresses() error {
	return apperr.New(apperr.FailedPrecondition, "a customer keeps at most %d addresses", MaxAddresses)
}

// Find is the address id of the book, or nil.
func (b *Book) Find(id string) *Address {
	for i := range b.Addresses {
		if b.Addresses[i].ID == id {
			return &b.Addresses[i]
		}
	}
	return nil
}

func (b *Book) mustFind(id string) (*Address, error) {
	if a := b.Find(id); a != nil {
		return a, nil
	}
	return nil, NotFound(id)
}

// Default is the customer's default address, or nil.
func (b *Book) Default() *Address {
	for i := range b.Addresses {
		if b.Addresses[i].IsDefault {
			return &b.Addresses[i]
		}
	}
	return nil
}

// Add adds a to the book: refused past MaxAddresses. It becomes the
// default when asked (makeDefault true), or, when not said (nil), if the
// customer has no default yet (the first address).
func (b *Book) Add(a Address, makeDefault *bool, now int64) error {
	if b.Count >= MaxAddresses {
		return TooManyAddresses()
	}
	b.Count++
	dflt := b.Default() == nil
	if makeDefault != nil {
		dflt = *makeDefault
	}
	a.IsDefault = false
	b.Addresses = append(b.Addresses, a)
	if dflt {
		return b.moveDefault(a.ID, now)
	}
	return nil
}

// Update applies c to the address id. seen is the address as c was checked
// against (Address.Check, and its place with the catalog): if its city, area
// or activity changed since, ErrStale. A default that becomes inactive hands
// over to its successor; isDefault true makes it the default, false (when it
// was the default) leaves the customer without one.
func (b *Book) Update(id string, c Change, seen Address, now int64) error {
	a, err := b.mustFind(id)
	if err != nil {
		return err
	}
	if a.City != seen.City || a.Area != seen.Area || a.IsActive != seen.IsActive {
		return ErrStale
	}
	if err := a.Check(c); err != nil {
		return err
	}
	wasDefault := a.IsDefault
	a.apply(c, now)
	switch {
	case c.IsDefault != nil && *c.IsDefault:
		return b.moveDefault(id, now)
	case !a.IsActive && wasDefault:
		return b.moveDefault(Successor(b.Addresses, id), now)
	case c.IsDefault != nil && !*c.IsDefault && wasDefault:
		return b.moveDefault("", now)
	}
	return nil
}

// Delete removes the address id; a default hands over to its successor.
func (b *Book) Delete(id string, now int64) error {
	a, err := b.mustFind(id)
	if err != nil {
		return err
	}
	wasDefault := a.IsDefault
	kept := make([]Address, 0, len(b.Addresses)-1)
	for _, x := range b.Addresses {
		if x.ID != id {
			kept = append(kept, x)
		}
	}
	b.Addresses = kept
	b.Count--
	if wasDefault {
		return b.moveDefault(Successor(b.Addresses, id), now)
	}
	return nil
}

// SetDefault makes the address id the default; an inactive one cannot be.
func (b *Book) SetDefault(id string, now int64) error {
	if _, err := b.mustFind(id); err != nil {
		return err
	}
	return b.moveDefault(id, now)
}

// SetDefaultAsSeen is SetDefault for an address the caller read, active,
// before this transaction (the operation's check): one deleted or
// deactivated since is refused as changed meanwhile.
func (b *Book) SetDefaultAsSeen(id string, now int64) error {
	if a := b.Find(id); a == nil || !a.IsActive {
		return apperr.New(apperr.FailedPrecondition, "address %s was deleted or deactivated meanwhile", id)
	}
	return b.SetDefault(id, now)
}

// moveDefault makes id the only default ("" for none).
func (b *Book) moveDefault(id string, now int64) error {
	if id != "" {
		a, err := b.mustFind(id)
		if err != nil {
			return err
		}
		if !a.IsActive {
			return apperr.New(apperr.FailedPrecondition, "address %s is inactive and cannot be the default", id)
		}
	}
	for i := range b.Addresses {
		a := &b.Addresses[i]
		if a.IsDefault && a.ID != id {
			a.IsDefault, a.UpdatedAt = false, now
		}
		if a.ID == id {
			a.IsDefault, a.UpdatedAt = true, now
		}
	}
	return nil
}
