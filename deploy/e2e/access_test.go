package e2e

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"marketplace/deploy/modules"
	"marketplace/deploy/processor"
	st "marketplace/deploy/systemtest"
	"marketplace/libs/liveset"
	"marketplace/libs/ops"
)

// TestAccessMatrix calls every public operation, with arguments generated from
// its own declaration, as each kind of caller, and checks the contract's answer:
// 401 for anonymous callers where a token is needed, 403 where the caller is
// not allowed (not an administrator, not the store's owner, someone else's
// record, adminUserId not the caller), and no auth error otherwise (nor any
// 5xx). A new operation joins the matrix by being declared; one whose
// arguments name a record kind the world below lacks fails here until the
// world has one.
func TestAccessMatrix(t *testing.T) {
	s := st.Start(t)
	w := newAccessWorld(t, s)

	var descs []ops.Descriptor
	serviceOf := map[string]string{}
	for _, m := range modules.All {
		for _, d := range declaredOps(t, s, m.Name) {
			if d.Access != ops.Internal {
				descs = append(descs, d)
				serviceOf[d.Path] = m.Name
			}
		}
	}
	var statesNoReads []string // queries whose answers do not say what they read
	if len(descs) < 20 {
		t.Fatalf("only %d public operations declared", len(descs))
	}
	// The expectations follow each declaration's access level, so the level
	// itself is held to the one the interface and the contract give (a store
	// operation declared "authenticated" would otherwise pass for everyone).
	for _, d := range descs {
		want, ok := documentedAccess[d.Path]
		if !ok {
			t.Errorf("%s is not in documentedAccess: add the access the interface or the contract (or a record in docs/adr) gives it", d.Path)
		} else if d.Access != want {
			t.Errorf("%s is declared %s; the documents give %s", d.Path, d.Access, want)
		}
	}
	for _, d := range descs {
		t.Run(d.Path, func(t *testing.T) {
			// The rightful callers last: their calls may change or remove the
			// records the others are refused.
			callers := []accessCaller{w.anonymous, w.other, w.otherOwner, w.owner, w.admin, w.customer}
			if slices.ContainsFunc(d.Args, func(a ops.ArgDoc) bool { return a.Name == "adminUserId" }) {
				callers = append([]accessCaller{w.adminActingAsAnother}, callers...)
			}
			// One set of records per operation (the customer's, made once).
			args := w.args(t, d.Args, &w.customer)
			askedReads := false
			for _, c := range callers {
				want := w.expect(t, d, c)
				call := s.Query
				if d.Kind == ops.Mutation {
					call = s.Mutation
				}
				if _, ok := args["adminUserId"]; ok {
					args["adminUserId"] = cmp.Or(c.actAs, c.sub)
				}
				r := call(c.token, d.Path, args)
				code := r.Code()
				if r.Status >= 500 {
					t.Errorf("as %s: %d %s", c.name, r.Status, r.Body)
					continue
				}
				if r.Header.Get(liveset.HeaderReads) != "" || r.Header.Get(liveset.HeaderWrites) != "" {
					t.Errorf("as %s: the gateway passed a service's live header on: %v", c.name, r.Header)
				}
				if d.Kind == ops.Query && r.Status == 200 && !askedReads {
					// The service's own answer says what it read, unless
					// the operation is one that falls back (liveFallback).
					askedReads = true
					body, _ := json.Marshal(map[string]any{"path": d.Path, "args": args})
					headers := map[string]string{"Content-Type": "application/json", liveset.HeaderWant: "1"}
					if c.token != "" {
						headers["Authorization"] = "Bearer " + c.token
					}
					direct := s.DoAt(s.Services[serviceOf[d.Path]], "POST", "/api/query", bytes.NewReader(body),
						headers)
					if direct.Status != 200 {
						t.Errorf("as %s, directly: %d %s", c.name, direct.Status, direct.Body)
					} else if h := direct.Header.Get(liveset.HeaderReads); h == "" {
						statesNoReads = append(statesNoReads, d.Path)
					} else if _, err := liveset.DecodeReads(h); err != nil {
						t.Error(err)
					}
				}
				switch want {
				case "UNAUTHENTICATED", "PERMISSION_DENIED", "FAILED_PRECONDITION":
					if code != want {
						t.Errorf("as %s: want %s, got %d %s", c.name, want, r.Status, r.Body)
					}
				default:
					if code == "UNAUTHENTICATED" || code == "PERMISSION_DENIED" {
						t.Errorf("as %s: want no auth error, got %d %s", c.name, r.Status, r.Body)
					}
				}
			}
		})
	}
	// Live queries re-run by what they read (docs/convex.md): the queries
	// whose answers cannot say it fall back to re-running on every write of
	// their service, and are exactly these.
	slices.Sort(statesNoReads)
	if !slices.Equal(statesNoReads, liveFallback) {
		t.Errorf("queries answered without their reads: %q; liveFallback lists %q", statesNoReads, liveFallback)
	}
}

// liveFallback are the public queries whose answers do not say what they
// read (liveset.ReadsUnknown): their live queries re-run on every write of
// their service. Sorted.
var liveFallback = []string{}

// documentedAccess is each public operation's access as the interface
// (section 4, 5), the platform contract (section 4) and docs/adr
// give it.
var documentedAccess = map[string]ops.Access{
	"admins.catalog.createCity": ops.Admin, "admins.catalog.createArea": ops.Admin, "admins.catalog.createCategory": ops.Admin,
	"admins.catalog.createStore": ops.Admin, "admins.catalog.updateCity": ops.Admin, "admins.catalog.updateArea": ops.Admin,
	"catalog.locations.listCities": ops.Public, "catalog.locations.listAreas": ops.Public, "catalog.categories.listCategories": ops.Public,
	"stores.catalog.getStore": ops.Public, "stores.products.listProducts": ops.Public, "stores.products.createProduct": ops.StoreOwner,
	// Store discovery and the operations a marketplace runs on (issue 12; docs/adr/0022, 0023).
	"admins.catalog.updateStore": ops.Admin, "stores.catalog.updateMyStore": ops.StoreOwner,
	"catalog.stores.listStores": ops.Public, "catalog.stores.searchNearby": ops.Public,
	"stores.products.updateProduct": ops.StoreOwner,
	// The products in pages (issue 29, item 6; docs/adr/0025-products.md).
	"stores.products.listProductsPaginated": ops.Public,

	"customers.profile.upsertMyProfile": ops.Authenticated, "customers.profile.getMyProfile": ops.Authenticated,
	"customers.cart.addItem": ops.Customer, "customers.cart.getMyCart": ops.Customer, "customers.cart.removeItem": ops.Customer,
	"customers.orders.getMyOrders": ops.Customer, "customers.orders.getOrderByPaymentIntent": ops.Authenticated,
	"stores.orders.updateOrderStatus": ops.StoreOwnerOrAdmin,
	// docs/adr/0146-refunds.md
	"admins.payoutOperations.sendPayoutThroughProcessor": ops.Admin, // docs/adr/0150
	"admins.orders.refundOrder":                          ops.Admin, "stores.orders.refundOrder": ops.StoreOwnerOrAdmin, "customers.orders.cancelMyOrder": ops.Customer,
	"stores.orders.listStoreOrders": ops.StoreOwnerOrAdmin,
	// Finding orders and the order page (issue 32; docs/adr/0159, 0160).
	"stores.orders.countStoreOrders": ops.StoreOwnerOrAdmin, "stores.orders.getOrder": ops.StoreOwnerOrAdmin,
	"admins.orders.listOrders": ops.Admin, "admins.orders.countOrders": ops.Admin, "admins.orders.countHeldOrders": ops.Admin, "admins.customers.searchCustomers": ops.Admin,
	// docs/adr/0149-refunds-and-disputes-at-the-processor.md
	"admins.disputes.listDisputes": ops.Admin, "stores.disputes.listDisputes": ops.StoreOwnerOrAdmin,
	// The console's and the portal's lists (issue 20; docs/adr/0133-console-rules-and-language.md).
	"admins.orders.listHeldOrders": ops.Admin, "stores.catalog.listMyStores": ops.Authenticated,
	// Checkout (issue 12; docs/adr/0036-checkout.md): the caller's own address and cart.
	"customers.checkout.createPaymentIntent": ops.Customer,

	"customers.addresses.createAddress": ops.Customer, "customers.addresses.updateAddress": ops.Customer,
	"customers.addresses.deleteAddress": ops.Customer, "customers.addresses.getCustomerAddresses": ops.Customer,
	"customers.addresses.getAddress": ops.Customer, "customers.addresses.setDefaultAddress": ops.Customer,

	"admins.platformAdmin.createInitialPlatformConfig": ops.Admin, "admins.platformAdmin.updatePlatformConfig": ops.Admin,
	"admins.platformAdmin.addCategoryCommission": ops.Admin, "admins.platformAdmin.setTierCommission": ops.Admin,
	"admins.platformAdmin.getConfigHistory": ops.Admin, "admins.platformAdmin.getActivePlatformConfig": ops.Authenticated,
	"admins.platformAdmin.getCommissionPreview": ops.Authenticated,

	"notifications.inbox.list": ops.Authenticated, "notifications.inbox.markRead": ops.Authenticated, "notifications.inbox.count": ops.Authenticated,
	// The owner's dashboard and notifications rendered from params (issue 32; docs/adr/0164, 0165).
	"stores.orders.getSalesSummary": ops.StoreOwnerOrAdmin, "stores.reviews.getRatingHistory": ops.StoreOwnerOrAdmin,
	"notifications.inbox.countUnread": ops.Authenticated, "stores.notifications.listForOrder": ops.StoreOwnerOrAdmin,

	"stores.payouts.requestPayout": ops.StoreOwner, "stores.wallet.getWallet": ops.StoreOwnerOrAdmin,
	"stores.wallet.listTransactions":            ops.StoreOwnerOrAdmin,
	"stores.wallet.getStatement":                ops.StoreOwnerOrAdmin, // docs/adr/0147
	"admins.payoutOperations.getPendingPayouts": ops.Admin, "admins.payoutOperations.getPayoutStatistics": ops.Admin,
	"admins.payoutOperations.approvePayout": ops.Admin, "admins.payoutOperations.rejectPayout": ops.Admin,
	"admins.payoutOperations.markPayoutAsProcessing": ops.Admin, "admins.payoutOperations.completePayout": ops.Admin,
	"admins.payoutOperations.markPayoutAsFailed": ops.Admin, "admins.payoutOperations.adjustWalletBalance": ops.Admin,
	// Ours (docs/adr/0062-wallet-adjustments-and-listings.md).
	"stores.payouts.listPayouts": ops.StoreOwnerOrAdmin, "admins.payoutOperations.getPayout": ops.Admin,
	"stores.payouts.countPayouts":             ops.StoreOwnerOrAdmin,
	"admins.payoutOperations.reconcileWallet": ops.Admin, "admins.payoutOperations.releaseDueEarnings": ops.Admin,
	"admins.finance.reconcilePlatform": ops.Admin, // docs/adr/0151
	// Issue 32: docs/adr/0161 (bulk decisions, lists), 0162 (bank account), 0163 (movements, wallets).
	"admins.payoutOperations.listPayouts": ops.Admin, "admins.payoutOperations.countPayouts": ops.Admin, "admins.payoutOperations.approvePayouts": ops.Admin,
	"admins.payoutOperations.rejectPayouts": ops.Admin, "admins.payoutOperations.listWallets": ops.Admin,
	"admins.payoutOperations.getWalletTotals": ops.Admin,
	"stores.payouts.getBankAccount":           ops.StoreOwner, "stores.payouts.setBankAccount": ops.StoreOwner,
	"stores.wallet.getUpcomingReleases": ops.StoreOwnerOrAdmin, "stores.wallet.listStatementEntries": ops.StoreOwnerOrAdmin,

	"stores.reviews.addReview": ops.Customer, "stores.reviews.updateReview": ops.Customer, "stores.reviews.deleteReview": ops.Customer,
	"stores.reviews.getStoreReviews": ops.Public, "stores.reviews.getStoreReviewStats": ops.Public, "stores.reviews.getReview": ops.Public,
	"stores.reviews.getCustomerReviews": ops.Customer, "stores.reviews.addStoreResponse": ops.StoreOwner,
	"stores.reviews.updateStoreResponse": ops.StoreOwner, "stores.reviews.voteOnReview": ops.Customer, "stores.reviews.flagReview": ops.Customer,
	"admins.reviewModeration.listFlags": ops.Admin, "admins.reviewModeration.resolveFlag": ops.Admin,
	"admins.reviewModeration.setReviewVisibility": ops.Admin, "admins.reviewModeration.searchReviews": ops.Admin, "admins.reviewModeration.countFlags": ops.Admin,
	"admins.payoutOperations.searchPayouts": ops.Admin,
}

// accessCaller is one kind of caller of the matrix.
type accessCaller struct {
	name, sub, token string
	admin            bool
	actAs            string // the adminUserId it sends (another administrator's)
}

// accessWorld holds a record of every kind the operations name, owned by the
// customer and the owner.
type accessWorld struct {
	s                                             *st.Sys
	anonymous, customer, other, owner, otherOwner accessCaller
	admin, adminActingAsAnother                   accessCaller
	ids                                           map[string]string // record kind -> id
	intent                                        string
	sh                                            *shop
	city, area                                    string
}

func newAccessWorld(t *testing.T, s *st.Sys) *accessWorld {
	sh := newShop(t, s) // admin-1, owner-1 (two stores), user-1 with a profile and a cart
	w := &accessWorld{s: s, sh: sh, ids: map[string]string{}, intent: "pi_matrix"}
	caller := func(name, sub string, roles ...string) accessCaller {
		c := accessCaller{name: name, sub: sub, token: s.Token(sub, roles...), admin: slices.Contains(roles, "admin")}
		if sub == "" {
			c.token = ""
		}
		return c
	}
	w.anonymous = caller("anonymous", "")
	w.customer = caller("the customer", "user-1")
	w.other = caller("another customer", "user-2")
	w.owner = caller("the store's owner", "owner-1")
	w.otherOwner = caller("another store's owner", "owner-2")
	w.admin = caller("an administrator", "admin-1", "admin")
	w.adminActingAsAnother = caller("an administrator sending another's adminUserId", "admin-2", "admin")
	w.adminActingAsAnother.actAs = "admin-1"

	okID(t, s.Mutation(w.other.token, "customers.profile.upsertMyProfile", map[string]any{"name": "Other"}))
	newStore(t, s, sh.admin, "Other Shop", "owner-2", "", "")
	if r := deliver(s, processor.Event("evt_matrix", "payment_intent.succeeded", sh.payment(w.intent))); r.Status != 200 {
		t.Fatalf("order for the matrix: %d %s", r.Status, r.Body)
	}
	order := okAs[map[string]any](t, s.Query(sh.user, "customers.orders.getOrderByPaymentIntent", map[string]any{"paymentIntentId": w.intent}))
	w.city = newCity(t, s, sh.admin, "Matrix City", "مدينة")
	w.area = newArea(t, s, sh.admin, "Matrix Area", w.city)
	cfg := okAs[map[string]any](t, s.Query(sh.admin, "admins.platformAdmin.getActivePlatformConfig", nil))
	cats := okAs[[]map[string]any](t, s.Query("", "catalog.categories.listCategories", nil))
	eventually(t, "the customer's first notification", func() bool { return len(inbox(t, s, sh.user)) > 0 })
	// The store's wallet, credited, and a payout its owner requested from it.
	wallet := okAs[map[string]any](t, s.Query(sh.owner, "stores.wallet.getWallet", map[string]any{"storeId": sh.storeA}))["_id"].(string)
	st.MustOK(t, s.Mutation(sh.admin, "admins.payoutOperations.adjustWalletBalance", map[string]any{"storeId": sh.storeA, "walletId": wallet,
		"adjustmentType": "add_balance", "amount": 5000, "reason": "Matrix credit", "adminUserId": "admin-1"}))
	payout := okID(t, s.Mutation(sh.owner, "stores.payouts.requestPayout", map[string]any{"storeId": sh.storeA, "amount": 500,
		"bankDetails": map[string]any{"IBAN": validIBAN, "bankName": "Matrix Bank", "accountHolderName": "Owner One"}}))
	w.ids = map[string]string{
		"cities": w.city, "areas": w.area, "categories": cats[0]["_id"].(string), "stores": sh.storeA,
		"products": sh.productA1, "customers": sh.customer, "orders": order["_id"].(string),
		"platformConfig": cfg["_id"].(string), "notifications": inbox(t, s, sh.user)[0].ID,
		"storeWallets": wallet, "payouts": payout,
	}
	return w
}

// customerRecords are the record kinds that belong to one customer: anyone
// else is refused them.
var customerRecords = []string{"customers", "customerAddresses", "carts", "notifications", "orders"}

// authorOnly are operations on a review (the customer's) that only its
// author may call; other operations on reviews are anyone's.
var authorOnly = []string{"stores.reviews.updateReview", "stores.reviews.deleteReview"}

// adminsSeeAll are the operations of a customer's records that administrators
// may call too.
var adminsSeeAll = []string{"customers.orders.getOrderByPaymentIntent"}

// othersSeeNothing are the lookups of a customer's records that answer anyone
// else exactly as for a record that does not exist (null), not with a refusal
// that would reveal it (docs/adr/0039-orders.md).
var othersSeeNothing = []string{"customers.orders.cancelMyOrder", "customers.orders.getOrderByPaymentIntent"}

// id is a record of kind for one operation; addresses, cart lines, reviews
// and flags are made anew for each (its call may delete them).
func (w *accessWorld) id(t *testing.T, kind string) string {
	switch kind {
	case "customerAddresses":
		return okID(t, w.s.Mutation(w.sh.user, "customers.addresses.createAddress", map[string]any{
			"customerId": w.sh.customer, "name": "Home", "fullAddress": "Villa 1", "city": w.city, "area": w.area}))
	case "carts":
		return okID(t, w.s.Mutation(w.sh.user, "customers.cart.addItem", map[string]any{"productId": w.sh.productB, "quantity": 1}))
	case "storeReviews": // the customer's review of store A (its call may delete or hide it)
		return w.review(t)
	case "reviewFlags": // another customer's flag on the customer's review
		return w.flag(t)
	}
	id, ok := w.ids[kind]
	if !ok {
		t.Fatalf("the access matrix has no record of kind %q: add one to newAccessWorld", kind)
	}
	return id
}

func rulesOf(a ops.ArgDoc) map[string]string {
	m := map[string]string{}
	for _, r := range strings.Split(a.Rules, ",") {
		k, v, _ := strings.Cut(r, "=")
		m[k] = v
	}
	return m
}

// args builds the required arguments of a declaration for caller c (nil: only
// to see which kinds they name).
func (w *accessWorld) args(t *testing.T, docs []ops.ArgDoc, c *accessCaller) map[string]any {
	out := map[string]any{}
	for _, a := range docs {
		if !a.Required {
			continue
		}
		out[a.Name] = w.value(t, a, c)
	}
	return out
}

func (w *accessWorld) value(t *testing.T, a ops.ArgDoc, c *accessCaller) any {
	rules := rulesOf(a)
	switch {
	case a.Name == "adminUserId":
		if c == nil {
			return ""
		}
		if c.actAs != "" {
			return c.actAs
		}
		return c.sub
	case a.Name == "paymentIntentId":
		return w.intent
	case strings.HasPrefix(a.Type, "array of "):
		elem := a
		elem.Type = strings.TrimPrefix(a.Type, "array of ")
		elem.Name = a.Name + "[]"
		return []any{w.value(t, elem, c)}
	case len(a.Fields) > 0:
		return w.args(t, a.Fields, c)
	case rules["id"] != "":
		if c == nil {
			return "kind:" + rules["id"]
		}
		return w.id(t, rules["id"])
	case rules["enum"] != "":
		return strings.Split(rules["enum"], "|")[0]
	case strings.HasPrefix(a.Type, "number"):
		if v, ok := rules["min"]; ok {
			return json.Number(v)
		}
		return 1
	case a.Type == "boolean":
		return false
	}
	return "Matrix " + a.Name
}

// expect is the contract's answer for caller c of operation d: an error code,
// or "" for "no auth error".
func (w *accessWorld) expect(t *testing.T, d ops.Descriptor, c accessCaller) string {
	if c.sub == "" {
		if d.Access == ops.Public {
			return ""
		}
		return "UNAUTHENTICATED"
	}
	switch d.Access {
	case ops.Admin:
		if c.admin && c.actAs == "" {
			return ""
		}
		return "PERMISSION_DENIED"
	case ops.StoreOwner:
		if c.sub == w.owner.sub {
			return ""
		}
		return "PERMISSION_DENIED"
	case ops.StoreOwnerOrAdmin:
		if c.sub == w.owner.sub || c.admin {
			return ""
		}
		return "PERMISSION_DENIED"
	}
	// The customer's own records: anyone else is refused them, except that a
	// caller without a profile is first told to make one (mutations of
	// customers), and administrators where the operation says so.
	kinds := fmt.Sprint(w.args(t, d.Args, nil))
	owned := slices.ContainsFunc(customerRecords, func(k string) bool { return strings.Contains(kinds, "kind:"+k) }) ||
		slices.ContainsFunc(d.Args, func(a ops.ArgDoc) bool { return a.Required && a.Name == "paymentIntentId" }) ||
		slices.Contains(authorOnly, d.Path)
	if !owned || c.sub == w.customer.sub || (c.admin && slices.Contains(adminsSeeAll, d.Path)) || slices.Contains(othersSeeNothing, d.Path) {
		return ""
	}
	if d.Access == ops.Customer && d.Kind == ops.Mutation && !w.hasProfile(t, c) {
		return "FAILED_PRECONDITION"
	}
	return "PERMISSION_DENIED"
}

func (w *accessWorld) hasProfile(t *testing.T, c accessCaller) bool {
	r := st.MustOK(t, w.s.Query(c.token, "customers.profile.getMyProfile", nil))
	return string(r.Body) != "null"
}
