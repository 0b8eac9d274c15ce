package main

// The seed's client of the public API: every call goes through the gateway
// as a client app's would, with a development token per user, an
// Idempotency-Key on every mutation, a rate limit per user kept below the
// gateway's, and retries of what a retry can fix.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"marketplace/libs/auth"
)

// fils are hundredths of an AED; in JSON an AED number with two decimals.
type fils int64

func (f fils) String() string {
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	return fmt.Sprintf("%s%d.%02d", sign, f/100, f%100)
}

func (f fils) MarshalJSON() ([]byte, error) { return []byte(f.String()), nil }

// filsOf is an AED amount the API answered, in fils.
func filsOf(aed float64) fils { return fils(math.Round(aed * 100)) }

// apiError is an operation's refusal: the contract's code and message.
type apiError struct {
	Path    string
	Status  int
	Code    string
	Message string
	Details map[string]any
}

func (e *apiError) Error() string {
	return fmt.Sprintf("%s: %s (%d): %s", e.Path, e.Code, e.Status, e.Message)
}

// Reason is details.reason, "" without one.
func (e *apiError) Reason() string {
	r, _ := e.Details["reason"].(string)
	return r
}

func codeOf(err error) string {
	var e *apiError
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

func reasonOf(err error) string {
	var e *apiError
	if errors.As(err, &e) {
		return e.Reason()
	}
	return ""
}

// user is someone the seed acts as: a token subject with its token and its
// share of the rate limit.
type user struct {
	Sub   string
	Token string
	lim   *rate.Limiter
}

type counters struct {
	calls, replayed, retried, rateLimited atomic.Int64
}

type client struct {
	base      string
	hc        *http.Client
	secret    []byte
	authOpts  auth.Options
	ttl       time.Duration
	perUser   rate.Limit
	burst     int
	keyPrefix string // SEED, sizes and mode: every Idempotency-Key starts with it

	users map[string]*user // written before the phases start, only read by them
	n     counters
}

func newClient(cfg Config, keyPrefix string) *client {
	return &client{
		base: strings.TrimRight(cfg.BaseURL, "/"), secret: []byte(cfg.DevSecret), authOpts: cfg.AuthOptions, ttl: cfg.TokenTTL,
		perUser: rate.Limit(cfg.RPS), burst: max(1, cfg.Burst), keyPrefix: keyPrefix, users: map[string]*user{}, hc: httpClient(cfg.Workers),
	}
}

func httpClient(workers int) *http.Client {
	return &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConns: 4 * workers, MaxIdleConnsPerHost: 4 * workers,
		// Below the servers' read timeout (HTTP_READ_TIMEOUT, 10 s), so an
		// idle connection is closed here before the server closes it.
		IdleConnTimeout: 5 * time.Second}}
}

// addUser mints a development token for sub (roles: admin for
// administrators). Every user is added before the phases start.
func (c *client) addUser(sub string, roles ...string) error {
	tok, err := auth.Mint(c.secret, sub, roles, c.ttl, c.authOpts)
	if err != nil {
		return fmt.Errorf("minting a token for %s: %w", sub, err)
	}
	c.users[sub] = &user{Sub: sub, Token: tok, lim: rate.NewLimiter(c.perUser, c.burst)}
	return nil
}

// as is the user sub (added by addUser).
func (c *client) as(sub string) *user { return c.users[sub] }

func (c *client) query(ctx context.Context, u *user, path string, args, out any) error {
	_, err := c.call(ctx, u, "query", "", path, args, out)
	return err
}

// mutate runs a mutation with the Idempotency-Key keyPrefix+key; replayed
// says the gateway answered what an earlier run's call with the key got.
func (c *client) mutate(ctx context.Context, u *user, key, path string, args, out any) (replayed bool, err error) {
	return c.call(ctx, u, "mutation", c.keyPrefix+key, path, args, out)
}

// Retry limits: how many times each kind of failure is tried again.
const (
	retryNetwork     = 6
	retryUnavailable = 8
	retryRateLimited = 120
	retryKeyInUse    = 90 // one a second: a running call's lease is about a minute
)

func (c *client) call(ctx context.Context, u *user, kind, key, path string, args, out any) (bool, error) {
	if args == nil {
		args = map[string]any{}
	}
	body, err := json.Marshal(map[string]any{"path": path, "args": args})
	if err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	var network, unavailable, limited, inUse int
	for {
		if err := u.lim.Wait(ctx); err != nil {
			return false, err
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/api/"+kind, bytes.NewReader(body))
		if err != nil {
			return false, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+u.Token)
		if key != "" {
			req.Header.Set("Idempotency-Key", key)
		}
		c.n.calls.Add(1)
		resp, err := c.hc.Do(req)
		if err != nil {
			if ctx.Err() != nil {
				return false, ctx.Err()
			}
			if network++; network > retryNetwork {
				return false, fmt.Errorf("%s: the marketplace at %s does not answer (is `make run` running? set SEED_URL for another address): %w", path, c.base, err)
			}
			c.n.retried.Add(1)
			if err := sleep(ctx, backoff(network)); err != nil {
				return false, err
			}
			continue
		}
		raw, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
		resp.Body.Close()
		if err != nil {
			return false, fmt.Errorf("%s: reading the answer: %w", path, err)
		}
		replayed := resp.Header.Get("Idempotent-Replayed") == "true"
		if resp.StatusCode == http.StatusOK {
			if replayed {
				c.n.replayed.Add(1)
			}
			if out != nil {
				if err := json.Unmarshal(raw, out); err != nil {
					return replayed, fmt.Errorf("%s: unexpected answer %.200s: %w", path, raw, err)
				}
			}
			return replayed, nil
		}
		e := &apiError{Path: path, Status: resp.StatusCode}
		var env struct {
			Error struct {
				Code    string         `json:"code"`
				Message string         `json:"message"`
				Details map[string]any `json:"details"`
			} `json:"error"`
		}
		if json.Unmarshal(raw, &env) == nil && env.Error.Code != "" {
			e.Code, e.Message, e.Details = env.Error.Code, env.Error.Message, env.Error.Details
		} else {
			e.Code, e.Message = http.StatusText(resp.StatusCode), strings.TrimSpace(string(raw))
		}
		var wait time.Duration
		switch {
		case resp.StatusCode == http.StatusTooManyRequests:
			c.n.rateLimited.Add(1)
			if limited++; limited <= retryRateLimited {
				wait = retryAfter(resp.Header, time.Second)
			}
		case resp.StatusCode == http.StatusServiceUnavailable || resp.StatusCode == http.StatusBadGateway ||
			resp.StatusCode == http.StatusGatewayTimeout || resp.StatusCode == http.StatusInternalServerError:
			// A keyed call that failed this way left no kept outcome: running it
			// again is safe.
			if unavailable++; unavailable <= retryUnavailable {
				wait = max(retryAfter(resp.Header, 0), backoff(unavailable))
			}
		case e.Reason() == "idempotency_key_in_use":
			// An earlier run's call with this key is still running (or was cut
			// off and its lease has not run out yet).
			if inUse++; inUse <= retryKeyInUse {
				wait = time.Second
			}
		}
		if wait == 0 {
			if replayed {
				c.n.replayed.Add(1)
			}
			return replayed, e
		}
		c.n.retried.Add(1)
		if err := sleep(ctx, wait); err != nil {
			return false, err
		}
	}
}

func backoff(attempt int) time.Duration {
	return min(5*time.Second, time.Duration(100<<min(attempt, 6))*time.Millisecond)
}

func retryAfter(h http.Header, def time.Duration) time.Duration {
	if s, err := strconv.Atoi(h.Get("Retry-After")); err == nil && s >= 0 {
		return max(time.Duration(s)*time.Second, 100*time.Millisecond)
	}
	return def
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// simulator is the payment processor simulator, called as the customer's
// card form calls the processor: the publishable key and the intent's client
// secret. Its webhooks reach the gateway from one address, which the
// gateway limits like any anonymous caller: confirmations are paced (limit)
// so the webhooks they send stay under that limit.
type simulator struct {
	base  string
	hc    *http.Client
	limit *rate.Limiter
}

// confirmation is how the processor answered a confirmation.
type confirmation struct {
	Status        int    // the processor's answer
	WebhookStatus int    // the gateway's answer to the webhook it sent (0: unknown)
	Code          string // the processor's error code, when it refused
}

func (p *simulator) confirm(ctx context.Context, publishableKey, intentID, clientSecret, paymentMethod string) (confirmation, error) {
	form := url.Values{"payment_method": {paymentMethod}, "client_secret": {clientSecret}}
	for attempt := 1; ; attempt++ {
		if err := p.limit.Wait(ctx); err != nil {
			return confirmation{}, err
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.base+"/v1/payment_intents/"+url.PathEscape(intentID)+"/confirm",
			strings.NewReader(form.Encode()))
		if err != nil {
			return confirmation{}, err
		}
		req.Header.Set("Authorization", "Bearer "+publishableKey)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := p.hc.Do(req)
		if err != nil {
			if ctx.Err() != nil {
				return confirmation{}, ctx.Err()
			}
			if attempt > retryNetwork {
				return confirmation{}, fmt.Errorf("the processor simulator at %s does not answer (is `make run` running with this DATA_DIR?): %w", p.base, err)
			}
			if err := sleep(ctx, backoff(attempt)); err != nil {
				return confirmation{}, err
			}
			continue
		}
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		c := confirmation{Status: resp.StatusCode}
		c.WebhookStatus, _ = strconv.Atoi(resp.Header.Get("Simulator-Webhook-Status"))
		if resp.StatusCode != http.StatusOK {
			var e struct {
				Error struct {
					Code    string `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			_ = json.Unmarshal(raw, &e)
			c.Code = e.Error.Code
		}
		return c, nil
	}
}
