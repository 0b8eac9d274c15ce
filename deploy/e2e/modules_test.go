package e2e

import (
	"marketplace/deploy/modules"
	"marketplace/libs/service"
)

// withoutModule is every module but the named one.
func withoutModule(name string) []service.Module {
	var out []service.Module
	for _, m := range modules.All {
		if m.Name != name {
			out = append(out, m)
		}
	}
	return out
}
