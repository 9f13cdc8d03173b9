// Package runcmd is the `speedmatrix run` subcommand: it measures a
// speed-test matrix against an OpenAI-compatible streaming server (or
// the built-in simulator) and writes it into the archive and as a
// document.
//
//	speedmatrix run -url URL -model NAME -contexts 8K,16K -concurrency 1,2,4
//	    [-prefill-contexts 8K,128K] [-duration 30s] [-max-tokens 4096]
//	    [-endpoint chat|completions] [-prefill warmup|standalone]
//	    [-archive DIR] [-out FILE.md|.html|.txt] [-kv-tokens N]
//	    [-gpu ... -vram-gb ... -quantization ... -engine ...
//	     -engine-version ... -launch-command ...]
//	    [-api-key-env OPENAI_API_KEY] [-resume] [-simulate default|FILE]
//	speedmatrix run -simulate default|FILE -serve-sim ADDR   (serve the simulator to other clients)
//
// The package is named runcmd, not run, so that it reads apart from
// package runner (the library that measures) where both are imported.
package runcmd

import (
	"context"
	"io"
)

// Main runs `speedmatrix run` with args (the arguments after the
// subcommand's name) and returns the exit status; cmd/speedmatrix calls
// it with the process's context, arguments and standard streams. The
// first interrupt (ctx's end) stops the run cleanly.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return run(ctx, args, stdin, stdout, stderr)
}
