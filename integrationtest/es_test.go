// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package integrationtest

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/exporter/xexporter"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pprofile"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/otelcol-es/elasticsearchexporter"
	"github.com/otelcol-es/elasticsearchexporter/integrationtest/internal/estest"
)

// profileStacks is the number of distinct stacks of fixtureProfiles.
const profileStacks = 4

// fixtureProfiles returns the first n (at most 8) samples of the exporter's
// testdata/fixtures/profiles.json (the lab's benchdata.Profiles(8)): one CPU profile whose
// samples go round profileStacks stacks of three frames, a native one of one of two
// executables, a symbolized Go frame of its own and a Go main frame all stacks share; each
// sample is one event.
func fixtureProfiles(tb testing.TB, n int) pprofile.Profiles {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "fixtures", "profiles.json"))
	require.NoError(tb, err)
	pd, err := (&pprofile.JSONUnmarshaler{}).UnmarshalProfiles(b)
	require.NoError(tb, err)
	samples := pd.ResourceProfiles().At(0).ScopeProfiles().At(0).Profiles().At(0).Samples()
	require.LessOrEqual(tb, n, samples.Len())
	i := 0
	samples.RemoveIf(func(pprofile.Sample) bool {
		i++
		return i > n
	})
	pd.MarkReadOnly()
	return pd
}

// profilesExporter creates and starts the profiles exporter of cfg; the test shuts it down.
func (s *suite) profilesExporter(t *testing.T, cfg *elasticsearchexporter.Config) xexporter.Profiles {
	t.Helper()
	f := elasticsearchexporter.NewFactory().(xexporter.Factory)
	exp, err := f.CreateProfiles(context.Background(), s.set, cfg)
	require.NoError(t, err)
	require.NoError(t, exp.Start(context.Background(), componenttest.NewNopHost()))
	return exp
}

// mappedField is a field of an index and the type the node is to have mapped it to.
type mappedField struct{ index, field, want string }

// ignoredDocs returns the number of documents of indices with a field in _ignored (a value the
// mapping did not index).
func ignoredDocs(t *testing.T, es *estest.Client, indices ...string) int {
	t.Helper()
	return es.CountQuery(t, strings.Join(indices, ","),
		map[string]any{"query": map[string]any{"exists": map[string]any{"field": "_ignored"}}})
}

func TestLogsRoundTrip(t *testing.T) {
	s := newSuite(t)
	exp := s.logsExporter(t, s.config())
	require.NoError(t, exp.ConsumeLogs(context.Background(), s.logsData(3)))

	index := "logs-" + s.id + ".otel-default"
	docs := s.search(t, index, s.id)
	require.Len(t, docs, 3)
	d := docs[1]
	// The logsdb index returns a synthetic _source: @timestamp is written as an epoch string and
	// read back in the format of the date_nanos field, to the nanosecond.
	assert.Equal(t, "2023-11-14T22:13:21.123456789Z", d["@timestamp"], "date_nanos keeps the nanoseconds")
	assert.Equal(t, "2023-11-14T22:13:21.200Z", d["observed_timestamp"])
	assert.Equal(t, "WARN", d["severity_text"])
	assert.EqualValues(t, 13, d["severity_number"])
	assert.Equal(t, "payment 1 declined <card> & \"retry\"", get(d, "body.text"))
	assert.EqualValues(t, 1, get(d, "attributes.i"))
	assert.InDelta(t, 12.5, get(d, "attributes.amount"), 0)
	assert.Equal(t, "checkout", get(d, "resource.attributes.service.name"))
	assert.Nil(t, get(d, "resource.attributes.data_stream.dataset"), "routing attributes are consumed")
	assert.Equal(t, "integration", get(d, "scope.name"))
	assert.Equal(t, map[string]any{"type": "logs", "dataset": s.id + ".otel", "namespace": "default"}, d["data_stream"])
	assert.Equal(t, "0102030405060708090a0b0c0d0e0f01", d["trace_id"])

	// The passthrough objects make attributes searchable by their bare names, and
	// @timestamp is a date_nanos field.
	s.es.Refresh(t, index)
	assert.Equal(t, 3, s.es.CountQuery(t, index, estest.TermQuery("service.name", "checkout")))
	mapping := s.es.MustDo(t, http.MethodGet, "/"+index+"/_mapping/field/@timestamp", nil)
	assert.Contains(t, string(mapping), `"date_nanos"`)
	assert.Equal(t, int64(3), s.docs(t, "indexed"))
}

func TestSpansAndSpanEventsRoundTrip(t *testing.T) {
	s := newSuite(t)
	exp := s.tracesExporter(t, s.config())
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", "frontend")
	rs.Resource().Attributes().PutStr("data_stream.dataset", s.id)
	span := rs.ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	span.SetTraceID(pcommon.TraceID{0xaa, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
	span.SetSpanID(pcommon.SpanID{0xbb, 1, 2, 3, 4, 5, 6, 7})
	span.SetName("GET /cart")
	span.SetKind(ptrace.SpanKindServer)
	span.SetStartTimestamp(1_700_000_000_000_000_000)
	span.SetEndTimestamp(1_700_000_000_250_000_000)
	span.Status().SetCode(ptrace.StatusCodeError)
	span.Status().SetMessage("boom")
	span.Attributes().PutStr("run", s.id)
	link := span.Links().AppendEmpty()
	link.SetTraceID(pcommon.TraceID{0xcc})
	ev := span.Events().AppendEmpty()
	ev.SetName("exception")
	ev.SetTimestamp(1_700_000_000_100_000_000)
	ev.Attributes().PutStr("exception.type", "IOError")
	ev.Attributes().PutStr("run", s.id)
	require.NoError(t, exp.ConsumeTraces(context.Background(), td))

	spans := s.search(t, "traces-"+s.id+".otel-default", s.id)
	require.Len(t, spans, 1)
	sp := spans[0]
	assert.Equal(t, "GET /cart", sp["name"])
	assert.Equal(t, "Server", sp["kind"])
	assert.EqualValues(t, 250_000_000, sp["duration"])
	assert.Equal(t, "aa0102030405060708090a0b0c0d0e0f", sp["trace_id"])
	assert.Equal(t, map[string]any{"code": "Error", "message": "boom"}, sp["status"])
	assert.Len(t, sp["links"], 1)
	assert.Equal(t, "frontend", get(sp, "resource.attributes.service.name"))

	events := s.search(t, "logs-"+s.id+".otel-default", s.id)
	require.Len(t, events, 1)
	e := events[0]
	assert.Equal(t, "exception", e["event_name"])
	assert.Equal(t, "exception", get(e, "attributes.event.name"))
	assert.Equal(t, "IOError", get(e, "attributes.exception.type"))
	assert.Equal(t, "bb01020304050607", e["span_id"])
	assert.Equal(t, "2023-11-14T22:13:20.100Z", e["@timestamp"], "synthetic _source of the logsdb index: the date_nanos format")
}

func TestRoutingCreatesDataStreams(t *testing.T) {
	s := newSuite(t)
	exp := s.logsExporter(t, s.config())
	ld := s.logsData(3)
	recs := ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords()
	recs.At(1).Attributes().PutStr("data_stream.namespace", "Prod-EU")
	recs.At(2).Attributes().PutStr("data_stream.dataset", s.id+"_other")
	require.NoError(t, exp.ConsumeLogs(context.Background(), ld))

	for _, name := range []string{
		"logs-" + s.id + ".otel-default",
		"logs-" + s.id + ".otel-prod-eu",
		"logs-" + s.id + "_other.otel-default",
	} {
		body := s.es.MustDo(t, http.MethodGet, "/_resolve/index/"+name, nil)
		var r struct {
			DataStreams []struct {
				Name string `json:"name"`
			} `json:"data_streams"`
		}
		require.NoError(t, json.Unmarshal(body, &r))
		require.Len(t, r.DataStreams, 1, "%s is a data stream: %s", name, body)
		assert.Equal(t, name, r.DataStreams[0].Name)
		s.es.Refresh(t, name)
		assert.Equal(t, 1, s.es.Count(t, name), name)
	}
}

func TestDuplicateIDIsCountedNotIndexed(t *testing.T) {
	s := newSuite(t)
	cfg := s.config()
	cfg.LogsDynamicID.Enabled = true
	exp := s.logsExporter(t, cfg)
	ld := s.logsData(2)
	recs := ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords()
	recs.At(0).Attributes().PutStr("elasticsearch.document_id", s.id+"-a")
	recs.At(1).Attributes().PutStr("elasticsearch.document_id", s.id+"-b")
	require.NoError(t, exp.ConsumeLogs(context.Background(), ld))
	require.NoError(t, exp.ConsumeLogs(context.Background(), ld), "a 409 on create is a final outcome")

	assert.Equal(t, int64(2), s.docs(t, "indexed"))
	assert.Equal(t, int64(2), s.docs(t, "duplicate"), "the replayed documents are counted as duplicates, not as indexed")
	index := "logs-" + s.id + ".otel-default"
	s.es.Refresh(t, index)
	assert.Equal(t, 2, s.es.Count(t, index))
	assert.Equal(t, 1, s.es.CountQuery(t, index, estest.TermQuery("_id", s.id+"-a")))
}

func TestMappingConflictRejectsOnlyThatDocument(t *testing.T) {
	s := newSuite(t)
	s.es.SkipBefore(t, estest.Version{8, 18, 0}, "it does not take include_source_on_error, so the exporter "+
		"does not send it and the bulk answer's reasons are dropped")
	exp := s.logsExporter(t, s.config())
	s.waitConnected(t) // the version check turns on include_source_on_error=false
	// The first push maps attributes.i as a number.
	require.NoError(t, exp.ConsumeLogs(context.Background(), s.logsData(1)))
	ld := s.logsData(3)
	recs := ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords()
	recs.At(1).Attributes().PutStr("i", "not a number")
	// A date_nanos field holds nothing after 2262-04-11; @timestamp is never ignored.
	recs.At(2).SetTimestamp(pcommon.Timestamp(math.MaxUint64))
	require.NoError(t, exp.ConsumeLogs(context.Background(), ld), "a document rejected for good does not fail the push")

	index := "logs-" + s.id + ".otel-default"
	s.es.Refresh(t, index)
	assert.Equal(t, 3, s.es.Count(t, index), "the other documents of the request are indexed")
	assert.Equal(t, int64(1), s.docs(t, "rejected"))
	failures := s.lastFailures(t)
	assert.Contains(t, failures, "400")
	assert.Contains(t, failures, "document_parsing_exception")
	assert.Contains(t, failures, index)
	assert.Contains(t, failures, "failed to parse field [@timestamp]", "include_source_on_error=false brings the reason back")

	// The logsdb mode makes ignore_malformed true by default (logs@settings sets it for every
	// logs data stream of 9.x): a value the field's type cannot take does not reject the
	// document. It is stored, its field is named in _ignored, and _source keeps the value.
	assert.Equal(t, 1, ignoredDocs(t, s.es, index), "documents with a field in _ignored")
	ignored := s.es.Search(t, index, estest.TermQuery("_ignored", "attributes.i"))
	require.Len(t, ignored, 1, "the document with the string attributes.i")
	assert.Equal(t, "not a number", get(ignored[0], "attributes.i"))
}

func TestWrongPasswordSaysSo(t *testing.T) {
	s := newSuite(t)
	if s.es.User == "" {
		t.Skip("the node is configured with an API key, not a user")
	}
	cfg := s.config()
	cfg.Authentication.Password = "wrong-password"
	cfg.Retry.AuthGracePeriod = 0 // no credentials rotation to wait for: fail at once
	exp := s.logsExporter(t, cfg)
	err := exp.ConsumeLogs(context.Background(), s.logsData(1))
	require.Error(t, err)
	// The bulk request's error and the version check's warning name the user sent, not its
	// password, and what to check.
	named := fmt.Sprintf("HTTP 401, the credentials were refused; sent: user %q (`user`/`password`); check `user` and `password`", s.es.User)
	t.Log(err)
	assert.Contains(t, err.Error(), named)
	assert.NotContains(t, err.Error(), "wrong-password")
	assert.Equal(t, int64(1), s.docs(t, "rejected"))
	require.Eventually(t, func() bool { return s.logs.FilterMessageSnippet("version check failed with HTTP 401").Len() == 1 },
		30*time.Second, 20*time.Millisecond)
	warning := s.logs.FilterMessageSnippet("version check failed with HTTP 401").All()[0]
	line := fmt.Sprintf("%s %v", warning.Message, warning.ContextMap())
	t.Log(line)
	assert.Contains(t, line, "GET /: "+named)
	assert.Contains(t, line, "security_exception", "the node's answer is quoted")
	assert.NotContains(t, line, "wrong-password")
}

// An API key the node does not know: the error names the key's id, never its secret.
func TestUnknownAPIKeySaysItsID(t *testing.T) {
	s := newSuite(t)
	cfg := s.config()
	cfg.Authentication.User, cfg.Authentication.Password = "", ""
	cfg.Authentication.APIKey = "no-such-key-id:no-such-key-secret"
	cfg.Retry.AuthGracePeriod = 0
	exp := s.logsExporter(t, cfg)
	err := exp.ConsumeLogs(context.Background(), s.logsData(1))
	require.Error(t, err)
	t.Log(err)
	assert.Contains(t, err.Error(), "HTTP 401, the credentials were refused; sent: API key id \"no-such-key-id\" (`api_key`); check `api_key`")
	assert.NotContains(t, err.Error(), "no-such-key-secret")
}

func TestVersionCheckAndMissingTemplateWarning(t *testing.T) {
	s := newSuite(t)
	// A template without a data_stream section, matching only this test's data stream.
	s.putIndexTemplate(t, s.id, map[string]any{
		"index_patterns": []string{"logs-" + s.id + ".otel-*"},
		"priority":       900,
		"template":       map[string]any{"settings": map[string]any{"number_of_replicas": 0}},
	})
	exp := s.logsExporter(t, s.config())
	s.waitConnected(t)
	connected := s.logs.FilterMessage("Connected to Elasticsearch").All()[0]
	assert.Equal(t, s.es.Version(t).String(), connected.ContextMap()["version"], "the node's own version")
	assert.NotEmpty(t, connected.ContextMap()["cluster"])
	assert.Empty(t, s.logs.FilterMessageSnippet("is older than").All())

	_ = exp.ConsumeLogs(context.Background(), s.logsData(2))
	require.Eventually(t, func() bool { return s.logs.FilterMessageSnippet("has no data_stream section").Len() > 0 },
		30*time.Second, 20*time.Millisecond)
	_ = exp.ConsumeLogs(context.Background(), s.logsData(2))
	time.Sleep(200 * time.Millisecond)
	warns := s.logs.FilterMessageSnippet("has no data_stream section").All()
	require.Len(t, warns, 1, "warned once for the data stream")
	assert.Equal(t, "logs-"+s.id+".otel-default", warns[0].ContextMap()["data_stream"])
	// Elasticsearch refuses those documents (require_data_stream): counted as rejected.
	assert.Equal(t, int64(4), s.docs(t, "rejected"))
}
