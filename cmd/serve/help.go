package servecmd

import "speedmatrix/internal/cliflag"

// help is what -h prints besides the flags (package cliflag).
var help = cliflag.Help{
	Name:     "serve",
	Synopsis: []string{"speedmatrix serve [-archive DIR|TABLE] [-addr HOST:PORT] [-token T | -open]"},
	Example: []string{
		"speedmatrix serve -archive archive                 # then open http://127.0.0.1:8080/runs",
		"speedmatrix serve -archive archive -addr 0.0.0.0:8080 -token \"$TOKEN\"",
		"speedmatrix serve -archive 'iceberg+sqlite:///srv/bench/catalog.db?warehouse=file:///srv/bench/warehouse#speedmatrix'",
	},
	Exit: []string{
		"0  stopped by an interrupt",
		"1  the archive could not be read or the address not listened on",
		"2  usage error: nothing was served",
	},
	Notes: []string{"It binds the loopback address by default; any other address needs -token T or -open.",
		"The archive is -archive DIR or a table reference (docs/iceberg.md), else $SPEEDMATRIX_ARCHIVE, else ./archive when it exists.",
		"A shared table is read at its current snapshot, checked again at most every 5 s; a directory on every request."},
}
