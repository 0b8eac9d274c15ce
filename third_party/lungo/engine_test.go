package lungo

import (
	"context"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEngineBeginRejectedAfterClose(t *testing.T) {
	engine, err := CreateEngine(Options{Store: NewMemoryStore()})
	assert.NoError(t, err)
	engine.Close()

	_, err = engine.Begin(nil, true)
	assert.Equal(t, ErrEngineClosed, err)

	_, err = engine.Begin(nil, false)
	assert.Equal(t, ErrEngineClosed, err)
}

func TestStreamCloseAfterEngineClose(t *testing.T) {
	engine, err := CreateEngine(Options{Store: NewMemoryStore()})
	assert.NoError(t, err)

	stream, err := engine.Watch(Handle{"db", "coll"}, nil, nil, nil, nil)
	assert.NoError(t, err)
	assert.NotNil(t, stream)

	engine.Close()

	// must not panic
	assert.NoError(t, stream.Close(nil))
	// idempotent
	assert.NoError(t, stream.Close(nil))
}

// fork: Begin used to register a child of every distinct context it was given
// with the engine's tomb (tomb.Context), kept until that context was done and
// walked at every later Begin; a context that is never canceled (a server's or
// a loop's) left its child behind for good. Begin now waits on the context and
// on the engine's end directly, and keeps nothing per context.
func TestEngineBeginKeepsNothingPerContext(t *testing.T) {
	engine, err := CreateEngine(Options{Store: NewMemoryStore()})
	assert.NoError(t, err)
	defer engine.Close()

	// distinct contexts that stay alive (and are not canceled) until the end
	const n = 20000
	contexts := make([]context.Context, n)
	cancels := make([]context.CancelFunc, n)
	for i := range contexts {
		contexts[i], cancels[i] = context.WithCancel(context.Background())
		contexts[i].Done() // its channel is made on first use: not the engine's
	}
	defer func() {
		for _, cancel := range cancels {
			cancel()
		}
	}()

	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}

	before := heap()
	for i, ctx := range contexts {
		txn, err := engine.Begin(ctx, true)
		if !assert.NoError(t, err) {
			return
		}
		if i%2 == 0 {
			engine.Abort(txn)
		} else {
			assert.NoError(t, engine.Commit(txn))
		}
	}
	after := heap()
	t.Logf("heap %d -> %d", before, after)

	// a leaked child costs several hundred bytes (a cancel context, its done
	// channel, a map entry in the tomb and one in the parent)
	var grown int64
	if after > before {
		grown = int64(after - before)
	}
	assert.Less(t, grown/n, int64(64), "heap grew by %d bytes over %d transactions, each with its own context", grown, n)

	// the contexts are still in use: keep them alive until after the measure
	runtime.KeepAlive(contexts)
}
