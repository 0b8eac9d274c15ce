package ops

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/256dpi/lungo"
	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/apperr"
	"marketplace/libs/auth"
	"marketplace/libs/httpserver"
	"marketplace/libs/liveset"
)

// Idempotency keys (platform contract, section 2). A mutation may carry an
// Idempotency-Key header; the Server keeps the outcome (status and body) of the
// first call per caller and key in the service's own database, and a later call
// with the same key, operation and arguments gets that outcome back unchanged.
//
// How a call with a key runs (Server.handle):
//
//  1. claim: insert {_id: hash(caller, key), state: running, path, hash of the
//     canonical arguments, claim token} BEFORE the handler runs. The unique _id
//     makes the claim atomic: of twenty concurrent twins exactly one inserts.
//  2. a duplicate insert means a record exists: another operation or other
//     arguments is INVALID_ARGUMENT (idempotency_key_reused); a finished record
//     is replayed; a running one is FAILED_PRECONDITION (idempotency_key_in_use)
//     unless it is older than the lease, when it was abandoned (its process died)
//     and is taken over by a conditional replace on its claim token. An expired
//     record is taken over the same way.
//  3. the handler runs inside one transaction of the service's database
//     (store.DB.Joined: every DB.Tx of the handler joins it), and a success's
//     outcome is written into the record in that same transaction, conditional
//     on the claim token: the effects and the kept answer commit together or
//     not at all. After any crash either both exist (a retry replays the
//     answer) or neither does (the retry runs the mutation). A failure aborts
//     the transaction, so nothing of the handler's is kept, and the error is
//     then written into the record, or the record is deleted when the error is
//     transient (UNAVAILABLE, INTERNAL, RATE_LIMITED) so a retry with the key
//     runs. A run whose key was taken over meanwhile cannot commit its effects.
//  4. a claim still running when its process died is freed when the process
//     starts again (ReleaseAbandoned: no call of its own is in flight then),
//     or by another process after twice the lease.
//
// What a handler does outside its database (a call of another service's
// mutation, a processor's API) is not in the transaction: such calls carry
// their own idempotency (one order per payment intent, the processor's keys).

// Headers of idempotent calls.
const (
	HeaderIdempotencyKey     = "Idempotency-Key"
	HeaderIdempotentReplayed = "Idempotent-Replayed"
)

// Reasons (details.reason) of the errors about idempotency keys.
const (
	ReasonIdempotencyKeyReused = "idempotency_key_reused"
	ReasonIdempotencyKeyInUse  = "idempotency_key_in_use"
)

// MaxIdempotencyKey is the longest key the contract allows.
const MaxIdempotencyKey = 255

// IdempotencyCollection holds the kept outcomes in each service's database.
var IdempotencyCollection = liveset.Internal("idempotencyKeys")

// Defaults of an Idempotency store.
const (
	DefaultIdempotencyRetention = 24 * time.Hour
	DefaultIdempotencyLease     = time.Minute
	idempotencyPruneInterval    = time.Hour
)

// CheckIdempotencyKey validates a header value: 1 to 255 printable ASCII
// characters (0x20 to 0x7E).
func CheckIdempotencyKey(v string) error {
	if len(v) == 0 || len(v) > MaxIdempotencyKey {
		return badIdempotencyKey("must be 1 to %d characters long (got %d)", MaxIdempotencyKey, len(v))
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 || c > 0x7E {
			return badIdempotencyKey("must hold only printable ASCII characters (0x20 to 0x7E); byte %d is 0x%02X", i, c)
		}
	}
	return nil
}

func badIdempotencyKey(format string, args ...any) *apperr.Error {
	return apperr.New(apperr.InvalidArgument, "%s header: %s", HeaderIdempotencyKey, fmt.Sprintf(format, args...)).
		WithDetails(map[string]any{"header": HeaderIdempotencyKey})
}

// IdempotencyKeyOf reads the Idempotency-Key header of a request: present is
// false without one. A header that is present but empty, malformed or given
// more than once is an INVALID_ARGUMENT naming the header. The gateway and the
// services read it with this one function.
func IdempotencyKeyOf(h *fasthttp.RequestHeader) (key string, present bool, err error) {
	n := 0
	h.VisitAll(func(k, v []byte) {
		if bytes.EqualFold(k, []byte(HeaderIdempotencyKey)) {
			n++
			if n == 1 {
				key = string(v) // a copy: the header's buffers belong to fasthttp
			}
		}
	})
	switch {
	case n == 0:
		return "", false, nil
	case n > 1:
		return "", true, badIdempotencyKey("must be given once")
	}
	if err := CheckIdempotencyKey(key); err != nil {
		return "", true, err
	}
	return key, true, nil
}

// CanonicalArgs is the canonical JSON of an operation's arguments: decoded and
// re-encoded, so key order and white space do not matter. Absent or null
// arguments read as {} (as the decoder reads them). Numbers keep their text
// (1 and 1.0 differ): two spellings of one value at worst count as other
// arguments, never two values as the same.
func CanonicalArgs(raw []byte) ([]byte, error) {
	v, err := ArgsValue(raw)
	switch {
	case err != nil:
		return nil, err
	case v == nil:
		return []byte("{}"), nil
	}
	return PlainJSON(v)
}

// ArgsValue decodes an operation's arguments as sent: one JSON value, its
// numbers kept as text (json.Number); nil for absent or null arguments.
func ArgsValue(raw []byte) (any, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, apperr.Invalid("args", "must be JSON: %v", err)
	}
	if dec.More() {
		return nil, apperr.Invalid("args", "must be one JSON value")
	}
	return v, nil
}

// PlainJSON encodes v without HTML escaping or a trailing newline (maps with
// their keys sorted).
func PlainJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// ArgsHash is the hex SHA-256 of the canonical arguments.
func ArgsHash(raw []byte) (string, error) {
	c, err := CanonicalArgs(raw)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(c)
	return hex.EncodeToString(sum[:]), nil
}

// idempotencyID is the record's _id: a hash of caller and key, so the key
// itself is not stored and any key fits.
func idempotencyID(caller, key string) string {
	h := sha256.New()
	fmt.Fprintf(h, "%d:%s", len(caller), caller) // length-prefixed: no caller and key pair reads as another
	h.Write([]byte(key))
	return hex.EncodeToString(h.Sum(nil))
}

// Database is what Idempotency needs of the service's database. ops declares
// it so that it does not depend on libs/store: libs/service hands it the
// service's *store.DB.
type Database interface {
	Collection(name string, opts ...*options.CollectionOptions) lungo.ICollection
	// Joined runs fn in one transaction that every transaction inside joins.
	Joined(ctx context.Context, fn func(ctx context.Context) error) error
	Embedded() bool
	// The error classes: a unique key taken, no document found.
	IsDuplicate(err error) bool
	IsNotFound(err error) bool
	// AllowOverMemoryLimit marks writes the system needs whatever the memory.
	AllowOverMemoryLimit(ctx context.Context, why string) context.Context
}

// Index is an index of the idempotency records (the fields of store.Index,
// to which libs/service converts it).
type Index struct {
	Collection string
	Keys       bson.D
	Unique     bool
	Partial    bson.M
	Name       string
}

// Idempotency keeps the outcomes of mutations called with an Idempotency-Key,
// in the collection IdempotencyCollection of the service's database.
type Idempotency struct {
	db   Database
	coll lungo.ICollection
	// Owner names this process in the claims it makes: a process that starts
	// again under the same name frees the claims its earlier run left running
	// (ReleaseAbandoned). The service sets it to its host and address.
	Owner string
	// AfterCommit, if set, runs after a keyed run's transaction committed
	// (the service wakes its outbox relay: the handler's own wake-ups ran
	// before the commit).
	AfterCommit func()
	// Retention is how long an outcome is kept (at least the contract's 24 h).
	Retention time.Duration
	// Lease bounds a run: handlers of keyed calls run with this deadline, so a
	// live run never outlasts it; a record still running after twice the lease
	// was abandoned (its process died) and a new call may take it over.
	Lease  time.Duration
	Logger *slog.Logger
	now    func() time.Time
}

// NewIdempotency keeps outcomes in db.
func NewIdempotency(db Database, logger *slog.Logger) *Idempotency {
	if logger == nil {
		logger = slog.Default()
	}
	return &Idempotency{
		db:        db,
		coll:      db.Collection(IdempotencyCollection),
		Retention: DefaultIdempotencyRetention,
		Lease:     DefaultIdempotencyLease,
		Logger:    logger,
		now:       time.Now,
	}
}

// Indexes serve the prune and the start's release of abandoned claims.
// There is no TTL index: the embedded engine has none, and Run prunes on both.
func (s *Idempotency) Indexes() []Index {
	return []Index{
		{Collection: IdempotencyCollection, Keys: bson.D{{Key: "expiresAt", Value: 1}}, Name: "expiresAt"},
		// ReleaseAbandoned, at each start: the running claims (of an owner).
		{Collection: IdempotencyCollection, Keys: bson.D{{Key: "state", Value: 1}, {Key: "owner", Value: 1}}, Name: "state_owner"},
	}
}

// Run deletes expired records at once and then hourly until ctx is done. Reads
// ignore expired records anyway, so pruning only keeps the collection small.
func (s *Idempotency) Run(ctx context.Context) error {
	t := time.NewTicker(idempotencyPruneInterval)
	defer t.Stop()
	for {
		if _, err := s.Prune(ctx); err != nil && ctx.Err() == nil {
			s.Logger.WarnContext(ctx, "idempotency: prune expired keys failed", "err", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// Prune deletes the records that expired and reports how many.
func (s *Idempotency) Prune(ctx context.Context) (int64, error) {
	res, err := s.coll.DeleteMany(ctx, bson.M{"expiresAt": bson.M{"$lte": s.now()}})
	if err != nil {
		return 0, err
	}
	return res.DeletedCount, nil
}

const (
	idemRunning = "running"
	idemDone    = "done"
)

type idemRecord struct {
	ID         string    `bson:"_id"`
	Caller     string    `bson:"caller"`
	Path       string    `bson:"path"`
	ArgsHash   string    `bson:"argsHash"`
	State      string    `bson:"state"`
	Claim      string    `bson:"claim"`           // the run holding the record
	Owner      string    `bson:"owner,omitempty"` // the process of that run (Idempotency.Owner)
	Status     int       `bson:"status,omitempty"`
	Body       []byte    `bson:"body,omitempty"`
	CreatedAt  time.Time `bson:"createdAt"`
	ClaimedAt  time.Time `bson:"claimedAt"`
	FinishedAt time.Time `bson:"finishedAt,omitempty"`
	ExpiresAt  time.Time `bson:"expiresAt"`
}

// idemClaim is a run that holds a record; finish or release it.
type idemClaim struct {
	id, claim string
}

// idemReplay is a kept outcome.
type idemReplay struct {
	status int
	body   []byte
}

// claimAttempts bounds the retries when a record vanishes or changes between
// the failed insert and the read (a release, a prune, another takeover).
const claimAttempts = 5

// begin claims the key for a run, or returns the kept outcome to replay, or the
// error to answer (reused, in use, a database failure).
func (s *Idempotency) begin(ctx context.Context, caller, key, path, argsHash string) (*idemClaim, *idemReplay, error) {
	id := idempotencyID(caller, key)
	for range claimAttempts {
		now := s.now()
		rec := idemRecord{
			ID: id, Caller: caller, Path: path, ArgsHash: argsHash, State: idemRunning, Claim: newClaimToken(), Owner: s.Owner,
			CreatedAt: now, ClaimedAt: now, ExpiresAt: now.Add(s.Retention),
		}
		_, err := s.coll.InsertOne(s.overLimit(ctx), rec)
		if err == nil {
			return &idemClaim{id: id, claim: rec.Claim}, nil, nil
		}
		if !s.db.IsDuplicate(err) {
			return nil, nil, fmt.Errorf("idempotency: claim key: %w", err)
		}
		var old idemRecord
		if err := s.coll.FindOne(ctx, bson.M{"_id": id}).Decode(&old); err != nil {
			if s.db.IsNotFound(err) {
				continue // released or pruned meanwhile: claim again
			}
			return nil, nil, fmt.Errorf("idempotency: read key: %w", err)
		}
		if old.ExpiresAt.After(now) {
			if old.Path != path {
				return nil, nil, reused("was used with another operation (%s)", old.Path)
			}
			if old.ArgsHash != argsHash {
				return nil, nil, reused("was used with other arguments")
			}
			if old.State == idemDone {
				return nil, &idemReplay{status: old.Status, body: old.Body}, nil
			}
			// Taken over only well after the run's own deadline (the lease): a
			// run that commits just at its deadline, or a replica whose clock
			// runs ahead, must not let a twin start.
			if now.Sub(old.ClaimedAt) < 2*s.Lease {
				return nil, nil, inUse()
			}
			s.Logger.WarnContext(ctx, "idempotency: taking over an abandoned key", "path", path, "claimedAt", old.ClaimedAt)
		}
		// Expired, or abandoned by a run that did not finish within its lease:
		// take it over, unless another call did so first.
		res, err := s.coll.ReplaceOne(s.overLimit(ctx), bson.M{"_id": id, "claim": old.Claim}, rec)
		if err != nil {
			return nil, nil, fmt.Errorf("idempotency: take over key: %w", err)
		}
		if res.MatchedCount == 1 {
			return &idemClaim{id: id, claim: rec.Claim}, nil, nil
		}
	}
	return nil, nil, inUse()
}

// overLimit is the context of a key's claim and outcome: they go through
// over DB_MEMORY_LIMIT (store/memlimit.go), as the call they frame is
// checked itself. A refused call is not kept (503, see keeps) and its claim
// is released, so what stays is the outcome of a call that went through,
// such as a delete that frees memory.
func (s *Idempotency) overLimit(ctx context.Context) context.Context {
	return s.db.AllowOverMemoryLimit(ctx, "an Idempotency-Key's claim and outcome")
}

func reused(format string, args ...any) error {
	return apperr.New(apperr.InvalidArgument, "%s %s", HeaderIdempotencyKey, fmt.Sprintf(format, args...)).
		WithDetails(map[string]any{"reason": ReasonIdempotencyKeyReused, "header": HeaderIdempotencyKey})
}

func inUse() error {
	return apperr.New(apperr.FailedPrecondition, "a call with this %s is still running; retry shortly", HeaderIdempotencyKey).
		WithDetails(map[string]any{"reason": ReasonIdempotencyKeyInUse, "header": HeaderIdempotencyKey})
}

// keeps reports whether an outcome is kept: everything but the transient
// failures, which a retry with the same key must be able to run again (keeping
// them would pin a passing outage on the key for a day).
func keeps(status int) bool {
	switch status {
	case apperr.Unavailable.Status(), apperr.Internal.Status(), apperr.RateLimited.Status():
		return false
	}
	return true
}

// errTakenOver aborts a run whose key another call took over (after the
// lease): its effects must not commit beside the other run's.
var errTakenOver = errors.New("idempotency: the key was taken over before the run finished (it outlasted its lease)")

// keep writes a success's outcome into the claimed record, in the run's
// transaction (ctx is inside store.DB.Joined): it commits with the effects.
func (s *Idempotency) keep(ctx context.Context, c *idemClaim, status int, body []byte) error {
	now := s.now()
	res, err := s.coll.UpdateOne(s.overLimit(ctx), bson.M{"_id": c.id, "claim": c.claim}, bson.M{"$set": bson.M{
		"state": idemDone, "status": status, "body": body, "finishedAt": now, "expiresAt": now.Add(s.Retention),
	}})
	switch {
	case err != nil:
		return fmt.Errorf("idempotency: keep the outcome: %w", err)
	case res.MatchedCount == 0:
		return errTakenOver
	}
	return nil
}

// settleFailure keeps a failed run's error (its transaction was aborted:
// nothing of it was written), or releases the claim when the error is
// transient. It runs even when the request's context is done. A crash before
// it leaves the claim running, freed at the restart (ReleaseAbandoned): the
// retry then runs, which is right, as nothing was written.
func (s *Idempotency) settleFailure(ctx context.Context, c *idemClaim, status int, body []byte) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if !keeps(status) {
		s.release(ctx, c)
		return
	}
	now := s.now()
	// Only a running claim: when the transaction committed and its caller
	// still saw an error (the file's acknowledgement cut off by the lease,
	// a commit whose result MongoDB could not tell), the success is kept
	// and stays the answer.
	res, err := s.coll.UpdateOne(s.overLimit(ctx), bson.M{"_id": c.id, "claim": c.claim, "state": idemRunning}, bson.M{"$set": bson.M{
		"state": idemDone, "status": status, "body": body, "finishedAt": now, "expiresAt": now.Add(s.Retention),
	}})
	switch {
	case err != nil:
		// Not kept: the record stays running until the restart or the lease;
		// a retry then runs the mutation again, which wrote nothing.
		s.Logger.ErrorContext(ctx, "idempotency: keeping the outcome failed", "err", err)
	case res.MatchedCount == 0:
		s.Logger.WarnContext(ctx, "idempotency: the failure is not kept: the key was taken over, or its success committed after all")
	}
}

// ReleaseAbandoned frees, at a process's start, the claims its earlier run
// left running when it died: they are not in flight (this process has served
// nothing yet), and their effects did not commit (a success commits its
// outcome with them). On the embedded engine the database file is this
// process's alone (it holds the file's lock), so every running claim is
// abandoned; on MongoDB, those of this Owner (its host and address). Others'
// are freed after twice the lease. It reports how many it freed.
func (s *Idempotency) ReleaseAbandoned(ctx context.Context) (int64, error) {
	filter := bson.M{"state": idemRunning}
	if !s.db.Embedded() {
		if s.Owner == "" {
			return 0, nil
		}
		filter["owner"] = s.Owner
	}
	res, err := s.coll.DeleteMany(s.overLimit(ctx), filter)
	if err != nil {
		return 0, fmt.Errorf("idempotency: free abandoned keys: %w", err)
	}
	return res.DeletedCount, nil
}

// release forgets a claim still running, so a retry with the key runs (a
// success that committed after all stays, see settleFailure).
func (s *Idempotency) release(ctx context.Context, c *idemClaim) {
	if _, err := s.coll.DeleteOne(ctx, bson.M{"_id": c.id, "claim": c.claim, "state": idemRunning}); err != nil {
		s.Logger.ErrorContext(ctx, "idempotency: releasing a key failed (it frees itself after the lease)", "err", err)
	}
}

func newClaimToken() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("idempotency: no randomness: " + err.Error())
	}
	return hex.EncodeToString(b[:])
}

// idempotencyCaller is the scope of a call's keys ("sub:<token subject>"), or ""
// when the key is not honoured: an anonymous caller (nothing to scope the key
// by), or a call the registry refuses before any handler runs (an unknown or
// internal operation, a query, a caller without the access): those change
// nothing and keep nothing, and the key stays free.
func (s *Server) idempotencyCaller(ctx context.Context, path string) string {
	id := auth.FromContext(ctx)
	if id == nil || id.Sub == "" {
		return ""
	}
	op, ok := s.Registry.ops[path]
	if !ok || op.Kind != Mutation || op.Access == Internal {
		return ""
	}
	if CheckCall(ctx, op.Kind, op.Access, Mutation, path) != nil {
		return ""
	}
	return "sub:" + id.Sub
}

type keyedKey struct{}

// IdempotencyKeyed reports whether the mutation running in ctx was called
// with an Idempotency-Key that this server honours (its outcome is kept, and a
// retry with the key replays it). An operation whose unkeyed retry would do
// its work twice (a refund) may refuse what looks like one, and tell the
// caller to send a key.
func IdempotencyKeyed(ctx context.Context) bool {
	v, _ := ctx.Value(keyedKey{}).(bool)
	return v
}

// runIdempotent runs a mutation under its key: claims the key, or replays the
// kept outcome, or refuses; then runs the handler and keeps a success's
// outcome in one transaction, before answering, so a client that retries as
// soon as it has an answer finds it, and a crash cannot keep one without the
// other.
func (s *Server) runIdempotent(c *fiber.Ctx, ctx context.Context, req Request, caller, key string) error {
	hash, err := ArgsHash(req.Args)
	if err != nil {
		return httpserver.WriteError(c, err)
	}
	ids := s.Idempotency
	claim, replay, err := ids.begin(ctx, caller, key, req.Path, hash)
	if err != nil {
		return httpserver.WriteError(c, err)
	}
	if replay != nil {
		c.Set(HeaderIdempotentReplayed, "true")
		c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
		c.Status(replay.status)
		return c.Send(replay.body) // the kept bytes, exactly
	}
	settled := false
	defer func() {
		if !settled { // the handler panicked: free the key for a retry
			ids.settleFailure(ctx, claim, apperr.Internal.Status(), nil)
		}
	}()
	// A run never outlasts its lease (when the handler honours its context), so
	// a record still running after the lease really was abandoned.
	rctx, cancel := context.WithTimeout(context.WithValue(ctx, keyedKey{}, true), ids.Lease)
	defer cancel()
	var body []byte
	err = ids.db.Joined(rctx, func(tx context.Context) error {
		res, err := s.Registry.Invoke(tx, Mutation, req.Path, req.Args, false)
		if err == nil {
			body, err = encodeAnswer(res)
		}
		if err != nil {
			return err
		}
		if err := ids.keep(tx, claim, fiber.StatusOK, body); err != nil {
			return err
		}
		faultBeforeCommit(req.Path)
		return nil
	})
	if err == nil {
		faultAfterCommit(req.Path)
		if ids.AfterCommit != nil {
			ids.AfterCommit()
		}
	}
	settled = true
	switch {
	case errors.Is(err, errTakenOver):
		return httpserver.WriteError(c, inUse())
	case err != nil:
		status, kept := apperr.Body(err) // what WriteError sends, byte for byte
		ids.settleFailure(ctx, claim, status, kept)
		return httpserver.WriteError(c, err)
	}
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	return c.Send(body)
}
