package gateway

// knownOperation tells the request metrics and span names which operation
// names are real: a public operation of the routing table, or a raw route a
// service declared ("METHOD /pattern"). A name a client sent that routes
// nowhere is not one (it would make every made-up name a metric label).
func (g *Gateway) knownOperation(op string) bool {
	if _, ok := (*g.routes.Load())[op]; ok {
		return true
	}
	for _, r := range *g.raw.Load() {
		if r.desc.Method+" "+r.desc.Path == op {
			return true
		}
	}
	return false
}
