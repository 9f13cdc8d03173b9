package servecmd

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestTableRefused: serve given a shared table reference says it serves a
// directory archive only, exit 1, without the reference's password.
func TestTableRefused(t *testing.T) {
	var out, errs bytes.Buffer
	ref := "iceberg+postgres://bench:sekrit@db.lan/iceberg?warehouse=s3://b/p#ns"
	code := run(context.Background(), []string{"-archive", ref}, nil, &out, &errs)
	if code != exitFail || !strings.Contains(errs.String(), "not served yet") || strings.Contains(errs.String(), "sekrit") {
		t.Errorf("exit %d: %s", code, errs.String())
	}
}
