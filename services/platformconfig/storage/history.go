package storage

import (
	"context"

	"go.mongodb.org/mongo-driver/bson"

	"marketplace/libs/page"
	"marketplace/libs/store"
	"marketplace/services/platformconfig/domain"
)

// History is the repository of the configurations' change history.
type History struct{ db *store.DB }

func NewHistory(db *store.DB) *History { return &History{db: db} }

// Insert appends an entry, inside the caller's transaction (ctx carries it).
func (r *History) Insert(ctx context.Context, h *domain.HistoryEntry) error {
	_, err := r.db.Collection(historyColl).InsertOne(ctx, h)
	return err
}

// storedEntry reads an entry back; values are decoded by kind (see value).
type storedEntry struct {
	ID            string `bson:"_id"`
	ConfigID      string `bson:"configId"`
	Seq           int64  `bson:"seq"`
	ChangedBy     string `bson:"changedBy"`
	ChangedByName string `bson:"changedByName"`
	ChangedAt     int64  `bson:"changedAt"`
	Operation     string `bson:"operation"`
	Changes       []struct {
		Field    string        `bson:"field"`
		OldValue bson.RawValue `bson:"oldValue"`
		NewValue bson.RawValue `bson:"newValue"`
	} `bson:"changes"`
}

// value is a stored change value as the interface shows it: null, a number, a
// boolean, or an entry object.
func value(rv bson.RawValue) (any, error) {
	switch rv.Type {
	case 0, bson.TypeNull:
		return nil, nil
	case bson.TypeEmbeddedDocument:
		var e domain.EntryValue
		err := rv.Unmarshal(&e)
		return e, err
	}
	var x any
	err := rv.Unmarshal(&x)
	return x, err
}

func (h *storedEntry) entry() (domain.HistoryEntry, error) {
	e := domain.HistoryEntry{ID: h.ID, ConfigID: h.ConfigID, Seq: h.Seq, ChangedBy: h.ChangedBy, ChangedByName: h.ChangedByName, ChangedAt: h.ChangedAt,
		Operation: h.Operation, Changes: make([]domain.Change, len(h.Changes))}
	for i, c := range h.Changes {
		ov, err := value(c.OldValue)
		if err != nil {
			return e, err
		}
		nv, err := value(c.NewValue)
		if err != nil {
			return e, err
		}
		e.Changes[i] = domain.Change{Field: c.Field, OldValue: ov, NewValue: nv}
	}
	return e, nil
}

// Page is one page of a configuration's entries, newest first (oldest:
// oldest first). Without a period, by change number (history_pages); with
// one, by the time of the change, a range of history_by_time (a cursor of
// one is INVALID_ARGUMENT for the other).
func (r *History) Page(ctx context.Context, configID string, p page.Period, oldest bool, o page.Opts) (page.Result[domain.HistoryEntry], error) {
	filter := bson.M{"configId": configID}
	sort := page.Sort{Field: "seq", Desc: !oldest, Query: []any{oldest, p.From, p.To}}
	key := func(h *storedEntry) (any, string) { return h.Seq, h.ID }
	if r := p.Range(); r != nil {
		filter["changedAt"] = bson.M(r)
		sort.Field = "changedAt"
		key = func(h *storedEntry) (any, string) { return h.ChangedAt, h.ID }
	}
	res, err := page.Find(ctx, r.db.Collection(historyColl), filter, sort, o, key)
	if err != nil {
		return page.Result[domain.HistoryEntry]{}, err
	}
	out := page.Result[domain.HistoryEntry]{Page: make([]domain.HistoryEntry, len(res.Page)), IsDone: res.IsDone, ContinueCursor: res.ContinueCursor}
	for i := range res.Page {
		if out.Page[i], err = res.Page[i].entry(); err != nil {
			return page.Result[domain.HistoryEntry]{}, err
		}
	}
	return out, nil
}
