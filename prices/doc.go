// Package prices reads what GPUs cost to rent, so that compare can answer
// per dollar: a small TOML file of US dollars per GPU-hour with the date
// the prices were read, and one-off entries given on the command line.
//
// The pipeline:
//
//	price file (bytes, name) ──► Parse ──► Table (AsOf, Entries with their lines)
//	"-price GPU=USD/h"       ──► ParseEntry ──► Table.Set (a later entry replaces one of the same GPU)
//	a run's GPU name         ──► Table.Lookup ──► the Entry that prices it, or why none does
//
// The file (docs/prices.md):
//
//	as_of = 2026-12-01        # when the prices were read (required)
//	source = "…"              # where they come from (optional)
//	[gpu]
//	"H200" = 3.5              # US dollars per GPU-hour
//	"RTX PRO 6000" = 1.2
//
// A run's GPU is matched by a rule a reader can repeat (Lookup): the key
// equal to its name (case and surrounding spaces aside), else the longest
// key found in its name as whole words ("H200" in "H200 NVL", never
// "H20" in "H200"); two different keys of that longest length are
// ambiguous, an error naming both. Nothing is guessed: a GPU no key
// matches has no price.
//
// Parse reports bad input as "file:line: message" (internal/source.Error).
// The TOML grammar is github.com/pelletier/go-toml/v2's: its decoder checks
// the document, its parser gives the line of every key.
package prices
