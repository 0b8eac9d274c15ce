package customers

import (
	"context"

	"marketplace/libs/apperr"
	"marketplace/libs/ids"
	"marketplace/libs/money"
	"marketplace/libs/ops"
	"marketplace/libs/store"
	"marketplace/services/customers/domain"
)

type addItemArgs struct {
	ProductID string `json:"productId" op:"required,id=products"`
	Quantity  int    `json:"quantity" op:"required,min=1,max=99"`
}

func (s *svc) addItem(ctx context.Context, a *addItemArgs) (string, error) {
	p := ops.CustomerOf(ctx)
	products, err := s.catalog.Products(ctx, []string{a.ProductID})
	if err != nil {
		return "", err
	}
	prod, ok := products[a.ProductID]
	if err := domain.CheckAddable(domain.Available{ProductID: a.ProductID, Exists: ok, IsAvailable: prod.IsAvailable}); err != nil {
		return "", err
	}
	price, err := money.FromAED(prod.Price)
	if err != nil {
		return "", err
	}
	return store.Retry(ctx, "the cart", func(ctx context.Context) (string, error) {
		// Adding again: one conditional update, so concurrent adds never push a
		// line past the maximum quantity.
		line, err := s.cart.AddToLine(ctx, p.ID, a.ProductID, a.Quantity, price, prod.Name)
		if err != nil || line != nil {
			if line != nil {
				return line.ID, nil
			}
			return "", err
		}
		// No line took the quantity: either there is none, or it would pass the
		// maximum, or a concurrent first add created it since (then add to it).
		existing, err := s.cart.Line(ctx, p.ID, a.ProductID)
		switch {
		case err != nil:
			return "", err
		case existing != nil && !domain.CanTake(existing.Quantity, a.Quantity):
			return "", domain.TooMany()
		case existing != nil:
			return "", store.ErrConflict
		}
		first := domain.CartItem{ID: ids.New("carts"), CustomerID: p.ID, ProductID: a.ProductID, StoreID: prod.StoreID, Name: prod.Name,
			UnitPrice: price, Quantity: a.Quantity, CreationTime: s.now()}
		err = s.cart.InsertFirst(ctx, first, domain.CheckNewLine)
		if store.IsDuplicate(err) {
			// A concurrent first add of the same product created the line: add to it.
			return "", store.ErrConflict
		}
		if err != nil {
			return "", err
		}
		return first.ID, nil
	})
}

type getCartArgs struct {
	StoreID *string `json:"storeId" op:"id=stores"`
}

func (s *svc) getMyCart(ctx context.Context, a *getCartArgs) (*domain.Cart, error) {
	p := ops.CustomerOf(ctx)
	var lines []domain.CartItem
	if p != nil { // no profile yet: an empty cart
		var err error
		if lines, err = s.cart.Lines(ctx, p.ID, a.StoreID); err != nil {
			return nil, err
		}
	}
	if a.StoreID != nil && len(lines) == 0 {
		// No line proves the store exists: a filter naming a missing store is
		// NOT_FOUND (platform contract, section 2), not an empty cart.
		st, err := s.catalog.Store(ctx, *a.StoreID)
		if err != nil {
			return nil, err
		}
		if st == nil {
			return nil, apperr.New(apperr.NotFound, "store %s does not exist", *a.StoreID)
		}
	}
	return domain.CartOf(lines), nil
}

type removeItemArgs struct {
	ItemID string `json:"itemId" op:"required,id=carts"`
}

func (s *svc) removeItem(ctx context.Context, a *removeItemArgs) (ops.Null, error) {
	p := ops.CustomerOf(ctx)
	line, err := s.cart.Get(ctx, a.ItemID)
	if err != nil {
		return nil, err
	}
	if line == nil {
		return nil, apperr.New(apperr.NotFound, "cart item %s does not exist", a.ItemID)
	}
	if err := line.CheckRemovable(p.ID); err != nil {
		return nil, err
	}
	return nil, s.cart.Delete(ctx, p.ID, a.ItemID)
}
