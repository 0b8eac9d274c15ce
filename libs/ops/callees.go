package ops

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/valyala/fasthttp"

	"marketplace/libs/apperr"
	"marketplace/libs/version"
)

// What a Client knows of the services it calls, so that a caller and a callee
// of different releases of one contract major work together
// (docs/adr/0088-releases-of-a-major-interoperate.md):
//
//   - A callee keeps refusing arguments it does not know (strict decoding
//     catches real bugs, and the refusal comes before the operation runs).
//   - A caller learns what its callee accepts from the callee's GET /ops
//     (the argument names of each operation, the contract versions) the
//     first time the callee refuses one of its arguments as unknown, and
//     from then on keeps them, refreshed every calleeTTL in the background
//     by the calls themselves. It leaves out an optional argument the callee
//     does not declare; a required one is not sent at all: the call fails
//     UNAVAILABLE (contract_version_unsupported) naming the callee's internal
//     contract version. Callers and callees of one release never refuse
//     each other, so they never exchange more than before.
//   - A call refused for an unknown argument (the first of an older callee,
//     or a rolling deploy behind one name: the declarations came from a
//     newer instance than the one that answered) refreshes the declarations
//     and, when the argument is optional, is sent once more without it:
//     safe, the refusal came before the operation ran.
//
// Only top-level arguments are judged. Whether an argument is optional is
// the caller's own declaration of it: a field of its argument struct that is
// not `op:"required"` and is a pointer, slice or map or omitempty; every key
// of a map is taken as required (nothing says otherwise).

const (
	// calleeTTL is how long a callee's declarations are used before a call
	// refreshes them (in the background; the old ones serve meanwhile).
	calleeTTL = 30 * time.Second
	// calleeRetryAfter spaces the attempts after a failed fetch, and the
	// refreshes a refused argument forces.
	calleeRetryAfter   = 5 * time.Second
	calleeForcedEvery  = time.Second
	calleeFetchTimeout = 3 * time.Second
)

// calleeDecl is what a callee declared.
type calleeDecl struct {
	contracts version.Contracts
	args      map[string]map[string]bool // operation path -> its argument names
}

// callee is one service's declarations, as last fetched.
type callee struct {
	mu       sync.Mutex
	decl     *calleeDecl
	fetched  time.Time // when decl was fetched
	tried    time.Time // the last fetch's start, successful or not
	fetching bool
}

// callees are the declarations of the services a Client calls.
type callees struct {
	hc  *fasthttp.Client // its own: a fetch never waits for a call's connection
	mu  sync.Mutex
	all map[string]*callee
	now func() time.Time
}

func newCallees() *callees {
	hc := &fasthttp.Client{MaxConnsPerHost: 4, ReadTimeout: calleeFetchTimeout, WriteTimeout: calleeFetchTimeout, MaxIdleConnDuration: calleeTTL}
	return &callees{hc: hc, all: map[string]*callee{}, now: time.Now}
}

func (cs *callees) of(service string) *callee {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	ce, ok := cs.all[service]
	if !ok {
		ce = &callee{}
		cs.all[service] = ce
	}
	return ce
}

// known is what service declared, nil for a service that never refused an
// argument (or whose declarations could not be read yet); a fetch is started
// in the background when they are due.
func (cs *callees) known(service, base string) *calleeDecl {
	if cs == nil {
		return nil
	}
	cs.mu.Lock()
	ce := cs.all[service]
	cs.mu.Unlock()
	if ce == nil {
		return nil
	}
	now := cs.now()
	ce.mu.Lock()
	d := ce.decl
	due := !ce.fetching && now.Sub(ce.tried) >= calleeRetryAfter && (d == nil || now.Sub(ce.fetched) >= calleeTTL)
	if due {
		ce.fetching, ce.tried = true, now
	}
	ce.mu.Unlock()
	if due {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), calleeFetchTimeout)
			defer cancel()
			cs.store(ce, cs.fetch(ctx, base))
		}()
	}
	return d
}

// refresh fetches service's declarations now (unless fetched in the last
// calleeForcedEvery) and returns them, or the previous ones when the fetch
// fails.
func (cs *callees) refresh(ctx context.Context, service, base string) *calleeDecl {
	if cs == nil {
		return nil
	}
	ce := cs.of(service)
	now := cs.now()
	ce.mu.Lock()
	if ce.decl != nil && now.Sub(ce.fetched) < calleeForcedEvery {
		d := ce.decl
		ce.mu.Unlock()
		return d
	}
	ce.fetching, ce.tried = true, now
	ce.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, calleeFetchTimeout)
	defer cancel()
	return cs.store(ce, cs.fetch(ctx, base))
}

func (cs *callees) store(ce *callee, d *calleeDecl) *calleeDecl {
	ce.mu.Lock()
	defer ce.mu.Unlock()
	ce.fetching = false
	if d != nil {
		ce.decl, ce.fetched = d, cs.now()
	}
	return ce.decl
}

// fetch reads GET /ops of the service at base; nil when it does not answer
// with declarations.
func (cs *callees) fetch(ctx context.Context, base string) *calleeDecl {
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.SetRequestURI(base + "/ops")
	deadline := time.Now().Add(calleeFetchTimeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	if err := cs.hc.DoDeadline(req, resp, deadline); err != nil || resp.StatusCode() != fasthttp.StatusOK {
		return nil
	}
	var body struct {
		Contracts  version.Contracts `json:"contracts"`
		Operations []struct {
			Path string `json:"path"`
			Args []struct {
				Name string `json:"name"`
			} `json:"args"`
		} `json:"operations"`
	}
	if json.Unmarshal(resp.Body(), &body) != nil || body.Operations == nil {
		return nil
	}
	d := &calleeDecl{contracts: body.Contracts.OrLegacy(), args: make(map[string]map[string]bool, len(body.Operations))}
	for _, o := range body.Operations {
		names := make(map[string]bool, len(o.Args))
		for _, a := range o.Args {
			names[a.Name] = true
		}
		d.args[o.Path] = names
	}
	return d
}

// argName is one top-level argument a caller sends.
type argName struct {
	name     string
	required bool
}

var structArgNames sync.Map // reflect.Type -> []argName

// argNamesOf lists the top-level arguments args may hold, as the caller
// declares them (see above); nil for a value whose arguments cannot be told
// (nil, raw JSON).
func argNamesOf(args any) []argName {
	v := reflect.ValueOf(args)
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	switch v.Kind() {
	case reflect.Map:
		if v.Type().Key().Kind() != reflect.String {
			return nil
		}
		out := make([]argName, 0, v.Len())
		for it := v.MapRange(); it.Next(); {
			out = append(out, argName{it.Key().String(), true})
		}
		return out
	case reflect.Struct:
		if names, ok := structArgNames.Load(v.Type()); ok {
			return names.([]argName)
		}
		names := structFields(v.Type(), nil)
		structArgNames.Store(v.Type(), names)
		return names
	}
	return nil
}

func structFields(t reflect.Type, out []argName) []argName {
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" && opts == "" {
			continue
		}
		if sf.Anonymous && name == "" {
			ft := sf.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				out = structFields(ft, out) // encoding/json promotes its fields
				continue
			}
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		rules := strings.Split(sf.Tag.Get("op"), ",")
		optional := !slices.Contains(rules, "required")
		switch sf.Type.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
		default:
			optional = optional && (strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero"))
		}
		out = append(out, argName{name, !optional})
	}
	return out
}

type omitKey struct{}

// encodeArgs is the arguments object of a call of path on service (at base):
// args as JSON, with what a build with the nextversion tag adds
// (nextversion.go), less the arguments the callee does not declare.
func (c *Client) encodeArgs(ctx context.Context, service, base, path string, args any) ([]byte, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	raw = withNextArg(raw)
	omit, _ := ctx.Value(omitKey{}).(string) // the argument a retry leaves out
	d := c.callees.known(service, base)
	var declared map[string]bool
	if d != nil {
		declared = d.args[path] // nil: an operation the callee does not have; it answers so
	}
	if declared == nil && omit == "" {
		return raw, nil
	}
	var drop []argName
	for _, a := range callArgs(args) {
		if a.name == omit || (declared != nil && !declared[a.name]) {
			drop = append(drop, a)
		}
	}
	if len(drop) == 0 {
		return raw, nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return raw, nil
	}
	for _, a := range drop {
		if _, present := m[a.name]; !present {
			continue
		}
		if a.required && a.name != omit {
			// Declarations may be up to calleeTTL old: ask again before refusing.
			if d = c.callees.refresh(ctx, service, base); d != nil && d.args[path] != nil && !d.args[path][a.name] {
				return nil, versionRefusal(service, path, a.name, d.contracts.Internal)
			}
			continue
		}
		delete(m, a.name)
	}
	return json.Marshal(m)
}

// callArgs are the top-level arguments a call may send: those of args, and
// the optional one a nextversion build adds to every call.
func callArgs(args any) []argName {
	names := argNamesOf(args)
	if nextArg != "" {
		names = append(slices.Clip(names), argName{name: nextArg})
	}
	return names
}

// afterUnknownArgument decides what follows a callee's refusal of an
// argument it does not know: retry (once, without it) when the argument is
// optional, and otherwise a refusal naming the callee's version, never the
// callee's answer itself: a handler returns its calls' errors as its own
// answer, and its caller would take an unknown-argument refusal for one of
// its own call's arguments, refused before the operation ran, and send again
// an operation that did run (a mutation). Nothing for any other answer.
func (c *Client) afterUnknownArgument(ctx context.Context, service, base, path string, args any, e *apperr.Error) (retry context.Context, err error) {
	name, ok := unknownArgument(e)
	if !ok {
		return nil, nil
	}
	d := c.callees.refresh(ctx, service, base) // at most once a second
	v := version.Legacy.Internal
	if d != nil {
		v = d.contracts.Internal
	}
	if ctx.Value(omitKey{}) == nil {
		for _, a := range callArgs(args) {
			if a.name != name {
				continue
			}
			if !a.required {
				return context.WithValue(ctx, omitKey{}, name), nil
			}
			return nil, versionRefusal(service, path, name, v)
		}
	}
	// Refused again after the retry (a rolling deploy), or an argument this
	// call does not declare (raw arguments).
	return nil, apperr.New(apperr.Unavailable,
		"%s (internal contract %s) refused the argument %s of %s as unknown: it needs a newer %s",
		service, v, name, path, service).WithDetails(map[string]any{
		"reason": ReasonContractVersionUnsupported, "service": service, "operation": path, "argument": name,
		"contract": "internal", "declared": v,
	})
}

// unknownArgument is the top-level argument a callee's answer refuses as
// unknown (decode.go's message, which every release answers).
func unknownArgument(e *apperr.Error) (string, bool) {
	field, _ := e.Details["field"].(string)
	msg, ok := strings.CutPrefix(e.Message, field+": "+msgUnknownArgument)
	if e.Code != apperr.InvalidArgument || field == "" || strings.ContainsAny(field, ".[") || !ok ||
		msg != "" && !(strings.HasPrefix(msg, "; did you mean ") && strings.HasSuffix(msg, "?")) {
		return "", false
	}
	return field, true
}

func versionRefusal(service, path, arg, calleeVersion string) *apperr.Error {
	return apperr.New(apperr.Unavailable,
		"%s implements internal contract %s, which does not know the argument %s of %s that this call requires: it needs a newer %s",
		service, calleeVersion, arg, path, service).WithDetails(map[string]any{
		"reason": ReasonContractVersionUnsupported, "service": service, "operation": path, "argument": arg,
		"contract": "internal", "declared": calleeVersion,
	})
}
