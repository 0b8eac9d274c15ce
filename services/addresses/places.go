package addresses

import (
	"context"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/contracts/catalog"
	"marketplace/libs/events"
	"marketplace/libs/httpserver"
	"marketplace/libs/store"
)

// The addresses service keeps its own projection of the catalog's cities and
// areas ("places"), fed by the catalog's events and by the authoritative answers
// it gets when it validates an address. Reads then need no call to the catalog,
// and a rename in the catalog reaches every address that shows the place.

const placesColl = "places"

// place is a city or an area as the projection stores it (from the catalog's
// contract.Place).
type place struct {
	ID         string `bson:"_id"`
	Kind       string `bson:"kind"`
	Name       string `bson:"name"`
	NameArabic string `bson:"nameArabic,omitempty"`
	City       string `bson:"city,omitempty"`
	Version    int64  `bson:"version"`
}

func placeOf(p catalog.Place) place {
	return place{ID: p.ID, Kind: p.Kind, Name: p.Name, NameArabic: p.NameArabic, City: p.City, Version: p.Version}
}

// applyPlaces stores places unless a newer version is already stored, so
// redelivered or reordered events never roll a name back. It must run in a
// transaction (read then write).
func (s *svc) applyPlaces(ctx context.Context, ps ...place) error {
	c := s.env.DB.Collection(placesColl)
	for _, p := range ps {
		var have place
		err := c.FindOne(ctx, bson.M{"_id": p.ID}).Decode(&have)
		switch {
		case store.IsNotFound(err):
		case err != nil:
			return err
		case have.Version >= p.Version:
			continue
		}
		if _, err := c.ReplaceOne(ctx, bson.M{"_id": p.ID}, p, options.Replace().SetUpsert(true)); err != nil {
			return err
		}
	}
	return nil
}

// placeEvents are the catalog events the projection follows, in the
// versions onCatalogEvent reads.
var placeEvents = events.Versions{catalog.EventCityCreated: {1}, catalog.EventCityUpdated: {1}, catalog.EventAreaCreated: {1}, catalog.EventAreaUpdated: {1}}

// onCatalogEvent is the consumer's handler: ctx is its transaction.
func (s *svc) onCatalogEvent(ctx context.Context, env events.Envelope) error {
	if _, ok := placeEvents[env.Type]; !ok {
		return nil // stores and the like: not ours
	}
	var p catalog.Place
	if err := events.DecodeData(env, &p); err != nil {
		return err
	}
	return s.applyPlaces(ctx, placeOf(p))
}

// placesGroup is the consumer group of the projection.
const placesGroup = "addresses.places"

// consume follows the catalog topic until ctx ends.
func (s *svc) consume(ctx context.Context) error {
	return events.RunConsumer(ctx, events.ConsumerConfig{
		Brokers: s.env.Brokers, GroupID: placesGroup, Topics: []string{catalog.Topic},
		DB: s.env.DB, Handler: s.onCatalogEvent, Handles: placeEvents, Publisher: s.env.Publisher, Logger: s.env.Logger,
		Status: s.placesStatus,
	})
}

// placesCheck reports a projection consumer that is stuck, for readiness.
func (s *svc) placesCheck() httpserver.Check {
	return httpserver.Check{Name: "consumer:" + placesGroup, Fn: s.placesStatus.Check}
}

// placesByID reads places from the projection; ids it lacks (an address written
// before the projection existed) are fetched from the catalog and stored.
func (s *svc) placesByID(ctx context.Context, cities, areas []string) (map[string]place, error) {
	out := map[string]place{}
	cur, err := s.env.DB.Collection(placesColl).Find(ctx, bson.M{"_id": bson.M{"$in": append(append([]string{}, cities...), areas...)}})
	if err != nil {
		return nil, err
	}
	var ps []place
	if err := cur.All(ctx, &ps); err != nil {
		return nil, err
	}
	for _, p := range ps {
		out[p.ID] = p
	}
	var missCities, missAreas []string
	for _, id := range cities {
		if _, ok := out[id]; !ok {
			missCities = append(missCities, id)
		}
	}
	for _, id := range areas {
		if _, ok := out[id]; !ok {
			missAreas = append(missAreas, id)
		}
	}
	if len(missCities)+len(missAreas) == 0 {
		return out, nil
	}
	l, err := s.resolve(ctx, missCities, missAreas)
	if err != nil {
		return nil, err
	}
	for _, p := range allPlaces(l) {
		out[p.ID] = p
	}
	return out, nil
}
