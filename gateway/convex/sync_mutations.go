package convex

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"marketplace/libs/apperr"
	"marketplace/libs/ops"
)

// A socket's mutations, run one at a time in order, and its actions.

type mutationRequest struct {
	requestID uint32
	path      string
	args      json.RawMessage
	component bool
	auth      *connAuth
	sessionID string
}

type pendingResponse struct {
	kind    string // MutationResponse or ActionResponse
	id      uint32
	out     outcome
	settled bool // a successful mutation whose settling began (connEvent.settling)
}

func (c *syncConn) mutation(m clientMessage) error {
	if m.RequestID == nil {
		return fatal("Received Invalid JSON on websocket: Mutation needs a requestId")
	}
	path, err := functionPath(m.UdfPath)
	if err != nil {
		return fatal("Received Invalid JSON on websocket: %s", apperr.From(err).Message)
	}
	req := mutationRequest{requestID: *m.RequestID, path: path, args: m.Args, auth: c.auth.Load(), sessionID: c.sessionID,
		component: m.ComponentPath != nil && *m.ComponentPath != ""}
	if c.pending.Add(int64(len(m.Args))) > maxPendingMutations {
		return overLimit("TooManyConcurrentMutations: only up to %d MiB of arguments of pending mutations allowed on a single websocket",
			maxPendingMutations>>20)
	}
	select {
	case c.mutations <- req:
		return nil
	default:
		return overLimit("TooManyConcurrentMutations: only up to %d pending mutations allowed on a single websocket", maxQueuedMutation)
	}
}

// action answers an Action: the platform has none, so it names the function's kind.
func (c *syncConn) action(m clientMessage) error {
	if m.RequestID == nil {
		return fatal("Received Invalid JSON on websocket: Action needs a requestId")
	}
	path, err := functionPath(m.UdfPath)
	if err != nil {
		return fatal("Received Invalid JSON on websocket: %s", apperr.From(err).Message)
	}
	out := c.x.invoke(context.Background(), Call{Kind: kindAction, Path: path})
	c.responses = append(c.responses, pendingResponse{kind: "ActionResponse", id: *m.RequestID, out: out})
	return nil
}

// runMutations runs the socket's mutations one at a time, in order, as Convex does.
func (c *syncConn) runMutations() {
	for {
		select {
		case <-c.stop:
			return
		case req := <-c.mutations:
			out := c.runMutation(req)
			c.pending.Add(-int64(len(req.args)))
			c.post(connEvent{response: &pendingResponse{kind: "MutationResponse", id: req.requestID, out: out, settled: out.Err == nil}})
		}
	}
}

func (c *syncConn) runMutation(req mutationRequest) outcome {
	if req.component {
		return outcome{Err: apperr.New(apperr.InvalidArgument, "components are not supported: call %s without componentPath", convexName(req.path))}
	}
	args, err := decodeArgs(req.args)
	if err != nil {
		return outcome{Err: apperr.From(err)}
	}
	in := Call{Kind: ops.Mutation, Path: req.path, Args: args, IP: c.ip}
	caller := c.anon
	if req.auth != nil {
		in.Token, in.Identity = req.auth.token, req.auth.identity
		caller = "sub:" + req.auth.identity.Sub
		if req.sessionID != "" {
			in.IdempotencyKey = fmt.Sprintf("%s%s:%d", idemKeyPrefix, req.sessionID, req.requestID)
		}
	}
	if !c.x.host.Allow(caller) {
		return outcome{Err: apperr.New(apperr.RateLimited, "too many requests; retry shortly")}
	}
	timeout := c.x.cfg.UpstreamTimeout
	deadline := time.Now().Add(2 * timeout)
	var out outcome
	for {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		out = c.x.invoke(ctx, in)
		cancel()
		// A replay whose first run is still in flight (the socket dropped
		// while it ran) waits for its outcome.
		if out.Err == nil || out.Err.Code != apperr.FailedPrecondition || out.Err.Details["reason"] != ops.ReasonIdempotencyKeyInUse ||
			time.Now().After(deadline) {
			break
		}
		select {
		case <-c.stop:
			return out
		case <-time.After(50 * time.Millisecond):
		}
	}
	if out.Err != nil {
		c.x.logInternal(out.Err, "op", req.path, "sync", true)
		if outcomeUnknown(out.Err) {
			c.x.Invalidate(out.Service, "") // it may have written all the same
		} else if out.Writes != "" {
			c.x.Invalidate(out.Service, out.Writes) // refused after a commit
		}
		return out
	}
	c.post(connEvent{settling: true})
	if out.Writes == "" {
		c.x.markLegacy(out.Service) // an older replica: it did not say what it wrote
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	c.x.invalidateAndWait(ctx, c, out.Service, out.Writes)
	cancel()
	return out
}
