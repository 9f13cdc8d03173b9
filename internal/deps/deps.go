// Package deps pins the modules speedmatrix depends on while packages are being written, so that
// concurrent edits never race on go.mod; delete it once every module is imported by real code.
package deps

import (
	_ "github.com/PuerkitoBio/goquery"
	_ "github.com/apache/arrow-go/v18/parquet/pqarrow"
	_ "github.com/apache/arrow-go/v18/parquet/compress"
	_ "github.com/apache/arrow-go/v18/arrow/array"
	_ "github.com/yuin/goldmark"
	_ "github.com/yuin/goldmark/extension"
	_ "gonum.org/v1/plot"
	_ "gonum.org/v1/plot/vg/vgimg"
	_ "gonum.org/v1/plot/vg/vgsvg"
	_ "gonum.org/v1/gonum/optimize"
	_ "golang.org/x/perf/benchmath"
	_ "github.com/prometheus/common/expfmt"
	_ "golang.org/x/term"
	_ "github.com/gofrs/flock"
)
