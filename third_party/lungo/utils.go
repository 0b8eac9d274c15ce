package lungo

import (
	"context"
	"fmt"
	"reflect"
	"strings"

	"github.com/256dpi/lungo/bsonkit"
)

const (
	supported = "supported"
	ignored   = "ignored"
)

func ensureContext(ctx context.Context) context.Context {
	// check context
	if ctx != nil {
		return ctx
	}

	return context.Background()
}

func assertOptions(opts interface{}, fields map[string]string) {
	// get value
	value := reflect.ValueOf(opts).Elem()

	// check fields
	for i := 0; i < value.NumField(); i++ {
		// get name
		name := value.Type().Field(i).Name

		// check if field is supported
		support := fields[name]
		if support == supported || support == ignored {
			continue
		}

		// otherwise, assert field is nil
		if !value.Field(i).IsNil() {
			panic(fmt.Sprintf("lungo: unsupported option: %s", name))
		}
	}
}

// validateReplacement rejects replacement documents whose first key begins
// with '$'. The official mongo-driver enforces this client-side because such
// documents look like update operators and would otherwise be silently stored
// as data.
func validateReplacement(doc bsonkit.Doc) error {
	if doc == nil || len(*doc) == 0 {
		return nil
	}
	if strings.HasPrefix((*doc)[0].Key, "$") {
		return fmt.Errorf("replacement document cannot contain keys beginning with '$'")
	}
	return nil
}

func useTransaction(ctx context.Context, engine *Engine, lock bool, fn func(*Transaction) (interface{}, error)) (interface{}, error) {
	// ensure context
	ctx = ensureContext(ctx)

	// use active transaction from session in context
	sess, ok := ctx.Value(sessionKey{}).(*Session)
	if ok {
		txn := sess.Transaction()
		if txn != nil {
			return fn(txn)
		}
	}

	// writes run in a transaction of their own, again after a write
	// conflict (fork)
	if lock {
		return engine.write(ctx, fn)
	}

	// create transaction
	txn, err := engine.Begin(ctx, false)
	if err != nil {
		return nil, err
	}

	return fn(txn)
}
