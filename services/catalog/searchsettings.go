package catalog

import (
	"context"
	"fmt"

	"marketplace/libs/contracts/platformconfig"
	"marketplace/libs/events"
	"marketplace/libs/httpserver"
	"marketplace/services/catalog/domain"
)

// The store search needs the search radii of the platform configuration in
// force. The configuration service calls the catalog (categories, stores), so
// the catalog cannot call it back (the modules' calls form no cycle): it keeps
// its own copy of each configuration's radii, fed by config.changed and
// versioned like the addresses service's places, and applies the rule of the
// configuration in force (active, effective date not in the future, the most
// recent) to it. Searches then need no call at all.

// searchSettings is one configuration's radii, as the catalog keeps them.
type searchSettings = domain.SearchSettings

// onConfigEvent is the consumer's handler: ctx is its transaction.
func (s *svc) onConfigEvent(ctx context.Context, env events.Envelope) error {
	if env.Type != platformconfig.EventConfigChanged {
		return nil
	}
	var c platformconfig.ConfigChanged
	if err := events.DecodeData(env, &c); err != nil {
		return err
	}
	d := searchSettings{ConfigID: c.ConfigID, IsActive: c.IsActive, EffectiveDate: c.EffectiveDate, Version: c.Version,
		DefaultSearchRadiusKm: c.LocationSettings.DefaultSearchRadiusKm, MaxSearchRadiusKm: c.LocationSettings.MaxSearchRadiusKm}
	if err := domain.CheckSettings(d); err != nil {
		return fmt.Errorf("%s %s: %w", env.Type, env.ID, err)
	}
	return s.settings.Apply(ctx, d)
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
	now := s.now()
	candidates, err := s.settings.InForce(ctx, now)
	if err != nil {
		return nil, err
	}
	return domain.InForce(candidates, now)
}
