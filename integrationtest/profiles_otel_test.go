// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package integrationtest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pprofile"

	"github.com/otelcol-es/elasticsearchexporter/integrationtest/internal/estest"
	"github.com/otelcol-es/elasticsearchexporter/internal/routing"
)

// otelProfilingStreams are the data streams the otel mode writes profiles into.
var otelProfilingStreams = []string{
	routing.ProfilingEventsOTel, routing.ProfilingStacktracesOTel, routing.ProfilingStackframesOTel,
	routing.ProfilingExecutablesOTel, routing.ProfilingHostsOTel,
}

// otelProfileOnce is the number of documents of each content-addressed kind that one profile of
// runProfiles writes the first time: profileStacks stacks, their symbolized frames
// (one per stack and the main frame they share), two executables and the host.
var otelProfileOnce = map[string]int{
	routing.ProfilingStacktracesOTel: profileStacks,
	routing.ProfilingStackframesOTel: profileStacks + 1,
	routing.ProfilingExecutablesOTel: 2,
	routing.ProfilingHostsOTel:       1,
}

// runProfiles returns fixtureProfiles(n) made unique to run: host.id is host-<run>, the
// function names end in .<run> and the two build ids are 32 hex digits of the clock, so every
// stack trace, frame, executable and host id is new. The data streams cannot be deleted here,
// and a document of an earlier run with the same _id would make this run's a duplicate.
func runProfiles(tb testing.TB, n int, run string) pprofile.Profiles {
	tb.Helper()
	pd := pprofile.NewProfiles()
	fixtureProfiles(tb, n).CopyTo(pd)
	dict := pd.Dictionary()
	strs := dict.StringTable()
	for i, s := range strs.All() {
		if strings.HasPrefix(s, "main.") {
			strs.SetAt(i, s+"."+run)
		}
	}
	stamp := uint64(time.Now().UnixNano())
	builds := 0
	for _, kv := range dict.AttributeTable().All() {
		if strs.At(int(kv.KeyStrindex())) == "process.executable.build_id.htlhash" {
			kv.Value().SetStr(fmt.Sprintf("%016x%016x", stamp, builds))
			builds++
		}
	}
	pd.ResourceProfiles().At(0).Resource().Attributes().PutStr("host.id", "host-"+run)
	return pd
}

// otelProfilingCounts returns the number of documents in each of the otel mode's profiling data
// streams, after a refresh.
func otelProfilingCounts(t *testing.T, es *estest.Client) map[string]int {
	t.Helper()
	es.Refresh(t, strings.Join(otelProfilingStreams, ","))
	out := map[string]int{}
	for _, ds := range otelProfilingStreams {
		out[ds] = es.Count(t, ds)
	}
	return out
}

// countsSince returns the documents per data stream that now has beyond start.
func countsSince(start, now map[string]int) map[string]int {
	out := map[string]int{}
	for ds, n := range now {
		out[ds] = n - start[ds]
	}
	return out
}

// TestProfilesOTelIndexed writes profiles in the otel mode through the exporter into the node's
// five profiling data streams (the stand-in templates of estest). Every document is indexed,
// nothing lands in _ignored, a second push writes only events, and the same profile from a
// restarted exporter (its record of written documents empty) is a counted duplicate for every
// stack trace, frame, executable and host. The data streams keep the documents of earlier runs,
// so the counts are taken from those at the start.
func TestProfilesOTelIndexed(t *testing.T) {
	s := newSuite(t)
	start := otelProfilingCounts(t, s.es)
	ignoredBefore := ignoredDocs(t, s.es, otelProfilingStreams...)

	cfg := s.config()
	const samples = 8
	pd := runProfiles(t, samples, s.id)
	exp := s.profilesExporter(t, cfg)
	require.NoError(t, exp.ConsumeProfiles(context.Background(), pd))
	first := countsSince(start, otelProfilingCounts(t, s.es))
	t.Logf("documents per data stream after the first push: %v", first)
	for ds, n := range otelProfileOnce {
		assert.Equal(t, n, first[ds], ds)
	}
	assert.Equal(t, samples, first[routing.ProfilingEventsOTel], "one event per sample")

	require.NoError(t, exp.ConsumeProfiles(context.Background(), pd))
	require.NoError(t, exp.Shutdown(context.Background()))
	second := countsSince(start, otelProfilingCounts(t, s.es))
	t.Logf("documents per data stream after the second push: %v", second)
	for ds, n := range otelProfileOnce {
		assert.Equal(t, n, second[ds], "the second push writes no %s", ds)
	}
	assert.Equal(t, 2*samples, second[routing.ProfilingEventsOTel], "the second push writes its events")
	indexed := s.docs(t, "indexed")

	restarted := s.profilesExporter(t, cfg)
	t.Cleanup(func() { require.NoError(t, restarted.Shutdown(context.Background())) })
	require.NoError(t, restarted.ConsumeProfiles(context.Background(), pd))
	third := countsSince(start, otelProfilingCounts(t, s.es))
	t.Logf("documents per data stream after a restarted exporter's push: %v", third)
	var total, once int
	for ds, n := range third {
		total += n
		once += otelProfileOnce[ds]
	}
	for ds, n := range otelProfileOnce {
		assert.Equal(t, n, third[ds], "the resend writes no second %s document", ds)
	}
	assert.Equal(t, 3*samples, third[routing.ProfilingEventsOTel], "8 samples, 3 pushes")
	// Every document the exporter counted as indexed is in the node; the restarted exporter's
	// content-addressed documents were there already and answered 409.
	assert.Equal(t, int64(total), s.docs(t, "indexed"))
	assert.Equal(t, indexed+samples, s.docs(t, "indexed"), "the restarted exporter indexed its events only")
	assert.Equal(t, int64(once), s.docsWithError(t, "duplicate", "version_conflict_engine_exception"))
	assert.Zero(t, s.docs(t, "rejected"))
	assert.Equal(t, ignoredBefore, ignoredDocs(t, s.es, otelProfilingStreams...), "_ignored is empty")

	// The events of this run, found by their host.id (a keyword with doc values only).
	byHost := estest.TermQuery("resource.attributes.host.id", "host-"+s.id)
	assert.Equal(t, 3*samples, s.es.CountQuery(t, routing.ProfilingEventsOTel, byHost))
	hosts := s.es.Search(t, routing.ProfilingHostsOTel, byHost)
	require.Len(t, hosts, 1)
	assert.Equal(t, "checkout", field(hosts[0], "resource", "attributes", "service.name"))

	// The field types of the templates, as the node mapped them; @timestamp of stack traces and
	// frames, which the templates leave out, is the data stream's default date.
	s.assertFieldTypes(t, []mappedField{
		{routing.ProfilingEventsOTel, "@timestamp", "date_nanos"},
		{routing.ProfilingEventsOTel, "count", "short"},
		{routing.ProfilingEventsOTel, "Stacktrace.id", "alias"},
		{routing.ProfilingEventsOTel, "resource.attributes.host.id", "keyword"},
		{routing.ProfilingStacktracesOTel, "@timestamp", "date"},
		{routing.ProfilingStacktracesOTel, "frame.ids", "keyword"},
		{routing.ProfilingStackframesOTel, "@timestamp", "date"},
		{routing.ProfilingStackframesOTel, "line.number", "integer"},
		{routing.ProfilingExecutablesOTel, "@timestamp", "date"},
		{routing.ProfilingExecutablesOTel, "resource.attributes.process.executable.build_id.htlhash", "keyword"},
		{routing.ProfilingHostsOTel, "@timestamp", "date"},
	})
}

// TestCollectorProfilesOTel runs the otelcol-es binary with the service.profilesSupport
// feature gate and a profiles pipeline from the OTLP receiver to the exporter, posts one
// profile to its OTLP/HTTP receiver (/v1development/profiles, protobuf), and checks that the
// documents of every profiling data stream arrive, with nothing in _ignored, and that the
// collector shuts down cleanly.
func TestCollectorProfilesOTel(t *testing.T) {
	const (
		samples         = 8
		arrivalTimeout  = 60 * time.Second
		shutdownTimeout = 30 * time.Second
	)
	bin := collectorBinary(t)
	es := estest.FromEnv(t)
	es.InstallOTelTemplates(t)
	start := otelProfilingCounts(t, es)
	ignoredBefore := ignoredDocs(t, es, otelProfilingStreams...)

	httpAddr := freeAddr(t)
	auth, tlsCfg := exporterAuthYAML(es.Config)
	cfgPath := pipelineConfig{httpAddr: httpAddr, signal: "profiles", exporter: auth + tlsCfg + flushTimeout("1s")}.write(t)
	col := startCollector(t, bin, cfgPath, collectorEnv(es.Config), "--feature-gates=service.profilesSupport")
	col.waitListening(t, httpAddr)

	run := "collector_" + strconv.FormatInt(time.Now().UnixNano()%1e9, 36)
	body, err := (&pprofile.ProtoMarshaler{}).MarshalProfiles(runProfiles(t, samples, run))
	require.NoError(t, err)
	resp, err := http.Post("http://"+httpAddr+"/v1development/profiles", "application/x-protobuf", bytes.NewReader(body))
	require.NoError(t, err)
	answer, _ := io.ReadAll(resp.Body)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusOK, resp.StatusCode, "the receiver answered %s", answer)

	want := map[string]int{routing.ProfilingEventsOTel: samples}
	maps.Copy(want, otelProfileOnce)
	var got map[string]int
	t0 := time.Now()
	for {
		got = countsSince(start, otelProfilingCounts(t, es))
		if maps.Equal(got, want) {
			break
		}
		if time.Since(t0) > arrivalTimeout || col.exited() {
			col.dump(t)
			t.Fatalf("after %s: documents per data stream %v, want %v (collector exited: %v)",
				time.Since(t0).Round(time.Second), got, want, col.exited())
		}
		time.Sleep(time.Second)
	}
	t.Logf("documents per data stream, searchable %s after the receiver answered: %v", time.Since(t0).Round(100*time.Millisecond), got)
	assert.Equal(t, ignoredBefore, ignoredDocs(t, es, otelProfilingStreams...), "_ignored is empty")
	assert.Equal(t, samples, es.CountQuery(t, routing.ProfilingEventsOTel, estest.TermQuery("resource.attributes.host.id", "host-"+run)))

	col.stopCleanly(t, shutdownTimeout)
}
