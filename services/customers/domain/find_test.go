package domain

import (
	"errors"
	"reflect"
	"testing"

	"marketplace/libs/apperr"
	"marketplace/libs/ids"
)

func code(err error) apperr.Code {
	var e *apperr.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// TestOrderNumbers: the number is the id's last six hex digits, upper case,
// and a person's ways of typing it read as it.
func TestOrderNumbers(t *testing.T) {
	if got := OrderNumber("ord_0123456789abcdef01a1b2c3"); got != "A1B2C3" {
		t.Errorf("OrderNumber = %q, want A1B2C3", got)
	}
	for in, want := range map[string]string{"#a1b2c3": "A1B2C3", "A1B2C3": "A1B2C3", " #A1b2C3 ": "A1B2C3", "000000": "000000"} {
		if got, err := ParseOrderNumber("number", in); err != nil || got != want {
			t.Errorf("ParseOrderNumber(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "#", "a1b2c", "a1b2c3d", "g1b2c3", "##a1b2c3", "ord_a1"} {
		if _, err := ParseOrderNumber("number", in); code(err) != apperr.InvalidArgument {
			t.Errorf("ParseOrderNumber(%q): %v, want INVALID_ARGUMENT", in, err)
		}
	}
	o := NewPaidOrder(ids.New("orders"), &Profile{ID: "cus_1", UserID: "u"}, StoreRef{ID: "sto_1"}, nil, Payment{Currency: "aed"}, Commission{}, 1)
	if o.Number != OrderNumber(o.ID) || o.View(false).Number != o.Number {
		t.Errorf("a new order's number %q (view %q), want %q", o.Number, o.View(false).Number, OrderNumber(o.ID))
	}
}

// TestRoleOf: recorded roles win; older entries read their role from who
// moved them.
func TestRoleOf(t *testing.T) {
	o := &Order{CustomerUserID: "cust", StoreOwnerUserID: "owner"}
	cases := []struct {
		c    StatusChange
		want string
	}{
		{StatusChange{By: "payments"}, RoleSystem},
		{StatusChange{By: ""}, RoleSystem},
		{StatusChange{By: "cust"}, RoleCustomer},
		{StatusChange{By: "owner"}, RoleStore},
		{StatusChange{By: "someone-else"}, RoleAdministrator},
		{StatusChange{By: "owner", Role: RoleAdministrator}, RoleAdministrator}, // an owner who is an administrator
		{StatusChange{By: "former-owner", Role: RoleStore}, RoleStore},          // the store handed over since
	}
	for _, c := range cases {
		if got := o.RoleOf(c.c); got != c.want {
			t.Errorf("RoleOf(%+v) = %q, want %q", c.c, got, c.want)
		}
	}
}

// TestMovesRecordWho: a move records who and as what; the customer's
// cancellation as the customer's; the views show it to the store and
// administrators only.
func TestMovesRecordWho(t *testing.T) {
	o := &Order{ID: "ord_1", Status: StatusConfirmed, PaymentStatus: PaymentPaid, CustomerUserID: "cust", StoreOwnerUserID: "owner",
		StatusHistory: []StatusChange{{Status: StatusConfirmed, By: BySystemPayments, Role: RoleSystem}}}
	if _, err := o.Move(StatusPreparing, "owner", false, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := o.MoveNamed(StatusOutForDelivery, "adm", "Mariam", true, 3); err != nil {
		t.Fatal(err)
	}
	c := &Order{ID: "ord_2", Status: StatusConfirmed, PaymentStatus: PaymentPaid, CustomerUserID: "cust"}
	if _, err := c.CancelAsCustomer("cust", 4); err != nil {
		t.Fatal(err)
	}
	if got := c.StatusHistory[0]; got.Role != RoleCustomer || got.By != "cust" || got.Status != StatusCancelled {
		t.Errorf("customer's cancellation recorded %+v", got)
	}
	v := o.View(true)
	want := []StatusChangeView{{StatusConfirmed, 0, BySystemPayments, RoleSystem, ""}, {StatusPreparing, 2, "owner", RoleStore, ""}, {StatusOutForDelivery, 3, "adm", RoleAdministrator, "Mariam"}}
	for i, w := range want {
		if v.StatusHistory[i] != w {
			t.Errorf("history[%d] = %+v, want %+v", i, v.StatusHistory[i], w)
		}
	}
	// The store's owner's view: the administrator's move by id and role, no name.
	v.UnnameStaff()
	want[2].ByName = ""
	for i, w := range want {
		if v.StatusHistory[i] != w {
			t.Errorf("owner's view: history[%d] = %+v, want %+v", i, v.StatusHistory[i], w)
		}
	}
	for _, h := range o.View(false).StatusHistory {
		if h.By != "" || h.Role != "" || h.ByName != "" {
			t.Errorf("the customer's view shows who moved it: %+v", h)
		}
	}
}

// TestOrderFilter: bounds inclusive, an end before the start refused, the
// number read as typed, held orders only with WithHeld.
func TestOrderFilter(t *testing.T) {
	from, to := int64(100), int64(200)
	num := "#" + "a1b2c3"
	f, err := NewOrderFilter(nil, nil, nil, &from, &to, &num, false)
	if err != nil {
		t.Fatal(err)
	}
	mk := func(at int64, id string, held bool) *Order {
		o := &Order{ID: id, CreationTime: at, PaymentStatus: PaymentPaid}
		if held {
			o.PaymentStatus = PaymentUnderReview
		}
		return o
	}
	for _, c := range []struct {
		o    *Order
		want bool
	}{
		{mk(100, "ord_x_a1b2c3", false), true},
		{mk(200, "ord_y_A1B2C3", false), true},
		{mk(99, "ord_x_a1b2c3", false), false},
		{mk(201, "ord_x_a1b2c3", false), false},
		{mk(150, "ord_x_a1b2c4", false), false},
		{mk(150, "ord_x_a1b2c3", true), false},
	} {
		if got := f.Matches(c.o); got != c.want {
			t.Errorf("Matches(%s at %d, held %v) = %v, want %v", c.o.ID, c.o.CreationTime, c.o.Held(), got, c.want)
		}
	}
	f.WithHeld = true
	if !f.Matches(mk(150, "ord_x_a1b2c3", true)) {
		t.Error("WithHeld does not select a held order")
	}
	early := int64(99)
	if _, err := NewOrderFilter(nil, nil, nil, &from, &early, nil, false); code(err) != apperr.InvalidArgument {
		t.Errorf("to before from: %v", err)
	}
	bad := "12345"
	if _, err := NewOrderFilter(nil, nil, nil, nil, nil, &bad, false); code(err) != apperr.InvalidArgument {
		t.Errorf("bad number: %v", err)
	}
}

// TestSorts: each sort its field, direction and cursor tag, all distinct.
func TestSorts(t *testing.T) {
	tags := map[string]bool{}
	for _, c := range []struct {
		name  *string
		field string
		desc  bool
	}{{nil, "creationTime", true}, {ptr(SortNewest), "creationTime", true}, {ptr(SortOldest), "creationTime", false},
		{ptr(SortTotalDesc), "total", true}, {ptr(SortTotalAsc), "total", false}} {
		s := SortOf(c.name)
		if s.Field != c.field || s.Desc != c.desc {
			t.Errorf("SortOf(%v) = %+v", c.name, s)
		}
		if c.name != nil {
			if tags[s.Tag] {
				t.Errorf("tag %q shared", s.Tag)
			}
			tags[s.Tag] = true
		}
	}
	if SortOf(nil).Tag != "" {
		t.Error("newest's cursors must stay untagged (those listStoreOrders always gave)")
	}
}

// TestCountsAndExports: counts cap.
func TestCountsAndExports(t *testing.T) {
	if c := CountOf(10, 10_000); c.Count != 10 || c.Capped {
		t.Errorf("CountOf(10) = %+v", c)
	}
	if c := CountOf(10_000, 10_000); c.Count != 10_000 || c.Capped {
		t.Errorf("CountOf(10000) = %+v", c)
	}
	if c := CountOf(10_001, 10_000); c.Count != 10_000 || !c.Capped {
		t.Errorf("CountOf(10001) = %+v", c)
	}
}

// TestCustomerQuery: what a search looks for, by what was typed.
func TestCustomerQuery(t *testing.T) {
	pid := ids.New("customers")
	cases := []struct {
		in   string
		want CustomerQuery
	}{
		{pid, CustomerQuery{ProfileID: pid}},
		{" Noor@Example.com ", CustomerQuery{Email: "Noor@Example.com"}},
		{"  Noor   Has ", CustomerQuery{NamePrefix: "noor has", UserID: "Noor   Has"}},
		{"+971 50 123 4567", CustomerQuery{NamePrefix: "+971 50 123 4567", UserID: "+971 50 123 4567", Phone: "+971 50 123 4567"}},
		{"1234", CustomerQuery{NamePrefix: "1234", UserID: "1234"}},
		{"نور", CustomerQuery{NamePrefix: "نور", UserID: "نور"}},
	}
	for _, c := range cases {
		got, err := NewCustomerQuery(c.in)
		if err != nil || got != c.want {
			t.Errorf("NewCustomerQuery(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"", "a", "  b  ", string(make([]rune, 101))} {
		if _, err := NewCustomerQuery(in); code(err) != apperr.InvalidArgument {
			t.Errorf("NewCustomerQuery(%q): %v, want INVALID_ARGUMENT", in, err)
		}
	}
	if lo, hi := PrefixRange("noor"); !(lo <= "noor hassan" && "noor hassan" < hi && "noos" >= hi) {
		t.Errorf("PrefixRange(noor) = [%q, %q)", lo, hi)
	}
}

// TestNamedView: names fill in for ids the catalog knows; text stays as it
// is without names; the customer's name by profile.
func TestNamedView(t *testing.T) {
	city, area := ids.New("cities"), ids.New("areas")
	o := &Order{ID: "ord_1", CustomerID: "cus_1", DeliveryAddress: DeliveryAddress{City: city, Area: area}}
	n := Names{Customers: map[string]string{"cus_1": "Noor Hassan"},
		Places: map[string]PlaceName{city: {Name: "Dubai", NameArabic: "دبي"}, area: {Name: "Jumeirah"}}}
	v := o.NamedView(false, n)
	if v.CustomerName != "Noor Hassan" || v.DeliveryAddress.CityName != "Dubai" || v.DeliveryAddress.CityNameArabic != "دبي" ||
		v.DeliveryAddress.AreaName != "Jumeirah" || v.DeliveryAddress.City != city {
		t.Errorf("named view %+v", v)
	}
	text := &Order{ID: "ord_2", CustomerID: "cus_2", DeliveryAddress: DeliveryAddress{City: "Dubai", Area: "Marina"}}
	v = text.NamedView(false, n)
	if v.CustomerName != "" || v.DeliveryAddress.CityName != "" || v.DeliveryAddress.AreaName != "" || v.DeliveryAddress.City != "Dubai" {
		t.Errorf("text address view %+v", v)
	}
}
func i64(v int64) *int64 { return &v }

// TestOrderCSVRow: a row as wide as the header, places and customer by name,
// amounts with two decimals, the date in Dubai.
func TestOrderCSVRow(t *testing.T) {
	city := ids.New("cities")
	o := &Order{ID: "ord_0123456789abcdef01a1b2c3", CreationTime: 1_796_000_000_000, StoreName: "Bakery", CustomerID: "cus_1",
		DeliveryAddress: DeliveryAddress{City: city, Area: "Marina"}, Items: []OrderItem{{Name: "Bread", Quantity: 3}, {Name: "Cake", Quantity: 1}},
		Subtotal: 77_05, DeliveryFee: 10_00, Total: 87_05, PlatformCommission: 4_35, StoreEarnings: 82_70, PaymentStatus: PaymentPaid,
		Status: StatusDelivered, RefundedAmount: 12_35}
	row := o.OrderCSVRow(Names{Customers: map[string]string{"cus_1": "Noor"}, Places: map[string]PlaceName{city: {Name: "Dubai"}}})
	want := []string{"A1B2C3", o.ID, "2026-11-30T04:53:20+04:00", "Bakery", "Noor", "Dubai", "Marina", "Bread x3; Cake x1", "77.05", "10.00",
		"87.05", "4.35", "82.70", "paid", "delivered", "12.35"}
	if len(row) != len(OrdersCSVHeader) || len(want) != len(OrdersCSVHeader) {
		t.Fatalf("row of %d cells, header of %d", len(row), len(OrdersCSVHeader))
	}
	for i := range want {
		if row[i] != want[i] {
			t.Errorf("%s = %q, want %q", OrdersCSVHeader[i], row[i], want[i])
		}
	}
}

// TestTotalSortWithFilter: a sort by total goes with the store alone; any
// other filter is refused (sort_with_filter, naming the filters), since the
// index by_store_total would be walked whole for the few orders that match.
func TestTotalSortWithFilter(t *testing.T) {
	from, to := int64(1), int64(2)
	for _, c := range []struct {
		name    string
		f       OrderFilter
		sort    *string
		filters []string
	}{
		{"store alone by total", OrderFilter{StoreID: "s"}, ptr(SortTotalDesc), nil},
		{"held ones too by total", OrderFilter{StoreID: "s", WithHeld: true}, ptr(SortTotalAsc), nil},
		{"period by date", OrderFilter{StoreID: "s", From: &from, To: &to, Status: "pending"}, ptr(SortOldest), nil},
		{"filters by newest", OrderFilter{StoreID: "s", Number: "ABC123", CustomerID: "c"}, nil, nil},
		{"from", OrderFilter{StoreID: "s", From: &from}, ptr(SortTotalDesc), []string{"from/to"}},
		{"to", OrderFilter{StoreID: "s", To: &to}, ptr(SortTotalAsc), []string{"from/to"}},
		{"status", OrderFilter{StoreID: "s", Status: "pending"}, ptr(SortTotalDesc), []string{"status"}},
		{"number", OrderFilter{StoreID: "s", Number: "ABC123"}, ptr(SortTotalDesc), []string{"number"}},
		{"customer", OrderFilter{StoreID: "s", CustomerID: "c"}, ptr(SortTotalAsc), []string{"customerId"}},
		{"all", OrderFilter{StoreID: "s", From: &from, To: &to, Status: "pending", Number: "ABC123", CustomerID: "c"}, ptr(SortTotalAsc), []string{"from/to", "status", "number", "customerId"}},
	} {
		err := c.f.CheckSort(SortOf(c.sort))
		if c.filters == nil {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		e := apperr.From(err)
		if err == nil || e.Code != apperr.InvalidArgument || e.Details["reason"] != "sort_with_filter" || e.Details["field"] != "sort" ||
			!reflect.DeepEqual(e.Details["filters"], c.filters) {
			t.Errorf("%s: %v %+v", c.name, err, e)
		}
	}
}
