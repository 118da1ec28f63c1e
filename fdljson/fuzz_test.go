package fdljson

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// The fuzz targets below feed the parsers of the repository's JSON files
// arbitrary bytes. A repository is user input: whatever it holds, a parser
// returns an *Error naming the file (never panics), and what it accepts
// reads back the same once written out again. Their seeds (the examples of
// fdljson_test.go) run with the ordinary tests; `go test ./fdljson -run '^$'
// -fuzz '^FuzzParseRepo$' -fuzztime 10m` runs one for longer.

// checkParseErr holds err to the package's promise: an *Error naming file,
// matched by ErrInvalid.
func checkParseErr(t *testing.T, file string, err error) {
	t.Helper()
	var fe *Error
	if !errors.As(err, &fe) || !errors.Is(err, ErrInvalid) {
		t.Fatalf("error %v (%T) is not an *fdljson.Error", err, err)
	}
	if fe.File != file || !strings.HasPrefix(err.Error(), file+": ") {
		t.Fatalf("error %q does not name the file %s", err, file)
	}
}

// remarshal writes v as JSON the way a writer would.
func remarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal %+v: %v", v, err)
	}
	return b
}

func FuzzParseRepo(f *testing.F) {
	for _, s := range []string{
		fdlJSON,
		`{"fdl":"0.1","formats":[{"ducklake":"1.0"}]}`,
		`{"fdl":"0.1","data_dir":"files","formats":[{"ducklake":"1.0"}]}`,
		`{"fdl":"0.1","formats":[{"ducklake":"0.4","duckdb":">= 1.3.0, < 1.5.2"}]}`,
		`{"fdl":"0.1","formats":[{"ducklake":"1.0","duckdb":">= 1.5.2, < 1.5.0"}]}`,
		`{"fdl":"0.1","formats":[{"ducklake":"1.0","duckdb":">= 1.5.9223372036854775807"}]}`,
		`{"fdl":"0.1","formats":[{"ducklake":"1.0","duckdb":"~> 1.5"}]}`,
		`{"fdl":"0.1","formats":[{"ducklake":"1.0","until":"2026-06-30T00:00:00+14:00"}]}`,
		`{"fdl":"0.1","data_dir":"x/%2e%2e/data/","formats":[{"ducklake":"1.0"}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ParseRepo("fdl.json", data)
		if err != nil {
			checkParseErr(t, "fdl.json", err)
			return
		}
		if len(r.Formats) == 0 || !strings.HasSuffix(r.DataDir, "/") {
			t.Fatalf("accepted %+v", r)
		}
		for _, fm := range r.Formats {
			if fm.Version == nil || fm.Readers == nil {
				t.Fatalf("format %s accepted without its version or readers", fm.DuckLake)
			}
		}
		out := remarshal(t, r)
		again, err := ParseRepo("fdl.json", out)
		if err != nil {
			t.Fatalf("ParseRepo accepted %s but not its own rewrite %s: %v", data, out, err)
		}
		if again.DataDir != r.DataDir || len(again.Formats) != len(r.Formats) {
			t.Fatalf("rewrite %s reads %+v, want %+v", out, again, r)
		}
		for i, fm := range r.Formats {
			g := again.Formats[i]
			if g.DuckLake != fm.DuckLake || g.DuckDB != fm.DuckDB || !g.UntilTime.Equal(fm.UntilTime) || g.Version != fm.Version {
				t.Fatalf("rewrite %s: format %d reads %+v, want %+v", out, i, g, fm)
			}
		}
	})
}

func FuzzParseVersion(f *testing.F) {
	f.Add([]byte(versionJSON), id)
	f.Add([]byte(versionJSON), "")
	f.Add([]byte(`{"fdl":"0.1","id":"`+id+`","seq":1,"parents":[],"created_at":"20261030T0900Z","author":{"name":"a"},"message":"",`+
		`"catalog":{"path":"ducklake.duckdb","storage":"duckdb-v1.5.0","bytes":0,"sha256":"`+strings.Repeat("0", 64)+`"},`+
		`"ducklake":{"format":"1.1-dev1","snapshot_id":0,"snapshots":[0,0]},"changes":[{"table":"t","kind":"k"}]}`), "")
	f.Add([]byte(`{"fdl":"0.1","id":"`+id+`","seq":1,"parents":["\ud800"]}`), id)
	f.Fuzz(func(t *testing.T, data []byte, dir string) {
		const file = "versions/x/version.json"
		v, err := ParseVersion(file, dir, data)
		if err != nil {
			checkParseErr(t, file, err)
			return
		}
		if !IsVersionID(v.ID) || (dir != "" && v.ID != dir) || v.Seq < 1 {
			t.Fatalf("accepted id %q seq %d in folder %q", v.ID, v.Seq, dir)
		}
		if _, err := v.Format(); err != nil {
			t.Fatalf("accepted format %q: %v", v.DuckLake.Format, err)
		}
		out := remarshal(t, v)
		again, err := ParseVersion(file, v.ID, out)
		if err != nil {
			t.Fatalf("ParseVersion accepted %s but not its own rewrite %s: %v", data, out, err)
		}
		if out2 := remarshal(t, again); !bytes.Equal(out, out2) {
			t.Fatalf("rewrite differs once read again:\n%s\n%s", out, out2)
		}
	})
}

func FuzzParseFiles(f *testing.F) {
	for _, s := range []string{
		filesJSON,
		`{"tables":{"main.t":{"files":[{"path":"name=hello%20world/a.parquet","rows":1,"bytes":1}]}}}`,
		`{"tables":{"main.t":{"files":[{"path":"a","rows":1,"bytes":1,"deletes":{"path":"d"}}]}}}`,
		`{"tables":{"a":{"files":[]},"b":{"files":[]},"a":{"files":[]}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fs, err := ParseFiles("files.json", data)
		if err != nil {
			checkParseErr(t, "files.json", err)
			return
		}
		out := remarshal(t, fs)
		again, err := ParseFiles("files.json", out)
		if err != nil {
			t.Fatalf("ParseFiles accepted %s but not its own rewrite %s: %v", data, out, err)
		}
		if d := fs.Diff(again); len(d) != 0 {
			t.Fatalf("rewrite %s differs: %q", out, d)
		}
		if d := again.Diff(fs); len(d) != 0 {
			t.Fatalf("rewrite %s differs: %q", out, d)
		}
	})
}

func FuzzParseDataset(f *testing.F) {
	for _, s := range []string{
		datasetJSON,
		`{"name":"d","title":"t","tables":[{"schema":"main","name":"v","kind":"view","rows":9,"fields":[{"name":"x","type":"int64"}]}]}`,
		`{"name":"d","title":"t"}`,
		`{"name":"n","title":"t","extensions":{"x":[1,2]}}`,
		`{"name":"n","title":"t","tables":[{"schema":"main","name":"x","colour":1}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ParseDataset("dataset.json", data)
		if err != nil {
			checkParseErr(t, "dataset.json", err)
			return
		}
		out := remarshal(t, d)
		again, err := ParseDataset("dataset.json", out)
		if err != nil {
			t.Fatalf("ParseDataset accepted %s but not its own rewrite %s: %v", data, out, err)
		}
		if out2 := remarshal(t, again); !bytes.Equal(out, out2) {
			t.Fatalf("rewrite differs once read again:\n%s\n%s", out, out2)
		}
		// Diff must not fail on any accepted description, against itself
		// or against nothing.
		d.Diff(d.Tables)
		d.Diff(nil)
	})
}

func FuzzParseExpired(f *testing.F) {
	for _, s := range []string{
		`{}`,
		`{"reason": "withdrawn", "note": "ignored"}`,
		`{"reason": "expired", "expired_at": "2027-01-01T00:00:00Z"}`,
		`{"expired_at": "20270101T0000+00"}`,
		`{"expired_at": "soon"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := ParseExpired("expired.json", data)
		if err != nil {
			checkParseErr(t, "expired.json", err)
			return
		}
		if e.Reason == "" {
			t.Fatal("accepted with no reason")
		}
		out := remarshal(t, e)
		again, err := ParseExpired("expired.json", out)
		if err != nil {
			t.Fatalf("ParseExpired accepted %s but not its own rewrite %s: %v", data, out, err)
		}
		if again.Reason != e.Reason || !again.ExpiredAt.Equal(e.ExpiredAt) {
			t.Fatalf("rewrite %s reads %+v, want %+v", out, again, e)
		}
	})
}
