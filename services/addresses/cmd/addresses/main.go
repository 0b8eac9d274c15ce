// Command addresses runs the addresses service on its own (distributed mode).
package main

import (
	"context"
	"io"

	"marketplace/libs/program"
	"marketplace/services/addresses"
)

func main() {
	program.Main("addresses", func(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
		return program.RunService(ctx, addresses.Module, getenv, stdout)
	})
}
