// Command reviews runs the reviews service on its own (distributed mode).
package main

import (
	"context"
	"io"

	"marketplace/libs/program"
	"marketplace/services/reviews"
)

func main() {
	program.Main("reviews", func(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
		return program.RunService(ctx, reviews.Module, getenv, stdout)
	})
}
