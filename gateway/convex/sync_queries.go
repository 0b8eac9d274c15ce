package convex

import (
	"context"
	"slices"
	"time"

	"marketplace/libs/apperr"
	"marketplace/libs/auth"
	"marketplace/libs/ops"
)

// A socket's session, identity and query set: Connect, Authenticate and
// ModifyQuerySet, and the socket's token for its live queries.

// connAuth is a socket's current identity.
type connAuth struct {
	token    string
	identity *auth.Identity
}

func (a *connAuth) identityOrNil() *auth.Identity {
	if a == nil {
		return nil
	}
	return a.identity
}

// versionStep is a version the socket reached in its messages; Transitions
// reach it once every query in awaiting has its first answer.
type versionStep struct {
	querySet, identity uint32
	awaiting           map[uint32]bool
}

func (c *syncConn) connect(m clientMessage) error {
	if m.SessionID == "" || len(m.SessionID) > maxSessionID || ops.CheckIdempotencyKey(m.SessionID) != nil {
		return fatal("Received Invalid JSON on websocket: Connect needs a sessionId of at most %d printable characters", maxSessionID)
	}
	c.sessionID = m.SessionID
	if m.ClientTs != nil {
		skew := *m.ClientTs - time.Now().UnixMilli()
		c.skew = &skew
	}
	if m.MaxObservedTimestamp != nil {
		if ts, err := decodeTS(*m.MaxObservedTimestamp); err == nil {
			c.x.clock.observe(ts)
		}
	}
	return nil
}

func (c *syncConn) authenticate(m clientMessage) error {
	if m.BaseVersion == nil || *m.BaseVersion != c.recvID {
		return inconsistent("Base identity version %v doesn't match the current version %d", deref(m.BaseVersion), c.recvID)
	}
	var next *connAuth
	switch m.TokenType {
	case "User":
		if c.x.verifier == nil {
			return &closing{auth: true, attempted: true, message: "AuthUpdateFailed: no token verifier is configured"}
		}
		id, err := c.x.verifier.Verify(context.Background(), m.Value)
		if err != nil {
			return &closing{auth: true, attempted: true, message: "AuthUpdateFailed: " + apperr.From(err).Message}
		}
		next = &connAuth{token: m.Value, identity: id}
	case "None":
	case "Admin":
		return &closing{auth: true, attempted: true, message: "AuthUpdateFailed: admin keys are not accepted: authenticate with a user's token"}
	default:
		return fatal("Received Invalid JSON on websocket: unknown tokenType %q", m.TokenType)
	}
	key := c.anon
	if next != nil {
		key = "sub:" + next.identity.Sub
	}
	if key != c.callerKey {
		if err := c.x.acquireCaller(key); err != nil {
			return err
		}
		if c.callerKey != "" {
			c.x.releaseCaller(c.callerKey)
		}
		c.callerKey = key
		c.settled()
	}
	prev := c.identity()
	if identityKey(prev) != identityKey(next.identityOrNil()) {
		// Every live query runs again as the new caller, and every query a cap
		// refused is tried again: charged like adding them. Over budget, it
		// goes ahead (the next Adds wait for the debt).
		again := 0
		for _, s := range c.queries {
			if s.lq != nil || s.capped {
				again++
			}
		}
		if _, err := c.charge(again); err != nil {
			return err
		}
	}
	if next == nil {
		c.auth.Store(nil)
	} else {
		c.auth.Store(next)
	}
	c.recvID++
	step := &versionStep{querySet: c.recvQS, identity: c.recvID, awaiting: map[uint32]bool{}}
	if identityKey(prev) != identityKey(c.identity()) {
		c.resubscribe(step)
	}
	c.steps = append(c.steps, step)
	c.authGen++
	if c.expiry != nil {
		c.expiry.Stop()
		c.expiry = nil
	}
	if next != nil && !next.identity.Expires.IsZero() {
		gen := c.authGen
		c.expiry = time.AfterFunc(time.Until(next.identity.Expires), func() { c.post(connEvent{expired: gen}) })
	}
	return nil
}

// resubscribe moves every query to the socket's new caller: each runs again
// as them, within their limits (a socket that signs out keeps the first of
// its queries an anonymous socket may hold; the others fail), and so does
// every query a cap refused (a socket that signs in gets those an anonymous
// one could not hold). The queries it starts await their first answer in
// step.
func (c *syncConn) resubscribe(step *versionStep) {
	limit := c.x.queryLimit(c.identity() == nil)
	ids := make([]uint32, 0, len(c.queries))
	for id := range c.queries {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	kept := 0
	for _, id := range ids {
		s := c.queries[id]
		if s.lq == nil && !s.capped {
			continue // failed for good (a bad path or arguments)
		}
		if s.lq != nil {
			c.x.live.unsubscribe(s)
			c.live--
		}
		fresh := &querySub{id: id, conn: c, service: s.service, path: s.path, args: s.args, sentHash: s.sentHash, sent: s.sent}
		c.queries[id] = fresh
		var fail *apperr.Error
		if kept >= limit {
			fail = tooManyQueries(limit)
		} else {
			fail = c.x.live.subscribe(fresh, s.service, s.path, s.args, c.identity())
		}
		if fail != nil {
			fresh.capped = true
			c.mods[id] = failedModification(id, fail)
			continue
		}
		kept++
		c.live++
		step.awaiting[id] = true
	}
}

func (c *syncConn) modifyQuerySet(m clientMessage) error {
	if m.BaseVersion == nil || m.NewVersion == nil {
		return fatal("Received Invalid JSON on websocket: ModifyQuerySet needs baseVersion and newVersion")
	}
	if *m.BaseVersion != c.recvQS {
		return fatal("Base version %d passed up doesn't match the current version %d", *m.BaseVersion, c.recvQS)
	}
	if *m.NewVersion <= *m.BaseVersion {
		return inconsistent("the new query set version %d is not above %d", *m.NewVersion, *m.BaseVersion)
	}
	step := &versionStep{querySet: *m.NewVersion, identity: c.recvID, awaiting: map[uint32]bool{}}
	for _, mod := range m.Modifications {
		if mod.QueryID == nil {
			return fatal("Received Invalid JSON on websocket: %s needs a queryId", mod.Type)
		}
		id := *mod.QueryID
		switch mod.Type {
		case "Add":
			if _, dup := c.queries[id]; dup {
				return inconsistent("Duplicate query ID: %d", id)
			}
			path, err := functionPath(mod.UdfPath)
			if err != nil {
				return fatal("Received Invalid JSON on websocket: %s", apperr.From(err).Message)
			}
			s := &querySub{id: id, conn: c, path: path}
			c.queries[id] = s
			if fail := c.subscribe(s, mod); fail != nil {
				c.mods[id] = failedModification(id, fail)
				continue
			}
			step.awaiting[id] = true
		case "Remove":
			s, ok := c.queries[id]
			if !ok {
				return inconsistent("Nonexistent query id: %d", id)
			}
			if s.lq != nil {
				c.x.live.unsubscribe(s)
				c.live--
			}
			delete(c.queries, id)
			c.mods[id] = mustJSON(queryRemoved{Type: "QueryRemoved", QueryID: id})
			for _, st := range c.steps {
				delete(st.awaiting, id)
			}
			delete(step.awaiting, id) // added by this very message

		default:
			return fatal("Received Invalid JSON on websocket: unknown modification %q", mod.Type)
		}
	}
	c.recvQS = *m.NewVersion
	c.steps = append(c.steps, step)
	return nil
}

// subscribe starts s on its live query, or says why it fails at once.
func (c *syncConn) subscribe(s *querySub, mod queryModification) *apperr.Error {
	if mod.ComponentPath != nil && *mod.ComponentPath != "" {
		return apperr.New(apperr.InvalidArgument, "components are not supported: call %s without componentPath", convexName(s.path))
	}
	args, err := decodeArgs(mod.Args)
	if err != nil {
		return apperr.From(err)
	}
	service, _, fail := c.x.host.Owner(s.path)
	if fail != nil {
		return c.x.unknownFunction(s.path, fail)
	}
	s.service, s.args = service, args
	if limit := c.x.queryLimit(c.identity() == nil); c.live >= limit {
		s.capped = true
		return tooManyQueries(limit)
	}
	if fail := c.x.live.subscribe(s, service, s.path, args, c.identity()); fail != nil {
		s.capped = true
		return fail
	}
	c.live++
	return nil
}

func tooManyQueries(limit int) *apperr.Error {
	return apperr.New(apperr.RateLimited, "at most %d queries per connection", limit).
		WithDetails(map[string]any{"reason": "too_many_queries"})
}

// token is the socket's bearer token for a live query of caller id: "" when
// the socket is not that caller (any more: an Authenticate moved it, and its
// subscriptions move in the loop after), when id is anonymous, or when the
// token expired.
func (c *syncConn) token(id *auth.Identity) string {
	a := c.auth.Load()
	if a == nil || id == nil || identityKey(a.identity) != identityKey(id) ||
		(!a.identity.Expires.IsZero() && time.Now().After(a.identity.Expires)) {
		return ""
	}
	return a.token
}

// expired reports whether the socket's token expired.
func (c *syncConn) expired() bool {
	a := c.auth.Load()
	return a != nil && !a.identity.Expires.IsZero() && time.Now().After(a.identity.Expires)
}

func (c *syncConn) identity() *auth.Identity {
	if a := c.auth.Load(); a != nil {
		return a.identity
	}
	return nil
}
