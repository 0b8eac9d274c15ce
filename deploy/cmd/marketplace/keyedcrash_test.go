package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"marketplace/libs/auth"
)

// Keyed mutations survive a crash between their commit and their answer
// (issue 29, items 1 and 2), on the real all-in-one binary built with its
// fault points (-tags faultpoints): MARKETPLACE_FAULT kills the process
// (SIGKILL) right after a keyed call's transaction committed and before
// the answer left, once for every keyed mutation of the payouts service.
// After the restart on the same DATA_DIR the client's retry with the same
// key and arguments gets the kept answer (Idempotent-Replayed), and the
// money moved once. A kill inside the transaction, before its commit,
// leaves nothing, and the key is free as soon as the process is back: the
// retry runs, within 10 s of the restart. Both ways the embedded engine
// records a transaction's live writes run (from its changes, and write by
// write as on MongoDB: MARKETPLACE_FAULT_PER_WRITE).
func TestKeyedPayoutMovesReplayAfterACrash(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the all-in-one a score of times")
	}
	bin := buildMarketplace(t, "faultpoints")
	for _, perWrite := range []bool{false, true} {
		name := "writes from the engine's changes"
		if perWrite {
			name = "writes recorded one by one"
		}
		t.Run(name, func(t *testing.T) { crashEveryPayoutMove(t, bin, perWrite) })
	}
}

func crashEveryPayoutMove(t *testing.T, bin string, perWrite bool) {
	const secret = "keyed-crash-test-dev-secret-0123456789"
	env := append(os.Environ(), "DATA_DIR="+t.TempDir(), "HTTP_ADDR=127.0.0.1:0", "METRICS_ADDR=127.0.0.1:0", "LOG_LEVEL=warn",
		"ACCESS_LOG=false", "AUTH_DEV_SECRET="+secret, "RATE_LIMIT_RPS=0")
	if perWrite {
		env = append(env, "MARKETPLACE_FAULT_PER_WRITE=1")
	}
	mint := func(sub string, roles ...string) string {
		tok, err := auth.Mint([]byte(secret), sub, roles, time.Hour, auth.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	c := &crashClient{t: t, admin: mint("admin-1", "admin"), owner: mint("owner-1")}
	start := func(fault string) {
		c.p = startMarketplace(t, bin, append(env, "MARKETPLACE_FAULT="+fault))
	}
	const (
		ops       = "admins.payoutOperations."
		adjust    = ops + "adjustWalletBalance"
		request   = "stores.payouts.requestPayout"
		approve   = ops + "approvePayout"
		process   = ops + "markPayoutAsProcessing"
		complete  = ops + "completePayout"
		reject    = ops + "rejectPayout"
		fail      = ops + "markPayoutAsFailed"
		releaseOp = ops + "releaseDueEarnings"
	)

	start("after-commit:" + adjust)
	c.ok(c.admin, "admins.platformAdmin.createInitialPlatformConfig", `{"adminUserId":"admin-1"}`)
	city := c.ok(c.admin, "admins.catalog.createCity", `{"name":"Dubai","nameArabic":"دبي"}`).str()
	area := c.ok(c.admin, "admins.catalog.createArea", fmt.Sprintf(`{"name":"Marina","city":%q}`, city)).str()
	cat := c.ok(c.admin, "admins.catalog.createCategory", `{"name":"Bakery","nameArabic":"مخبز"}`).str()
	storeID := c.ok(c.admin, "admins.catalog.createStore", fmt.Sprintf(`{"name":"Marina Bakery","ownerUserId":"owner-1","ownerName":"Sara",
		"ownerPhone":"+971501234567","primaryCategoryId":%q,"city":%q,"area":%q,"latitude":25.08,"longitude":55.14}`, cat, city, area)).str()
	wallet := c.waitOK(c.owner, "stores.wallet.getWallet", fmt.Sprintf(`{"storeId":%q}`, storeID))
	walletID := wallet.field("_id").(string)
	bank := `{"IBAN":"AE070331234567890123456","bankName":"Bank","accountHolderName":"Sara"}`
	payoutArgs := fmt.Sprintf(`{"storeId":%q,"amount":150,"bankDetails":%s}`, storeID, bank)

	// Each step: the keyed call whose commit the running process dies after,
	// then the restart (with the next step's fault point) and the retry.
	type step struct {
		path, token, key, args string
		before                 func() // in the process that dies, before the call
	}
	var p1, p2, p3 string
	steps := []step{
		{path: adjust, token: c.admin, key: "k-adjust",
			args: fmt.Sprintf(`{"storeId":%q,"walletId":%q,"adjustmentType":"add_balance","amount":1000,"reason":"opening","adminUserId":"admin-1"}`, storeID, walletID)},
		{path: request, token: c.owner, key: "k-request", args: payoutArgs, before: func() {
			p2 = c.ok(c.owner, request, payoutArgs).str()
			p3 = c.ok(c.owner, request, payoutArgs).str()
		}},
		{path: approve, token: c.admin, key: "k-approve", before: func() { p1 = c.last.str() }},
		{path: process, token: c.admin, key: "k-process"},
		{path: complete, token: c.admin, key: "k-complete"},
		{path: reject, token: c.admin, key: "k-reject"},
		{path: fail, token: c.admin, key: "k-fail", before: func() {
			c.ok(c.admin, approve, fmt.Sprintf(`{"payoutId":%q,"adminUserId":"admin-1"}`, p3))
			c.ok(c.admin, process, fmt.Sprintf(`{"payoutId":%q,"adminUserId":"admin-1","processingMethod":"manual"}`, p3))
		}},
		{path: releaseOp, token: c.admin, key: "k-release", args: `{"adminUserId":"admin-1"}`},
	}
	argsOf := func(s step) string {
		switch s.path {
		case approve, complete:
			return fmt.Sprintf(`{"payoutId":%q,"adminUserId":"admin-1"}`, p1)
		case process:
			return fmt.Sprintf(`{"payoutId":%q,"adminUserId":"admin-1","processingMethod":"bank_transfer","transactionReference":"TRX-1"}`, p1)
		case reject:
			return fmt.Sprintf(`{"payoutId":%q,"adminUserId":"admin-1","rejectionReason":"wrong account"}`, p2)
		case fail:
			return fmt.Sprintf(`{"payoutId":%q,"adminUserId":"admin-1","failureReason":"bounced","restoreBalance":true}`, p3)
		}
		return s.args
	}
	for i, s := range steps {
		if s.before != nil {
			s.before()
		}
		args := argsOf(s)
		if _, err := c.call(s.token, s.path, args, s.key); err == nil {
			t.Fatalf("%s: answered, want the process killed after its commit", s.path)
		}
		c.waitDead()
		next := ""
		if i+1 < len(steps) {
			next = "after-commit:" + steps[i+1].path
		}
		start(next)
		r, err := c.call(s.token, s.path, args, s.key)
		if err != nil || r.status != 200 || !r.replayed {
			t.Fatalf("%s retried after the crash: %+v %v, want the kept answer (200, replayed)", s.path, r, err)
		}
		c.last = r
		t.Logf("%s: replayed (%d bytes)", s.path, len(r.body))
	}

	// Each move happened once: 1,000 AED in; P1 paid, P2 rejected and P3
	// failed (both returned); three payouts only.
	payouts := c.ok(c.owner, "stores.payouts.listPayouts", fmt.Sprintf(`{"storeId":%q,"paginationOpts":{"numItems":50,"cursor":null}}`, storeID)).field("page").([]any)
	states := map[string]string{}
	for _, p := range payouts {
		m := p.(map[string]any)
		states[m["_id"].(string)] = m["status"].(string)
	}
	if len(states) != 3 || states[p1] != "completed" || states[p2] != "cancelled" || states[p3] != "failed" {
		t.Fatalf("payouts after the crashes: %v (want %s completed, %s cancelled, %s failed)", states, p1, p2, p3)
	}
	w := c.ok(c.owner, "stores.wallet.getWallet", fmt.Sprintf(`{"storeId":%q}`, storeID))
	if got := w.field("availableBalance"); got != 850.0 {
		t.Fatalf("available balance %v after the crashes, want 850 (1,000 in, one payout of 150 paid)", got)
	}

	// A kill before the commit: nothing kept, and the key free at once.
	c.p.stop(t)
	start("before-commit:" + adjust)
	bonus := fmt.Sprintf(`{"storeId":%q,"walletId":%q,"adjustmentType":"add_balance","amount":5,"reason":"bonus","adminUserId":"admin-1"}`, storeID, walletID)
	if _, err := c.call(c.admin, adjust, bonus, "k-cut"); err == nil {
		t.Fatal("answered, want the process killed before its commit")
	}
	c.waitDead()
	start("")
	restarted := time.Now()
	for {
		r, err := c.call(c.admin, adjust, bonus, "k-cut")
		if err != nil {
			t.Fatal(err)
		}
		if r.status == 200 && !r.replayed {
			t.Logf("the key cut off by the crash ran %s after the restart", time.Since(restarted).Round(time.Millisecond))
			break
		}
		if time.Since(restarted) > 10*time.Second {
			t.Fatalf("the key cut off by the crash: %+v 10 s after the restart, want it run", r)
		}
		time.Sleep(200 * time.Millisecond)
	}
	w = c.ok(c.owner, "stores.wallet.getWallet", fmt.Sprintf(`{"storeId":%q}`, storeID))
	if got := w.field("availableBalance"); got != 855.0 {
		t.Fatalf("available balance %v, want 855 (the cut-off adjustment once)", got)
	}
	c.p.stop(t)
}

// crashClient calls the running all-in-one's API.
type crashClient struct {
	t            *testing.T
	p            *process
	admin, owner string
	last         crashAnswer
}

type crashAnswer struct {
	status   int
	body     string
	replayed bool
}

func (a crashAnswer) str() string {
	var s string
	if err := json.Unmarshal([]byte(a.body), &s); err != nil {
		panic(fmt.Sprintf("answer %s is not a string", a.body))
	}
	return s
}

func (a crashAnswer) field(name string) any {
	var m map[string]any
	if err := json.Unmarshal([]byte(a.body), &m); err != nil {
		panic(fmt.Sprintf("answer %s is not an object", a.body))
	}
	return m[name]
}

var crashHTTP = &http.Client{Timeout: 30 * time.Second}

// call sends a mutation (a query for the get*, list* and reconcile*
// operations) with an Idempotency-Key when key is set.
func (c *crashClient) call(token, path, args, key string) (crashAnswer, error) {
	return crashCall(c.p.url, token, path, args, key)
}

// crashCall is call to the all-in-one at url; clients of a process that is
// killed and started again (on another port) call it concurrently.
func crashCall(url, token, path, args, key string) (crashAnswer, error) {
	kind := "mutation"
	if i := strings.LastIndex(path, "."); strings.HasPrefix(path[i+1:], "get") || strings.HasPrefix(path[i+1:], "list") || strings.HasPrefix(path[i+1:], "reconcile") {
		kind = "query"
	}
	if args == "" {
		args = "{}"
	}
	req, _ := http.NewRequest(http.MethodPost, url+"/api/"+kind, bytes.NewReader([]byte(`{"path":"`+path+`","args":`+args+`}`)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := crashHTTP.Do(req)
	if err != nil {
		return crashAnswer{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return crashAnswer{}, err
	}
	return crashAnswer{status: resp.StatusCode, body: string(b), replayed: resp.Header.Get("Idempotent-Replayed") == "true"}, nil
}

func (c *crashClient) ok(token, path, args string) crashAnswer {
	c.t.Helper()
	r, err := c.call(token, path, args, "")
	if err != nil || r.status != 200 {
		c.t.Fatalf("%s: %+v %v", path, r, err)
	}
	c.last = r
	return r
}

// waitOK calls until the answer is 200 (a record another service makes from
// an event), for at most 30 s.
func (c *crashClient) waitOK(token, path, args string) crashAnswer {
	c.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r, err := c.call(token, path, args, "")
		if err == nil && r.status == 200 {
			return r
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("%s: %+v %v after 30 s", path, r, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitDead waits for the process killed by its fault point.
func (c *crashClient) waitDead() {
	c.t.Helper()
	select {
	case <-c.p.done:
	case <-time.After(30 * time.Second):
		c.t.Fatal("the process did not die at its fault point")
	}
}
