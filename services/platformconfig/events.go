package platformconfig

import (
	"context"
	"fmt"

	contract "marketplace/libs/contracts/platformconfig"
	"marketplace/libs/store"
	"marketplace/services/platformconfig/domain"
)

// Services that follow the configuration without calling this one (the
// catalog's store search cannot call it: this service calls the catalog) keep
// a copy fed by config.changed. Every committed change of a configuration
// announces it in the same transaction; the active configuration is announced
// again at each start, so a follower whose copy was lost, or that was added
// after the last change, catches up without anyone changing the configuration.

// announce adds d's config.changed event; ctx must be the change's transaction.
func (s *svc) announce(ctx context.Context, c *domain.Config) error {
	_, err := s.env.Outbox.Add(ctx, contract.Topic, contract.EventConfigChanged, c.ID, c.Changed())
	return err
}

// announceActive announces the configuration in force once, at start.
// Followers ignore it when they already hold that version.
func (s *svc) announceActive(ctx context.Context) error {
	// A start-up task: it writes over DB_MEMORY_LIMIT as the start does
	// (libs/store/memlimit.go), or followers would miss it until the next start.
	ctx = store.AllowOverMemoryLimit(ctx, "platformconfig: the announcement at start")
	d, err := s.active(ctx)
	if err != nil {
		return fmt.Errorf("platformconfig: announcing the active configuration at start: %w", err)
	}
	if d == nil {
		return nil
	}
	err = s.env.DB.Tx(ctx, func(ctx context.Context) error { return s.announce(ctx, d) })
	if err != nil {
		return fmt.Errorf("platformconfig: announcing the active configuration at start: %w", err)
	}
	s.env.Relay.Kick()
	return nil
}
