package ops

import (
	"context"
	"reflect"

	"marketplace/libs/apperr"
	"marketplace/libs/auth"
)

// The access levels Customer, StoreOwner and StoreOwnerOrAdmin are enforced
// here, once, for every service: the registry resolves the caller's customer
// profile, or the store an argument names and checks its owner, before the
// handler runs, and hands the result to the handler (CustomerOf, StoreOf).
// A service says how to resolve them (its own database, or a typed client of
// the owning context with a short cache) with Registry.WithResolvers.

// CustomerRef is the caller's customer profile, as access resolves it.
type CustomerRef struct {
	ID     string
	UserID string
	Name   string
}

// StoreRef is a store, as access resolves it. Version is the owning
// context's version of the store the owner was read at (0 when the resolver
// does not know it): a handler that records something on the owner's word
// can tell whether what it holds of the store is newer than the check.
type StoreRef struct {
	ID          string
	Name        string
	OwnerUserID string
	Version     int64
}

// Resolvers find what access levels need. A nil result with a nil error means
// "none": no profile for that user, no store with that id.
type Resolvers struct {
	Customer func(ctx context.Context, userID string) (*CustomerRef, error)
	Store    func(ctx context.Context, storeID string) (*StoreRef, error)
}

// Option refines a declaration.
type Option func(*Op)

// StoreArg names the argument that holds the store id of a StoreOwner or
// StoreOwnerOrAdmin operation.
func StoreArg(arg string) Option { return StoreVia(arg, nil) }

// StoreVia names an argument whose value leads to the store (an order id, say):
// lookup turns the value into the store id (its errors, NOT_FOUND included,
// are the call's answer). A nil lookup means the value is the store id.
func StoreVia(arg string, lookup func(ctx context.Context, value string) (storeID string, err error)) Option {
	return func(op *Op) { op.storeArg, op.storeLookup = arg, lookup }
}

type customerKey struct{}
type storeKey struct{}

// CustomerOf is the caller's profile in an operation of access Customer; nil
// in a query when the caller has none yet (a mutation is refused before).
func CustomerOf(ctx context.Context) *CustomerRef {
	c, _ := ctx.Value(customerKey{}).(*CustomerRef)
	return c
}

// StoreOf is the store an operation of access StoreOwner or StoreOwnerOrAdmin
// acts on, its caller's ownership (or admin role, where allowed) checked.
func StoreOf(ctx context.Context) *StoreRef {
	s, _ := ctx.Value(storeKey{}).(*StoreRef)
	return s
}

// WithCustomer puts a resolved customer in ctx (tests of handlers).
func WithCustomer(ctx context.Context, c *CustomerRef) context.Context {
	return context.WithValue(ctx, customerKey{}, c)
}

// WithStore puts a resolved store in ctx (tests of handlers).
func WithStore(ctx context.Context, s *StoreRef) context.Context {
	return context.WithValue(ctx, storeKey{}, s)
}

// errNoProfile is a mutation's answer when its caller has no customer profile.
func errNoProfile() error {
	return apperr.New(apperr.FailedPrecondition, "the caller has no customer profile yet: call customers.profile.upsertMyProfile first")
}

// resolveAccess applies the op's access level to the decoded arguments a and
// returns ctx carrying what it resolved.
func (op *Op) resolveAccess(ctx context.Context, res *Resolvers, a reflect.Value) (context.Context, error) {
	caller := auth.FromContext(ctx)
	switch op.Access {
	case Customer:
		c, err := res.Customer(ctx, caller.Sub)
		if err != nil {
			return ctx, err
		}
		if c == nil && op.Kind == Mutation {
			return ctx, errNoProfile()
		}
		return WithCustomer(ctx, c), nil
	case StoreOwner, StoreOwnerOrAdmin:
		id := a.FieldByIndex(op.storeField)
		if id.Kind() == reflect.Pointer {
			id = id.Elem()
		}
		storeID := id.String()
		if op.storeLookup != nil {
			var err error
			if storeID, err = op.storeLookup(ctx, storeID); err != nil {
				return ctx, err
			}
		}
		st, err := res.Store(ctx, storeID)
		if err != nil {
			return ctx, err
		}
		if st == nil {
			return ctx, apperr.New(apperr.NotFound, "store %s does not exist", storeID)
		}
		if st.OwnerUserID != caller.Sub && (op.Access != StoreOwnerOrAdmin || !caller.IsAdmin()) {
			who := "the store's owner"
			if op.Access == StoreOwnerOrAdmin {
				who += " or an administrator"
			}
			return ctx, apperr.New(apperr.PermissionDenied, "%s is for %s", op.Path, who)
		}
		return context.WithValue(ctx, storeKey{}, st), nil
	}
	return ctx, nil
}
