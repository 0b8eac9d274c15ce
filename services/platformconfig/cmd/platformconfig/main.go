// Command platformconfig runs the platformconfig service on its own (distributed mode).
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"marketplace/libs/program"
	"marketplace/services/platformconfig"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := program.RunService(ctx, platformconfig.Module, os.Getenv, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "platformconfig:", err)
		os.Exit(1)
	}
}
