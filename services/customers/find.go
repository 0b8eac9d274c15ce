package customers

import (
	"context"
	"time"

	"marketplace/libs/apperr"
	"marketplace/libs/cache"
	"marketplace/libs/contracts/catalog"
	contract "marketplace/libs/contracts/customers"
	"marketplace/libs/ids"
	"marketplace/libs/ops"
	"marketplace/libs/page"
	"marketplace/libs/store"
	"marketplace/services/customers/domain"
)

// PlaceNamesTTL is how long a city's or an area's names are reused for the
// order views (a rename shows within it).
const PlaceNamesTTL = time.Minute

// newPlaceNames is the cache of places' names (5,000 of them at most).
func newPlaceNames() *cache.TTL[string, domain.PlaceName] {
	return cache.New[string, domain.PlaceName](PlaceNamesTTL, 5_000)
}

// names are the names order views show (domain.Order.NamedView): the
// customers' profile names, one read of the page's profiles, and the cities
// and areas that are ids, through the catalog (catalog.locations.resolve,
// cached PlaceNamesTTL). Names are what a person reads, not facts anything
// decides on: when the catalog cannot answer, the views go without the
// places' names (logged) rather than fail.
func (s *svc) names(ctx context.Context, os []domain.Order) (domain.Names, error) {
	n := domain.Names{Customers: map[string]string{}, Places: map[string]domain.PlaceName{}}
	if len(os) == 0 {
		return n, nil
	}
	var customers, cities, areas []string
	seen := map[string]bool{}
	for i := range os {
		o := &os[i]
		if !seen[o.CustomerID] {
			seen[o.CustomerID] = true
			customers = append(customers, o.CustomerID)
		}
		for _, p := range []struct {
			id   string
			kind string
			into *[]string
		}{{o.DeliveryAddress.City, "cities", &cities}, {o.DeliveryAddress.Area, "areas", &areas}} {
			if seen[p.id] || !ids.Valid(p.kind, p.id) {
				continue // text from an older payment: shown as it is
			}
			seen[p.id] = true
			if v, ok := s.placeNames.Get(p.id); ok {
				n.Places[p.id] = v
			} else {
				*p.into = append(*p.into, p.id)
			}
		}
	}
	ps, err := s.profiles.ByIDs(ctx, customers)
	if err != nil {
		return n, err
	}
	for _, p := range ps {
		n.Customers[p.ID] = p.Name
	}
	if len(cities)+len(areas) == 0 {
		return n, nil
	}
	l, err := s.catalog.ResolvePlaces(ctx, cities, areas)
	if err != nil {
		s.env.Logger.WarnContext(ctx, "order views without the places' names: the catalog did not answer", "error", err)
		return n, nil
	}
	for _, m := range []map[string]catalog.Place{l.Cities, l.Areas} {
		for id, p := range m {
			v := domain.PlaceName{Name: p.Name, NameArabic: p.NameArabic}
			s.placeNames.Put(id, v)
			n.Places[id] = v
		}
	}
	return n, nil
}

// named is a page of orders as views with their names; administrators'
// names only to administrators (UnnameStaff).
func (s *svc) named(ctx context.Context, r page.Result[domain.Order], withTerms bool) (page.Result[domain.OrderView], error) {
	n, err := s.names(ctx, r.Page)
	if err != nil {
		return page.Result[domain.OrderView]{}, err
	}
	staff := withTerms && ops.Caller(ctx).IsAdmin()
	return page.Map(r, func(o *domain.Order) domain.OrderView {
		v := o.NamedView(withTerms, n)
		if !staff {
			v.UnnameStaff()
		}
		return v
	}), nil
}

// namedOne is one order's view with its names.
func (s *svc) namedOne(ctx context.Context, o *domain.Order, withTerms bool) (*domain.OrderView, error) {
	n, err := s.names(ctx, []domain.Order{*o})
	if err != nil {
		return nil, err
	}
	v := o.NamedView(withTerms, n)
	if !withTerms || !ops.Caller(ctx).IsAdmin() {
		v.UnnameStaff()
	}
	return &v, nil
}

// orderFilterArgs are the filters the order lists and counts share
// (listStoreOrders, countStoreOrders, listOrders, countOrders; the
// operations' arguments embed them; domain.NewOrderFilter checks them
// together).
type orderFilterArgs struct {
	Status     *string `json:"status" op:"enum=pending|confirmed|preparing|out_for_delivery|delivered|cancelled"`
	From       *int64  `json:"from" op:"min=0"`
	To         *int64  `json:"to" op:"min=0"`
	Number     *string `json:"number" op:"max=20"`
	CustomerID *string `json:"customerId" op:"id=customers"`
}

type storeOrdersArgs struct {
	StoreID string `json:"storeId" op:"required,id=stores"`
	orderFilterArgs
	Sort           *string   `json:"sort" op:"enum=newest|oldest|total_desc|total_asc"`
	PaginationOpts page.Opts `json:"paginationOpts" op:"required"`
}

// listStoreOrders pages a store's orders for its owner or an administrator
// (the registry checked): newest first unless sort says otherwise (by total
// only without the other filters: domain.OrderFilter.CheckSort), of one
// status, created from..to (epoch ms, inclusive), of one number (the
// backfilled numbers of older orders too, once the backfill reached them) or
// one customer when given. The commission and the store's earnings are
// shown: they are the terms between the platform and this store. An order
// whose payment is held for review is the platform's to settle: the store
// sees it only once an administrator confirmed it
// (domain.Order.VisibleToStore; administrators see every order).
func (s *svc) listStoreOrders(ctx context.Context, a *storeOrdersArgs) (page.Result[domain.OrderView], error) {
	f, err := a.filter(ops.StoreOf(ctx).ID, ops.Caller(ctx).IsAdmin())
	if err != nil {
		return page.Result[domain.OrderView]{}, err
	}
	srt := domain.SortOf(a.Sort)
	if err := f.CheckSort(srt); err != nil {
		return page.Result[domain.OrderView]{}, err
	}
	r, err := s.orders.Find(ctx, f, srt, a.PaginationOpts)
	if err != nil {
		return page.Result[domain.OrderView]{}, err
	}
	return s.named(ctx, r, true)
}

func (a *orderFilterArgs) filter(storeID string, withHeld bool) (domain.OrderFilter, error) {
	var st *string
	if storeID != "" {
		st = &storeID
	}
	return domain.NewOrderFilter(st, a.Status, a.CustomerID, a.From, a.To, a.Number, withHeld)
}

type countStoreOrdersArgs struct {
	StoreID string `json:"storeId" op:"required,id=stores"`
	orderFilterArgs
}

// countStoreOrders counts what listStoreOrders lists with the same filters,
// up to ORDERS_COUNT_MAX (domain.MaxCount; then capped): the console's page numbers.
func (s *svc) countStoreOrders(ctx context.Context, a *countStoreOrdersArgs) (domain.Count, error) {
	f, err := a.filter(ops.StoreOf(ctx).ID, ops.Caller(ctx).IsAdmin())
	if err != nil {
		return domain.Count{}, err
	}
	return s.count(ctx, f)
}

func (s *svc) count(ctx context.Context, f domain.OrderFilter) (domain.Count, error) {
	n, err := s.orders.Count(ctx, f, s.set.OrdersCountMax)
	if err != nil {
		return domain.Count{}, err
	}
	return domain.CountOf(n, s.set.OrdersCountMax), nil
}

type adminOrdersArgs struct {
	StoreID *string `json:"storeId" op:"id=stores"`
	orderFilterArgs
	Sort           *string   `json:"sort" op:"enum=newest|oldest|total_desc|total_asc"`
	PaginationOpts page.Opts `json:"paginationOpts" op:"required"`
}

// adminFilter is an administrator's filter: every order (held ones too); a
// store or customer that does not exist is NOT_FOUND, as every filter
// naming a missing record.
func (s *svc) adminFilter(ctx context.Context, storeID *string, a *orderFilterArgs) (domain.OrderFilter, error) {
	if storeID != nil {
		st, err := s.catalog.Store(ctx, *storeID)
		if err != nil {
			return domain.OrderFilter{}, err
		}
		if st == nil {
			return domain.OrderFilter{}, apperr.New(apperr.NotFound, "store %s does not exist", *storeID)
		}
	}
	if a.CustomerID != nil {
		if _, err := s.profiles.Get(ctx, *a.CustomerID); err != nil {
			return domain.OrderFilter{}, err
		}
	}
	var st string
	if storeID != nil {
		st = *storeID
	}
	return a.filter(st, true)
}

// listOrders pages every order for administrators, with listStoreOrders'
// filters and sorts plus storeId. The total sorts need storeId and no other
// filter: an index per store serves them, and every store's orders by total
// over a period would be sorted in memory (INVALID_ARGUMENT naming sort;
// with a filter, sort_with_filter: domain.OrderFilter.CheckSort).
func (s *svc) listOrders(ctx context.Context, a *adminOrdersArgs) (page.Result[domain.OrderView], error) {
	srt := domain.SortOf(a.Sort)
	if srt.Field == "total" && a.StoreID == nil {
		return page.Result[domain.OrderView]{}, apperr.Invalid("sort", "by total needs storeId (the orders of one store)")
	}
	f, err := s.adminFilter(ctx, a.StoreID, &a.orderFilterArgs)
	if err != nil {
		return page.Result[domain.OrderView]{}, err
	}
	if err := f.CheckSort(srt); err != nil {
		return page.Result[domain.OrderView]{}, err
	}
	r, err := s.orders.Find(ctx, f, srt, a.PaginationOpts)
	if err != nil {
		return page.Result[domain.OrderView]{}, err
	}
	return s.named(ctx, r, true)
}

type adminCountArgs struct {
	StoreID *string `json:"storeId" op:"id=stores"`
	orderFilterArgs
}

// countOrders counts what listOrders lists with the same filters, up to
// domain.MaxCount (then capped).
func (s *svc) countOrders(ctx context.Context, a *adminCountArgs) (domain.Count, error) {
	f, err := s.adminFilter(ctx, a.StoreID, &a.orderFilterArgs)
	if err != nil {
		return domain.Count{}, err
	}
	return s.count(ctx, f)
}

type getOrderArgs struct {
	OrderID string `json:"orderId" op:"required,id=orders"`
}

// getOrder is one order with all an order page shows (names, the commission's
// terms, the disputes, who moved it), for its store's owner or an
// administrator (the registry checked the caller against the order's
// store). An order held for review is NOT_FOUND to its store, as listing
// hides it (domain.Order.VisibleToStore).
func (s *svc) getOrder(ctx context.Context, a *getOrderArgs) (*domain.OrderView, error) {
	o, err := s.orders.Get(ctx, a.OrderID)
	if err != nil {
		return nil, err
	}
	if o == nil || (!ops.Caller(ctx).IsAdmin() && !o.VisibleToStore()) {
		return nil, apperr.New(apperr.NotFound, "order %s does not exist", a.OrderID)
	}
	return s.namedOne(ctx, o, true)
}

type searchCustomersArgs struct {
	Query string `json:"query" op:"required,max=400"`
}

// searchCustomers finds customers for administrators: by a profile id, an
// email (exactly), or else a name's prefix (any case), a user id or a phone
// (exactly); at most domain.MaxSearchHits, by name. Profiles older than
// their name key are found by name once the background backfill reached
// them.
func (s *svc) searchCustomers(ctx context.Context, a *searchCustomersArgs) ([]contract.Profile, error) {
	q, err := domain.NewCustomerQuery(a.Query)
	if err != nil {
		return nil, err
	}
	ps, err := s.profiles.Search(ctx, q)
	if err != nil {
		return nil, err
	}
	out := make([]contract.Profile, len(ps))
	for i := range ps {
		out[i] = ps[i].View()
	}
	return out, nil
}

// backfill gives older orders their number and older profiles their name
// key, once at start (a start-up task: it writes over DB_MEMORY_LIMIT as the
// start does, libs/store/memlimit.go).
func (s *svc) backfill(ctx context.Context) error {
	ctx = store.AllowOverMemoryLimit(ctx, "customers: the order numbers' and name keys' backfill at start")
	n, err := s.orders.BackfillNumbers(ctx, 500)
	if err != nil {
		return err
	}
	k, err := s.profiles.BackfillNameKeys(ctx, 500)
	if n+k > 0 {
		s.env.Logger.InfoContext(ctx, "backfilled", "orderNumbers", n, "profileNameKeys", k)
	}
	return err
}
