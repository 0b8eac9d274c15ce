package ops

import (
	"context"
	"errors"
	"slices"

	"github.com/gofiber/fiber/v2"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"marketplace/libs/serviceauth"
)

// Why a call that carried a service assertion did not reach an internal
// operation (the reason of the log line and of the metric), beside the
// serviceauth.Reason* of an assertion that did not verify.
const (
	// RefusedUndeclaredCaller: the assertion verified, but its service is not
	// among the callee's declared callers (INTERNAL_CALLERS).
	RefusedUndeclaredCaller = "undeclared_caller"
	// RefusedNotACallerOfOperation: the assertion verified and its service
	// is a declared caller of the callee, but not of this operation
	// (CalledBy).
	RefusedNotACallerOfOperation = "not_a_caller_of_operation"
	// RefusedNoKeys: the callee has no public keys, so it verifies no
	// assertion (a service started without its settings).
	RefusedNoKeys = "no_keys"
)

// refusedCallsMetric counts internal operations refused to a request that
// carried a service assertion, labelled service (the callee), caller (the
// verified service, or "unverified"), operation (one of the callee's internal
// operations) and reason:
// marketplace_internal_calls_refused_total in Prometheus.
const refusedCallsMetric = "marketplace.internal_calls.refused"

// unverifiedCaller labels a refusal whose assertion did not verify: the name
// it claims is the sender's word, and would let anyone make up series.
const unverifiedCaller = "unverified"

// AccessOf is the access level of the operation at path; ok is false for an
// unknown path.
func (r *Registry) AccessOf(path string) (access Access, ok bool) {
	op, ok := r.ops[path]
	if !ok {
		return "", false
	}
	return op.Access, true
}

// peerRefusals counts refused internal calls (refusedCallsMetric).
type peerRefusals struct {
	counter metric.Int64Counter
}

func newPeerRefusals() *peerRefusals {
	c, err := otel.GetMeterProvider().Meter(tracerName).Int64Counter(refusedCallsMetric,
		metric.WithDescription("Internal operations refused to a request that carried a service assertion, by callee, caller and reason."))
	if err != nil {
		otel.Handle(err)
	}
	return &peerRefusals{counter: c}
}

// internalCall reports whether the request is a call of another service that
// may reach the operation at path: one with a service assertion that
// verifies and names a declared caller of the callee (Server.Callers) and,
// when path is an internal operation, one of that operation's callers
// (CalledBy). Any other call is an outsider's: an internal operation answers
// it NOT_FOUND as an unknown operation (Registry.Invoke), and mutations
// honour its Idempotency-Key. When such a call carried an assertion and
// asked for an internal operation, the refusal is logged at warn (caller,
// callee, operation, reason) and counted: a service calling outside its
// declared edges or operations, or keys that do not match.
func (s *Server) internalCall(ctx context.Context, c *fiber.Ctx, path string) bool {
	tok := c.Get(serviceauth.Header)
	if tok == "" {
		return false
	}
	caller, reason := unverifiedCaller, RefusedNoKeys
	var cause error
	if s.Peers != nil {
		who, err := s.Peers.Verify(tok)
		switch {
		case err == nil && slices.Contains(s.Callers, who):
			if op, ok := s.Registry.ops[path]; !ok || op.mayCall(who) {
				return true // an unknown path is answered as unknown all the same
			}
			caller, reason = who, RefusedNotACallerOfOperation
		case err == nil:
			caller, reason = who, RefusedUndeclaredCaller
		default:
			reason, cause = serviceauth.ReasonMalformed, err
			var r *serviceauth.Refusal
			if errors.As(err, &r) {
				reason = r.Reason
			}
		}
	}
	if access, ok := s.Registry.AccessOf(path); !ok || access != Internal {
		return false // a public operation: the caller is served as anyone would be
	}
	attrs := []any{"callee", s.Registry.Service, "caller", caller, "operation", path, "reason", reason}
	if cause != nil {
		attrs = append(attrs, "err", cause.Error())
	}
	if s.Logger != nil {
		s.Logger.WarnContext(ctx, "internal call refused", attrs...)
	}
	if s.refusals != nil && s.refusals.counter != nil {
		s.refusals.counter.Add(ctx, 1, metric.WithAttributes(attribute.String("service", s.Registry.Service),
			attribute.String("caller", caller), attribute.String("operation", path), attribute.String("reason", reason)))
	}
	return false
}

// InternalPaths are the paths of the registry's internal operations, sorted.
func (r *Registry) InternalPaths() []string {
	var out []string
	for p, op := range r.ops {
		if op.Access == Internal {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}
