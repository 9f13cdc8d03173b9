package archivepath

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// EnvVar names the environment variable that gives the archive when
// -archive is not given.
const EnvVar = "SPEEDMATRIX_ARCHIVE"

// DefaultDir is the archive used when neither -archive nor EnvVar gives
// one: ./archive, when it exists (or, for a write command, always).
const DefaultDir = "archive"

// refPrefix starts every Iceberg table reference (archive/iceberg.Prefix,
// restated: this package must not link iceberg-go; TestRefPrefix checks
// the two agree).
const refPrefix = "iceberg+"

// Where a Choice came from.
const (
	FromFlag    = "-archive"
	FromEnv     = "$" + EnvVar
	FromDefault = "./" + DefaultDir
)

// Choice is the archive a command resolved: Path ("" when nothing gave
// one) and From, which of FromFlag, FromEnv or FromDefault gave it.
type Choice struct {
	Path, From string
	// env is EnvVar's value as read ("" when unset), for the error that
	// lists what was tried.
	env string
}

// IsRef reports whether the choice is an Iceberg table reference rather
// than a directory.
func IsRef(path string) bool { return strings.HasPrefix(path, refPrefix) }

// Resolve returns the archive named by flagValue (-archive, "" when not
// given), else by $SPEEDMATRIX_ARCHIVE, else ./archive when it is a
// directory. With none of them, Path is "" and From FromDefault.
func Resolve(flagValue string) Choice {
	env := os.Getenv(EnvVar)
	switch {
	case flagValue != "":
		return Choice{Path: flagValue, From: FromFlag, env: env}
	case env != "":
		return Choice{Path: env, From: FromEnv, env: env}
	}
	c := Choice{From: FromDefault}
	if st, err := os.Stat(DefaultDir); err == nil && st.IsDir() {
		c.Path = DefaultDir
	}
	return c
}

// ForRead checks the choice of a command that reads an archive: it must
// exist and be a directory (a reference is taken as given). The error
// of a missing archive names the paths tried, in order.
func (c Choice) ForRead() error {
	if IsRef(c.Path) {
		return nil
	}
	if c.Path == "" {
		return errors.New("no archive: " + c.tried() + "; give -archive DIR (or set " + EnvVar + ")")
	}
	st, err := os.Stat(c.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("no archive at %s: %s", c.Path, c.tried())
	case err != nil:
		return fmt.Errorf("archive %s: %w", c.Path, err)
	case !st.IsDir():
		return fmt.Errorf("%s is not a directory", c.name())
	}
	return nil
}

// name is the choice as an error names it: "-archive PATH",
// "$SPEEDMATRIX_ARCHIVE PATH" or "./archive".
func (c Choice) name() string {
	if c.From == FromDefault {
		return FromDefault
	}
	return c.From + " " + c.Path
}

// tried lists the places Resolve looked, up to the one it took.
func (c Choice) tried() string {
	var out []string
	if c.From == FromFlag {
		return "tried -archive " + c.Path + " (does not exist)"
	}
	out = append(out, "-archive (not given)")
	if c.From == FromEnv {
		out = append(out, FromEnv+" "+c.env+" (does not exist)")
		return "tried " + strings.Join(out, ", ")
	}
	out = append(out, FromEnv+" (not set)", FromDefault+" (does not exist)")
	return "tried " + strings.Join(out, ", ")
}

// ForWrite checks the choice of a command that writes an archive and
// reports whether the archive is new: the command then creates it and
// says so (Created). With nothing resolved, the path is ./archive. A
// path that is a file, or whose parent directory does not exist, is an
// error: no command creates a missing parent.
func (c *Choice) ForWrite() (isNew bool, err error) {
	if c.Path == "" {
		c.Path = DefaultDir
	}
	if IsRef(c.Path) {
		return false, nil
	}
	st, err := os.Stat(c.Path)
	switch {
	case err == nil && !st.IsDir():
		return false, fmt.Errorf("%s is a file, not an archive directory", c.name())
	case err == nil:
		return false, nil
	case !errors.Is(err, fs.ErrNotExist):
		return false, fmt.Errorf("%s cannot be written: %w", c.name(), err)
	}
	if err := CheckParent(c.Path); err != nil {
		return false, fmt.Errorf("%s cannot be written: %w", c.name(), err)
	}
	return true, nil
}

// Created says on w that the archive at path was created: once, by the
// write that created it.
func Created(w io.Writer, path string) {
	fmt.Fprintf(w, "created archive at %s\n", path)
}

// CheckParent returns an error when the directory that would hold path
// does not exist (or is not a directory): the rule for every file or
// directory a command creates (an archive, run -out, compare -html).
// Nothing is created.
func CheckParent(path string) error {
	parent := filepath.Dir(filepath.Clean(path))
	st, err := os.Stat(parent)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("parent directory %s does not exist", parent)
	case err != nil:
		return fmt.Errorf("parent directory %s: %w", parent, err)
	case !st.IsDir():
		return fmt.Errorf("parent %s is not a directory", parent)
	}
	return nil
}
