package convex

import (
	"encoding/json"
	"slices"

	"marketplace/libs/apperr"
)

// What a socket sends: the mailbox drained into the protocol state, then
// the answers and a Transition.

// drain applies what the mailbox holds: live query values, answers of
// mutations, an expired token.
func (c *syncConn) drain() error {
	c.mu.Lock()
	results, events := c.results, c.events
	c.results, c.events = map[*querySub]*queryResult{}, nil
	c.mu.Unlock()
	for s, r := range results {
		if c.queries[s.id] != s {
			continue // removed, or replaced for another identity
		}
		if r.seq < s.seen {
			continue // older than what it showed
		}
		s.seen = r.seq
		if r.err != nil && r.err.Code == apperr.Unauthenticated && c.expired() {
			return &closing{auth: true, message: "TokenExpired: the token expired"}
		}
		switch {
		case s.sent && s.sentHash == r.hash:
			// The client has this answer already (a re-run for another identity
			// that answered the same): nothing to send, the version moves on.
		case r.err == nil:
			c.mods[s.id] = updatedModification(s.id, r.value)
		default:
			c.mods[s.id] = failedModification(s.id, r.err)
		}
		s.sent, s.sentHash = true, r.hash
		for _, st := range c.steps {
			delete(st.awaiting, s.id)
		}
	}
	for _, e := range events {
		switch {
		case e.settling:
			c.settling++
		case e.response != nil:
			c.responses = append(c.responses, *e.response)
			if e.response.settled {
				c.settling--
			}
		case e.expired != 0 && e.expired == c.authGen && c.identity() != nil:
			return &closing{auth: true, message: "TokenExpired: the token expired"}
		}
	}
	return nil
}

// flush sends the answers of mutations and actions, then a Transition when
// the client's state moved: new values, a version reached, or a mutation's ts
// to cover.
func (c *syncConn) flush() error {
	end := c.sent
	for len(c.steps) > 0 && len(c.steps[0].awaiting) == 0 {
		end.QuerySet, end.Identity = c.steps[0].querySet, c.steps[0].identity
		c.steps = c.steps[1:]
	}
	for _, r := range c.responses {
		msg := functionResponse{Type: r.kind, RequestID: r.id, Success: r.out.Err == nil, LogLines: []string{}}
		if r.out.Err == nil {
			msg.Result = r.out.Value
			if r.kind == "MutationResponse" {
				ts := encodeTS(c.x.clock.next())
				msg.TS = &ts
				c.transition = true
			}
		} else {
			msg.Result = mustJSON(r.out.Err.Message)
			msg.ErrorData = errorData(r.out.Err)
		}
		if err := c.write(msg); err != nil {
			return err
		}
	}
	c.responses = nil
	if c.settling > 0 {
		return nil // the Transition comes with the mutation's answer
	}
	if len(c.mods) == 0 && end.QuerySet == c.sent.QuerySet && end.Identity == c.sent.Identity && !c.transition {
		return nil
	}
	end.ts = c.x.clock.next()
	end.TS = encodeTS(end.ts)
	ids := make([]uint32, 0, len(c.mods))
	for id := range c.mods {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	mods := make([]json.RawMessage, len(ids))
	for i, id := range ids {
		mods[i] = c.mods[id]
	}
	if err := c.writeRaw(encodeTransition(c.sent, end, mods, c.skew)); err != nil {
		return err
	}
	c.sent = end
	c.mods = map[uint32]json.RawMessage{}
	c.transition = false
	return nil
}
