// Package request holds what the gateway's contract handlers and its Convex
// layer (marketplace/gateway/convex) read from a request alike: a body they
// accept, and an operation named by its URL.
package request

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"marketplace/libs/apperr"
	"marketplace/libs/ops"
)

// PlainBody refuses a request body sent with a Content-Encoding other than
// identity, before anything reads it: an operation's body is small JSON, and
// Fiber's c.Body() would inflate a compressed one without bound (a few MiB of
// gzip become gigabytes). Raw routes forward the header instead, and their
// owner decides (the media service refuses it too).
func PlainBody(c *fiber.Ctx) error {
	if enc := strings.TrimSpace(c.Get(fiber.HeaderContentEncoding)); enc != "" && !strings.EqualFold(enc, "identity") {
		return apperr.New(apperr.InvalidArgument, "send the request body without a Content-Encoding (got %q)", enc).
			WithDetails(map[string]any{"header": fiber.HeaderContentEncoding})
	}
	return nil
}

// MaxOperationPath bounds an operation's path, as Convex's functionPath
// does: none is near it, and a longer one is neither echoed nor logged (a
// body may hold megabytes).
const MaxOperationPath = 512

// OperationOfURL is the dotted path of the operation a per-operation URL
// names. A name with other characters than letters, digits and underscores,
// or an empty segment, names no operation.
func OperationOfURL(c *fiber.Ctx, kind ops.Kind) (string, error) {
	name := strings.TrimPrefix(string(c.Request().URI().PathOriginal()), "/api/"+string(kind)+"/")
	segs := strings.Split(name, "/")
	valid := len(segs) >= 2
	for _, s := range segs {
		valid = valid && s != "" && strings.IndexFunc(s, func(r rune) bool {
			return !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
		}) < 0
	}
	if !valid {
		return "", apperr.New(apperr.NotFound, "unknown operation %q: name it in the URL as /api/%s/<area>/<module>/<function>", name, kind).
			WithDetails(map[string]any{"reason": ops.ReasonUnknownOperation})
	}
	return strings.Join(segs, "."), nil
}
