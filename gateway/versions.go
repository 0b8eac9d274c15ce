package gateway

import (
	"slices"
	"strconv"
	"strings"

	"marketplace/libs/apperr"
	"marketplace/libs/ops"
	build "marketplace/libs/version"
)

// Contract versions. Every service declares in GET /ops the versions of the
// published contracts it implements (build.Contracts; one built before the
// declarations declares none and reads as version.Legacy). The gateway serves
// the majors of the public contract it was built with: within a major every
// change is compatible, so it can route any minor of it; a service of
// another major is a deployment the gateway cannot speak for (a renamed
// field, a removed argument), so its operations and raw routes stay in the
// table answering UNAVAILABLE with reason contract_version_unsupported,
// naming the versions, instead of being forwarded and failing later in the
// client. The refusal is logged once per service and declared version.

// refusedOp is a public operation the gateway does not route, and its answer.
type refusedOp struct {
	service string
	answer  *apperr.Error
}

// servedMajors are the majors of the public contract this gateway serves.
func servedMajors() []int {
	v, err := build.ParseSemver(build.BuiltContracts().Public)
	if err != nil {
		panic("gateway: the built public contract version is not MAJOR.MINOR.PATCH: " + err.Error()) // checked by libs/version's tests
	}
	return []int{v.Major}
}

// contractRefusal is the answer to every call of svc's public operations when
// svc declares a public contract this gateway does not serve; nil when it
// serves it.
func (g *Gateway) contractRefusal(svc string, declared build.Contracts) *apperr.Error {
	v, err := build.ParseSemver(declared.Public)
	if err == nil && slices.Contains(g.serves, v.Major) {
		return nil
	}
	serves := g.servesText()
	details := map[string]any{"reason": ops.ReasonContractVersionUnsupported, "service": svc,
		"contract": "public", "declared": declared.Public, "serves": serves}
	if err != nil {
		return apperr.New(apperr.Unavailable, "the %s service declares public contract version %q, which is not MAJOR.MINOR.PATCH; this gateway serves public contract %s",
			svc, declared.Public, serves).WithDetails(details)
	}
	return apperr.New(apperr.Unavailable, "the %s service implements public contract %s; this gateway serves public contract %s, so it does not route the service's operations",
		svc, declared.Public, serves).WithDetails(details)
}

// servesText names the served majors: "1.x", "1.x or 2.x".
func (g *Gateway) servesText() string {
	parts := make([]string, len(g.serves))
	for i, m := range g.serves {
		parts[i] = strconv.Itoa(m) + ".x"
	}
	return strings.Join(parts, " or ")
}

// logRefusal logs, once per service and declared version, that the service's
// operations and routes are refused.
func (g *Gateway) logRefusal(svc string, declared build.Contracts, answer *apperr.Error, operations, routes int) {
	if _, seen := g.refusalsLogged.LoadOrStore(svc+" "+declared.Public, true); seen {
		return
	}
	g.logger.Error("service refused: contract version not served", "service", svc, "reason", ops.ReasonContractVersionUnsupported,
		"declared", declared.Public, "serves", g.servesText(), "operations", operations, "routes", routes,
		"answer", answer.Message)
}

// refusal is the answer to a call of a public operation the gateway does not
// route for its contract version; nil for any other path.
func (g *Gateway) refusal(path string) *apperr.Error {
	if r, ok := (*g.refused.Load())[path]; ok {
		answer := *r.answer // each request its own error; the details are only read
		return &answer
	}
	return nil
}
