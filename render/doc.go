// Package render writes a schema.Matrix as a speed-test document: the
// seeds' flattened text (Text), Markdown (Markdown) or a self-contained
// HTML page (HTML). It is package parse's mirror: parse(render(m)) gives
// back m's measurements, and for a matrix parsed from a seed, Text gives
// back the seed byte for byte.
//
// Pipeline: newView lays a matrix out once, as the strings a document
// prints in order (title, subtitle, a rate run's rate table, key/value
// sections, launch command, prefill figures, decode matrix, full table,
// footnotes), every number already formatted by the Format functions;
// then writeText, writeMarkdown and writeHTML only arrange those
// strings, so the three forms of one matrix cannot disagree.
//
// Numbers follow the seeds' style (55K, 1,627.8, 1,388 ms, 3.1 ms, 9,756,
// 30.0 s, — for none) whenever that style reads back as the same float64,
// and carry more decimals when the value needs them, so a measuring run's
// figures survive a document round trip exactly.
//
// The subtitle's two parts (engine · version · quantization, then the
// matrix's shape) of a document that printed them with nothing between
// them, as the page the seeds were flattened from did, stay so: the text
// form glues them ("INT45 contexts"), HTML draws the separator with CSS,
// Markdown sets the first part as a code span. Any other matrix (a
// measuring run's) prints them separated by " · ", so a version is never
// glued to the count after it, and a run's document reads back to the
// same subtitle.
//
// Summary is not a document: it is the table a person reads on a
// terminal after a run (figures rounded), with the reason of every cell
// that is not valid.
//
// Key/value sections come from Run.Metadata (every pair a parsed document
// printed, in order) when it is set; a matrix made by a measuring run has
// none, and its sections are built from the Run fields instead (a Server
// section holds what the server reported that the launch command does not
// say). Table columns beyond the seeds' twelve (percentiles, errors,
// prompt tokens, repeats, request rates, exact context tokens, status
// reasons, Extra metrics) are added only when some row has them, headed by
// their column names, which package parse maps back to the same fields.
// So a measuring run's document parses back to exactly the rows and run
// facts it was written from (runtrip_test.go checks every field, in all
// three forms). Per-request Samples are not printed: documents carry
// cells, the archive carries samples.
package render
