// Command media runs the media service on its own (distributed mode).
package main

import (
	"context"
	"io"

	"marketplace/libs/program"
	"marketplace/services/media"
)

func main() {
	program.Main("media", func(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
		return program.RunService(ctx, media.Module, getenv, stdout)
	})
}
