package customers

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/gofiber/fiber/v2"

	"marketplace/libs/apperr"
	"marketplace/libs/httpserver"
	"marketplace/libs/ids"
	"marketplace/libs/ops"
	"marketplace/services/customers/domain"
)

// The orders exports (docs/adr/0159): the rows listStoreOrders and
// listOrders list for the same filters, as CSV (domain.OrdersCSVHeader).
const (
	RouteStoreOrdersCSV = "/api/stores/:storeId/orders.csv"
	RouteAdminOrdersCSV = "/api/admin/orders.csv"
	// exportTime bounds the reading of one export once it streams.
	exportTime = 5 * time.Minute
)

var orderStatuses = []string{domain.StatusPending, domain.StatusConfirmed, domain.StatusPreparing, domain.StatusOutForDelivery, domain.StatusDelivered, domain.StatusCancelled}

func (s *svc) routes() []ops.Route {
	doc := "Query: from and to (epoch ms, inclusive, required, at most 366 days apart: else 400 INVALID_ARGUMENT, range_too_large), status (optional)%s. " +
		"Columns: number, id, date (RFC 3339, Asia/Dubai), store, customer, city, area (by name where the catalog knows them), items, subtotal, delivery_fee, total, commission, earnings (AED), payment, status, refunded. " +
		"Newest first, the rows of %s for the same filters. More than ORDERS_EXPORT_MAX_ROWS (100,000) rows: 409 FAILED_PRECONDITION too_many_rows (details.maxRows), before any byte. Streamed (chunked)."
	return []ops.Route{
		{Method: fiber.MethodGet, Path: RouteStoreOrdersCSV, Access: ops.StoreOwnerOrAdmin, StoreParam: "storeId", Handler: s.storeOrdersCSV,
			Summary: "A store's orders of a period as CSV (the store's owner or an administrator). " + fmt.Sprintf(doc, "", "stores.orders.listStoreOrders")},
		{Method: fiber.MethodGet, Path: RouteAdminOrdersCSV, Access: ops.Admin, Handler: s.adminOrdersCSV,
			Summary: "Every order of a period as CSV (administrators; held ones too). " + fmt.Sprintf(doc, ", storeId and customerId (optional; one that does not exist: 404 NOT_FOUND)", "admins.orders.listOrders")},
	}
}

// exportQuery reads an export's period and status.
func exportQuery(c *fiber.Ctx) (from, to int64, status *string, err error) {
	if from, to, err = httpserver.ParsePeriod(c.Query("from"), c.Query("to"), httpserver.MaxCSVDays); err != nil {
		return 0, 0, nil, err
	}
	if v := c.Query("status"); v != "" {
		if !slices.Contains(orderStatuses, v) {
			return 0, 0, nil, apperr.Invalid("status", "must be one of %v, not %q", orderStatuses, v)
		}
		status = &v
	}
	return from, to, status, nil
}

// storeOrdersCSV answers GET RouteStoreOrdersCSV: the store's orders as
// listStoreOrders lists them (held ones hidden from the owner).
func (s *svc) storeOrdersCSV(c *fiber.Ctx) error {
	ctx := c.UserContext()
	from, to, status, err := exportQuery(c)
	if err != nil {
		return httpserver.WriteError(c, err)
	}
	st := ops.StoreOf(ctx)
	f, err := domain.NewOrderFilter(&st.ID, status, nil, &from, &to, nil, ops.Caller(ctx).IsAdmin())
	if err != nil {
		return httpserver.WriteError(c, err)
	}
	return s.exportOrders(c, "orders-"+st.ID+".csv", f)
}

// adminOrdersCSV answers GET RouteAdminOrdersCSV: every order (of one store
// and of one customer when given) as listOrders lists them.
func (s *svc) adminOrdersCSV(c *fiber.Ctx) error {
	ctx := c.UserContext()
	from, to, status, err := exportQuery(c)
	if err != nil {
		return httpserver.WriteError(c, err)
	}
	var storeID *string
	if v := c.Query("storeId"); v != "" {
		if !ids.Valid("stores", v) {
			return httpserver.WriteError(c, apperr.Invalid("storeId", "is not a store id"))
		}
		storeID = &v
	}
	var customerID *string
	if v := c.Query("customerId"); v != "" {
		if !ids.Valid("customers", v) {
			return httpserver.WriteError(c, apperr.Invalid("customerId", "is not a customer id"))
		}
		customerID = &v
	}
	f, err := s.adminFilter(ctx, storeID, &orderFilterArgs{Status: status, CustomerID: customerID, From: &from, To: &to})
	if err != nil {
		return httpserver.WriteError(c, err)
	}
	return s.exportOrders(c, "orders.csv", f)
}

// exportOrders counts the rows first (over ORDERS_EXPORT_MAX_ROWS: refused,
// before any byte), then streams them newest first, a keyset page at a time
// with the page's names.
//
// One export per caller at a time (s.exports, ADR 0157): another while one
// is written is RATE_LIMITED export_in_progress.
func (s *svc) exportOrders(c *fiber.Ctx, filename string, f domain.OrderFilter) error {
	ctx := c.UserContext()
	return s.exports.StreamCSV(c, ops.Caller(ctx).Sub, filename, domain.OrdersCSVHeader, func() (httpserver.CSVRows, error) {
		return s.orderRows(ctx, f)
	})
}

// orderRows counts the export's rows (refused over the cap) and returns
// them, to write after the answer started.
func (s *svc) orderRows(ctx context.Context, f domain.OrderFilter) (httpserver.CSVRows, error) {
	count := func(max int64) (int64, error) { return s.orders.Count(ctx, f, max) }
	return httpserver.CountedRows(ctx, s.set.OrdersExportMaxRows, exportTime, count, func(ctx context.Context, row func(...string) error) error {
		return s.orders.Each(ctx, f, func(os []domain.Order) error {
			names, err := s.names(ctx, os)
			if err != nil {
				return err
			}
			for i := range os {
				if err := row(os[i].OrderCSVRow(names)...); err != nil {
					return err
				}
			}
			return nil
		})
	})
}
