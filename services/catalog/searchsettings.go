package catalog

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/apperr"
	"marketplace/libs/contracts/platformconfig"
	"marketplace/libs/events"
	"marketplace/libs/httpserver"
	"marketplace/libs/store"
)

// The store search needs the search radii of the platform configuration in
// force. The configuration service calls the catalog (categories, stores), so
// the catalog cannot call it back (the modules' calls form no cycle): it keeps
// its own copy of each configuration's radii, fed by config.changed and
// versioned like the addresses service's places, and applies the rule of the
// configuration in force (active, effective date not in the future, the most
// recent) to it. Searches then need no call at all.

const settingsColl = "searchSettings"

// searchSettings is one configuration's radii, as the catalog keeps them.
type searchSettings struct {
	ConfigID              string  `bson:"_id"`
	IsActive              bool    `bson:"isActive"`
	EffectiveDate         int64   `bson:"effectiveDate"`
	Version               int64   `bson:"version"`
	DefaultSearchRadiusKm float64 `bson:"defaultSearchRadiusKm"`
	MaxSearchRadiusKm     float64 `bson:"maxSearchRadiusKm"`
}

// applySettings stores a configuration's radii unless a newer version is
// already stored, so redelivered or reordered events never roll them back. It
// runs in the consumer's transaction.
func (s *svc) applySettings(ctx context.Context, c platformconfig.ConfigChanged) error {
	coll := s.env.DB.Collection(settingsColl)
	var have searchSettings
	err := coll.FindOne(ctx, bson.M{"_id": c.ConfigID}).Decode(&have)
	switch {
	case store.IsNotFound(err):
	case err != nil:
		return err
	case have.Version >= c.Version:
		return nil
	}
	doc := searchSettings{ConfigID: c.ConfigID, IsActive: c.IsActive, EffectiveDate: c.EffectiveDate, Version: c.Version,
		DefaultSearchRadiusKm: c.LocationSettings.DefaultSearchRadiusKm, MaxSearchRadiusKm: c.LocationSettings.MaxSearchRadiusKm}
	_, err = coll.ReplaceOne(ctx, bson.M{"_id": c.ConfigID}, doc, options.Replace().SetUpsert(true))
	return err
}

// onConfigEvent is the consumer's handler: ctx is its transaction.
func (s *svc) onConfigEvent(ctx context.Context, env events.Envelope) error {
	if env.Type != platformconfig.EventConfigChanged {
		return nil
	}
	var c platformconfig.ConfigChanged
	if err := events.DecodeData(env, &c); err != nil {
		return err
	}
	// Version 0 is a configuration made before its changes were numbered (no
	// history yet), announced at the configuration service's start: taken
	// when nothing is held, and replaced by its first numbered change.
	if c.ConfigID == "" || c.Version < 0 {
		return fmt.Errorf("%s %s: a configuration change needs configId and a version", env.Type, env.ID)
	}
	return s.applySettings(ctx, c)
}

// settingsGroup is the consumer group of the copy.
const settingsGroup = "catalog.searchSettings"

// settingsEvents are the events the copy follows, in the versions
// onConfigEvent reads.
var settingsEvents = events.Versions{platformconfig.EventConfigChanged: {1}}

// consumeSettings follows the configuration's topic until ctx ends.
func (s *svc) consumeSettings(ctx context.Context) error {
	return events.RunConsumer(ctx, events.ConsumerConfig{
		Brokers: s.env.Brokers, GroupID: settingsGroup, Topics: []string{platformconfig.Topic},
		DB: s.env.DB, Handler: s.onConfigEvent, Handles: settingsEvents, Publisher: s.env.Publisher, Logger: s.env.Logger,
		Status: s.settingsStatus,
	})
}

// settingsCheck reports a stuck consumer, for readiness.
func (s *svc) settingsCheck() httpserver.Check {
	return httpserver.Check{Name: "consumer:" + settingsGroup, Fn: s.settingsStatus.Check}
}

// radii are the search radii in force; FAILED_PRECONDITION when there is no
// configuration in force (none created yet, or its event not here yet).
func (s *svc) radii(ctx context.Context) (*searchSettings, error) {
	var d searchSettings
	err := s.env.DB.Collection(settingsColl).FindOne(ctx,
		bson.M{"isActive": true, "effectiveDate": bson.M{"$lte": s.env.Now().UnixMilli()}},
		options.FindOne().SetSort(bson.D{{Key: "effectiveDate", Value: -1}, {Key: "_id", Value: -1}}),
	).Decode(&d)
	if store.IsNotFound(err) {
		return nil, apperr.New(apperr.FailedPrecondition, "there is no active platform configuration, so no search radius: an administrator creates it (admins.platformAdmin.createInitialPlatformConfig)")
	}
	if err != nil {
		return nil, err
	}
	return &d, nil
}
