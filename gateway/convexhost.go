package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"marketplace/gateway/convex"
	"marketplace/libs/apperr"
	"marketplace/libs/auth"
	"marketplace/libs/httpserver"
	"marketplace/libs/liveset"
	"marketplace/libs/ops"
)

// The headers of a service's answer that state what the operation read and
// wrote (libs/liveset), for the Convex layer's live queries (convex.Outcome):
// asked for with liveset.HeaderWant, opaque to the gateway, never relayed to
// clients.
const (
	HeaderLiveReads  = liveset.HeaderReads
	HeaderLiveWrites = liveset.HeaderWrites
)

// liveWritesKey holds (in a request's locals) the write set a forwarded
// write's answer stated (forward); wantLiveKey marks a forwarded write whose
// write set is asked for.
const (
	liveWritesKey = "gateway.liveWrites"
	wantLiveKey   = "gateway.wantLive"
)

// convexHost is the gateway as the Convex layer's host (convex.Host).
type convexHost struct{ g *Gateway }

// Allow takes one call from caller's rate limit, shared with the
// contract's endpoints.
func (h convexHost) Allow(caller string) bool { return h.g.limiter.Allow(caller, time.Now()) }

// Owner is the service of a public operation, or the contract's answer for a
// path no service owns.
func (h convexHost) Owner(path string) (string, ops.Kind, *apperr.Error) {
	r, ok := h.g.lookup(path)
	if !ok {
		return "", "", h.g.unknownOperation(path)
	}
	return r.service, r.kind, nil
}

// Invoke runs an operation through the routing table and the owning
// service, with the same rules as POST /api/query and /api/mutation: the
// table's kind and access checks, then the service's own.
func (h convexHost) Invoke(ctx context.Context, in convex.Call) convex.Outcome {
	g := h.g
	r, ok := g.lookup(in.Path)
	if !ok {
		return convex.Outcome{Err: g.unknownOperation(in.Path)}
	}
	out := convex.Outcome{Service: r.service, Kind: r.kind}
	called := in.Kind
	if called == "" {
		called = r.kind
	}
	if in.Identity != nil {
		ctx = auth.WithIdentity(ctx, in.Identity)
	}
	if err := ops.CheckCall(ctx, r.kind, r.access, called, in.Path); err != nil {
		out.Err = apperr.From(err)
		return out
	}
	body, err := json.Marshal(struct {
		Path string          `json:"path"`
		Args json.RawMessage `json:"args"`
	}{in.Path, in.Args})
	if err != nil {
		out.Err = apperr.Wrap(err, apperr.Internal, "internal error")
		return out
	}
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.Header.SetMethod(fiber.MethodPost)
	req.Header.SetContentType(fiber.MIMEApplicationJSON)
	if in.Token != "" {
		req.Header.Set(fiber.HeaderAuthorization, "Bearer "+in.Token)
	}
	if g.issuer != nil {
		if err := g.setIdentity(&req.Header, in.Identity); err != nil {
			out.Err = apperr.From(err)
			return out
		}
	}
	if in.IdempotencyKey != "" && r.kind == ops.Mutation {
		req.Header.Set(ops.HeaderIdempotencyKey, in.IdempotencyKey)
	}
	if in.RequestID != "" {
		req.Header.Set(httpserver.HeaderRequestID, in.RequestID)
	}
	if in.IP != "" {
		req.Header.Set("X-Forwarded-For", in.IP)
	}
	req.Header.Set(liveset.HeaderWant, "1")
	req.SetBodyRaw(body)
	if err := g.send(ctx, r.service, "/api/"+string(r.kind), req, resp); err != nil {
		g.logger.Warn("upstream unavailable", "service", r.service, "err", err)
		out.Err = apperr.New(apperr.Unavailable, "%s is unavailable; retry shortly", r.service)
		return out
	}
	if status := resp.StatusCode(); status < 500 {
		// What it read and wrote, whatever it answered (a refusal may rest
		// on what it read, and a write may have committed before it); a
		// 5xx's writes are unknown.
		out.Reads, out.Writes = string(resp.Header.Peek(HeaderLiveReads)), string(resp.Header.Peek(HeaderLiveWrites))
	}
	if status := resp.StatusCode(); status >= 200 && status < 300 {
		out.Value = append(json.RawMessage(nil), bytes.TrimSpace(resp.Body())...)
		if len(out.Value) == 0 {
			out.Value = json.RawMessage("null")
		}
		// Checked once here: answers copy the value into their JSON as is.
		if !json.Valid(out.Value) {
			out.Value, out.Err = nil, apperr.Wrap(fmt.Errorf("%s answered %d with a body that is not JSON: %.200q", r.service, status, resp.Body()),
				apperr.Internal, "internal error")
			return out
		}
		return out
	}
	e, ok := apperr.Parse(resp.StatusCode(), resp.Body())
	if !ok {
		out.Err = apperr.Wrap(fmt.Errorf("%s answered %d with %.200q", r.service, resp.StatusCode(), resp.Body()),
			apperr.Internal, "internal error")
		return out
	}
	out.Err = e
	return out
}

// afterWrite is deferred by the gateway's own handlers of writes: when the
// service accepted the write, or its outcome is unknown (a 5xx: the service
// failed, or answered after the upstream timeout), its live queries run again,
// with the write set its answer stated (forward), "" when none or unknown.
func (g *Gateway) afterWrite(c *fiber.Ctx, service string) {
	if g.invalidate == nil {
		return // no Convex layer
	}
	writes, _ := c.Locals(liveWritesKey).(string)
	switch st := c.Response().StatusCode(); {
	case st >= 500:
		g.invalidate(service, "") // the outcome is unknown: whatever its answer said
	case writes != "":
		g.invalidate(service, writes) // a refusal too: it may have committed first
	case st < 400:
		g.unstated(service) // it did not say (an older version)
	}
}

// wantLive asks the service for the write set of the write c forwards
// (forward), when live queries are kept.
func (g *Gateway) wantLive(c *fiber.Ctx) {
	if g.invalidate != nil {
		c.Locals(wantLiveKey, true)
	}
}
