package runcmd

import (
	"fmt"
	"io"
	"os"

	"speedmatrix/internal/archivepath"
)

// resolveArchive sets o.archive to the archive the run appends to
// (archivepath: -archive, else $SPEEDMATRIX_ARCHIVE, else ./archive when
// it exists; none, and the run is archived nowhere) and checks what the
// run will create: a missing archive is created now, where its
// checkpoint goes, and said so on stderr; a missing parent directory,
// of the archive or of -out, is an error and nothing is created.
func resolveArchive(o *options, stderr io.Writer) error {
	if o.out != "" {
		if err := archivepath.CheckParent(o.out); err != nil {
			return fmt.Errorf("-out %s cannot be written: %w", o.out, err)
		}
	}
	c := archivepath.Resolve(o.archive)
	if c.Path == "" || archivepath.IsRef(c.Path) {
		o.archive = c.Path
		return nil
	}
	isNew, err := c.ForWrite()
	if err != nil {
		return err
	}
	o.archive = c.Path
	if isNew {
		if err := os.Mkdir(c.Path, 0o755); err != nil {
			return fmt.Errorf("archive: %w", err)
		}
		archivepath.Created(stderr, c.Path)
	}
	return nil
}
