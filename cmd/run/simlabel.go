package runcmd

import (
	"strings"

	"speedmatrix/runner"
	"speedmatrix/schema"
)

// SimulatedKey is the run metadata key that says a run measured the
// built-in simulator, with the profile's name.
const SimulatedKey = "Simulated server"

// markSimulated makes a run of the built-in simulator say so wherever
// runs are listed: its title ends in "(simulated)" unless its labels
// already say "simulated" (the default -gpu label does), and its metadata
// names the profile. A simulated run must never pass for a measurement
// of the hardware its -gpu names.
func markSimulated(labels *runner.Labels, profile string) {
	extra := labels.Extra
	labels.Extra = func(r *schema.Run) {
		if extra != nil {
			extra(r)
		}
		if !strings.Contains(strings.ToLower(r.Title), "simulated") {
			r.Title += " (simulated)"
		}
		r.Metadata = append(r.Metadata, schema.Field{Section: "Run", Key: SimulatedKey,
			Value: "speedmatrix's built-in simulator, profile " + profile})
	}
}
