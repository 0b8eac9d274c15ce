// Command catalog runs the catalog service on its own (distributed mode).
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"marketplace/libs/program"
	"marketplace/services/catalog"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := program.RunService(ctx, catalog.Module, os.Getenv, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "catalog:", err)
		os.Exit(1)
	}
}
