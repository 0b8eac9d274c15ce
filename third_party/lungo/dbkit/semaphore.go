package dbkit

import "time"

// Semaphore manages access to a resource using a set of tokens.
type Semaphore struct {
	tokens chan struct{}
}

// NewSemaphore will create and return a new semaphore.
func NewSemaphore(capacity int) *Semaphore {
	// prepare tokens
	tokens := make(chan struct{}, capacity)
	for i := 0; i < capacity; i++ {
		tokens <- struct{}{}
	}

	return &Semaphore{
		tokens: tokens,
	}
}

// Acquire will acquire a token from the semaphore. If the function returns
// true the token must be released back to the semaphore exactly once.
func (s *Semaphore) Acquire(cancel <-chan struct{}, timeout time.Duration) bool {
	return s.AcquireEither(cancel, nil, timeout)
}

// AcquireEither is Acquire with two cancel channels: it gives up when either
// is closed (a nil channel never is). If the function returns true the token
// must be released back to the semaphore exactly once.
func (s *Semaphore) AcquireEither(cancel, cancel2 <-chan struct{}, timeout time.Duration) bool {
	// prepare deadline; use NewTimer so it can be stopped on the success
	// or cancel paths to avoid leaking timers
	var deadline <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		deadline = t.C
	}

	// await token, cancel or deadline
	select {
	case <-s.tokens:
		return true
	case <-cancel:
		return false
	case <-cancel2:
		return false
	case <-deadline:
		return false
	}
}

// Release will release a token to the semaphore. It is critical that this is
// only done once per token.
func (s *Semaphore) Release() {
	select {
	case s.tokens <- struct{}{}:
	default:
		panic("semaphore full")
	}
}
