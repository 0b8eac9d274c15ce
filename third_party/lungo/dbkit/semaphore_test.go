package dbkit

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestSemaphore(t *testing.T) {
	sem := NewSemaphore(2)

	ok := sem.Acquire(timeout(), 0)
	assert.True(t, ok)

	ok = sem.Acquire(timeout(), 0)
	assert.True(t, ok)

	ok = sem.Acquire(timeout(), 0)
	assert.False(t, ok)

	ok = sem.Acquire(nil, 10*time.Millisecond)
	assert.False(t, ok)

	sem.Release()
	sem.Release()

	assert.Panics(t, func() {
		sem.Release()
	})
}

func timeout() chan struct{} {
	done := make(chan struct{})
	go func() {
		time.Sleep(10 * time.Millisecond)
		close(done)
	}()
	return done
}

// fork: AcquireEither gives up when either channel is closed.
func TestSemaphoreAcquireEither(t *testing.T) {
	sem := NewSemaphore(1)

	ok := sem.AcquireEither(nil, nil, 0)
	assert.True(t, ok)

	ok = sem.AcquireEither(timeout(), nil, 0)
	assert.False(t, ok)

	ok = sem.AcquireEither(nil, timeout(), 0)
	assert.False(t, ok)

	ok = sem.AcquireEither(nil, nil, 10*time.Millisecond)
	assert.False(t, ok)

	sem.Release()

	ok = sem.AcquireEither(timeout(), timeout(), 0)
	assert.True(t, ok)
	sem.Release()
}
