package service

import (
	"context"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"marketplace/libs/events"
	"marketplace/libs/store"
)

// observe registers the metrics of a service's database, read when scraped:
// its outbox (events.ObserveOutbox) and the size of each collection,
//
//	marketplace_store_documents{service, collection}
//
// which on the embedded engine is what a scan costs. stop unregisters them.
func observe(db *store.DB, service string) (stop func(), err error) {
	stopOutbox, err := events.ObserveOutbox(db, service)
	if err != nil {
		return nil, err
	}
	stopStore, err := observeSizes(db, service)
	if err != nil {
		stopOutbox()
		return nil, err
	}
	return func() { stopOutbox(); stopStore() }, nil
}

func observeSizes(db store.Sizer, service string) (stop func(), err error) {
	meter := otel.GetMeterProvider().Meter("marketplace/store")
	docs, err := meter.Int64ObservableGauge("marketplace.store.documents",
		metric.WithDescription("Documents in each collection of the service's database."))
	if err != nil {
		return nil, err
	}
	reg, err := meter.RegisterCallback(func(ctx context.Context, o metric.Observer) error {
		ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		sizes, err := db.CollectionSizes(ctx)
		if err != nil {
			return nil // a database that does not answer shows as missing series
		}
		for coll, n := range sizes {
			o.ObserveInt64(docs, n, metric.WithAttributes(attribute.String("service", service), attribute.String("collection", coll)))
		}
		return nil
	}, docs)
	if err != nil {
		return nil, err
	}
	return func() { _ = reg.Unregister() }, nil
}
