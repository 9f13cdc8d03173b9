package report

import (
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
)

// tableNamePattern is every table name a report can hold: -table is
// checked against it before any work (TableNameKnown).
var tableNamePattern = regexp.MustCompile(`^(summary|answers|best|cost_runs|answers_cost|answers_joule|cost|serve|runs|deltas|geomeans|scaling|context|frontier|min_user_tps|slo|matrix_(decode|serve)_[a-z0-9_]+)(_[0-9]+)?$`)

// TableNameKnown reports whether name is a table name a report may
// hold; KnownTables lists them for messages.
func TableNameKnown(name string) bool { return tableNamePattern.MatchString(name) }

// KnownTables lists the table names -table accepts (a second table of a
// kind is NAME_2, …).
const KnownTables = "summary, answers, best, cost_runs, answers_cost, answers_joule, cost, matrix_decode_METRIC, matrix_serve_METRIC, serve, runs, deltas, geomeans, scaling, context, frontier, min_user_tps, slo"

// Write prints the report in format f: the outcome and the summary
// first, then every other table (text, Markdown); the delta rows or the
// named table (CSV); one object with every section (JSON). A non-empty
// table prints that table alone (text, Markdown, CSV).
func (r *Report) Write(w io.Writer, f Format, table string) error {
	if f == FormatJSON {
		return r.WriteJSON(w)
	}
	if f == FormatCSV && (table == "" || table == "deltas") {
		return WriteDeltas(w, r.Comparison, f) // figures unrounded
	}
	tables := r.Tables()
	if table != "" {
		all := r.tables()
		i := slices.IndexFunc(all, func(t Table) bool { return t.Name == table })
		if i < 0 {
			var names []string
			for _, t := range tables {
				names = append(names, t.Name)
			}
			return fmt.Errorf("this report has no table %q; it has %s", table, strings.Join(names, ", "))
		}
		return all[i].Write(w, f)
	}
	if err := r.writeOutcome(w, f); err != nil {
		return err
	}
	for _, t := range tables {
		if err := t.Write(w, f); err != nil {
			return err
		}
	}
	return nil
}

func (r *Report) writeOutcome(w io.Writer, f Format) error {
	var b strings.Builder
	if f == FormatMarkdown {
		b.WriteString("## Outcome\n\n")
		for _, s := range r.Summary.Outcome {
			b.WriteString(s + "\n\n")
		}
	} else {
		b.WriteString("Outcome\n")
		for _, s := range r.Summary.Outcome {
			b.WriteString(s + "\n")
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteSummary prints what leads the report: the outcome and the
// summary's tables (text, Markdown), or the Summary object (JSON).
func (r *Report) WriteSummary(w io.Writer, f Format) error {
	if f == FormatJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r.Summary)
	}
	if err := r.writeOutcome(w, f); err != nil {
		return err
	}
	for _, t := range r.Tables() {
		if t.Lead {
			if err := t.Write(w, f); err != nil {
				return err
			}
		}
	}
	return nil
}
