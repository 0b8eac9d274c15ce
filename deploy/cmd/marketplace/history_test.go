package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"marketplace/libs/auth"
)

// Concurrent wallet operations stay linearizable while the process is
// killed (issue 31, item 8; docs/adr/0152-wallet-history-check.md). Clients
// call the real all-in-one binary (built with its fault points) at once on
// the wallets of three stores: adjustments of every type, payout requests,
// every administrator's move of the payouts (both ways of a failure), and
// reads; and one more client's orders, paid through the processor
// simulator, delivered, refunded and disputed, whose wallet effects are
// applied at a moment unseen (historyorders_test.go). The process
// dies mid-run — at a fault point (SIGKILL right before
// or after a keyed call's commit) and by the test's own SIGKILL at an
// arbitrary moment — and starts again on the same DATA_DIR. Every mutation
// carries an Idempotency-Key; a call cut by a kill is retried with its key
// and counts as one operation from its first call to the retry's answer,
// and some cut by the test's SIGKILL are given up (no answer: they may or
// may not have happened). The recorded history is checked against the
// wallet's sequential specification (historymodel_test.go) with porcupine:
// some order of the operations, each at an instant between its call and
// its answer, must explain every answer. Reads a kill may have made stale
// from the future (a commit seen a moment before it was durable,
// docs/adr/0104-group-commit.md) are left out unless a later write of the
// same process confirms them (confirmedReads). A failure writes
// porcupine's view of the history (HTML) and names it. After the run every
// wallet reconciles with its ledger.
//
// The short form runs in `make test` (4 clients, 500 operations, 2 kills);
// HISTORY=long (make test-history) runs 12 clients, 20,000 operations and
// 6 kills.
func TestWalletHistoryIsLinearizable(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the all-in-one three times or more")
	}
	cfg := historyShort
	if os.Getenv("HISTORY") == "long" {
		cfg = historyLong
	}
	bin := buildMarketplace(t, "faultpoints")
	started := time.Now()
	r := newHistoryRun(t, bin, cfg)
	r.setup()
	t.Logf("built and set up in %s", time.Since(started).Round(time.Millisecond))
	r.run()
	t.Logf("clients done in %s", time.Since(r.t0).Round(time.Millisecond))
	r.finish()
	t.Logf("%s history: %d operations by %d clients in %s (%d kills: %s); %d calls cut and retried (%d answers replayed), %d given up; %s",
		cfg.name, len(r.history), cfg.clients, time.Since(started).Round(time.Millisecond), len(r.kills), strings.Join(r.kills, ", "),
		r.retried.Load(), r.replayed.Load(), r.abandoned.Load(), historySummary(r.history))
	if len(r.kills) < cfg.kills {
		t.Errorf("%d kills, want %d", len(r.kills), cfg.kills)
	}
	if r.abandoned.Load() == 0 {
		t.Error("no call was given up: the unanswered path was not exercised")
	}
	if r.replayed.Load() == 0 {
		t.Error("no call cut by a kill after its commit was answered by replay: the crash path was not exercised")
	}
	killed := map[int]bool{}
	for k := range r.kills {
		killed[k] = true
	}
	history, dropped := confirmedReads(r.history, killed)
	t.Logf("%d reads answered by a process right before its kill, with no later write of it confirming them, left out", dropped)
	checkStarted := time.Now()
	res, path, err := checkWalletHistory(history, cfg.check, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("porcupine: %s in %s", res, time.Since(checkStarted).Round(time.Millisecond))
	if res != porcupine.Ok {
		t.Fatalf("the wallet history is %s (not shown linearizable): porcupine's view of it is %s", res, path)
	}
}

type historyConfig struct {
	name                  string
	clients, ops, kills   int
	orders                int           // paid, delivered, some refunded (historyorders_test.go)
	check                 time.Duration // porcupine's time limit
	adjust, request, move int           // percentages of the operations (the rest: reads)
}

var (
	historyShort = historyConfig{name: "short", clients: 4, ops: 500, kills: 2, check: time.Minute, adjust: 30, request: 20, move: 30, orders: 4}
	historyLong  = historyConfig{name: "long", clients: 12, ops: 20_000, kills: 6, check: 20 * time.Minute, adjust: 30, request: 20, move: 30, orders: 60}
)

// historyFaults are the fault points the processes started after a
// SIGKILL are armed with, in turn: the first keyed call of that operation
// kills the process, right before or right after its commit.
var historyFaults = []string{
	"after-commit:stores.payouts.requestPayout",
	"before-commit:admins.payoutOperations.approvePayout",
	"after-commit:admins.payoutOperations.adjustWalletBalance",
	"after-commit:admins.payoutOperations.markPayoutAsFailed",
	"before-commit:stores.payouts.requestPayout",
	"after-commit:admins.payoutOperations.rejectPayout",
}

const historySecret = "wallet-history-test-dev-secret-0123456789"

type historyStore struct {
	id, wallet, owner string // owner: the owner's token
}

// historyPayout is a payout the clients know of (its id from a request's
// answer), with the status last seen.
type historyPayout struct {
	id, status string
}

type historyRun struct {
	t     *testing.T
	bin   string
	cfg   historyConfig
	env   []string
	t0    time.Time
	admin string

	// The process: the test goroutine starts, kills and starts it again;
	// clients read the current one under mu.
	mu      sync.Mutex
	p       *process
	gen     int
	ended   chan struct{} // closed when the current process is gone
	signals map[int]bool  // generations the test killed with SIGKILL
	kills   []string

	stores   []historyStore
	shops    []historyOrderShop // by store
	city     string
	area     string
	started  atomic.Int64 // operations begun
	done     atomic.Int64 // operations answered or given up
	inflight atomic.Int64 // mutations sent and not answered

	hmu        sync.Mutex
	history    []porcupine.Operation
	payouts    map[string][]*historyPayout // by store
	unexpected []string

	retried, replayed, abandoned atomic.Int64
}

func newHistoryRun(t *testing.T, bin string, cfg historyConfig) *historyRun {
	env := append(os.Environ(), "DATA_DIR="+t.TempDir(), "HTTP_ADDR=127.0.0.1:0", "METRICS_ADDR=127.0.0.1:0", "LOG_LEVEL=error",
		"ACCESS_LOG=false", "AUTH_DEV_SECRET="+historySecret, "RATE_LIMIT_RPS=0")
	r := &historyRun{t: t, bin: bin, cfg: cfg, env: env, signals: map[int]bool{}, payouts: map[string][]*historyPayout{}}
	r.admin = r.mint("admin-1", "admin")
	r.start(0)
	return r
}

func (r *historyRun) mint(sub string, roles ...string) string {
	tok, err := auth.Mint([]byte(historySecret), sub, roles, 2*time.Hour, auth.Options{})
	if err != nil {
		r.t.Fatal(err)
	}
	return tok
}

// armed reports whether the process of segment k (the one started after
// the k-th kill) dies at a fault point: every other one, before the last
// kill. The others are killed by the test.
func (r *historyRun) armed(k int) bool { return k < r.cfg.kills && k%2 == 1 }

// start runs the process of segment k.
func (r *historyRun) start(k int) {
	fault := ""
	if r.armed(k) {
		fault = historyFaults[(k/2)%len(historyFaults)]
	}
	p := startMarketplace(r.t, r.bin, append(r.env, "MARKETPLACE_FAULT="+fault))
	r.mu.Lock()
	old := r.ended
	r.p, r.gen, r.ended = p, k, make(chan struct{})
	r.mu.Unlock()
	if old != nil {
		close(old) // the clients cut by the kill call again, on this process
	}
}

// current is the process clients call: its url, its generation and a
// channel closed when it is gone.
func (r *historyRun) current() (string, int, <-chan struct{}) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.p.url, r.gen, r.ended
}

func (r *historyRun) now() int64 { return time.Since(r.t0).Nanoseconds() }

// setup opens three stores, each wallet with a first adjustment, which is
// the first operation of its history.
func (r *historyRun) setup() {
	t := r.t
	c := &crashClient{t: t, admin: r.admin, p: r.p}
	c.ok(c.admin, "admins.platformAdmin.createInitialPlatformConfig", `{"adminUserId":"admin-1"}`)
	city := c.ok(c.admin, "admins.catalog.createCity", `{"name":"Dubai","nameArabic":"دبي"}`).str()
	area := c.ok(c.admin, "admins.catalog.createArea", fmt.Sprintf(`{"name":"Marina","city":%q}`, city)).str()
	cat := c.ok(c.admin, "admins.catalog.createCategory", `{"name":"Bakery","nameArabic":"مخبز"}`).str()
	r.city, r.area = city, area
	r.t0 = time.Now()
	for i := 1; i <= 3; i++ {
		owner := fmt.Sprintf("owner-%d", i)
		id := c.ok(c.admin, "admins.catalog.createStore", fmt.Sprintf(`{"name":"Bakery %d","ownerUserId":%q,"ownerName":"Sara",
			"ownerPhone":"+971501234567","primaryCategoryId":%q,"city":%q,"area":%q,"latitude":25.08,"longitude":55.14}`, i, owner, cat, city, area)).str()
		tok := r.mint(owner)
		wallet := c.waitOK(tok, "stores.wallet.getWallet", fmt.Sprintf(`{"storeId":%q}`, id)).field("_id").(string)
		st := historyStore{id: id, wallet: wallet, owner: tok}
		r.stores = append(r.stores, st)
		product := c.ok(tok, "stores.products.createProduct", fmt.Sprintf(`{"storeId":%q,"name":"Cake","price":%d}`, id, 40+30*i)).str()
		r.shops = append(r.shops, historyOrderShop{product: product})
		in := walletInput{Store: id, Seq: r.cfg.ops + i, Kind: opAdjust, Adjust: "add_balance", Amount: 1000_00}
		r.do(r.cfg.clients, rand.New(rand.NewSource(int64(i))), st, in)
	}
	if len(r.unexpected) > 0 {
		t.Fatalf("opening the wallets: %s", strings.Join(r.unexpected, "; "))
	}
}

// run lets the clients go and kills the process cfg.kills times: by the
// test's SIGKILL at evenly spread counts of operations done, and in
// between at a fault point the process started after a SIGKILL is armed
// with (or by SIGKILL at its turn, if that operation has not come). Each
// time it starts again on the same DATA_DIR.
func (r *historyRun) run() {
	var wg sync.WaitGroup
	for c := 0; c < r.cfg.clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(1000 + c)))
			for {
				seq := r.started.Add(1)
				if seq > int64(r.cfg.ops) {
					return
				}
				r.one(c, rng, int(seq))
				r.done.Add(1)
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		r.orders(r.cfg.clients + 1)
	}()
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for k := 0; ; {
		r.mu.Lock()
		p := r.p
		r.mu.Unlock()
		threshold := int64(-1)
		if k < r.cfg.kills {
			threshold = int64(k+1) * int64(r.cfg.ops) / int64(r.cfg.kills+1)
		}
		how, due := "", time.Time{}
	wait:
		for {
			select {
			case <-finished:
				return
			case err := <-p.done:
				how = fmt.Sprintf("fault point (%v)", err)
				if !r.armed(k) {
					r.t.Errorf("segment %d: the process died unasked: %v", k, err)
				}
				break wait
			case <-tick.C:
				if threshold < 0 || r.done.Load() < threshold {
					break
				}
				if due.IsZero() {
					due = time.Now().Add(2 * time.Second)
				}
				// When a mutation is in flight, so that one is cut (for at
				// most 2 s).
				if r.inflight.Load() > 0 || time.Now().After(due) {
					_ = p.cmd.Process.Kill() // SIGKILL
					<-p.done
					how = fmt.Sprintf("SIGKILL after %d operations", r.done.Load())
					r.mu.Lock()
					r.signals[k] = true
					r.mu.Unlock()
					break wait
				}
			}
		}
		r.kills = append(r.kills, how)
		k++
		r.start(k)
	}
}

// finish reads every wallet once more (the last operations of the
// history) and asks each to reconcile with its ledger.
func (r *historyRun) finish() {
	t := r.t
	for i, st := range r.stores {
		r.do(r.cfg.clients, rand.New(rand.NewSource(int64(i))), st, walletInput{Store: st.id, Seq: r.cfg.ops + 4 + i, Kind: opRead})
	}
	c := &crashClient{t: t, admin: r.admin, p: r.p}
	for _, st := range r.stores {
		rec := c.ok(c.admin, "admins.payoutOperations.reconcileWallet", fmt.Sprintf(`{"storeId":%q}`, st.id))
		if rec.field("consistent") != true {
			t.Errorf("store %s: the wallet does not reconcile with its ledger: %s", st.id, rec.body)
		}
	}
	r.p.stop(t)
	if len(r.unexpected) > 0 {
		t.Errorf("%d unexpected answers (recorded as unanswered): %s", len(r.unexpected), strings.Join(r.unexpected, "; "))
	}
}

// one is a client's next operation, on a store drawn at random.
func (r *historyRun) one(client int, rng *rand.Rand, seq int) {
	st := r.stores[rng.Intn(len(r.stores))]
	in := walletInput{Store: st.id, Seq: seq}
	x := rng.Intn(100)
	switch {
	case x < r.cfg.adjust:
		in.Kind = opAdjust
		kinds := []struct {
			name   string
			weight int
			max    int64
		}{{"add_balance", 30, 800_00}, {"deduct_balance", 20, 400_00}, {"add_pending", 20, 400_00}, {"deduct_pending", 15, 400_00}, {"move_pending_to_available", 15, 400_00}}
		w := rng.Intn(100)
		for _, k := range kinds {
			if w < k.weight {
				in.Adjust, in.Amount = k.name, 1+rng.Int63n(k.max)
				break
			}
			w -= k.weight
		}
	case x < r.cfg.adjust+r.cfg.request:
		in.Kind, in.Amount = opRequest, 100_00+rng.Int63n(500_00)
	case x < r.cfg.adjust+r.cfg.request+r.cfg.move:
		p := r.pickPayout(rng, st.id)
		if p == nil {
			in.Kind = opRead
			break
		}
		in.Kind, in.Payout, in.Move, in.Restore = opMove, p.id, nextMove(rng, p.status), rng.Intn(2) == 0
	default:
		in.Kind = opRead
	}
	r.do(client, rng, st, in)
}

// pickPayout is a payout of the store the clients know, mostly an open one.
func (r *historyRun) pickPayout(rng *rand.Rand, store string) *historyPayout {
	r.hmu.Lock()
	defer r.hmu.Unlock()
	all := r.payouts[store]
	if len(all) == 0 {
		return nil
	}
	if rng.Intn(100) < 85 {
		var open []*historyPayout
		for _, p := range all[max(0, len(all)-200):] {
			if p.status == payoutRequested || p.status == payoutApproved || p.status == payoutProcessing {
				open = append(open, p)
			}
		}
		if len(open) > 0 {
			p := *open[rng.Intn(len(open))]
			return &p
		}
	}
	p := *all[rng.Intn(len(all))]
	return &p
}

// nextMove is mostly a move the status last seen allows, else any.
func nextMove(rng *rand.Rand, status string) string {
	likely := map[string][]string{
		payoutRequested:  {moveApprove, moveApprove, moveReject},
		payoutApproved:   {moveProcessing, moveProcessing, moveFail},
		payoutProcessing: {moveComplete, moveComplete, moveFail},
	}[status]
	if len(likely) == 0 || rng.Intn(100) < 20 {
		likely = []string{moveApprove, moveReject, moveProcessing, moveComplete, moveFail}
	}
	return likely[rng.Intn(len(likely))]
}

func fils(f int64) string { return fmt.Sprintf("%d.%02d", f/100, f%100) }

// request is the call of in: its token, path and arguments.
func (r *historyRun) request(st historyStore, in walletInput) (token, path, args string) {
	const admin = "admins.payoutOperations."
	switch in.Kind {
	case opRead:
		return st.owner, "stores.wallet.getWallet", fmt.Sprintf(`{"storeId":%q}`, st.id)
	case opAdjust:
		return r.admin, admin + "adjustWalletBalance", fmt.Sprintf(`{"storeId":%q,"walletId":%q,"adjustmentType":%q,"amount":%s,"reason":"history","adminUserId":"admin-1"}`,
			st.id, st.wallet, in.Adjust, fils(in.Amount))
	case opRequest:
		return st.owner, "stores.payouts.requestPayout", fmt.Sprintf(`{"storeId":%q,"amount":%s,"bankDetails":{"IBAN":"AE070331234567890123456","bankName":"Bank","accountHolderName":"Sara"}}`,
			st.id, fils(in.Amount))
	}
	extra := ""
	switch in.Move {
	case moveReject:
		extra = `,"rejectionReason":"history check"`
	case moveProcessing:
		extra = `,"processingMethod":"bank_transfer"`
	case moveFail:
		extra = fmt.Sprintf(`,"failureReason":"bounced","restoreBalance":%t`, in.Restore)
	}
	return r.admin, admin + in.Move, fmt.Sprintf(`{"payoutId":%q,"adminUserId":"admin-1"%s}`, in.Payout, extra)
}

// historyMeta is where and when an operation was answered: the process
// (its generation), when the attempt that got the answer was sent, and
// whether that answer was replayed.
type historyMeta struct {
	gen      int
	sent     int64
	replayed bool
}

func (m historyMeta) String() string {
	return fmt.Sprintf("process %d, replayed %t", m.gen, m.replayed)
}

// confirmedReads is the history without the reads a kill may have made
// stale from the future. The embedded engine lets a read see a commit a
// moment before it is durable (docs/adr/0104-group-commit.md, as MongoDB's
// read concern local), and a kill in that moment undoes that commit; the
// call that made it never got its answer. The file holds a prefix of the
// commits, so a read is confirmed once its process answered a write
// (committed, so durable before its answer; not a replay) sent after the
// read's answer: that write's commit came after everything the read saw.
// Reads of a process that was not killed are all kept.
func confirmedReads(history []porcupine.Operation, killed map[int]bool) (kept []porcupine.Operation, dropped int) {
	lastWrite := map[int]int64{} // by process: the latest send of a write it answered
	for _, op := range history {
		in, out := op.Input.(walletInput), op.Output.(walletOutput)
		m, ok := op.Metadata.(historyMeta)
		if ok && in.Kind != opRead && out.Answered && out.Refusal == "" && !m.replayed && m.sent > lastWrite[m.gen] {
			lastWrite[m.gen] = m.sent
		}
	}
	for _, op := range history {
		m, ok := op.Metadata.(historyMeta)
		if ok && op.Input.(walletInput).Kind == opRead && killed[m.gen] && lastWrite[m.gen] <= op.Return {
			dropped++
			continue
		}
		kept = append(kept, op)
	}
	return kept, dropped
}

// do runs in and records it. A mutation cut by a kill is retried with its
// key once the process is back (a few cut by the test's SIGKILL are given
// up: recorded without an answer); a read cut by a kill is dropped (it
// changed nothing).
func (r *historyRun) do(client int, rng *rand.Rand, st historyStore, in walletInput) walletOutput {
	token, path, args := r.request(st, in)
	key := ""
	if in.Kind != opRead {
		key = fmt.Sprintf("history-%d", in.Seq)
	}
	op := porcupine.Operation{ClientId: client, Input: in, Call: r.now()}
	cut, transient := false, 0
	for {
		url, gen, ended := r.current()
		sent := r.now()
		if key != "" {
			r.inflight.Add(1)
		}
		ans, err := crashCall(url, token, path, args, key)
		if key != "" {
			r.inflight.Add(-1)
		}
		if err != nil {
			if in.Kind == opRead {
				return walletOutput{}
			}
			select {
			case <-ended:
			case <-time.After(2 * time.Second): // not a kill: the same process again
			}
			r.mu.Lock()
			signalled := r.signals[gen]
			r.mu.Unlock()
			if !cut {
				cut = true
				r.retried.Add(1)
			}
			// The first call cut by the test's SIGKILL is given up, then one
			// in four: an operation without an answer.
			if signalled && (r.abandoned.Load() == 0 || rng.Intn(4) == 0) {
				r.abandoned.Add(1)
				op.Output, op.Return = walletOutput{}, math.MaxInt64
				r.record(op, nil)
				return op.Output.(walletOutput)
			}
			continue
		}
		out, retry, bad := classify(in, ans)
		if retry && transient < 100 {
			transient++
			time.Sleep(100 * time.Millisecond)
			continue
		}
		if ans.replayed {
			r.replayed.Add(1)
		}
		op.Return = r.now()
		op.Output = out
		op.Metadata = historyMeta{gen: gen, sent: sent, replayed: ans.replayed}
		if bad != "" || retry {
			op.Output, op.Return = walletOutput{}, math.MaxInt64
			bad = fmt.Sprintf("%s %s: %d %s", path, args, ans.status, ans.body)
		}
		r.record(op, &bad)
		return op.Output.(walletOutput)
	}
}

func (r *historyRun) record(op porcupine.Operation, bad *string) {
	r.hmu.Lock()
	defer r.hmu.Unlock()
	r.history = append(r.history, op)
	if bad != nil && *bad != "" {
		r.unexpected = append(r.unexpected, *bad)
	}
	in, out := op.Input.(walletInput), op.Output.(walletOutput)
	switch {
	case out.PayoutID != "":
		r.payouts[in.Store] = append(r.payouts[in.Store], &historyPayout{id: out.PayoutID, status: payoutRequested})
	case out.Payout != nil || out.Refusal == refusalPayoutStatus:
		status := out.Detail
		if out.Payout != nil {
			status = out.Payout.Status
		}
		for _, p := range r.payouts[in.Store] {
			if p.id == in.Payout {
				p.status = status
			}
		}
	}
}

// classify reads an answer: the output, whether to call again (a transient
// error, a key still held by a run the kill cut), or why the answer is not
// one the operation can give.
func classify(in walletInput, ans crashAnswer) (out walletOutput, retry bool, bad string) {
	out.Answered = true
	if ans.status == 200 {
		switch in.Kind {
		case opRead, opAdjust:
			var w struct{ AvailableBalance, PendingBalance, DisputedBalance float64 }
			if err := json.Unmarshal([]byte(ans.body), &w); err != nil {
				return out, false, err.Error()
			}
			out.Wallet = &walletFigures{Available: toFils(w.AvailableBalance), Pending: toFils(w.PendingBalance), Disputed: toFils(w.DisputedBalance)}
		case opRequest:
			if err := json.Unmarshal([]byte(ans.body), &out.PayoutID); err != nil {
				return out, false, err.Error()
			}
		case opMove:
			var p struct {
				Status               string
				RequestedAmount      float64
				BalanceRestored      bool
				CurrentWalletBalance float64
			}
			if err := json.Unmarshal([]byte(ans.body), &p); err != nil {
				return out, false, err.Error()
			}
			out.Payout = &payoutFigures{Status: p.Status, Amount: toFils(p.RequestedAmount), Restored: p.BalanceRestored, Available: toFils(p.CurrentWalletBalance)}
		}
		return out, false, ""
	}
	var body struct {
		Error struct {
			Code    string
			Details map[string]any
		}
	}
	_ = json.Unmarshal([]byte(ans.body), &body)
	e := body.Error
	reason, _ := e.Details["reason"].(string)
	switch {
	case ans.status >= 500 || ans.status == 429 || reason == "idempotency_key_in_use":
		return out, true, ""
	case e.Code != "FAILED_PRECONDITION":
		return out, false, "not a refusal"
	case reason == refusalInsufficient:
		out.Refusal, out.Detail = reason, fmt.Sprint(e.Details["balance"])
		if in.Kind == opRequest {
			a, _ := e.Details["availableBalance"].(float64)
			p, _ := e.Details["pendingBalance"].(float64)
			d, _ := e.Details["disputedBalance"].(float64)
			out.Wallet = &walletFigures{Available: toFils(a), Pending: toFils(p), Disputed: toFils(d)}
		}
	case reason == refusalDebt && in.Kind == opRequest:
		debt, _ := e.Details["debt"].(float64)
		out.Refusal, out.Detail = reason, fmt.Sprint(toFils(debt))
	case reason == refusalPayoutStatus:
		out.Refusal = reason
		if s, ok := e.Details["status"].(string); ok {
			out.Detail = s
		} else {
			out.Refusal = refusalChanged
		}
	default:
		return out, false, "refused for another reason"
	}
	return out, false, ""
}

// historySummary counts the operations by kind and outcome.
func historySummary(h []porcupine.Operation) string {
	counts, seen := map[string]int{}, map[string]bool{}
	var kinds []string
	for _, op := range h {
		in, out := op.Input.(walletInput), op.Output.(walletOutput)
		k := in.Kind
		if in.Kind == opMove {
			k = in.Move
		}
		if !seen[k] {
			seen[k] = true
			kinds = append(kinds, k)
		}
		switch {
		case out.Applied:
			counts[k+" applied"]++
		case !out.Answered:
			counts[k+" unanswered"]++
		case out.Refusal != "":
			counts[k+" "+out.Refusal]++
		default:
			counts[k+" ok"]++
		}
	}
	var parts []string
	for _, k := range kinds {
		var ps []string
		for _, o := range []string{"ok", refusalInsufficient, refusalDebt, refusalPayoutStatus, refusalChanged, "applied", "unanswered"} {
			if n := counts[k+" "+o]; n > 0 {
				ps = append(ps, fmt.Sprintf("%d %s", n, o))
			}
		}
		parts = append(parts, k+": "+strings.Join(ps, ", "))
	}
	return strings.Join(parts, "; ")
}

func toFils(aed float64) int64 { return int64(math.Round(aed * 100)) }

// checkWalletHistory checks history against the wallets' specification
// within timeout. Unless it is shown linearizable, porcupine's view of it
// (HTML: each client's operations in time, the longest order found that
// explains them, the state after each) is written into dir (a new
// directory, kept, when dir is "") and its path returned.
func checkWalletHistory(history []porcupine.Operation, timeout time.Duration, dir string) (porcupine.CheckResult, string, error) {
	model := walletModel()
	res, info := porcupine.CheckOperationsVerbose(model, history, timeout)
	if res == porcupine.Ok {
		return res, "", nil
	}
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "wallet-history-"); err != nil {
			return res, "", err
		}
	}
	path := filepath.Join(dir, "wallet-history.html")
	if err := porcupine.VisualizePath(model, info, path); err != nil {
		return res, "", err
	}
	return res, path, nil
}
