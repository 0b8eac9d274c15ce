// Command platformconfig runs the platformconfig service on its own (distributed mode).
package main

import (
	"context"
	"io"

	"marketplace/libs/program"
	"marketplace/services/platformconfig"
)

func main() {
	program.Main("platformconfig", func(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
		return program.RunService(ctx, platformconfig.Module, getenv, stdout)
	})
}
