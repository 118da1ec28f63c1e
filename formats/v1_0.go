package formats

import "slices"

// V1_0 is DuckLake 1.0 (DuckDB 1.5.2+): the 0.4 layout; writers may add
// bucket(N) partitions and bare Puffin deletion vectors.
var V1_0 = &Version{
	Name: "1.0", Stamp: "1.0",
	Tables:       tablesV0_4,
	Caps:         capsV0_4 | CapPuffinDeletes,
	DuckDB:       ">= 1.5.2",
	Storage:      "v1.5.0",
	Types:        typesV0_4,
	Transforms:   append(slices.Clone(transformsV0_1), "bucket("),
	ChangeTokens: tokensV0_4,
}
