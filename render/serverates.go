package render

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"text/tabwriter"

	"speedmatrix/schema"
)

// writeServeRates writes the serve rows of m as a table a person reads:
// the load (request rate, or streams), what was achieved, goodput,
// output tok/s, TTFT, TBT and E2E medians and p99s, and requests in
// flight on average. Nothing when m has no valid serve row.
//
// Note: the documents carry serve rows in the All measurements table,
// with every figure under its column name, which is what reads back;
// this table is for the terminal only.
func writeServeRates(b *bytes.Buffer, m *schema.Matrix) {
	var rows []*schema.Measurement
	for i := range m.Measurements {
		if x := &m.Measurements[i]; x.Phase == schema.PhaseServe && x.Status == schema.StatusValid {
			rows = append(rows, x)
		}
	}
	if len(rows) == 0 {
		return
	}
	b.WriteString("\nServe: by request rate (ms: p50 / p99)\n")
	tw := tabwriter.NewWriter(b, 0, 0, 3, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "context\tload\tachieved/s\tdone/s\tgoodput/s\tout tok/s\tTTFT\tTBT\tE2E\tin flight\terrors\t")
	num := func(p *float64, digits int) string {
		if p == nil {
			return None
		}
		return FormatDecimal(math.Round(*p*math.Pow10(digits))/math.Pow10(digits), digits)
	}
	pair := func(a, b *float64) string {
		if a == nil {
			return None
		}
		s := strings.TrimSuffix(humanMs(*a), " ms")
		if b != nil {
			s += " / " + strings.TrimSuffix(humanMs(*b), " ms")
		}
		return s
	}
	for _, x := range rows {
		load := None
		switch {
		case x.RequestRate != nil && !math.IsInf(*x.RequestRate, 0):
			load = FormatDecimal(*x.RequestRate, 0) + "/s"
		case x.Concurrency != nil:
			load = fmt.Sprintf("%d streams", *x.Concurrency)
		case x.RequestRate != nil:
			load = "all at once"
		}
		achieved := None
		for _, e := range x.Extra {
			if e.Name == "achieved_request_rate" {
				achieved = num(&e.Value, 2)
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", label(x), load, achieved,
			num(x.RequestThroughput, 2), num(x.GoodputReqS, 2), num(x.TotalTokS, 1),
			pair(x.TTFTMs, x.TTFTP99Ms), pair(x.TBTMs, x.TBTP99Ms), pair(x.E2EP50Ms, x.E2EP99Ms),
			num(x.AvgActiveRequests, 1), optI(x.ErroredRequests))
	}
	tw.Flush()
}
