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

// TestUndeclaredInternalCallsAreRefused (issue 19, item 4): every internal
// operation of every service, called on the service's own address by every
// other service with its own valid assertion, is reached only by the modules
// that declare calls to that service (service.Module.Calls); any other
// caller gets the outsider's answer (NOT_FOUND, an unknown operation), and
// the refusal is counted with caller, callee and operation. No assertion, or
// one a service signed for another callee, is refused the same way; the
// gateway reaches no internal operation even with a declared caller's
// assertion.
func TestUndeclaredInternalCallsAreRefused(t *testing.T) {
	s := st.Start(t)
	type internalOp struct {
		service, path string
		kind          ops.Kind
	}
	var internal []internalOp
	for _, callee := range modules.Names() {
		var d struct {
			Operations []ops.Descriptor `json:"operations"`
		}
		st.MustOK(t, s.DoAt(s.Services[callee], "GET", "/ops", nil, nil)).Decode(t, &d)
		for _, op := range d.Operations {
			if op.Access == ops.Internal {
				internal = append(internal, internalOp{callee, op.Path, op.Kind})
			}
		}
	}
	if len(internal) < 10 {
		t.Fatalf("only %d internal operations found: %+v", len(internal), internal)
	}
	declares := func(caller, callee string) bool {
		for _, m := range modules.All {
			if m.Name == caller {
				return slices.Contains(m.Calls, callee)
			}
		}
		return false
	}
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

	reached, refused := 0, map[[3]string]bool{}
	for _, op := range internal {
		for _, caller := range modules.Names() {
			if caller == op.service {
				continue
			}
			r := call(op, s.Services[op.service], map[string]string{serviceauth.Header: s.Assertion(caller, op.service)})
			switch {
			case declares(caller, op.service) && unknownOperation(r):
				t.Errorf("%s declares calls to %s but was refused %s: %s", caller, op.service, op.path, r.Body)
			case declares(caller, op.service):
				reached++ // its answer is the operation's own (arguments refused, or a result)
			case !unknownOperation(r):
				t.Errorf("%s does not declare calls to %s but reached %s: %d %s", caller, op.service, op.path, r.Status, r.Body)
			default:
				refused[[3]string{caller, op.service, op.path}] = true
			}
		}
		if r := call(op, s.Services[op.service], nil); !unknownOperation(r) {
			t.Errorf("%s without an assertion: %d %s", op.path, r.Status, r.Body)
		}
		// A declared caller's assertion for another service is not one for this.
		for _, caller := range modules.Callers(modules.All, op.service) {
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
	if reached == 0 || len(refused) == 0 {
		t.Fatalf("reached %d, refused %d: the matrix tested nothing", reached, len(refused))
	}
	// Each refusal of an undeclared caller counted once, by caller, callee
	// and operation.
	metrics := s.Metrics()
	for k := range refused {
		labels := map[string]string{"caller": k[0], "service": k[1], "operation": k[2], "reason": "undeclared_caller"}
		if v := mustSample(t, metrics, refusedInternalCallsMetric, labels); v != 1 {
			t.Errorf("%v counted %v times", labels, v)
		}
	}
}
