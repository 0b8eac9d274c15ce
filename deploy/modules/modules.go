// Package modules is the one list of the platform's bounded contexts. Each is
// declared once, in its own package, with its name, its build function, the
// topics it publishes and consumes and the modules it calls
// (service.Module); this list is where they all meet. The all-in-one's start
// order, the embedded broker's topics, the gateway's default service list and
// the API reference come from it, and a test holds docker-compose.yml and k8s/
// to it. Adding a service touches this list, the service's own folder and the
// deploy files, nothing else.
package modules

import (
	"fmt"
	"slices"

	"marketplace/libs/service"
	"marketplace/services/addresses"
	"marketplace/services/catalog"
	"marketplace/services/customers"
	"marketplace/services/media"
	"marketplace/services/notifications"
	"marketplace/services/payments"
	"marketplace/services/payouts"
	"marketplace/services/platformconfig"
	"marketplace/services/reviews"
)

// All are the platform's modules.
var All = []service.Module{
	catalog.Module,
	platformconfig.Module,
	customers.Module,
	addresses.Module,
	payments.Module,
	notifications.Module,
	media.Module,
	payouts.Module,
	reviews.Module,
}

// Names are the modules' names, in start order.
func Names() []string {
	order, _ := StartOrder(All)
	out := make([]string, len(order))
	for i, m := range order {
		out[i] = m.Name
	}
	return out
}

// Topics are every topic a module publishes or consumes, sorted.
func Topics(ms []service.Module) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Publishes...)
		out = append(out, m.Consumes...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Callers are the modules of ms that declare calls to the module named name,
// sorted: the services whose calls it accepts on its internal operations
// (INTERNAL_CALLERS).
func Callers(ms []service.Module, name string) []string {
	var out []string
	for _, m := range ms {
		if slices.Contains(m.Calls, name) {
			out = append(out, m.Name)
		}
	}
	slices.Sort(out)
	return out
}

// StartOrder sorts ms so that every module starts after the modules it calls
// (those in ms), keeping the list's order otherwise. A call to a module that is
// not declared, or a cycle of calls, is an error.
func StartOrder(ms []service.Module) ([]service.Module, error) {
	byName := map[string]service.Module{}
	for _, m := range All {
		byName[m.Name] = m
	}
	in := map[string]bool{}
	for _, m := range ms {
		in[m.Name] = true
	}
	const (
		visiting = 1
		done     = 2
	)
	state := map[string]int{}
	var out []service.Module
	var visit func(m service.Module) error
	visit = func(m service.Module) error {
		switch state[m.Name] {
		case done:
			return nil
		case visiting:
			return fmt.Errorf("modules: %s is part of a cycle of calls", m.Name)
		}
		state[m.Name] = visiting
		for _, c := range m.Calls {
			dep, ok := byName[c]
			if !ok {
				return fmt.Errorf("modules: %s calls %s, which is not a module", m.Name, c)
			}
			if !in[c] {
				continue // not run here (a partial system in a test)
			}
			if err := visit(dep); err != nil {
				return err
			}
		}
		state[m.Name] = done
		out = append(out, m)
		return nil
	}
	for _, m := range ms {
		if err := visit(m); err != nil {
			return nil, err
		}
	}
	return out, nil
}
