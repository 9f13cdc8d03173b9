package canonjson

// FieldInfo is what the plan tests see of one field of a plan.
type FieldInfo struct {
	Name                  string
	Offset                uintptr
	OmitEmpty, NilOmitted bool
	NilRun                int
}

// Fields lists p's fields for the plan tests.
func Fields(p *Plan) []FieldInfo {
	out := make([]FieldInfo, len(p.fields))
	for i, f := range p.fields {
		out[i] = FieldInfo{f.name, f.offset, f.omitEmpty, f.nilOmitted, f.nilRun}
	}
	return out
}
