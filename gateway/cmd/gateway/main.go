// Command gateway is the public entry point in the distributed mode.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"marketplace/gateway"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := gateway.Run(ctx, os.Getenv, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "gateway:", err)
		os.Exit(1)
	}
}
