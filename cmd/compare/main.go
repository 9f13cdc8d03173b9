package comparecmd

import (
	"context"
	"io"
)

// Main runs `speedmatrix compare` with args (the arguments after the
// subcommand's name) and returns the exit status; cmd/speedmatrix calls
// it with the process's context, arguments and standard streams.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return run(ctx, args, stdin, stdout, stderr)
}
