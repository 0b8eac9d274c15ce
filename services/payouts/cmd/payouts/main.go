// Command payouts runs the payouts-and-wallets service on its own (distributed mode).
package main

import (
	"context"
	"io"

	"marketplace/libs/program"
	"marketplace/services/payouts"
)

func main() {
	program.Main("payouts", func(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
		return program.RunService(ctx, payouts.Module, getenv, stdout)
	})
}
