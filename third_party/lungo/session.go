package lungo

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"
	"go.mongodb.org/mongo-driver/mongo/options"
)

type sessionKey struct{}

// ErrSessionEnded is returned if the session has been ended.
var ErrSessionEnded = errors.New("session ended")

// SessionContext provides a mongo compatible session context.
type SessionContext struct {
	context.Context
	*Session
}

// Session provides a mongo compatible way to handle transactions.
type Session struct {
	engine   *Engine
	txn      *Transaction
	starting bool
	ended    bool
	mutex    sync.Mutex
}

// ID implements the ISession.ID method.
func (s *Session) ID() bson.Raw {
	return nil
}

// AbortTransaction implements the ISession.AbortTransaction method.
func (s *Session) AbortTransaction(context.Context) error {
	// acquire lock
	s.mutex.Lock()
	defer s.mutex.Unlock()

	// check if ended
	if s.ended {
		return ErrSessionEnded
	}

	// abort and unset transaction
	if s.txn != nil {
		s.engine.Abort(s.txn)
		s.txn = nil
	}

	return nil
}

// AdvanceClusterTime implements the ISession.AdvanceClusterTime method.
func (s *Session) AdvanceClusterTime(bson.Raw) error {
	panic("lungo: not implemented")
}

// AdvanceOperationTime implements the ISession.AdvanceOperationTime method.
func (s *Session) AdvanceOperationTime(*primitive.Timestamp) error {
	panic("lungo: not implemented")
}

// Client implements the ISession.Client method.
func (s *Session) Client() IClient {
	return &Client{
		engine: s.engine,
	}
}

// ClusterTime implements the ISession.ClusterTime method.
func (s *Session) ClusterTime() bson.Raw {
	panic("lungo: not implemented")
}

// CommitTransaction implements the ISession.CommitTransaction method.
func (s *Session) CommitTransaction(context.Context) error {
	// acquire lock
	s.mutex.Lock()
	defer s.mutex.Unlock()

	// check if ended
	if s.ended {
		return ErrSessionEnded
	}

	// check transaction
	if s.txn == nil {
		return fmt.Errorf("missing transaction")
	}

	// get and unset transaction
	txn := s.txn
	s.txn = nil

	// commit transaction
	err := s.engine.Commit(txn)
	if err != nil {
		return err
	}

	return nil
}

// EndSession implements the ISession.EndSession method.
func (s *Session) EndSession(context.Context) {
	// acquire lock
	s.mutex.Lock()
	defer s.mutex.Unlock()

	// check if ended
	if s.ended {
		return
	}

	// abort and unset transaction
	if s.txn != nil {
		s.engine.Abort(s.txn)
		s.txn = nil
	}

	// set flag
	s.ended = true
}

// OperationTime implements the ISession.OperationTime method.
func (s *Session) OperationTime() *primitive.Timestamp {
	panic("lungo: not implemented")
}

// StartTransaction implements the ISession.StartTransaction method.
func (s *Session) StartTransaction(opts ...*options.TransactionOptions) error {
	return s.startTransaction(nil, opts...)
}

func (s *Session) startTransaction(ctx context.Context, opts ...*options.TransactionOptions) error {
	// merge options
	opt := options.MergeTransactionOptions(opts...)

	// assert supported options
	assertOptions(opt, map[string]string{
		"ReadConcern":    ignored,
		"ReadPreference": ignored,
		"WriteConcern":   ignored,
		"MaxCommitTime":  ignored,
	})

	// reserve the session under the lock so concurrent starts do not both
	// pass the no-transaction check; release before calling engine.Begin
	// because Begin reads sess.Transaction() under e.mutex and would
	// otherwise deadlock against this lock
	s.mutex.Lock()
	if s.ended {
		s.mutex.Unlock()
		return ErrSessionEnded
	}
	if s.txn != nil || s.starting {
		s.mutex.Unlock()
		return fmt.Errorf("existing transaction")
	}
	s.starting = true
	s.mutex.Unlock()

	// create transaction
	txn, err := s.engine.Begin(ctx, true)

	// finalize under the lock; always clear the starting flag
	s.mutex.Lock()
	defer s.mutex.Unlock()
	s.starting = false
	if err != nil {
		return err
	}
	if s.ended {
		s.engine.Abort(txn)
		return ErrSessionEnded
	}
	s.txn = txn

	return nil
}

// WithTransaction implements the ISession.WithTransaction method.
func (s *Session) WithTransaction(ctx context.Context, fn func(ISessionContext) (interface{}, error), opts ...*options.TransactionOptions) (interface{}, error) {
	// do not take locks as we only use safe functions

	// merge options
	opt := options.MergeTransactionOptions(opts...)

	// assert supported options
	assertOptions(opt, map[string]string{
		"ReadConcern":    ignored,
		"ReadPreference": ignored,
		"WriteConcern":   ignored,
		"MaxCommitTime":  ignored,
	})

	// run fn in a transaction and commit it; run both again (in a new
	// transaction) while fn's error or the commit's carries the label
	// TransientTransactionError (a write conflict), as the driver does, for
	// up to retryLimit (the driver's 120 s), with a short random wait between
	// attempts (fork: upstream never retried, as transactions did not
	// conflict)
	start := time.Now()
	for attempt := 0; ; attempt++ {
		res, err := s.runTransaction(ctx, opt, fn)
		if err == nil || !hasErrorLabel(err, TransientTransactionError) || retryOver(start) {
			return res, err
		}
		if berr := backoff(ensureContext(ctx), attempt); berr != nil {
			return nil, err
		}
	}
}

// runTransaction runs fn once in a new transaction and commits it.
func (s *Session) runTransaction(ctx context.Context, opt *options.TransactionOptions, fn func(ISessionContext) (interface{}, error)) (interface{}, error) {
	// start transaction with the caller's context
	err := s.startTransaction(ctx, opt)
	if err != nil {
		return nil, err
	}

	// ensure abort
	defer func() {
		_ = s.AbortTransaction(ctx)
	}()

	// yield transaction
	res, err := fn(&SessionContext{
		Context: context.WithValue(ensureContext(ctx), sessionKey{}, s),
		Session: s,
	})
	if err != nil {
		return nil, err
	}

	// commit transaction
	err = s.CommitTransaction(ctx)
	if err != nil {
		return nil, err
	}

	return res, nil
}

// Transaction will return the active transaction or nil if no transaction has
// been started.
func (s *Session) Transaction() *Transaction {
	// acquire lock
	s.mutex.Lock()
	defer s.mutex.Unlock()

	return s.txn
}

// TransactionOf returns the active transaction of the session ctx carries (a
// SessionContext, or a context derived from one), or nil (fork: a caller
// inside WithTransaction reads what the transaction changed so far, with
// Transaction.Changes, before it commits).
func TransactionOf(ctx context.Context) *Transaction {
	if ctx == nil {
		return nil
	}
	sess, ok := ctx.Value(sessionKey{}).(*Session)
	if !ok {
		return nil
	}
	return sess.Transaction()
}
