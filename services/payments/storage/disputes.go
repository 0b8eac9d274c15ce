package storage

import (
	"context"

	"go.mongodb.org/mongo-driver/bson"

	"marketplace/libs/apperr"
	"marketplace/libs/page"
	"marketplace/libs/store"
	"marketplace/services/payments/domain"
)

// DisputesCollection holds one document per dispute (domain.Dispute), by the
// processor's dispute id.
const DisputesCollection = "disputes"

// Disputes keeps the customers' disputes of charges.
type Disputes struct{ db *store.DB }

func NewDisputes(db *store.DB) *Disputes { return &Disputes{db: db} }

// Get is the dispute, nil when there is none.
func (r *Disputes) Get(ctx context.Context, id string) (*domain.Dispute, error) {
	d, err := store.FindOne[domain.Dispute](ctx, r.db.Collection(DisputesCollection), bson.M{"_id": id})
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "could not read the disputes")
	}
	return d, nil
}

// Many are the disputes of ids that exist, by id.
func (r *Disputes) Many(ctx context.Context, ids []string) (map[string]domain.Dispute, error) {
	out := map[string]domain.Dispute{}
	if len(ids) == 0 {
		return out, nil
	}
	all, err := store.FindAll[domain.Dispute](ctx, r.db.Collection(DisputesCollection), bson.M{"_id": bson.M{"$in": ids}})
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "could not read the disputes")
	}
	for _, d := range all {
		out[d.ID] = d
	}
	return out, nil
}

// Save writes d: inserted when before is nil, else the fields that changed
// since before. A dispute inserted concurrently is store.ErrConflict (the
// enclosing transaction runs again).
func (r *Disputes) Save(ctx context.Context, before *domain.Dispute, d domain.Dispute) error {
	coll := r.db.Collection(DisputesCollection)
	if before == nil {
		_, err := coll.InsertOne(ctx, d)
		if store.IsDuplicate(err) {
			return store.ErrConflict
		}
		if err != nil {
			return apperr.Wrap(err, apperr.Internal, "could not record the dispute")
		}
		return nil
	}
	update, err := store.Changes(*before, d)
	if err != nil || update == nil {
		return err
	}
	if _, err := coll.UpdateOne(ctx, bson.M{"_id": d.ID}, update); err != nil {
		return apperr.Wrap(err, apperr.Internal, "could not record the dispute")
	}
	return nil
}

// ClosedDisputes is the status filter of the won and lost disputes.
const ClosedDisputes = "closed"

// DisputeFilter narrows Disputes.Page: each field when set (StoreID and
// Status when not empty, Status closed: won or lost; From and To on openedAt, inclusive).
type DisputeFilter struct {
	StoreID, Status string
	From, To        *int64
	// OwnStore: StoreID is the caller's store (the list's scope), not a
	// filter an administrator chose (a cursor is bound to the filters only).
	OwnStore bool
}

// Page is one page of the disputes matching f: by their deadline, soonest
// first, when byDue (only with status open: by_status_due serves it);
// otherwise by the time they were opened, newest first when desc.
func (r *Disputes) Page(ctx context.Context, f DisputeFilter, byDue, desc bool, o page.Opts) (page.Result[domain.Dispute], error) {
	filter := bson.M{}
	if f.StoreID != "" {
		filter["storeId"] = f.StoreID
	}
	switch f.Status {
	case "":
	case ClosedDisputes:
		filter["status"] = bson.M{"$in": bson.A{domain.DisputeWon, domain.DisputeLost}}
	default:
		filter["status"] = f.Status
	}
	if r := (page.Period{From: f.From, To: f.To}).Range(); r != nil {
		filter["openedAt"] = bson.M(r)
	}
	store := f.StoreID
	if f.OwnStore {
		store = ""
	}
	// A cursor is of its order and filters (docs/adr/0172); newest first is the default.
	query := []any{!byDue && !desc, f.Status, f.From, f.To, store}
	if byDue {
		return page.Find(ctx, r.db.Collection(DisputesCollection), filter, page.Sort{Field: "dueBy", Query: query}, o,
			func(d *domain.Dispute) (any, string) { return d.DueBy, d.ID })
	}
	return page.Find(ctx, r.db.Collection(DisputesCollection), filter, page.Sort{Field: "openedAt", Desc: desc, Query: query}, o,
		func(d *domain.Dispute) (any, string) { return d.OpenedAt, d.ID })
}
