package ops

import (
	"fmt"
	"slices"
)

// CalledBy names the services that may call an internal operation: the
// callee's Server refuses a verified call of any other service as it refuses
// an outsider (NOT_FOUND, an unknown operation; logged and counted with
// RefusedNotACallerOfOperation). Every internal operation declares its
// callers (Registry.Check); CalledBy() with no name declares that no service
// calls it. The callers are published in GET /ops (Descriptor.Callers) and in
// the internal contract. The module list is the source of the edges
// (service.Module.Calls): each caller named here declares calls to the
// callee's module, and a test holds the two together.
func CalledBy(services ...string) Option {
	list := slices.Clone(services)
	for _, s := range list {
		if s == "" {
			panic("ops: CalledBy with an empty service name")
		}
	}
	slices.Sort(list)
	list = slices.Compact(list)
	return func(op *Op) {
		op.callers, op.callersDeclared = list, true
	}
}

// checkCallers panics on CalledBy given to an operation that is not internal:
// every service may call a public operation, so the names would mean nothing.
func (op *Op) checkCallers() {
	if op.callersDeclared && op.Access != Internal {
		panic(fmt.Sprintf("ops: %s is %s: CalledBy is only for internal operations", op.Path, op.Access))
	}
}

// mayCall reports whether service may call op, once its call proved it is a
// service the callee accepts (INTERNAL_CALLERS): any service for an
// operation that is not internal, the declared callers for an internal one
// (none when it declares none).
func (op *Op) mayCall(service string) bool {
	return op.Access != Internal || slices.Contains(op.callers, service)
}

// CallersOf are the services that may call the internal operation at path
// (CalledBy), sorted; ok is false for an unknown path or one that is not
// internal.
func (r *Registry) CallersOf(path string) (callers []string, ok bool) {
	op, found := r.ops[path]
	if !found || op.Access != Internal {
		return nil, false
	}
	return slices.Clone(op.callers), true
}
