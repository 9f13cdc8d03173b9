// Command run measures a speed-test matrix against an OpenAI-compatible
// streaming server (or the built-in simulator) and writes it into the
// archive and as a document.
//
//	run -url URL -model NAME -contexts 8K,16K -concurrency 1,2,4
//	    [-prefill-contexts 8K,128K] [-duration 30s] [-max-tokens 4096]
//	    [-endpoint chat|completions] [-prefill warmup|standalone]
//	    [-archive DIR] [-out FILE.md|.html|.txt] [-kv-tokens N]
//	    [-gpu ... -vram-gb ... -quantization ... -engine ...
//	     -engine-version ... -launch-command ...]
//	    [-api-key-env OPENAI_API_KEY] [-resume] [-simulate default|FILE]
//	run -simulate default|FILE -serve-sim ADDR   (serve the simulator to other clients)
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		// After the first Ctrl-C the run stops cleanly; a second one
		// gets the default behaviour and ends the process at once.
		<-ctx.Done()
		stop()
	}()
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
