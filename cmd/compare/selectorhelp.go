package comparecmd

// selectorHelp is what -h says of selectors and of where the archive
// is: what analysis.Filter.Match and archivepath.Resolve do.
const selectorHelp = `An argument is a document file, - for standard input, or a selector of an archived run:
  a run-id prefix (hex, any case), or comma-separated filters that must all hold:
  key=value   the value equals, ignoring case and the spaces around it  (gpu="H200 NVL", quant=int4)
  key=~value  the value contains it, ignoring case                      (gpu=~h200, model=~8B)
  A key is a runs column or alias below, or a metadata key the runs carry (Benchmark tool or benchmark_tool);
  a run whose metadata repeats a key matches when any of its values does. A selector that picks no run
  lists the values present, closest first; one that picks several says where they differ and how to pick each.
The archive is -archive DIR, else $SPEEDMATRIX_ARCHIVE, else ./archive when it exists.`
