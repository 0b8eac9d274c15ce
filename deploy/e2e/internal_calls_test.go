package e2e

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"testing"

	"marketplace/deploy/modules"
	st "marketplace/deploy/systemtest"
	"marketplace/libs/ops"
	"marketplace/libs/serviceauth"
)

const refusedInternalCallsMetric = "marketplace_internal_calls_refused_total"

// internalOp is an internal operation as its service declares it (GET /ops).
type internalOp struct {
	service, path string
	kind          ops.Kind
	callers       []string
}

// internalOps are the internal operations of every module, from each
// service's GET /ops, and the public operations' paths by service.
func internalOps(t *testing.T, s *st.Sys) (internal []internalOp, public map[string][]string) {
	t.Helper()
	public = map[string][]string{}
	for _, callee := range modules.Names() {
		var d struct {
			Operations []ops.Descriptor `json:"operations"`
		}
		st.MustOK(t, s.DoAt(s.Services[callee], "GET", "/ops", nil, nil)).Decode(t, &d)
		for _, op := range d.Operations {
			if op.Access == ops.Internal {
				internal = append(internal, internalOp{callee, op.Path, op.Kind, op.Callers})
			} else {
				public[callee] = append(public[callee], op.Path)
			}
		}
	}
	if len(internal) < 10 {
		t.Fatalf("only %d internal operations found: %+v", len(internal), internal)
	}
	return internal, public
}

// declaresCalls reports whether the module list has caller declare calls to
// callee (service.Module.Calls).
func declaresCalls(caller, callee string) bool {
	for _, m := range modules.All {
		if m.Name == caller {
			return slices.Contains(m.Calls, callee)
		}
	}
	return false
}

// publicOnlyEdges are the module list's call edges that reach no internal
// operation: the caller calls only these public operations of the callee,
// with the user's token (the customer or store resolvers of its access
// levels, an address of the caller's) or without one (a store as anyone
// sees it). Read from the code: libs/contracts/<callee>'s typed clients and
// where each service uses them.
var publicOnlyEdges = map[[2]string][]string{
	{"addresses", "customers"}: {"customers.profile.getMyProfile"}, // customers.Client.CustomerRef
	{"payments", "addresses"}:  {"customers.addresses.getAddress"}, // addresses.Client.MyAddress
}

// TestOperationCallersFollowTheModuleList (issue 19, item 4): the module list
// stays the one source of the call edges. Every service an internal
// operation declares as its caller (ops.CalledBy) declares calls to the
// operation's module (Module.Calls), and every edge of the module list is
// declared by at least one internal operation of the callee, or is one of
// publicOnlyEdges, whose public operations exist and are not internal (and
// the list names no edge an internal operation already declares, nor one the
// module list does not have).
func TestOperationCallersFollowTheModuleList(t *testing.T) {
	s := st.Start(t)
	internal, public := internalOps(t, s)
	covered := map[[2]string]bool{}
	for _, op := range internal {
		for _, caller := range op.callers {
			if !declaresCalls(caller, op.service) {
				t.Errorf("%s names %s as its caller, but the module list has no call from %s to %s", op.path, caller, caller, op.service)
			}
			covered[[2]string{caller, op.service}] = true
		}
	}
	for _, m := range modules.All {
		for _, callee := range m.Calls {
			edge := [2]string{m.Name, callee}
			paths, listed := publicOnlyEdges[edge]
			switch {
			case covered[edge] && listed:
				t.Errorf("%s -> %s is declared by internal operations and listed as public-only", m.Name, callee)
			case !covered[edge] && !listed:
				t.Errorf("%s declares calls to %s, but no internal operation of %s names %s as its caller (nor is the edge public-only)", m.Name, callee, callee, m.Name)
			}
			for _, p := range paths {
				if !slices.Contains(public[callee], p) {
					t.Errorf("%s -> %s: %s is not a public operation of %s", m.Name, callee, p, callee)
				}
			}
		}
	}
	for edge := range publicOnlyEdges {
		if !declaresCalls(edge[0], edge[1]) {
			t.Errorf("public-only edge %s -> %s is not in the module list", edge[0], edge[1])
		}
	}
}

// TestUndeclaredInternalCallsAreRefused (issue 19, item 4): every internal
// operation of every service, called on the service's own address by every
// other service with its own valid assertion, is reached only by the
// services the operation declares as its callers (ops.CalledBy, within the
// modules that declare calls to that service: INTERNAL_CALLERS); any other
// caller gets the outsider's answer (NOT_FOUND, an unknown operation), and
// the refusal is counted with caller, callee, operation and reason: a module
// that does not call the service at all is undeclared_caller, one that calls
// it for other operations not_a_caller_of_operation (the reviews service
// cannot create the paid orders the payments service does). No assertion,
// or one a service signed for another callee, is refused the same way; the
// gateway reaches no internal operation even with a caller's assertion.
func TestUndeclaredInternalCallsAreRefused(t *testing.T) {
	s := st.Start(t)
	internal, _ := internalOps(t, s)
	call := func(op internalOp, base string, headers map[string]string) st.Result {
		b, _ := json.Marshal(map[string]any{"path": op.path, "args": map[string]any{}})
		h := map[string]string{"Content-Type": "application/json"}
		for k, v := range headers {
			h[k] = v
		}
		return s.DoAt(base, "POST", "/api/"+string(op.kind), bytes.NewReader(b), h)
	}
	unknownOperation := func(r st.Result) bool {
		var e struct {
			Error struct {
				Code    string         `json:"code"`
				Details map[string]any `json:"details"`
			} `json:"error"`
		}
		_ = json.Unmarshal(r.Body, &e)
		return r.Status == http.StatusNotFound && e.Error.Code == "NOT_FOUND" && e.Error.Details["reason"] == ops.ReasonUnknownOperation
	}

	reached, refused := 0, map[[4]string]bool{}
	for _, op := range internal {
		for _, caller := range modules.Names() {
			if caller == op.service {
				continue
			}
			r := call(op, s.Services[op.service], map[string]string{serviceauth.Header: s.Assertion(caller, op.service)})
			isCaller := slices.Contains(op.callers, caller)
			switch {
			case isCaller && unknownOperation(r):
				t.Errorf("%s is a caller of %s but was refused: %s", caller, op.path, r.Body)
			case isCaller:
				reached++ // its answer is the operation's own (arguments refused, or a result)
			case !unknownOperation(r):
				t.Errorf("%s is not a caller of %s (callers %v) but reached it: %d %s", caller, op.path, op.callers, r.Status, r.Body)
			default:
				reason := "undeclared_caller"
				if declaresCalls(caller, op.service) {
					reason = "not_a_caller_of_operation"
				}
				refused[[4]string{caller, op.service, op.path, reason}] = true
			}
		}
		if r := call(op, s.Services[op.service], nil); !unknownOperation(r) {
			t.Errorf("%s without an assertion: %d %s", op.path, r.Status, r.Body)
		}
		// A caller's assertion for another service is not one for this.
		for _, caller := range op.callers {
			const other = "gateway" // no service: an audience none is
			if r := call(op, s.Services[op.service], map[string]string{serviceauth.Header: s.Assertion(caller, other)}); !unknownOperation(r) {
				t.Errorf("%s with %s's assertion for %s: %d %s", op.path, caller, other, r.Status, r.Body)
			}
			// Through the gateway, even a valid one reaches nothing internal.
			if r := call(op, s.BaseURL, map[string]string{serviceauth.Header: s.Assertion(caller, op.service)}); r.Status != http.StatusNotFound {
				t.Errorf("%s through the gateway with %s's assertion: %d %s", op.path, caller, r.Status, r.Body)
			}
			break
		}
	}
	byReason := map[string]int{}
	for k := range refused {
		byReason[k[3]]++
	}
	if reached == 0 || byReason["undeclared_caller"] == 0 || byReason["not_a_caller_of_operation"] == 0 {
		t.Fatalf("reached %d, refused %v: the matrix tested nothing", reached, byReason)
	}
	// The reviewer's case: reviews calls customers (verified purchases), but
	// not to create paid orders.
	if !refused[[4]string{"reviews", "customers", "customers.cartToOrder.createOrderFromCart", "not_a_caller_of_operation"}] {
		t.Error("reviews was not refused customers.cartToOrder.createOrderFromCart")
	}
	// Each refusal counted once, by caller, callee, operation and reason.
	metrics := s.Metrics()
	for k := range refused {
		labels := map[string]string{"caller": k[0], "service": k[1], "operation": k[2], "reason": k[3]}
		if v := mustSample(t, metrics, refusedInternalCallsMetric, labels); v != 1 {
			t.Errorf("%v counted %v times", labels, v)
		}
	}
}
