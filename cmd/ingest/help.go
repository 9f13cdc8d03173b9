package ingestcmd

import "speedmatrix/internal/cliflag"

// help is what -h prints besides the flags (package cliflag).
var help = cliflag.Help{
	Name: "ingest",
	Synopsis: []string{
		"speedmatrix ingest [-archive DIR] [-format FORMAT] [-json] [-compact] [-lock-timeout D] [-skip-damaged] [-reread] [-files-from LIST] FILE...",
		"speedmatrix ingest [-archive DIR] -check [-move-damaged]",
		"speedmatrix ingest [-archive DIR] -drop RUN_ID[,RUN_ID…]",
		"speedmatrix ingest [-archive DIR] -push iceberg+…   (publish the local runs a shared table lacks)",
		"speedmatrix ingest -archive iceberg+… -maintain [-grace D]",
	},
	Example: []string{
		"speedmatrix ingest -archive archive testdata/seeds/*.txt",
		"speedmatrix ingest -json result.json | less      # parse only: print, write nothing",
	},
	Exit: []string{
		"0  every document was read (added, or already in the archive)",
		"1  some documents, or the archive, failed: each is named on stderr",
		"2  usage error: nothing was read or written",
	},
	Notes: []string{
		"FILE - reads standard input. One line per run on stdout (a file of several configurations holds\nseveral): run_id, title, rows, added|duplicate|error. Flags go before the FILEs.",
		usageArchive,
		"-archive also takes a shared table: iceberg+sqlite:///path/catalog.db,\niceberg+postgres://host/db?warehouse=s3://bucket/prefix#ns (docs/iceberg.md).",
	},
	Args: "the file arguments",
}
