package e2e

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"marketplace/deploy/processor"
	st "marketplace/deploy/systemtest"
	"marketplace/libs/auth"
	"marketplace/libs/ops"
	"marketplace/web/webtest"
)

// TestConvexClients runs Convex's own clients, the npm package convex 1.48.0
// pinned in deploy/convextest/package-lock.json, against the real system: the
// HTTP client and the WebSocket client, queries, mutations, errors, live
// subscriptions (after the client's own mutation, another client's plain HTTP
// mutation and a Kafka-driven notification), an expired token
// (convex.test.mjs), paginated queries and subscriptions (pagination.test.mjs)
// and reconnects after a lost connection (reconnect.test.mjs), contract
// section 8. The test installs the packages itself
// (npm ci); it is skipped, loudly, where node or npm is missing, except in
// CI, where it fails (webtest.Node).
func TestConvexClients(t *testing.T) {
	node, _ := webtest.Node(t)
	dir, err := filepath.Abs(filepath.Join("..", "convextest"))
	if err != nil {
		t.Fatal(err)
	}
	webtest.InstallIn(t, dir)

	// After the main run, the reviews service becomes unreachable from the
	// gateway and the payouts service answers garbage (outage.test.mjs).
	var outage atomic.Bool
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = io.WriteString(w, "upstream exploded")
	}))
	defer broken.Close()
	s := st.Start(t,
		// The gateway's per-caller limits at their defaults: one test floods them.
		st.WithEnv("RATE_LIMIT_RPS", "50"), st.WithEnv("RATE_LIMIT_BURST", "100"),
		st.WithGatewayResolver(func(r ops.Resolver) ops.Resolver {
			return resolverFunc(func(ctx context.Context, svc string) (string, error) {
				if outage.Load() {
					switch svc {
					case "reviews":
						return "", errors.New("reviews is down")
					case "payouts":
						return broken.URL, nil
					}
				}
				return r.Resolve(ctx, svc)
			})
		}))
	sh := newShop(t, s)
	failed := sh.payment("pi_convex_failed")
	failed.FailMessage = "Your card was declined."
	webhook := processor.Event("evt_convex_failed", "payment_intent.payment_failed", failed)
	expired, err := auth.Mint([]byte(s.DevSecret), "user-1", nil, -time.Hour, auth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	env := []string{
		"CONVEX_URL=" + s.BaseURL,
		"STORE_ID=" + sh.storeA,
		"PRODUCT_ID=" + sh.productA1,
		"ADMIN_TOKEN=" + sh.admin,
		"OWNER_TOKEN=" + sh.owner,
		"USER_TOKEN=" + sh.user,
		"NEWBIE_TOKEN=" + s.Token("newbie-1"),
		"FLOOD_TOKEN=" + s.Token("flood-1"),
		"EXPIRED_TOKEN=" + expired,
		"FAILED_WEBHOOK_BODY=" + string(webhook),
		"FAILED_WEBHOOK_SIGNATURE=" + processor.Sign(st.WebhookSecret, webhook, time.Now()),
	}
	webtest.Run(t, dir, 3*time.Minute, env, node, "--test", "--test-reporter=spec", "convex.test.mjs", "pagination.test.mjs", "reconnect.test.mjs")
	outage.Store(true)
	webtest.Run(t, dir, time.Minute, env, node, "--test", "--test-reporter=spec", "outage.test.mjs")
}
