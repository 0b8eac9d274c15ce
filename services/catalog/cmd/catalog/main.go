// Command catalog runs the catalog service on its own (distributed mode).
package main

import (
	"context"
	"io"

	"marketplace/libs/program"
	"marketplace/services/catalog"
)

func main() {
	program.Main("catalog", func(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
		return program.RunService(ctx, catalog.Module, getenv, stdout)
	})
}
