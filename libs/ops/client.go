package ops

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/valyala/fasthttp"

	"marketplace/libs/apperr"
	"marketplace/libs/httpserver"
	"marketplace/libs/liveset"
	"marketplace/libs/serviceauth"
)

// Resolver finds a service's base URL (see package discovery).
type Resolver interface {
	Resolve(ctx context.Context, service string) (string, error)
}

// ErrOperationRefused is the cause (errors.Is) of a call's INTERNAL answer
// when the callee answered it as an unknown operation: a callee of an older
// release that lacks the operation, or one that does not count this service
// among the operation's callers. A caller that can do without the operation
// (the same fact through an older operation) tells it from other errors.
var ErrOperationRefused = errors.New("ops: the callee does not know the operation, or refused it to this service")

// Client calls other services' operations directly (through discovery, never
// through the public gateway). It forwards the caller's token so the callee applies
// its own rules to the same identity, and proves which service it is with an
// assertion signed for the callee (serviceauth.Header).
type Client struct {
	resolver Resolver
	signer   *serviceauth.Signer
	hc       *fasthttp.Client
	timeout  time.Duration
	// callees are the declarations of the services it calls (callees.go).
	callees *callees
}

// NewClient builds a client that signs its calls with signer (nil: calls
// carry no assertion, and the callees' internal operations refuse them);
// timeout bounds each call that has no earlier deadline.
func NewClient(r Resolver, signer *serviceauth.Signer, timeout time.Duration) *Client {
	return &Client{
		resolver: r,
		signer:   signer,
		timeout:  timeout,
		callees:  newCallees(),
		hc: &fasthttp.Client{
			MaxConnsPerHost:     512,
			ReadTimeout:         timeout,
			WriteTimeout:        timeout,
			MaxIdleConnDuration: 30 * time.Second,
		},
	}
}

// Query calls a query of service and decodes its result into out (may be nil).
func (c *Client) Query(ctx context.Context, service, path string, args, out any) error {
	return c.call(ctx, service, Query, path, args, out)
}

// Mutation calls a mutation of service and decodes its result into out (may be nil).
func (c *Client) Mutation(ctx context.Context, service, path string, args, out any) error {
	return c.call(ctx, service, Mutation, path, args, out)
}

func (c *Client) call(ctx context.Context, service string, kind Kind, path string, args, out any) (err error) {
	base, err := c.resolver.Resolve(ctx, service)
	if err != nil {
		return apperr.Wrap(err, apperr.Unavailable, "%s is unavailable", service)
	}
	rawArgs, err := c.encodeArgs(ctx, service, base, path, args)
	if err != nil {
		return err
	}
	body, err := json.Marshal(Request{Path: path, Args: rawArgs})
	if err != nil {
		return err
	}
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.SetRequestURI(base + "/api/" + string(kind))
	req.Header.SetMethod(fasthttp.MethodPost)
	req.Header.SetContentType("application/json")
	if c.signer != nil {
		a, err := c.signer.Assertion(service)
		if err != nil {
			return apperr.Wrap(err, apperr.Internal, "internal error")
		}
		req.Header.Set(serviceauth.Header, a)
	}
	if tok := tokenFrom(ctx); tok != "" {
		req.Header.Set("Authorization", tok)
	}
	if rid := requestIDFrom(ctx); rid != "" {
		req.Header.Set(httpserver.HeaderRequestID, rid)
	}
	// A query's answer rests on what its calls read too: their reads join
	// the query's (named for the callee), or make them unknown.
	foldReads := kind == Query && liveset.TracksReads(ctx)
	if foldReads {
		req.Header.Set(liveset.HeaderWant, "1")
	}
	req.SetBody(body)
	end := startCallSpan(ctx, service, path, &req.Header)
	defer func() { end(err) }()
	deadline := time.Now().Add(c.timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	if err := c.hc.DoDeadline(req, resp, deadline); err != nil {
		if errors.Is(err, fasthttp.ErrTimeout) {
			return apperr.Wrap(err, apperr.Unavailable, "%s did not answer in time", service)
		}
		return apperr.Wrap(err, apperr.Unavailable, "%s is unreachable", service)
	}
	status, payload := resp.StatusCode(), resp.Body()
	if foldReads {
		foldCallReads(ctx, service, resp.Header.Peek(liveset.HeaderReads))
	}
	if status != fasthttp.StatusOK {
		if e, ok := apperr.Parse(status, payload); ok {
			if e.Code == apperr.NotFound && e.Details["reason"] == ReasonUnknownOperation {
				// Our own call is wrong (a version skew, a call the callee does
				// not accept from this service: an undeclared edge, keys it does
				// not know): a bug of the calling service or of its deployment,
				// not a missing record of the client's.
				return apperr.Wrap(fmt.Errorf("%w: %s refused operation %s: %s", ErrOperationRefused, service, path, e.Message), apperr.Internal, "internal error")
			}
			// An argument the callee does not know: sent once more without it,
			// or refused naming the callee's version (callees.go).
			if retry, err := c.afterUnknownArgument(ctx, service, base, path, args, e); err != nil {
				return err
			} else if retry != nil {
				return c.call(retry, service, kind, path, args, out)
			}
			return &apperr.Error{Code: e.Code, Message: e.Message, Details: e.Details}
		}
		return apperr.New(apperr.Unavailable, "%s answered status %d", service, status)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(payload, out); err != nil {
		return apperr.Wrap(fmt.Errorf("%s returned an unreadable result of %s: %w", service, path, err), apperr.Internal, "internal error")
	}
	return nil
}

// foldCallReads adds the reads a called service stated to the query's, or
// makes them unknown when it stated none.
func foldCallReads(ctx context.Context, service string, header []byte) {
	if len(header) == 0 {
		liveset.ReadsUnknown(ctx, "a call to "+service+" stated no reads")
		return
	}
	rs, err := liveset.DecodeReads(string(header))
	if err != nil || rs == nil {
		liveset.ReadsUnknown(ctx, "a call to "+service+" stated no reads")
		return
	}
	liveset.AddReads(ctx, service, rs)
}
