package runcmd

import "speedmatrix/internal/cliflag"

// help is what -h prints besides the flags (package cliflag).
var help = cliflag.Help{
	Name: "run",
	Synopsis: []string{
		"speedmatrix run -url URL -model NAME -contexts 8K,16K [-concurrency 1,2,4] [-duration 30s] [-archive DIR] [-out FILE.md|.html|.txt] [flags]",
		"speedmatrix run -simulate default|DOC|ARCHIVE -contexts 8K [flags]     (measure the built-in simulator)",
		"speedmatrix run -simulate default|DOC|ARCHIVE -serve-sim ADDR           (serve the simulator to other clients)",
	},
	Example: []string{
		"speedmatrix run -url http://127.0.0.1:8000 -model NAME -contexts 8K,32K -concurrency 1,4,16 -gpu \"H200 NVL\" -archive archive -out run.md",
		"speedmatrix run -simulate default -contexts 8K -concurrency 1,8 -duration 5s -out sim.md",
	},
	Exit: []string{
		"0    measured and written",
		"1    the server, the archive or a document failed: it says which",
		"2    usage error: no request was sent",
		"130  interrupted: the cells finished are saved in a checkpoint; the same flags and -resume continue",
	},
	Notes: []string{"Decode cells are contexts × concurrency; prefill cells are -prefill-contexts (default: -contexts).\nThe API key is read from -api-key-env's variable, never from a flag; nothing stores or prints it."},
}
