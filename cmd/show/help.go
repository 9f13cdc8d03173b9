package showcmd

import (
	"fmt"

	"speedmatrix/internal/archivepath"
	"speedmatrix/internal/cliflag"
)

// help is what -h prints besides the flags (package cliflag).
var help = cliflag.Help{
	Name:     "show",
	Synopsis: []string{"speedmatrix show [-archive DIR] [-md | -json] RUN"},
	Example: []string{
		"speedmatrix show -archive archive gpu=~H200,quant=bf16",
		"speedmatrix show -json testdata/seeds/000_acc4a01d882a0446.txt",
	},
	Exit: []string{
		"0  printed",
		"1  the run could not be read, or the selector matched no run or several",
		"2  usage error",
	},
	Notes: []string{
		"Prints one run: what it is and its best figures, every cell, and its metadata.",
		"RUN is a run-id prefix, key=value (equal, ignoring case) or key=~value (contains, ignoring case)\nfilters joined by commas (gpu=~H200,quant=bf16), a document file, or - for standard input.",
		fmt.Sprintf("The archive is -archive DIR, else $%s, else ./%s when it exists.", archivepath.EnvVar, archivepath.DefaultDir),
	},
	Args: "RUN",
}
