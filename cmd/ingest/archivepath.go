package ingestcmd

import (
	"fmt"
	"io"

	"speedmatrix/archive"
	"speedmatrix/internal/archivepath"
)

// openArchive opens the archive of -archive (*dir; set to the path
// taken), $SPEEDMATRIX_ARCHIVE or ./archive (archivepath). A read
// (-check, -drop) needs one that exists; a write creates a missing one,
// saying so on stderr, but never its parent directory.
func openArchive(dir *string, read bool, stderr io.Writer) (*archive.Archive, error) {
	c := archivepath.Resolve(*dir)
	isNew := false
	var err error
	if read {
		err = c.ForRead()
	} else {
		isNew, err = c.ForWrite()
	}
	if err != nil {
		return nil, err
	}
	*dir = c.Path
	a, err := archive.Open(c.Path)
	if err != nil {
		return nil, err
	}
	if isNew {
		archivepath.Created(stderr, c.Path)
	}
	return a, nil
}

// usageArchive is the line of -h on where the archive is.
var usageArchive = fmt.Sprintf("The archive is -archive DIR, else $%s, else ./%s (created by a write when missing, never its parent directory).", archivepath.EnvVar, archivepath.DefaultDir)
