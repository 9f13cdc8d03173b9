package comparecmd

import (
	"strings"

	"speedmatrix/analysis"
	"speedmatrix/internal/cliflag"
)

// help is what -h prints besides the flags (package cliflag).
var help = cliflag.Help{
	Name: "compare",
	Synopsis: []string{
		"speedmatrix compare [-archive DIR] [-format text|markdown|csv|json] [-html FILE] [-plots DIR] [-min-user-tps T] [-max-ttft MS] [-max-tbt MS] [flags] BASELINE OTHER...",
		"speedmatrix compare [-archive DIR] -list [SELECTOR...]",
		"speedmatrix compare [-archive DIR] -trend [-cell phase:context:N]... [-metric COL] [-order version|date] [-threshold 5%] [SELECTOR...]",
	},
	Example: []string{
		"speedmatrix compare -archive archive -html report.html gpu=~H200,tool=~llm-inference-bench gpu=~RTX,tool=~llm-inference-bench",
		"speedmatrix compare baseline.md other.md",
	},
	Exit: []string{
		"0  compared (or listed)",
		"1  an input could not be read, or a selector matched no run or several",
		"2  usage error: nothing was written",
	},
	Notes: []string{
		selectorHelp,
		"Flags go before the runs. Selector keys: " + strings.Join(analysis.SelectorKeys(), ", ") + ", or a metadata key the archive's runs carry.",
	},
	Args: "the runs",
}
