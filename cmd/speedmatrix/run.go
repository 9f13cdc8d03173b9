package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	showcmd "speedmatrix/cmd/show"
	"strings"

	comparecmd "speedmatrix/cmd/compare"
	ingestcmd "speedmatrix/cmd/ingest"
	runcmd "speedmatrix/cmd/run"
	servecmd "speedmatrix/cmd/serve"
	"speedmatrix/internal/cliflag"
	"speedmatrix/internal/version"
)

// Exit statuses of the dispatcher itself.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

// mainFunc is a subcommand's entry point: args are the arguments after
// its name; it returns the exit status.
type mainFunc func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int

// command is one subcommand.
type command struct {
	name, summary string
	main          mainFunc
}

// commands are the subcommands that do the work, in the order help
// lists them. A new one is one line.
var commands = []command{
	{"ingest", "parse speed-test documents and other tools' result files into an archive", ingestcmd.Main},
	{"run", "measure an OpenAI-compatible server (or the simulator) and archive the matrix", runcmd.Main},
	{"compare", "compare runs: which setup is faster, by how much, and where", comparecmd.Main},
	{"serve", "serve a read-only web dashboard over an archive", servecmd.Main},
	{"show", "print one archived run as text, Markdown or JSON", showcmd.Main},
}

// builtins are the subcommands of the dispatcher itself (set in init:
// they read commands).
var builtins []command

func init() {
	builtins = []command{
		{"version", "print the module version, commit and date of this build", versionMain},
		{"completion", "print a bash or zsh completion script (completion bash|zsh)", completionMain},
		{"help", "print this help, or a command's (help COMMAND)", helpMain},
	}
}

// all returns commands and then builtins.
func all() []command { return append(append([]command(nil), commands...), builtins...) }

func lookup(name string) (command, bool) {
	for _, c := range all() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

func names() []string {
	var ns []string
	for _, c := range all() {
		ns = append(ns, c.name)
	}
	return ns
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch name := args[0]; name {
	case "-h", "-help", "--help":
		usage(stdout)
		return exitOK
	case "-version", "--version":
		fmt.Fprint(stdout, version.Read().String())
		return exitOK
	default:
		if c, ok := lookup(name); ok {
			return c.main(ctx, args[1:], stdin, stdout, stderr)
		}
		if strings.HasPrefix(name, "-") {
			fmt.Fprintf(stderr, "speedmatrix: %s before a command: flags go after it (speedmatrix COMMAND [flags] ...)\n", name)
		} else {
			fmt.Fprintf(stderr, "speedmatrix: unknown command %q\n", name)
		}
		fmt.Fprintln(stderr, "usage: speedmatrix COMMAND [flags] [arguments]")
		if s := cliflag.Closest(strings.TrimLeft(name, "-"), names()); s != "" {
			fmt.Fprintf(stderr, "did you mean %s?\n", s)
		}
		fmt.Fprintln(stderr, "speedmatrix help lists the commands")
		return exitUsage
	}
}

// usage prints the top-level help.
func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: speedmatrix COMMAND [flags] [arguments]")
	fmt.Fprintln(w, "\nExample:")
	fmt.Fprintln(w, "  speedmatrix ingest -archive archive testdata/seeds/*.txt")
	fmt.Fprintln(w, "  speedmatrix compare -archive archive gpu=~H200,tool=~llm-inference-bench gpu=~RTX,tool=~llm-inference-bench")
	fmt.Fprintln(w, "\nExit status:")
	fmt.Fprintln(w, "  0    success")
	fmt.Fprintln(w, "  1    the command's work failed (a document, the archive, a server); it says what")
	fmt.Fprintln(w, "  2    usage error: nothing was done")
	fmt.Fprintln(w, "  130  run was interrupted (what it measured is kept)")
	fmt.Fprintln(w, "\nCommands:")
	for _, c := range all() {
		fmt.Fprintf(w, "  %-11s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nspeedmatrix COMMAND -h (or speedmatrix help COMMAND) prints a command's synopsis, example and flags.")
}

// helpMain is `speedmatrix help [COMMAND]`: the help goes to stdout.
func helpMain(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		usage(stdout)
		return exitOK
	case len(args) > 1:
		fmt.Fprintln(stderr, "speedmatrix help: one command at a time: speedmatrix help COMMAND")
		return exitUsage
	case args[0] == "help":
		usage(stdout)
		return exitOK
	}
	if _, ok := lookup(args[0]); !ok {
		return run(ctx, args, stdin, stdout, stderr) // says what is near
	}
	c, _ := lookup(args[0])
	return c.main(ctx, []string{"-h"}, stdin, stdout, stdout)
}

var versionHelp = cliflag.Help{
	Name:     "version",
	Synopsis: []string{"speedmatrix version"},
	Example:  []string{"speedmatrix version    (the same as any command's -version)"},
	Exit:     []string{"0  printed", "2  usage error"},
	Notes:    []string{"Prints the module version, the commit this build was made from (and whether the checkout had\nuncommitted changes) and the commit's date, from the build information of the binary."},
}

// versionMain is `speedmatrix version`.
func versionMain(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.SetOutput(stderr)
	if err := cliflag.Parse(fs, args, versionHelp, stdout); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "version: takes no arguments (got %q)\n", fs.Args())
		return exitUsage
	}
	fmt.Fprint(stdout, version.Read().String())
	return exitOK
}
