package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"marketplace/deploy/processor"
	"marketplace/deploy/system"
)

// simClient calls the processor simulator that holds an object, with its
// secret key: `marketplace pay` and `marketplace dispute` share it.
type simClient struct {
	ctx       context.Context
	base, key string
}

// findSimulator is the simulator at simURL (when given) or, among the
// ones DATA_DIR names (the all-in-one's, the distributed mode's), the one
// whose GET find answers 200 (else the first, whose answers then say why).
func findSimulator(ctx context.Context, simURL string, getenv func(string) string, find string) (*simClient, error) {
	var bases []string
	var key string
	var err error
	if simURL != "" {
		bases = []string{strings.TrimRight(simURL, "/")}
		key, err = system.SimulatorKey(getenv)
	} else {
		bases, key, err = system.Simulators(getenv)
	}
	if err != nil {
		return nil, err
	}
	return &simClient{ctx: ctx, base: holder(ctx, bases, key, find), key: key}, nil
}

// call sends a form (body may be nil) and decodes a 200's JSON into out
// (nil: ignored). Any other status is an error, the simulator's message
// when it gave one, unless accept(status) (nil: none), in which case the
// body is decoded like a 200's.
func (c *simClient) call(method, path string, body io.Reader, out any, accept func(status int) bool) (int, error) {
	req, err := http.NewRequestWithContext(c.ctx, method, c.base+path, body)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	if body != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, fmt.Errorf("the processor simulator at %s does not answer (is `make run` or `make run-distributed` running with this DATA_DIR?): %w", c.base, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return resp.StatusCode, err
	}
	if resp.StatusCode != http.StatusOK && (accept == nil || !accept(resp.StatusCode)) {
		var e struct {
			Error *processor.APIError `json:"error"`
		}
		if json.Unmarshal(raw, &e) == nil && e.Error != nil {
			return resp.StatusCode, &simRefusal{Code: e.Error.Code, Message: e.Error.Message}
		}
		return resp.StatusCode, fmt.Errorf("the processor simulator answered %d: %s", resp.StatusCode, strings.TrimSpace(string(raw)))
	}
	if out == nil {
		return resp.StatusCode, nil
	}
	return resp.StatusCode, json.Unmarshal(raw, out)
}

// simRefusal is the simulator's refusal of a call: its code (e.g.
// dispute_already_closed; empty when it gave none) for callers that act on
// it, and its message for people.
type simRefusal struct{ Code, Message string }

func (e *simRefusal) Error() string {
	if e.Code == "" {
		return "the processor simulator refused: " + e.Message
	}
	return fmt.Sprintf("the processor simulator refused (%s): %s", e.Code, e.Message)
}

// holder is the simulator among bases that holds the object of path (GET
// answers 200); when none does (or none answers), the first, whose answer
// then says why.
func holder(ctx context.Context, bases []string, key, path string) string {
	for _, base := range bases {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
		if err != nil {
			cancel()
			continue
		}
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		cancel()
		if err != nil {
			continue
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			return base
		}
	}
	return bases[0]
}
