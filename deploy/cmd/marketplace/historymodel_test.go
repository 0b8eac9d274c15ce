package main

import (
	"fmt"
	"hash/fnv"
	"maps"
	"slices"
	"strings"

	"github.com/anishathalye/porcupine"
)

// The sequential specification of a store's wallet that the recorded
// history of TestWalletHistoryIsLinearizable is checked against
// (porcupine; docs/adr/0152-wallet-history-check.md). It is written from the
// marketplace interface (sections 3.1 and 4.4), not from the payouts
// service's code: a model that called the code under test would agree with
// it whatever it did.
//
// One wallet per partition (a store's operations never touch another's).
// The state is the wallet's balances and each of its payouts' status and
// amount. Each kind of operation is a rule (walletRules): from a state and
// an input, what the wallet must answer — a success with the figures its
// answer shows and the state after it, or a refusal with its reason. Step
// compares the recorded answer with the rule's. An operation that got no
// answer (its call cut by a kill and never retried) may or may not have
// happened: the model is nondeterministic only there, with both states.
//
// The money after an order (ADR 0147) is in the state too: a Disputed
// balance, an Available that may be negative (requests are then refused
// wallet_in_debt before the amount rules) and each order's money (R, the
// share reversed before its credit, what its earning still holds, its
// dispute). Its effects come by events at a moment no answer shows: their
// output is Applied (surely happened between the trigger's call and when
// the test saw it settle), whose step has only the rule's next state. The
// D1 split (commissionCum, split) is computed here from the order's total
// and commission, as the interface defines it. To add an operation, give
// walletInput its arguments and add a rule to walletRules; a new refusal
// is a new reason string, checked before the ones it overrides.

// Operation kinds.
const (
	opRead    = "getWallet"
	opAdjust  = "adjustWalletBalance"
	opRequest = "requestPayout"
	opMove    = "movePayout" // approvePayout, rejectPayout, ... (walletInput.Move)

	// The money after an order (docs/adr/0147-wallet-debt-disputes-statements.md):
	// effects of events, each applied once some time after its trigger.
	opCredit       = "creditEarning" // the delivered order's earning, into pending
	opRefund       = "reverseRefund" // a succeeded refund's store share leaves
	opDisputeOpen  = "holdDispute"   // an opened dispute's store share goes into disputed
	opDisputeClose = "closeDispute"  // won: back where held from; lost: leaves, with the fee
)

// Refusal reasons: details.reason of the FAILED_PRECONDITION answers, and
// refusalChanged for a payout_status refusal that names no status (the
// payout was moved by a concurrent call between its read and its write).
const (
	refusalInsufficient = "insufficient_balance"
	refusalPayoutStatus = "payout_status"
	refusalChanged      = "payout_changed_meanwhile"
	refusalDebt         = "wallet_in_debt"
)

// Payout statuses and moves (marketplace interface section 3.1).
const (
	payoutRequested  = "requested"
	payoutApproved   = "approved"
	payoutProcessing = "processing"
	payoutCompleted  = "completed"
	payoutCancelled  = "cancelled"
	payoutFailed     = "failed"

	moveApprove    = "approvePayout"
	moveReject     = "rejectPayout"
	moveProcessing = "markPayoutAsProcessing"
	moveComplete   = "completePayout"
	moveFail       = "markPayoutAsFailed"
)

// payoutMoves: the statuses each move starts from and the one it leads to;
// whether it returns the amount to the available balance (restore: the
// administrator's restoreBalance of a failure).
var payoutMoves = map[string]struct {
	from     []string
	to       string
	restores func(restore bool) bool
}{
	moveApprove:    {[]string{payoutRequested}, payoutApproved, func(bool) bool { return false }},
	moveReject:     {[]string{payoutRequested}, payoutCancelled, func(bool) bool { return true }},
	moveProcessing: {[]string{payoutApproved}, payoutProcessing, func(bool) bool { return false }},
	moveComplete:   {[]string{payoutProcessing}, payoutCompleted, func(bool) bool { return false }},
	moveFail:       {[]string{payoutApproved, payoutProcessing}, payoutFailed, func(r bool) bool { return r }},
}

// adjustments: what each adjustWalletBalance type does per fils of its
// amount (section 4.4).
var adjustments = map[string]walletFigures{
	"add_balance":               {Available: 1},
	"deduct_balance":            {Available: -1},
	"add_pending":               {Pending: 1},
	"deduct_pending":            {Pending: -1},
	"move_pending_to_available": {Available: 1, Pending: -1},
}

// walletInput is one operation's call. Amounts are in fils.
type walletInput struct {
	Store   string // the partition: the store whose wallet it is
	Seq     int    // the operation's number in the history
	Kind    string // opRead, opAdjust, opRequest, opMove
	Adjust  string // opAdjust: the adjustment type
	Amount  int64  // opAdjust, opRequest
	Payout  string // opMove: the payout's id
	Move    string // opMove: the operation (moveApprove...)
	Restore bool   // moveFail: restoreBalance

	// An order's effects (opCredit, opRefund, opDispute*): the order and
	// its figures as paid (Total, its PlatformCommission and the store's
	// StoreEarnings = Total − Commission), the refund's or dispute's
	// Amount, a closing's Outcome (won|lost) and the dispute fee charged to
	// the store (Fee).
	Order                       string
	Total, Commission, Earnings int64
	Outcome                     string
	Fee                         int64
}

// walletOutput is what the call got back.
type walletOutput struct {
	// Answered is false for a call that never got an answer: it may have
	// happened or not.
	Answered bool
	// Applied: an effect that surely happened between the trigger's call
	// and the moment the test saw it settled (or the end of the run), with
	// no answer of its own to compare.
	Applied bool
	Refusal string // "" for a success, else the refusal's reason
	// Detail is a refusal's detail: which balance was short
	// (insufficient_balance), the payout's status (payout_status).
	Detail string
	// Wallet are the balances the answer shows: getWallet's,
	// adjustWalletBalance's, an insufficient requestPayout's details.
	Wallet *walletFigures
	// PayoutID is requestPayout's answer.
	PayoutID string
	// Payout is a move's answer.
	Payout *payoutFigures
}

type walletFigures struct{ Available, Pending, Disputed int64 }

// payoutFigures are what a move's answer shows: the payout's status,
// amount and balanceRestored, and the wallet's available balance after the
// move (currentWalletBalance).
type payoutFigures struct {
	Status    string
	Amount    int64
	Restored  bool
	Available int64
}

// walletState is a wallet as the specification has it. It is a value:
// payouts and orders are never changed once made (withPayout and
// withOrder copy them). Available may be negative (a debt); pending and
// disputed never are.
type walletState struct {
	Available, Pending, Disputed int64
	payouts                      map[string]payoutState
	payoutsHash                  uint64 // xor of payoutHash over payouts
	orders                       map[string]orderState
	ordersHash                   uint64 // xor of orderHash over orders
	credits                      int    // earnings credited so far: the next one's rank
}

type payoutState struct {
	Status string
	Amount int64
}

// orderState is an order's money as the wallet holds it (ADR 0147).
type orderState struct {
	Reversed    int64 // R: refunded plus lost in disputes
	StoreBefore int64 // the store's share reversed before the credit
	Credited    bool
	Rank        int   // the credit's place: held earnings are taken oldest first
	Held        int64 // what of its earning the pending balance still holds
	// One dispute at most: its status ("" none, open, won, lost), amount,
	// the share held in disputed, what of it came from the held earning,
	// and whether it was held (it is, once credited).
	Dispute                                     string
	DisputeAmount, DisputeHeld, DisputeFromHeld int64
	HeldApplied                                 bool
}

func payoutHash(id string, p payoutState) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%s\x00%d", id, p.Status, p.Amount)
	return h.Sum64()
}

func orderHash(id string, o orderState) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%+v", id, o)
	return h.Sum64()
}

func (s walletState) withOrder(id string, o orderState) walletState {
	next := maps.Clone(s.orders)
	if next == nil {
		next = map[string]orderState{}
	}
	if old, ok := next[id]; ok {
		s.ordersHash ^= orderHash(id, old)
	}
	next[id] = o
	s.ordersHash ^= orderHash(id, o)
	s.orders = next
	return s
}

func (s walletState) withPayout(id string, p payoutState) walletState {
	next := maps.Clone(s.payouts)
	if next == nil {
		next = map[string]payoutState{}
	}
	if old, ok := next[id]; ok {
		s.payoutsHash ^= payoutHash(id, old)
	}
	next[id] = p
	s.payoutsHash ^= payoutHash(id, p)
	s.payouts = next
	return s
}

func (s walletState) plus(d walletFigures) walletState {
	s.Available += d.Available
	s.Pending += d.Pending
	s.Disputed += d.Disputed
	return s
}

func (s walletState) figures() *walletFigures {
	return &walletFigures{Available: s.Available, Pending: s.Pending, Disputed: s.Disputed}
}

func (s walletState) hash() uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%d/%d/%d/%d/%d", s.Available, s.Pending, s.Disputed, len(s.payouts), len(s.orders), s.credits)
	return h.Sum64() ^ s.payoutsHash ^ s.ordersHash
}

func (s walletState) equal(o walletState) bool {
	if s.Available != o.Available || s.Pending != o.Pending || s.Disputed != o.Disputed || s.credits != o.credits ||
		s.payoutsHash != o.payoutsHash || len(s.payouts) != len(o.payouts) ||
		s.ordersHash != o.ordersHash || len(s.orders) != len(o.orders) {
		return false
	}
	for id, p := range s.payouts {
		if q, ok := o.payouts[id]; !ok || q != p {
			return false
		}
	}
	for id, p := range s.orders {
		if q, ok := o.orders[id]; !ok || q != p {
			return false
		}
	}
	return true
}

// takeHeld lowers the held earnings by amount, oldest credit first (a
// pending-lowering adjustment's take; what they do not cover came from
// other pending credits).
func (s walletState) takeHeld(amount int64) walletState {
	ids := slices.Collect(maps.Keys(s.orders))
	slices.SortFunc(ids, func(a, b string) int { return s.orders[a].Rank - s.orders[b].Rank })
	for _, id := range ids {
		o := s.orders[id]
		if amount == 0 {
			break
		}
		if !o.Credited || o.Held <= 0 {
			continue
		}
		take := min(amount, o.Held)
		o.Held -= take
		amount -= take
		s = s.withOrder(id, o)
	}
	return s
}

// commissionCum and split are the refund split of the decision D1
// (ADR 0146, 0147), as the interface defines it: the commission is
// reversed in proportion, cumulatively, rounded half up on the cumulative
// amount; a reversal of a on an order already reversed by r takes
// commission commissionCum(r+a) − commissionCum(r), the store the rest.
func commissionCum(total, commission, r int64) int64 {
	if total <= 0 {
		return 0
	}
	return (commission*r + total/2) / total
}

func split(total, commission, before, amount int64) (store int64) {
	return amount - (commissionCum(total, commission, before+amount) - commissionCum(total, commission, before))
}

// fromHeldThenAvailable takes share from the order's held earning first
// (the pending balance), the rest from available, which may go negative;
// it says how much came from the held earning.
func (s walletState) fromHeldThenAvailable(id string, o orderState, share int64) (walletState, orderState, int64) {
	fromHeld := min(share, max(o.Held, 0))
	o.Held -= fromHeld
	s = s.plus(walletFigures{Pending: -fromHeld, Available: -(share - fromHeld)})
	return s, o, fromHeld
}

// verdict is what a rule says the wallet must answer. A verdict with bad
// set matches no answer.
type verdict struct {
	next     walletState // after a success
	refusal  string
	detail   string
	wallet   *walletFigures
	payoutID string
	payout   *payoutFigures
	bad      string
}

func refused(reason, detail string, wallet *walletFigures) verdict {
	return verdict{refusal: reason, detail: detail, wallet: wallet}
}

// walletRule is an operation kind's specification. out is the recorded
// answer, for what the specification cannot choose (the id of a new payout).
type walletRule func(s walletState, in walletInput, out walletOutput) verdict

var walletRules = map[string]walletRule{
	// A read shows the balances.
	opRead: func(s walletState, _ walletInput, _ walletOutput) verdict {
		return verdict{next: s, wallet: s.figures()}
	},
	// An adjustment changes the balances and answers the wallet; one that
	// would overdraw a balance is refused, the available balance checked
	// first, and changes nothing.
	opAdjust: func(s walletState, in walletInput, _ walletOutput) verdict {
		per, ok := adjustments[in.Adjust]
		if !ok {
			return verdict{bad: "unknown adjustment type " + in.Adjust}
		}
		d := walletFigures{Available: per.Available * in.Amount, Pending: per.Pending * in.Amount}
		if short := shortOf(s, d); short != "" {
			return refused(refusalInsufficient, short, nil)
		}
		next := s.plus(d)
		if d.Pending < 0 { // taken from the held earnings first
			next = next.takeHeld(-d.Pending)
		}
		return verdict{next: next, wallet: next.figures()}
	},
	// A payout request takes its amount from the available balance and
	// opens a payout, requested, under a new id; one the available balance
	// cannot cover is refused with the balances as read.
	opRequest: func(s walletState, in walletInput, out walletOutput) verdict {
		if s.Available < 0 { // in debt: refused before the amount rules
			return refused(refusalDebt, fmt.Sprint(-s.Available), nil)
		}
		if s.Available < in.Amount {
			return refused(refusalInsufficient, "available", s.figures())
		}
		id := fmt.Sprintf("unanswered-%d", in.Seq) // a request whose answer was lost: its payout's id is unknown
		if out.Answered {
			id = out.PayoutID
		}
		if _, taken := s.payouts[id]; taken || id == "" {
			return verdict{bad: fmt.Sprintf("payout id %q is not new", id)}
		}
		next := s.plus(walletFigures{Available: -in.Amount}).withPayout(id, payoutState{Status: payoutRequested, Amount: in.Amount})
		return verdict{next: next, payoutID: id}
	},
	// A move goes along payoutMoves and answers the payout; from any other
	// status it is refused with the status, and changes nothing.
	opMove: func(s walletState, in walletInput, _ walletOutput) verdict {
		m, ok := payoutMoves[in.Move]
		if !ok {
			return verdict{bad: "unknown move " + in.Move}
		}
		p, ok := s.payouts[in.Payout]
		if !ok {
			return verdict{bad: "no payout " + in.Payout + " in this wallet"}
		}
		if !slices.Contains(m.from, p.Status) {
			return refused(refusalPayoutStatus, p.Status, nil)
		}
		restores := m.restores(in.Restore)
		next := s.withPayout(in.Payout, payoutState{Status: m.to, Amount: p.Amount})
		if restores {
			next = next.plus(walletFigures{Available: p.Amount})
		}
		return verdict{next: next, payout: &payoutFigures{Status: m.to, Amount: p.Amount, Restored: restores, Available: next.Available}}
	},
	// A delivered order's earning is credited to pending and held: its
	// store earnings less the share refunds or lost disputes reversed
	// before. A dispute still open then has its share held.
	opCredit: func(s walletState, in walletInput, _ walletOutput) verdict {
		o := s.orders[in.Order]
		if o.Credited {
			return verdict{bad: "order " + in.Order + " credited twice"}
		}
		credit := max(in.Earnings-o.StoreBefore, 0)
		o.Credited, o.Rank, o.Held = true, s.credits, credit
		s.credits++
		s = s.plus(walletFigures{Pending: credit})
		if o.Dispute == disputeOpen && !o.HeldApplied {
			share := split(in.Total, in.Commission, o.Reversed, min(o.DisputeAmount, in.Total-o.Reversed))
			s, o, o.DisputeFromHeld = s.fromHeldThenAvailable(in.Order, o, share)
			s = s.plus(walletFigures{Disputed: share})
			o.DisputeHeld, o.HeldApplied = share, true
		}
		return verdict{next: s.withOrder(in.Order, o)}
	},
	// A succeeded refund reverses its D1 store share: before the credit it
	// lowers the credit; after, from the order's held earning first, then
	// from available (which may go negative).
	opRefund: func(s walletState, in walletInput, _ walletOutput) verdict {
		o := s.orders[in.Order]
		a := min(in.Amount, in.Total-o.Reversed)
		if a <= 0 {
			return verdict{bad: "a refund beyond the order's total"}
		}
		share := split(in.Total, in.Commission, o.Reversed, a)
		o.Reversed += a
		if !o.Credited {
			o.StoreBefore += share
		} else {
			s, o, _ = s.fromHeldThenAvailable(in.Order, o, share)
		}
		return verdict{next: s.withOrder(in.Order, o)}
	},
	// An opened dispute's D1 share (given what was reversed) goes into
	// disputed, from the held earning first, then available; before the
	// credit, at the credit.
	opDisputeOpen: func(s walletState, in walletInput, _ walletOutput) verdict {
		o := s.orders[in.Order]
		if o.Dispute != "" {
			return verdict{bad: "a second dispute of order " + in.Order}
		}
		o.Dispute, o.DisputeAmount = disputeOpen, in.Amount
		if o.Credited {
			share := split(in.Total, in.Commission, o.Reversed, min(in.Amount, in.Total-o.Reversed))
			s, o, o.DisputeFromHeld = s.fromHeldThenAvailable(in.Order, o, share)
			s = s.plus(walletFigures{Disputed: share})
			o.DisputeHeld, o.HeldApplied = share, true
		}
		return verdict{next: s.withOrder(in.Order, o)}
	},
	// Won, the held share goes back where it was held from: what came from
	// the order's held earning to it (pending: released at the earning's
	// own time, which never comes within a history: earnings are held 7
	// days), the rest to available. Lost, the amount counts
	// in R: the store's D1 share leaves (what was held from disputed, any
	// more from available, any less back as a win's: from the held earning
	// to it, the rest to available) and the fee is taken from available.
	// Before the credit nothing was held: won, nothing moves; lost, the
	// share lowers the credit (as a refund's) and only the fee leaves.
	opDisputeClose: func(s walletState, in walletInput, _ walletOutput) verdict {
		o := s.orders[in.Order]
		if o.Dispute != disputeOpen {
			return verdict{bad: "closing no open dispute of order " + in.Order}
		}
		held := o.DisputeHeld
		s = s.plus(walletFigures{Disputed: -held})
		switch in.Outcome {
		case disputeWon:
			back := min(o.DisputeFromHeld, held)
			o.Held += back
			s = s.plus(walletFigures{Pending: back, Available: held - back})
		case disputeLost:
			a := min(o.DisputeAmount, in.Total-o.Reversed)
			store := split(in.Total, in.Commission, o.Reversed, a)
			o.Reversed += a
			if !o.Credited {
				// Nothing of the order is in the wallet (nothing was
				// held): the share lowers the credit, as a refund's
				// does, and only the fee leaves.
				o.StoreBefore += store
				s = s.plus(walletFigures{Available: -in.Fee})
				break
			}
			// Held beyond the share (R moved since the opening): back as
			// a win's, the part from the held earning to it.
			back := min(max(held-store, 0), o.DisputeFromHeld)
			o.Held += back
			s = s.plus(walletFigures{Pending: back, Available: held - store - back - in.Fee})
		default:
			return verdict{bad: "outcome " + in.Outcome}
		}
		o.Dispute, o.DisputeHeld, o.DisputeFromHeld = in.Outcome, 0, 0
		return verdict{next: s.withOrder(in.Order, o)}
	},
}

// Dispute statuses (the processor's: open stands for needs_response).
const (
	disputeOpen = "open"
	disputeWon  = "won"
	disputeLost = "lost"
)

// shortOf is the balance a change d would overdraw ("" when none): the
// available balance checked first.
func shortOf(s walletState, d walletFigures) string {
	switch {
	case s.Available+d.Available < 0 && d.Available < 0:
		return "available"
	case s.Pending+d.Pending < 0 && d.Pending < 0:
		return "pending"
	}
	return ""
}

// stepWallet is the nondeterministic step: the states the wallet may be in
// after the operation, none when its answer is impossible from s.
func stepWallet(state, input, output any) []any {
	s, in, out := state.(walletState), input.(walletInput), output.(walletOutput)
	rule, ok := walletRules[in.Kind]
	if !ok {
		return nil
	}
	v := rule(s, in, out)
	if v.bad != "" {
		return nil
	}
	if out.Applied { // surely happened: no answer to compare
		if v.refusal != "" {
			return nil
		}
		return []any{v.next}
	}
	if !out.Answered { // happened or not
		if v.refusal != "" {
			return []any{s}
		}
		return []any{s, v.next}
	}
	if out.Refusal == refusalChanged {
		// Refused because a concurrent move changed the payout after this
		// call read it: it read a status the move starts from, and the
		// payout has moved on since, so it is no longer requested (no move
		// leads back there). Nothing changed.
		if p, ok := s.payouts[in.Payout]; in.Kind == opMove && ok && p.Status != payoutRequested {
			return []any{s}
		}
		return nil
	}
	if out.Refusal != v.refusal || out.Detail != v.detail || !sameFigures(out.Wallet, v.wallet) ||
		out.PayoutID != v.payoutID || !samePayout(out.Payout, v.payout) {
		return nil
	}
	if v.refusal != "" {
		return []any{s}
	}
	return []any{v.next}
}

func sameFigures(a, b *walletFigures) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

func samePayout(a, b *payoutFigures) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

// walletModel is the porcupine model: one partition per store, the
// nondeterministic step made a deterministic model over sets of states.
func walletModel() porcupine.Model {
	nm := porcupine.NondeterministicModel{
		Partition: func(history []porcupine.Operation) [][]porcupine.Operation {
			byStore := map[string][]porcupine.Operation{}
			var stores []string
			for _, op := range history {
				st := op.Input.(walletInput).Store
				if _, ok := byStore[st]; !ok {
					stores = append(stores, st)
				}
				byStore[st] = append(byStore[st], op)
			}
			out := make([][]porcupine.Operation, 0, len(stores))
			for _, st := range stores {
				out = append(out, byStore[st])
			}
			return out
		},
		Init:  func() []any { return []any{walletState{}} },
		Step:  stepWallet,
		Equal: func(a, b any) bool { return a.(walletState).equal(b.(walletState)) },
		Hash:  func(s any) uint64 { return s.(walletState).hash() },
		DescribeOperation: func(input, output any) string {
			return describeWalletOp(input.(walletInput), output.(walletOutput))
		},
		DescribeState: func(state any) string {
			s := state.(walletState)
			open := 0
			for _, p := range s.payouts {
				if p.Status == payoutRequested || p.Status == payoutApproved || p.Status == payoutProcessing {
					open++
				}
			}
			return fmt.Sprintf("available %s, pending %s, disputed %s, %d payouts (%d open), %d orders", aed(s.Available), aed(s.Pending),
				aed(s.Disputed), len(s.payouts), open, len(s.orders))
		},
	}
	return nm.ToModel()
}

func aed(f int64) string {
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	return fmt.Sprintf("%s%d.%02d", sign, f/100, f%100)
}

func describeWalletOp(in walletInput, out walletOutput) string {
	var call string
	switch in.Kind {
	case opRead:
		call = "getWallet()"
	case opAdjust:
		call = fmt.Sprintf("adjust(%s %s)", in.Adjust, aed(in.Amount))
	case opRequest:
		call = fmt.Sprintf("requestPayout(%s)", aed(in.Amount))
	case opMove:
		call = fmt.Sprintf("%s(%s", in.Move, in.Payout)
		if in.Move == moveFail {
			call += fmt.Sprintf(", restore %t", in.Restore)
		}
		call += ")"
	case opCredit:
		call = fmt.Sprintf("credit(%s: total %s, commission %s, earnings %s)", in.Order, aed(in.Total), aed(in.Commission), aed(in.Earnings))
	case opRefund:
		call = fmt.Sprintf("refund(%s %s)", in.Order, aed(in.Amount))
	case opDisputeOpen:
		call = fmt.Sprintf("disputeOpened(%s %s)", in.Order, aed(in.Amount))
	case opDisputeClose:
		call = fmt.Sprintf("disputeClosed(%s %s, fee %s)", in.Order, in.Outcome, aed(in.Fee))
	}
	var ans []string
	switch {
	case out.Applied:
		ans = append(ans, "applied")
	case !out.Answered:
		ans = append(ans, "no answer")
	case out.Refusal != "":
		ans = append(ans, "refused "+out.Refusal)
		if out.Detail != "" {
			ans = append(ans, out.Detail)
		}
	}
	if out.Wallet != nil {
		ans = append(ans, fmt.Sprintf("available %s pending %s disputed %s", aed(out.Wallet.Available), aed(out.Wallet.Pending), aed(out.Wallet.Disputed)))
	}
	if out.PayoutID != "" {
		ans = append(ans, out.PayoutID)
	}
	if p := out.Payout; p != nil {
		ans = append(ans, fmt.Sprintf("%s %s restored %t, available %s", p.Status, aed(p.Amount), p.Restored, aed(p.Available)))
	}
	return call + " -> " + strings.Join(ans, ", ")
}
