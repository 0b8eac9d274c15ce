// Command customers runs the customers service on its own (distributed mode).
package main

import (
	"context"
	"io"

	"marketplace/libs/program"
	"marketplace/services/customers"
)

func main() {
	program.Main("customers", func(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
		return program.RunService(ctx, customers.Module, getenv, stdout)
	})
}
