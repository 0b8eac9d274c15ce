package customers

import (
	"fmt"

	"marketplace/services/customers/domain"
)

// Settings are the customers service's own, from the environment (README,
// Configuration; docs/adr/0159-order-numbers-search-and-exports.md).
type Settings struct {
	// OrdersCountMax bounds a count of orders (countStoreOrders,
	// countOrders): beyond, the count says capped.
	OrdersCountMax int64 `env:"ORDERS_COUNT_MAX" default:"10000"`
	// OrdersExportMaxRows bounds the rows of an orders export, counted before
	// its first byte (beyond: FAILED_PRECONDITION too_many_rows).
	OrdersExportMaxRows int64 `env:"ORDERS_EXPORT_MAX_ROWS" default:"100000"`
	// SalesMaxOrders bounds getSalesSummary's read: a period with more of
	// the store's orders is FAILED_PRECONDITION too_many_orders (sales.go).
	SalesMaxOrders int `env:"SALES_SUMMARY_MAX_ORDERS" default:"20000"`
}

// DefaultSettings are the settings with every default.
func DefaultSettings() Settings {
	return Settings{OrdersCountMax: domain.MaxCount, OrdersExportMaxRows: domain.MaxExportRows, SalesMaxOrders: domain.MaxSalesOrders}
}

// Validate refuses numbers that would turn a limit off by accident.
func (s *Settings) Validate() error {
	if s.OrdersCountMax < 1 || s.OrdersCountMax > domain.MaxCount {
		return fmt.Errorf("ORDERS_COUNT_MAX must be 1 to %d, not %d", domain.MaxCount, s.OrdersCountMax)
	}
	if s.OrdersExportMaxRows < 1 || s.OrdersExportMaxRows > domain.MaxExportRows {
		return fmt.Errorf("ORDERS_EXPORT_MAX_ROWS must be 1 to %d, not %d", domain.MaxExportRows, s.OrdersExportMaxRows)
	}
	if s.SalesMaxOrders < 1 || s.SalesMaxOrders > domain.MaxSalesOrders {
		return fmt.Errorf("SALES_SUMMARY_MAX_ORDERS must be 1 to %d, not %d", domain.MaxSalesOrders, s.SalesMaxOrders)
	}
	return nil
}
