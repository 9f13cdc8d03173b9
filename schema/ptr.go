package schema

// F64 returns a pointer to v, for optional float columns.
func F64(v float64) *float64 { return &v }

// I64 returns a pointer to v, for optional int64 columns.
func I64(v int64) *int64 { return &v }

// I32 returns a pointer to v, for optional int32 columns.
func I32(v int32) *int32 { return &v }
