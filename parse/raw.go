package parse

// rawDoc is what every document format extracts before any number is
// interpreted: the printed strings and the line each came from. One
// builder (build.go) turns a rawDoc into a schema.Matrix, so the rules
// (normalization, agreement between the summary and the full table,
// metadata mapping, launch-command parsing) live in one place and the
// text, HTML and Markdown forms of a document cannot drift apart.
type rawDoc struct {
	Name   string // file name used in error messages
	Format string // schema.FormatText, FormatHTML or FormatMarkdown

	Title        string // "Ling-3.0-tiny-int4 on RTX PRO 6000 Blackwell Server Edition 96GB"
	TitleLine    int
	Subtitle     string // "vllm · 0.30.1rc1… · INT4 · 5 contexts (8K–123K) × …", as printed
	SubtitleLine int

	// Fields are the key/value pairs of the Hardware, Engine and Run
	// sections (and any other section), in document order.
	Fields []rawField

	Launch     string // launch command as printed (already redacted or not)
	LaunchLine int

	// Prefill holds the prefill figures of the Prefill section.
	Prefill []rawPrefill
	// Matrix holds the cells of the Sustained decode matrix (matrixCells
	// builds them from a header row and data rows).
	Matrix []rawCell
	// MatrixLine is the line of the matrix header (0 when there is none).
	MatrixLine int
	// MatrixCaption is the caption printed above the matrix ("total tok/s
	// · rows are context length, …"). When it names per-request tok/s the
	// builder compares the cells with that column instead of Total tok/s.
	MatrixCaption string
	// Table is the All measurements table.
	Table rawTable
	// Serve is the rate table (HeaderLine 0 when there is none): a view
	// of the serve rows of Table, checked against them (serverates.go).
	Serve rawTable `json:",omitzero"`
	// ServeCaption is the text printed above the rate table ("… Arrival:
	// poisson, seed 42."): the arrival it names is checked against the
	// run's Arrival pair.
	ServeCaption string `json:",omitempty"`
}

// rawField is one key/value pair as printed.
type rawField struct {
	Section string
	Key     string
	Value   string
	Line    int
}

// rawPrefill is one prefill figure: "8K context", "55K" tok/s, "149 ms" TTFT.
type rawPrefill struct {
	Context string // context label as printed, without the word "context": "8K"
	TokS    string // "55K"
	TTFT    string // "149 ms" (may be "149 ms TTFT"; the builder strips the suffix)
	// Glued holds tok/s and TTFT printed without a separator ("55K149 ms
	// TTFT") when the format could not tell them apart; TokS and TTFT are
	// then empty and the builder splits Glued the way that agrees with the
	// All measurements table.
	Glued string
	Line  int
}

// rawCell is one cell of the decode matrix.
type rawCell struct {
	Context     string // row header as printed: "8K"
	Concurrency string // column header as printed: "128"
	// TokS and TTFT are set when the format prints them in separate
	// elements; Glued is set instead when they run together
	// ("6,091.1783 ms TTFT"). Status-only cells ("Looped", "Over
	// capacity") put their text in Glued with TokS and TTFT empty.
	TokS  string
	TTFT  string
	Glued string
	Line  int
}

// rawTable is a table as printed: a header row and data rows of cells.
type rawTable struct {
	Header     []string
	HeaderLine int
	Rows       []rawRow
}

// rawRow is one data row of a table.
type rawRow struct {
	Cells []string
	// Text, when Cells is nil, is the row's line ("| a | b |"), split
	// into its cells each time they are read (see cells).
	//
	// Note: the text form keeps the rows of All measurements this way: the
	// cells of a 540,000-row table were 127 MB beside the document's 60.
	Text string `json:",omitempty"`
	Line int
}

// cells returns the row's cells, in buf's storage when they come from
// Text.
func (r *rawRow) cells(buf []string) []string {
	if r.Cells != nil || r.Text == "" {
		return r.Cells
	}
	return appendCells(buf[:0], trimRow(r.Text))
}
