package addresses

import (
	"context"

	"marketplace/libs/contracts/catalog"
	"marketplace/libs/events"
	"marketplace/libs/httpserver"
	"marketplace/services/addresses/domain"
)

// The addresses service keeps its own projection of the catalog's cities and
// areas ("places"), fed by the catalog's events and by the authoritative answers
// it gets when it validates an address. Reads then need no call to the catalog,
// and a rename in the catalog reaches every address that shows the place.
// domain.Place holds the rule (a newer version only), storage.Places the copy.

func placeOf(p catalog.Place) domain.Place {
	return domain.Place{ID: p.ID, Kind: p.Kind, Name: p.Name, NameArabic: p.NameArabic, City: p.City, Version: p.Version}
}

// placesOf are the catalog's places by id, as the projection keeps them.
func placesOf(m map[string]catalog.Place) map[string]domain.Place {
	out := make(map[string]domain.Place, len(m))
	for id, p := range m {
		out[id] = placeOf(p)
	}
	return out
}

// allPlaces are the places of l, as the projection stores them.
func allPlaces(l *catalog.Locations) []domain.Place {
	out := make([]domain.Place, 0, len(l.Cities)+len(l.Areas))
	for _, p := range l.Cities {
		out = append(out, placeOf(p))
	}
	for _, p := range l.Areas {
		out = append(out, placeOf(p))
	}
	return out
}

// resolve reads cities and areas from the catalog in one call and refreshes the
// projection with the answer.
func (s *svc) resolve(ctx context.Context, cities, areas []string) (*catalog.Locations, error) {
	l, err := s.catalog.ResolvePlaces(ctx, cities, areas)
	if err != nil {
		return nil, err
	}
	err = s.env.DB.Tx(ctx, func(ctx context.Context) error { return s.places.Apply(ctx, allPlaces(l)...) })
	return l, err
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
	return s.places.Apply(ctx, placeOf(p))
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
func (s *svc) placesByID(ctx context.Context, cities, areas []string) (map[string]domain.Place, error) {
	out, err := s.places.ByID(ctx, append(append([]string{}, cities...), areas...))
	if err != nil {
		return nil, err
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
