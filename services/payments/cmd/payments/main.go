// Command payments runs the payments service on its own (distributed mode).
package main

import (
	"context"
	"io"

	"marketplace/libs/program"
	"marketplace/services/payments"
)

func main() {
	program.Main("payments", func(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
		return program.RunService(ctx, payments.Module, getenv, stdout)
	})
}
