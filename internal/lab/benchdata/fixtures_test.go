// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package benchdata

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pprofile"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

var update = flag.Bool("update", false, "rewrite the exporter's testdata/fixtures from this package's records")

// The exporter's unit tests, and integrationtest's, read these records from fixtures in its
// testdata/ rather than import this package (the lab is a module of its own).
var fixtures = []struct {
	file      string
	marshal   func() ([]byte, error)
	unmarshal func([]byte) ([]byte, error) // the fixture read back and marshaled as protobuf
	proto     func() ([]byte, error)       // the records here marshaled as protobuf
}{
	{
		file:    "profiles.json",
		marshal: func() ([]byte, error) { return (&pprofile.JSONMarshaler{}).MarshalProfiles(Profiles(8)) },
		unmarshal: func(b []byte) ([]byte, error) {
			pd, err := (&pprofile.JSONUnmarshaler{}).UnmarshalProfiles(b)
			if err != nil {
				return nil, err
			}
			return (&pprofile.ProtoMarshaler{}).MarshalProfiles(pd)
		},
		proto: func() ([]byte, error) { return (&pprofile.ProtoMarshaler{}).MarshalProfiles(Profiles(8)) },
	},
	{
		file:    "span.json",
		marshal: func() ([]byte, error) { return (&ptrace.JSONMarshaler{}).MarshalTraces(Traces(1)) },
		unmarshal: func(b []byte) ([]byte, error) {
			td, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(b)
			if err != nil {
				return nil, err
			}
			return (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
		},
		proto: func() ([]byte, error) { return (&ptrace.ProtoMarshaler{}).MarshalTraces(Traces(1)) },
	},
}

// TestFixtures keeps the exporter's testdata/fixtures equal to Profiles(8) and Traces(1);
// -update rewrites them.
func TestFixtures(t *testing.T) {
	for _, f := range fixtures {
		t.Run(f.file, func(t *testing.T) {
			path := filepath.Join("..", "..", "..", "testdata", "fixtures", f.file)
			if *update {
				b, err := f.marshal()
				require.NoError(t, err)
				var out bytes.Buffer
				require.NoError(t, json.Indent(&out, b, "", "  "))
				out.WriteByte('\n')
				require.NoError(t, os.WriteFile(path, out.Bytes(), 0o644)) //nolint:gosec // a fixture of the repository, readable as the checkout is
			}
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			got, err := f.unmarshal(b)
			require.NoError(t, err)
			want, err := f.proto()
			require.NoError(t, err)
			assert.Equal(t, want, got, "%s differs from this package's records: go test -run TestFixtures -update", path)
		})
	}
}
