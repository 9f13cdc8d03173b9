package cliflag

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"speedmatrix/internal/textdist"
	"strconv"
	"strings"
	"time"

	"speedmatrix/internal/version"
)

// ErrReported wraps every error Parse has already printed: the caller
// exits with status 2 and prints nothing more.
var ErrReported = errors.New("usage error (printed)")

// ListArg, given as the only argument, makes Parse print the flag set
// (see Parse) instead of parsing.
const ListArg = "__complete-flags"

// Help is what a subcommand's -h says besides its flags.
type Help struct {
	// Name is the subcommand as error messages name it ("ingest").
	Name string
	// Synopsis holds the usage lines, each a whole command line
	// ("speedmatrix ingest [-archive DIR] FILE..."); the first is the one
	// a usage error repeats.
	Synopsis []string
	// Example holds example command lines.
	Example []string
	// Exit says what each exit status means, one status a line
	// ("0  every document was read").
	Exit []string
	// Notes are printed after the exit codes and before the flags.
	Notes []string
	// Args names the positional arguments in the message for a flag
	// given after them ("the file arguments"); "" means "the arguments".
	Args string
}

// Parse parses args into fs (as fs.Parse does, with fs's output for its
// messages) after checking them strictly; see the package comment. It
// defines -version on fs when fs lacks it, and sets fs.Usage to the full
// help, which the caller may print on a later usage error of its own.
func Parse(fs *flag.FlagSet, args []string, h Help, stdout io.Writer) error {
	if fs.Lookup("version") == nil {
		fs.Bool("version", false, "print the version, commit and date of this build, and exit")
	}
	out := fs.Output()
	fs.Usage = func() { h.print(out, fs) }
	if len(args) == 1 && args[0] == ListArg {
		list(stdout, fs)
		return flag.ErrHelp
	}
	end, err := scan(fs, args)
	if err != nil {
		h.fail(out, err)
		return err
	}
	// Package flag's own messages are replaced by ours.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	perr := fs.Parse(args)
	fs.SetOutput(out)
	fs.Usage = func() { h.print(out, fs) }
	switch {
	case errors.Is(perr, flag.ErrHelp):
		h.print(out, fs)
		return perr
	case perr != nil:
		err := &usageError{msg: perr.Error(), usage: true}
		h.fail(out, err)
		return err
	}
	if !end {
		for _, a := range fs.Args() {
			if err := after(fs, a, h.Args); err != nil {
				h.fail(out, err)
				return err
			}
		}
	}
	if v := fs.Lookup("version"); v != nil && v.Value.String() == "true" {
		fmt.Fprint(stdout, version.Read().String())
		return flag.ErrHelp
	}
	return nil
}

// usageError is a mistake on the command line, printed by Parse.
type usageError struct {
	msg     string
	suggest string // a flag name, without "-"
	usage   bool   // repeat the synopsis and where -h is
}

// Error implements error.
func (e *usageError) Error() string { return e.msg }

// Unwrap makes errors.Is(err, ErrReported) hold.
func (e *usageError) Unwrap() error { return ErrReported }

// scan walks the flags at the front of args as package flag will, and
// returns the first unknown flag or unitless duration; end reports that
// "--" ended the flags.
func scan(fs *flag.FlagSet, args []string) (end bool, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if len(a) < 2 || a[0] != '-' {
			return false, nil
		}
		if a == "--" {
			return true, nil
		}
		name := strings.TrimPrefix(a[1:], "-")
		if name == "" || name[0] == '-' || name[0] == '=' {
			return false, nil // package flag's "bad flag syntax"
		}
		name, value, hasValue := strings.Cut(name, "=")
		fl := fs.Lookup(name)
		if fl == nil {
			if name == "h" || name == "help" {
				return false, nil
			}
			return false, &usageError{msg: "unknown flag -" + name, suggest: closest(fs, name), usage: true}
		}
		if isBool(fl) {
			continue
		}
		if !hasValue {
			if i+1 == len(args) {
				return false, nil // package flag's "flag needs an argument"
			}
			i++
			value = args[i]
		}
		if err := checkDuration(fl, value); err != nil {
			return false, err
		}
	}
	return false, nil
}

// after returns the error for argument a, which follows the positional
// arguments, when it looks like a flag.
func after(fs *flag.FlagSet, a, what string) error {
	if len(a) < 2 || a[0] != '-' {
		return nil
	}
	if what == "" {
		what = "the arguments"
	}
	name, _, _ := strings.Cut(strings.TrimPrefix(a[1:], "-"), "=")
	if fs.Lookup(name) != nil {
		return &usageError{msg: fmt.Sprintf("flag -%s after %s; put flags first", name, what)}
	}
	return &usageError{msg: fmt.Sprintf("%s after %s: flags go first, and -%s is no flag (an argument that starts with - goes after --)", a, what, name), suggest: closest(fs, name)}
}

func isBool(fl *flag.Flag) bool {
	b, ok := fl.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// checkDuration refuses a plain number for a duration flag, which
// time.ParseDuration rejects with "missing unit" (except 0).
func checkDuration(fl *flag.Flag, value string) error {
	g, ok := fl.Value.(flag.Getter)
	if !ok {
		return nil
	}
	if _, ok := g.Get().(time.Duration); !ok {
		return nil
	}
	if _, err := time.ParseDuration(value); err == nil {
		return nil
	}
	if _, err := strconv.ParseFloat(value, 64); err != nil {
		return nil // package flag says it is no duration
	}
	return &usageError{msg: fmt.Sprintf("-%s %s: a duration needs a unit, e.g. %ss", fl.Name, value, value)}
}

// fail prints err as a usage error: the message, then (for an unknown
// flag or a malformed one) the first synopsis line, the suggestion and
// where -h is; the suggestion alone otherwise.
func (h Help) fail(w io.Writer, err error) {
	var ue *usageError
	if !errors.As(err, &ue) {
		fmt.Fprintf(w, "%s: %v\n", h.Name, err)
		return
	}
	fmt.Fprintf(w, "%s: %s\n", h.Name, ue.msg)
	if ue.usage && len(h.Synopsis) > 0 {
		fmt.Fprintf(w, "usage: %s\n", h.Synopsis[0])
	}
	if ue.suggest != "" {
		fmt.Fprintf(w, "did you mean -%s?\n", ue.suggest)
	}
	fmt.Fprintf(w, "%s -h prints every flag\n", h.command())
}

// command returns the command line that runs the subcommand.
func (h Help) command() string {
	if len(h.Synopsis) > 0 {
		if f := strings.Fields(h.Synopsis[0]); len(f) >= 2 && f[0] == "speedmatrix" {
			return f[0] + " " + f[1]
		}
	}
	return "speedmatrix " + h.Name
}

// print writes the whole help: synopsis, example, exit codes, notes,
// flags.
func (h Help) print(w io.Writer, fs *flag.FlagSet) {
	for i, s := range h.Synopsis {
		if i == 0 {
			fmt.Fprintf(w, "usage: %s\n", s)
		} else {
			fmt.Fprintf(w, "       %s\n", s)
		}
	}
	if len(h.Example) > 0 {
		fmt.Fprintln(w, "\nExample:")
		for _, e := range h.Example {
			fmt.Fprintf(w, "  %s\n", e)
		}
	}
	if len(h.Exit) > 0 {
		fmt.Fprintln(w, "\nExit status:")
		for _, e := range h.Exit {
			fmt.Fprintf(w, "  %s\n", e)
		}
	}
	if len(h.Notes) > 0 {
		fmt.Fprintln(w)
		for _, n := range h.Notes {
			fmt.Fprintln(w, n)
		}
	}
	fmt.Fprintln(w, "\nFlags:")
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// list prints one line per flag of fs: "-name", a tab, "bool" or
// "value", a tab, the first line of its usage.
func list(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(fl *flag.Flag) {
		kind := "value"
		if isBool(fl) {
			kind = "bool"
		}
		usage, _, _ := strings.Cut(fl.Usage, "\n")
		fmt.Fprintf(w, "-%s\t%s\t%s\n", fl.Name, kind, usage)
	})
}

// Flag is one line of the flag listing (see ListArg).
type Flag struct {
	Name  string // without "-"
	Bool  bool   // takes no value
	Usage string // the first line of its usage
}

// ParseList reads the flag listing that Parse prints for ListArg.
func ParseList(text string) ([]Flag, error) {
	var fs []Flag
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		if line == "" {
			continue
		}
		f := strings.SplitN(line, "\t", 3)
		if len(f) != 3 || !strings.HasPrefix(f[0], "-") || (f[1] != "bool" && f[1] != "value") {
			return nil, fmt.Errorf("flag listing: %q is not -NAME<TAB>bool|value<TAB>USAGE", line)
		}
		fs = append(fs, Flag{Name: f[0][1:], Bool: f[1] == "bool", Usage: f[2]})
	}
	return fs, nil
}

// closest returns the flag of fs nearest to name (see Closest), or "".
func closest(fs *flag.FlagSet, name string) string {
	var names []string
	fs.VisitAll(func(fl *flag.Flag) { names = append(names, fl.Name) })
	return Closest(name, names)
}

// Closest returns the candidate nearest to name: one that name is a
// prefix of (two characters at least), else the least edit distance
// (ties: the first candidate) if it is at most 2 or a third of name's
// length; "" when none is that near.
func Closest(name string, candidates []string) string {
	name = strings.ToLower(name)
	best, bestD := "", 0
	for _, c := range candidates {
		d := textdist.Levenshtein(name, c)
		if len(name) >= 2 && strings.HasPrefix(c, name) {
			d = min(d, 1)
		}
		if best == "" || d < bestD {
			best, bestD = c, d
		}
	}
	if best == "" || bestD > max(2, len(name)/3) {
		return ""
	}
	return best
}
