package iceberg

import (
	_ "embed"
	"fmt"
	"strings"
	"sync"

	ice "github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"

	"speedmatrix/archive"
)

// columnDocs holds the documentation of every column, one line each:
// table, tab, column, tab, doc. It is docs/schema.md's column tables
// (meaning, then the unit), kept in step by TestColumnDocs (go test
// ./archive/iceberg -run TestColumnDocs -update rewrites it).
//
//go:embed columns.tsv
var columnDocs string

// docs returns the doc of every column of table, by column name.
func docs(tbl string) map[string]string {
	out := map[string]string{}
	for line := range strings.SplitSeq(columnDocs, "\n") {
		t, rest, ok := strings.Cut(line, "\t")
		if !ok || t != tbl {
			continue
		}
		col, doc, _ := strings.Cut(rest, "\t")
		out[col] = doc
	}
	return out
}

// Schema returns the Iceberg schema of an archive table (one of
// archive.Tables): the columns and types of the archive's Arrow schema
// (the same as today's Parquet files, docs/schema.md), field ids assigned
// in order, each top-level field documented.
func Schema(tbl string) (*ice.Schema, error) {
	s, ok := schemas()[tbl]
	if !ok {
		return nil, fmt.Errorf("iceberg: no table %q", tbl)
	}
	return s, nil
}

var schemas = sync.OnceValue(func() map[string]*ice.Schema {
	out := map[string]*ice.Schema{}
	for _, tbl := range archive.Tables {
		sc, err := table.ArrowSchemaToIcebergWithFreshIDs(archive.ArrowSchema(tbl), false)
		if err != nil {
			// The archive's schemas are fixed at compile time; every
			// test catches a type Iceberg cannot hold.
			panic(fmt.Sprintf("iceberg: schema of %s: %v", tbl, err))
		}
		d := docs(tbl)
		fields := sc.Fields()
		for i := range fields {
			fields[i].Doc = d[fields[i].Name]
		}
		out[tbl] = ice.NewSchema(0, fields...)
	}
	return out
})
