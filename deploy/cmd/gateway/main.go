// Command gateway is the public entry point in the distributed mode. It lives
// beside the module list so that it routes to every module by default.
package main

import (
	"context"
	"io"

	"marketplace/deploy/modules"
	"marketplace/gateway"
	"marketplace/libs/program"
)

func main() {
	program.Main("gateway", func(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
		return gateway.Run(ctx, getenv, stdout, modules.Names())
	})
}
