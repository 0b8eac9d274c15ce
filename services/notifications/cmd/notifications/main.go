// Command notifications runs the notifications service on its own (distributed mode).
package main

import (
	"context"
	"io"

	"marketplace/libs/program"
	"marketplace/services/notifications"
)

func main() {
	program.Main("notifications", func(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
		return program.RunService(ctx, notifications.Module, getenv, stdout)
	})
}
