// Package ops is the operation registry. Each service declares its operations once
// (dotted path, query or mutation, who may call it, the argument struct, the
// handler); the same declarations serve the service's HTTP endpoints, the
// gateway's routing table (fetched from GET /ops) and the API reference.
package ops

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"marketplace/libs/apperr"
	"marketplace/libs/auth"
)

// Kind is query (read) or mutation (write).
type Kind string

const (
	Query    Kind = "query"
	Mutation Kind = "mutation"
)

// Access says who may call an operation. The registry enforces every level
// (access.go): the handler of a Customer operation receives the caller's
// profile (CustomerOf), that of a store operation the store, its owner checked
// (StoreOf).
type Access string

const (
	Public            Access = "public"               // no token needed; a presented token is still verified
	Authenticated     Access = "authenticated"        // any verified caller
	Customer          Access = "customer"             // a verified caller acting as their customer profile
	StoreOwner        Access = "store_owner"          // the owner of the store an argument names
	StoreOwnerOrAdmin Access = "store_owner_or_admin" // the store's owner, or an administrator
	Admin             Access = "admin"                // the admin role; adminUserId, when an argument, must be the caller
	Internal          Access = "internal"             // only other services; unknown to the public gateway
)

// NeedsIdentity reports whether the operation refuses anonymous callers.
func (a Access) NeedsIdentity() bool { return a != Public && a != Internal }

// Op is one declared operation.
type Op struct {
	Path    string
	Kind    Kind
	Access  Access
	Summary string

	argsType    reflect.Type
	resultType  reflect.Type  // what the handler returns (or what Returns declares)
	errors      []apperr.Code // codes declared with Errors, beside those of the access level
	adminField  []int         // index of the adminUserId argument, or nil
	storeArg    string
	storeField  []int // index of the storeArg argument
	storeLookup func(ctx context.Context, value string) (string, error)
	run         func(ctx context.Context, raw []byte, res *Resolvers) (any, error)
	// callers are the services that may call an internal operation
	// (CalledBy, callers.go); callersDeclared tells CalledBy() from none.
	callers         []string
	callersDeclared bool
	// deprecated says why the operation is deprecated and what replaces it
	// (Deprecated); "" for a current one.
	deprecated string
}

// NoArgs is the argument struct of operations that take none.
type NoArgs struct{}

func declare[A, R any](kind Kind, path string, access Access, summary string, h func(context.Context, *A) (R, error), opts []Option) Op {
	t := reflect.TypeOf((*A)(nil)).Elem()
	if t.Kind() != reflect.Struct {
		panic("ops: arguments of " + path + " must be a struct")
	}
	spec := specOf(t) // validates the declaration now, not on the first call
	rt := reflect.TypeOf((*R)(nil)).Elem()
	op := Op{Path: path, Kind: kind, Access: access, Summary: summary, argsType: t, resultType: rt}
	if f, ok := spec.byName["adminUserId"]; ok {
		op.adminField = f.index
	}
	for _, o := range opts {
		o(&op)
	}
	op.checkCallers()
	if rt.Kind() != reflect.Interface && op.resultType != rt {
		panic("ops: " + path + " returns " + rt.String() + ": Returns is only for handlers that return an interface")
	}
	if isStoreAccess(access) {
		f, ok := spec.byName[op.storeArg]
		if !ok || !f.rules.required || derefKind(t.FieldByIndex(f.index).Type) != reflect.String {
			panic("ops: " + path + " is a store operation: name its required store argument with StoreArg or StoreVia")
		}
		op.storeField = f.index
	}
	op.run = func(ctx context.Context, raw []byte, res *Resolvers) (any, error) {
		a := new(A)
		if err := acceptNextArg(access, &raw); err != nil {
			return nil, err
		}
		if err := Decode(raw, a); err != nil {
			return nil, err
		}
		if access == Admin && op.adminField != nil {
			acting := reflect.ValueOf(a).Elem().FieldByIndex(op.adminField).String()
			if id := auth.FromContext(ctx); id == nil || acting != id.Sub {
				return nil, apperr.New(apperr.PermissionDenied, "adminUserId must be the calling administrator")
			}
		}
		ctx, err := op.resolveAccess(ctx, res, reflect.ValueOf(a).Elem())
		if err != nil {
			return nil, err
		}
		return h(ctx, a)
	}
	return op
}

func isStoreAccess(a Access) bool { return a == StoreOwner || a == StoreOwnerOrAdmin }

func derefKind(t reflect.Type) reflect.Kind {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind()
}

// NewQuery declares a read operation.
func NewQuery[A, R any](path string, access Access, summary string, h func(context.Context, *A) (R, error), opts ...Option) Op {
	return declare(Query, path, access, summary, h, opts)
}

// NewMutation declares a write operation.
func NewMutation[A, R any](path string, access Access, summary string, h func(context.Context, *A) (R, error), opts ...Option) Op {
	return declare(Mutation, path, access, summary, h, opts)
}

// Registry holds one service's operations.
type Registry struct {
	Service     string
	ops         map[string]*Op
	resolvers   Resolvers
	unreachable func(error) bool // WithUnreachable; nil: none
}

// WithResolvers says how this service resolves customers and stores for the
// access levels that need them.
func (r *Registry) WithResolvers(res Resolvers) *Registry {
	r.resolvers = res
	return r
}

// WithUnreachable says how this service tells an error of a database that did
// not answer (libs/service passes store.IsUnreachable): an operation failing
// with one answers UNAVAILABLE, so that its caller waits and tries again.
// Without it (a Registry used outside service.Run) no error is taken for one:
// every untyped error answers INTERNAL.
func (r *Registry) WithUnreachable(f func(error) bool) *Registry {
	r.unreachable = f
	return r
}

// Check reports a declaration the registry cannot serve: an access level whose
// resolver is missing, an internal operation that does not declare its
// callers (CalledBy). Services run it when they start.
func (r *Registry) Check() error {
	for _, op := range r.ops {
		switch {
		case op.Access == Customer && r.resolvers.Customer == nil:
			return fmt.Errorf("ops: %s needs a customer resolver (Registry.WithResolvers)", op.Path)
		case isStoreAccess(op.Access) && r.resolvers.Store == nil:
			return fmt.Errorf("ops: %s needs a store resolver (Registry.WithResolvers)", op.Path)
		case op.Access == Internal && !op.callersDeclared:
			return fmt.Errorf("ops: %s is internal: name the services that call it with ops.CalledBy (CalledBy() if none does)", op.Path)
		}
	}
	return nil
}

// NewRegistry builds the registry; a path declared twice is a programming error.
func NewRegistry(service string, list ...Op) *Registry {
	r := &Registry{Service: service, ops: make(map[string]*Op, len(list))}
	for i := range list {
		op := list[i]
		if strings.Count(op.Path, ".") < 2 {
			panic("ops: path " + op.Path + " must be <area>.<module>.<function>")
		}
		if _, dup := r.ops[op.Path]; dup {
			panic("ops: " + op.Path + " declared twice")
		}
		r.ops[op.Path] = &op
	}
	return r
}

// NormalizePath accepts the dotted form and the "area/module:function" form some
// client libraries send, and returns the dotted form.
func NormalizePath(p string) string {
	if strings.ContainsAny(p, "/:") {
		p = strings.NewReplacer("/", ".", ":", ".").Replace(p)
	}
	return p
}

// Invoke runs the operation at path for the caller in ctx (auth.FromContext).
// internal is true only for calls that proved they come from another service.
func (r *Registry) Invoke(ctx context.Context, kind Kind, path string, raw []byte, internal bool) (any, error) {
	op, ok := r.ops[path]
	if !ok || (op.Access == Internal && !internal) {
		return nil, apperr.New(apperr.NotFound, "unknown operation %q", path).WithDetails(map[string]any{"reason": ReasonUnknownOperation})
	}
	if err := CheckCall(ctx, op.Kind, op.Access, kind, path); err != nil {
		return nil, err
	}
	res, err := op.run(ctx, raw, &r.resolvers)
	if err != nil && apperr.CodeOf(err) == apperr.Internal && r.unreachable != nil && r.unreachable(err) {
		// The database did not answer: not a bug, and it goes away by itself.
		// A caller (another service's consumer) waits and tries again rather
		// than give up on an INTERNAL answer.
		return nil, apperr.Wrap(err, apperr.Unavailable, "the database is unavailable; try again")
	}
	return res, err
}

// ReasonUnknownOperation marks the NOT_FOUND of an operation that does not exist
// (as opposed to a record that does not exist).
const ReasonUnknownOperation = "unknown_operation"

// ReasonContractVersionUnsupported marks an UNAVAILABLE answered because two
// programs implement contract versions that cannot work together: a gateway
// that does not serve a service's public major, a caller whose required
// argument the callee's version does not know.
const ReasonContractVersionUnsupported = "contract_version_unsupported"

// CheckCall applies the kind and access rules shared by the gateway and services.
func CheckCall(ctx context.Context, opKind Kind, access Access, called Kind, path string) error {
	if opKind != called {
		return apperr.New(apperr.InvalidArgument, "%s is a %s: call it through /api/%s", path, opKind, opKind)
	}
	if !access.NeedsIdentity() {
		return nil
	}
	id := auth.FromContext(ctx)
	if id == nil {
		return apperr.New(apperr.Unauthenticated, "%s needs a bearer token", path)
	}
	if access == Admin && !id.IsAdmin() {
		return apperr.New(apperr.PermissionDenied, "%s is for administrators", path)
	}
	return nil
}

// Descriptor is the public description of an operation.
type Descriptor struct {
	Path     string   `json:"path"`
	Kind     Kind     `json:"kind"`
	Access   Access   `json:"access"`
	StoreArg string   `json:"storeArg,omitempty"` // the argument naming the store, for store access
	Summary  string   `json:"summary,omitempty"`
	Args     []ArgDoc `json:"args,omitempty"`
	// ArgsSchema and Returns are the JSON Schemas of the arguments object and
	// of the return value (schema.go); Errors are the codes the operation can
	// answer (ErrorsOf).
	ArgsSchema *Schema       `json:"argsSchema,omitempty"`
	Returns    *Schema       `json:"returns,omitempty"`
	Errors     []apperr.Code `json:"errors,omitempty"`
	// Callers are the services that may call an internal operation
	// (CalledBy), sorted; absent on an internal one no service may call.
	Callers []string `json:"callers,omitempty"`
	// Deprecated, when set, says that the operation is published beside its
	// replacement for a deprecation window, what replaces it and until when
	// (Deprecated): the API reference marks it deprecated.
	Deprecated string `json:"deprecated,omitempty"`
}

// ArgDoc describes one argument for the API reference and for clients that
// build calls from the declarations (the access matrix test). Fields are the
// members of an object argument (or of an array's objects).
type ArgDoc struct {
	Name     string   `json:"name"`
	Type     string   `json:"type"`
	Required bool     `json:"required"`
	Rules    string   `json:"rules,omitempty"`
	Fields   []ArgDoc `json:"fields,omitempty"`
}

func argDoc(f field, sf reflect.StructField) ArgDoc {
	d := ArgDoc{Name: f.name, Type: typeName(sf.Type), Required: f.rules.required, Rules: sf.Tag.Get("op")}
	t := sf.Type
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() == reflect.Struct {
		for _, nf := range specOf(t).fields {
			d.Fields = append(d.Fields, argDoc(nf, t.FieldByIndex(nf.index)))
		}
	}
	return d
}

// Describe lists the operations sorted by path.
func (r *Registry) Describe() []Descriptor {
	out := make([]Descriptor, 0, len(r.ops))
	for _, op := range r.ops {
		d := Descriptor{Path: op.Path, Kind: op.Kind, Access: op.Access, StoreArg: op.storeArg, Summary: op.Summary,
			ArgsSchema: ArgsSchemaOf(op.argsType), Returns: ResultSchemaOf(op.resultType), Errors: ErrorsOf(op.Kind, op.Access, op.errors),
			Callers: slices.Clone(op.callers), Deprecated: op.deprecated}
		t := op.argsType
		for _, f := range specOf(t).fields {
			sf := t.FieldByIndex(f.index)
			d.Args = append(d.Args, argDoc(f, sf))
		}
		declareNext(&d)
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

func typeName(t reflect.Type) string {
	switch {
	case t == filsType:
		return "number (AED)"
	case t.Kind() == reflect.Pointer:
		return typeName(t.Elem())
	case t.Kind() == reflect.Slice:
		return "array of " + typeName(t.Elem())
	case t.Kind() == reflect.Struct:
		var parts []string
		for _, f := range specOf(t).fields {
			opt := "?"
			if f.rules.required {
				opt = ""
			}
			parts = append(parts, fmt.Sprintf("%s%s: %s", f.name, opt, typeName(t.FieldByIndex(f.index).Type)))
		}
		return "{ " + strings.Join(parts, ", ") + " }"
	case t.Kind() == reflect.Float64, t.Kind() == reflect.Int, t.Kind() == reflect.Int64:
		return "number"
	case t.Kind() == reflect.Bool:
		return "boolean"
	}
	return "string"
}

// Caller is the verified caller; handlers of operations that need identity can rely on it.
func Caller(ctx context.Context) *auth.Identity { return auth.FromContext(ctx) }

// ActingName is the name (the token's name claim) of the caller in ctx when
// the caller is userID, the person an operation records as having acted;
// "" otherwise (another caller, an unnamed token, a call without one). It
// is recorded beside the id, for people to read, never for access.
func ActingName(ctx context.Context, userID string) string {
	if id := auth.FromContext(ctx); id != nil && id.Sub == userID {
		return id.Name
	}
	return ""
}
