package formats

// ReleaseReaderQuirks are the reader quirk sets the model gives the DuckDB
// releases internal/realduckdb runs (realduckdb.Releases), for the tests
// that read with them (realparquet_test.go): 1.4.3 reads as 1.4.1-1.4.4
// do, 2.0.0 as DuckLake main does.
var ReleaseReaderQuirks = map[string]ReaderQuirk{
	"1.3.0": quirksV1_3_0,
	"1.3.2": quirksV1_3,
	"1.4.3": quirksV1_4_1,
	"1.5.0": quirksV1_5_0,
	"1.5.1": quirksV1_5_1,
	"2.0.0": quirksV1_5_3,
}
