package runcmd

import (
	"fmt"
	"io"

	"speedmatrix/runner"
)

// printPlan says, before any load, what the run will measure and about
// how long it will take (runner.Schedule), and hands the schedule to the
// progress printer, whose finished-cell lines then say the time left.
func printPlan(stderr io.Writer, pp *runner.ProgressPrinter, s runner.Schedule) {
	fmt.Fprintln(stderr, "run: plan:", s)
	pp.Plan(s)
}
