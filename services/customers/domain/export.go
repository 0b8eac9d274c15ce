package domain

import (
	"strconv"
	"strings"
	"time"
)

// OrdersCSVHeader is the header of an orders export (GET
// /api/stores/:storeId/orders.csv, /api/admin/orders.csv); OrderCSVRow fills
// each row.
var OrdersCSVHeader = []string{"number", "id", "date", "store", "customer", "city", "area", "items", "subtotal", "delivery_fee",
	"total", "commission", "earnings", "payment", "status", "refunded"}

// Dubai is the platform's time zone: an export's dates are its.
var Dubai = func() *time.Location {
	if l, err := time.LoadLocation("Asia/Dubai"); err == nil {
		return l
	}
	return time.FixedZone("+04", 4*60*60) // Dubai keeps no daylight saving time
}()

// OrderCSVRow is the order as a row of an export: the date in Dubai's time
// (RFC 3339), the places by name where the catalog knows them (else as the
// payment carried them), the items as "name x quantity" joined by "; ",
// amounts in AED with two decimals (refunded: in the payment's currency's
// major unit, as the order view), the payment and order statuses as the API
// spells them. Cells are text a person typed (names, addresses): the CSV
// writer neutralises formulas.
func (o *Order) OrderCSVRow(n Names) []string {
	aed := func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
	city, area := o.DeliveryAddress.City, o.DeliveryAddress.Area
	if p, ok := n.Places[city]; ok {
		city = p.Name
	}
	if p, ok := n.Places[area]; ok {
		area = p.Name
	}
	items := make([]string, len(o.Items))
	for i, it := range o.Items {
		items[i] = it.Name + " x" + strconv.Itoa(it.Quantity)
	}
	return []string{OrderNumber(o.ID), o.ID, time.UnixMilli(o.CreationTime).In(Dubai).Format(time.RFC3339), o.StoreName, n.Customers[o.CustomerID],
		city, area, strings.Join(items, "; "), aed(o.Subtotal.AED()), aed(o.DeliveryFee.AED()), aed(o.Total.AED()),
		aed(o.PlatformCommission.AED()), aed(o.StoreEarnings.AED()), o.PaymentStatus, o.Status, aed(o.major(o.RefundedAmount))}
}
