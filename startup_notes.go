// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter // import "github.com/otelcol-es/elasticsearchexporter"

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"go.uber.org/zap"

	"github.com/otelcol-es/elasticsearchexporter/internal/esclient"
	"github.com/otelcol-es/elasticsearchexporter/internal/pipeline"
	"github.com/otelcol-es/elasticsearchexporter/internal/serializer"
	"github.com/otelcol-es/elasticsearchexporter/internal/signal"
)

// The start-up lines: those of the component, logged once when its exporter is created
// (logStartupNotes: deprecated keys, then where the configuration means something else than in
// contrib), and those of a signal, logged when its pipeline is created (logSignalNotes). Each
// says what is done and what to change.

// logStartupNotes logs the component's start-up lines.
func (c *Config) logStartupNotes(logger *zap.Logger) {
	c.logDeprecations(logger)
	c.logContribDifferences(logger)
	if msg := c.dynamicRoutingIgnoredWarning(); msg != "" {
		logger.Warn(msg)
	}
}

// logSignalNotes logs the start-up lines of the pipeline of signal.
func (c *Config) logSignalNotes(logger *zap.Logger, sig signal.Kind) {
	if msg := c.modeFallbackWarning(sig); msg != "" {
		logger.Warn(msg)
	}
	if msg := c.ecsSpanEventsNote(sig); msg != "" {
		logger.Info(msg)
	}
}

// logDeprecations logs one warning per deprecated key found by Unmarshal.
func (c *Config) logDeprecations(logger *zap.Logger) {
	for _, msg := range c.deprecations {
		logger.Warn(msg)
	}
}

// logContribDifferences logs where the configuration means something else than in contrib, or
// what it means is easy to miss: credentials set twice (a warning each, naming the one used), a
// timeout of 0, a mapping::mode that is ignored, a mapping::ecs_span_events_to_logs that cannot
// apply, an api_key in none of the known forms and a retry::max_retries of 0 (a warning each),
// and, in Info lines, where a Cloud ID with a Kibana part sends requests, the date of
// logstash_format index names and the cap on bulk requests in flight when the configuration
// does not set it.
func (c *Config) logContribDifferences(logger *zap.Logger) {
	for _, msg := range c.credentialWarnings() {
		logger.Warn(msg)
	}
	if c.Timeout == 0 {
		logger.Warn("`timeout` is 0: bulk requests have no deadline, as in contrib; a request to a node that stops answering " +
			"holds its push until the connection breaks; set a timeout (the default is 90s)")
	}
	if msg := c.modeIgnoredWarning(); msg != "" {
		logger.Warn(msg)
	}
	if msg := c.ecsSpanEventsIgnoredWarning(); msg != "" {
		logger.Warn(msg)
	}
	if msg := c.apiKeyFormWarning(); msg != "" {
		logger.Warn(msg)
	}
	if msg := c.cloudIDNote(); msg != "" {
		logger.Info(msg)
	}
	if c.LogstashFormat.Enabled {
		logger.Info("`logstash_format` is enabled: the date in each index name is taken from the document's own timestamp, in UTC. " +
			"Contrib takes the collector's clock when it sends, so late or replayed data lands here in the index of its own day, there in the index of the day it is sent")
	}
	if msg := c.noRetriesWarning(); msg != "" {
		logger.Warn(msg)
	}
	if msg := c.concurrencyNote(); msg != "" {
		logger.Info(msg)
	}
}

// credentialWarnings returns a warning for each pair of credentials set together, naming what
// is sent. Contrib accepts them all, silently, and sends requests the same way: the
// elastic-transport client sets the Authorization header from the user info of the endpoint
// URL a request goes to, or else from `api_key`, or else from `user`/`password`; confighttp
// then sets `headers`, which replaces that header; and an authenticator extension under `auth`
// handles the request last, with whatever Authorization header it has by then, which it may
// replace or keep. No line quotes a URL's user info: they name its user, never its password.
func (c *Config) credentialWarnings() []string {
	a := c.Authentication
	basic := a.User != "" || a.Password != ""
	var warnings []string

	// set is what the client sets the Authorization header from, and header how it is sent.
	set, header := "", ""
	userInfo, userInfoWarning := c.userInfoWarning()
	if userInfoWarning != "" {
		warnings = append(warnings, userInfoWarning)
	}
	switch {
	case userInfo:
		set, header = "the endpoint URL's user info", "`Authorization: Basic …`"
	case a.APIKey != "":
		set, header = "`api_key`", "`Authorization: APIKey …`"
	case a.User != "" && a.Password != "":
		set, header = "`user`/`password`", "`Authorization: Basic …`"
	}
	var headerKey string
	for name := range c.Headers.Iter {
		if strings.EqualFold(name, "Authorization") {
			headerKey = "`headers::" + name + "`"
		}
	}
	if headerKey != "" && set != "" {
		sent := "the " + headerKey + " value is sent"
		if c.Auth.Get() != nil {
			sent = "the " + headerKey + " value is what reaches the authenticator extension"
		}
		warnings = append(warnings, fmt.Sprintf("%s and %s are both set: %s, as in contrib "+
			"(confighttp sets the header on each request after the client set it from %s, and replaces it); remove %s",
			headerKey, set, sent, set, set))
		set, header = headerKey, "the Authorization header"
	}
	if auth := c.Auth.Get(); auth != nil && (set != "" || basic) {
		keys := set
		if basic && a.APIKey != "" {
			keys = "`api_key` and `user`/`password`"
		} else if set == "" {
			keys = "`user`/`password`" // one of the two alone: nothing is set from them
		}
		var sent string
		if header == "" {
			sent = "no Authorization header is set from `user`/`password` (one of the two is empty), so the extension's credentials are the only ones sent"
		} else {
			sent = fmt.Sprintf("each request reaches the extension with %s from %s. An extension that sets the Authorization header "+
				"(basicauth, oauth2client, bearertokenauth with its default `header`) replaces it, so only its credentials are sent; "+
				"one that sets another header sends it beside %s. Contrib sends requests the same way", header, set, header)
		}
		warnings = append(warnings, fmt.Sprintf("`auth::authenticator` (%s) and %s are both set: %s; remove %s",
			auth.AuthenticatorID, keys, sent, keys))
	}
	if basic && a.APIKey != "" && !userInfo {
		warnings = append(warnings, "`api_key` and `user`/`password` are both set: `api_key` is used, as in contrib; remove `user`/`password`")
	}
	if a.APIKey == "" && c.Auth.Get() == nil && !userInfo {
		// Basic authentication needs both: contrib loads one alone and sends no credentials.
		switch {
		case a.User != "" && a.Password == "":
			warnings = append(warnings, "`user` is set but `password` is empty: no credentials are sent, as in contrib; set `password`, or use `api_key`")
		case a.User == "" && a.Password != "":
			warnings = append(warnings, "`password` is set but `user` is empty: no credentials are sent, as in contrib; set `user`, or use `api_key`")
		}
	}
	return warnings
}

// modeIgnoredWarning returns the warning logged when the exporter is created with a
// mapping::mode other than otel, which is ignored, or "".
func (c *Config) modeIgnoredWarning() string {
	if c.Mapping.Mode == "" || c.Mapping.Mode == serializer.ModeOTel.String() {
		return ""
	}
	written := "otel"
	if def := pipeline.DefaultMode(c.Mapping.AllowedModes); def != serializer.ModeOTel {
		written = def.String() + ", the first of `mapping::allowed_modes`, which does not list otel"
	}
	return fmt.Sprintf("`mapping::mode` is %s and is ignored, as in contrib since v0.145: records whose scope attribute elastic.mapping.mode and client metadata X-Elastic-Mapping-Mode name no mode are written in %s. "+
		"Choose the mode per scope with the scope attribute elastic.mapping.mode, or per request with the client metadata X-Elastic-Mapping-Mode "+
		"(an OTLP request header, passed on by a receiver with include_metadata: true); then remove `mapping::mode`", c.Mapping.Mode, written)
}

// modeFallbackWarning returns the warning to log when the pipeline of signal is created and the
// default mode (see pipeline.DefaultMode) cannot write it, or "".
func (c *Config) modeFallbackWarning(sig signal.Kind) string {
	def := pipeline.DefaultMode(c.Mapping.AllowedModes)
	if def.Supports(sig) {
		return ""
	}
	return fmt.Sprintf("`mapping::allowed_modes` does not list otel, and %s, its first mode, has no %s documents: %s whose scope attribute elastic.mapping.mode and client metadata X-Elastic-Mapping-Mode name no mode are rejected (%s); "+
		"add otel to `mapping::allowed_modes`", def, sig.Noun(), sig, pipeline.ErrorTypeUnsupportedMode)
}

// apiKeyFormWarning returns the warning logged when `api_key` is in none of the forms
// esclient.EncodeAPIKey reads, or "". Contrib loads such a key and sends it as it is; so does
// this exporter, and Elasticsearch answers 401 to it unless something between them replaces it.
func (c *Config) apiKeyFormWarning() string {
	_, err := esclient.EncodeAPIKey(string(c.Authentication.APIKey))
	if err == nil {
		return ""
	}
	return fmt.Sprintf("`api_key` is not an Elasticsearch API key in any form the exporter knows (%v): it is sent as it is, "+
		"as in contrib, and Elasticsearch answers 401 to it unless a proxy between them replaces it", err)
}

// cloudIDNote returns the Info line logged when `cloudid` has a Kibana part, or "". Contrib keeps
// all after the first `$` of the decoded Cloud ID as the host's first label, so that its host
// name, `<es_uuid>$<kibana_uuid>.<host>`, resolves nowhere; this exporter reads it as Beats and
// Elastic Agent do.
func (c *Config) cloudIDNote() string {
	if c.CloudID == "" || !esclient.CloudIDHasKibanaPart(c.CloudID) {
		return ""
	}
	urls, err := c.endpoints().URLs()
	if err != nil || len(urls) != 1 {
		return ""
	}
	return fmt.Sprintf("`cloudid` is read as Beats and Elastic Agent read it: requests go to %s, the Elasticsearch UUID before the host. "+
		"Contrib keeps the Kibana part too, in a host name `<es_uuid>$<kibana_uuid>.<host>` that resolves nowhere", urls[0].Redacted())
}

// noRetriesWarning returns the warning logged when retry::max_retries is 0 with retries on, or
// "". Contrib takes 0 as not set and retries failed requests and documents up to its default,
// 2 times (its default configuration has 0, and the exporter code puts 2 in its place, for the
// requests and for the documents); retry::max_requests: 1 maps to 0 there too.
func (c *Config) noRetriesWarning() string {
	if !c.Retry.Enabled || c.Retry.MaxRetries != 0 {
		return ""
	}
	return "`retry::max_retries` is 0: failed bulk requests and documents are not retried. " +
		"Contrib takes 0 as not set and retries them up to 2 times, its default; " +
		"set `retry::max_retries: 2` to retry as contrib does, or `retry::enabled: false` to keep no retries without this line"
}

// concurrencyNote returns the Info line logged when the configuration does not set
// flow_control::max_concurrent_requests and sets what contrib's concurrency follows: its
// connections (max_conns_per_host, which is then the cap, see maxConcurrentRequests), or its
// consumers (sending_queue::num_consumers, above the cap), or "".
func (c *Config) concurrencyNote() string {
	if c.set.maxConcurrentRequests {
		return ""
	}
	n := c.maxConcurrentRequests()
	adaptive := ""
	if c.FlowControl.AdaptiveConcurrency.Enabled {
		adaptive = fmt.Sprintf(", the number moving between 1 and %d with the latency of the requests (`flow_control::adaptive_concurrency`)", n)
	}
	if c.MaxConnsPerHost > 0 {
		return fmt.Sprintf("`max_conns_per_host` is %d and `flow_control::max_concurrent_requests` is not set: up to %d bulk requests are in flight at once, "+
			"over all the endpoints%s; contrib lets %d connections open to each endpoint. "+
			"Set `flow_control::max_concurrent_requests` to choose another cap", c.MaxConnsPerHost, n, adaptive, c.MaxConnsPerHost)
	}
	if q := c.QueueBatchConfig.Get(); c.set.numConsumers && q != nil && q.NumConsumers > n {
		return fmt.Sprintf("`sending_queue::num_consumers` is %d and `flow_control::max_concurrent_requests` is not set: at most %d bulk requests are in flight at once%s, "+
			"and pushes that wait for one share the next; contrib sends up to %d at once, one per consumer. "+
			"Set `flow_control::max_concurrent_requests` (0: `sending_queue::num_consumers`) to allow more", q.NumConsumers, n, adaptive, q.NumConsumers)
	}
	return ""
}

// userInfoWarning reports whether an endpoint URL carries user info, and returns the warning
// when `api_key` or `user`/`password` is set too: the elastic-transport client sends the URL's
// user and password (`Authorization: Basic`, with an empty password when the URL has none) to
// that endpoint, and the other credentials only to nodes whose URLs carry none (those that
// discovery finds). The line names the URL's user, never its password.
func (c *Config) userInfoWarning() (bool, string) {
	urls, err := c.endpoints().URLs()
	if err != nil {
		return false, ""
	}
	var user *url.Userinfo
	withUser, without := 0, 0
	for _, u := range urls {
		if u.User == nil {
			without++
			continue
		}
		withUser++
		if user == nil {
			user = u.User
		}
	}
	if user == nil {
		return false, ""
	}
	a := c.Authentication
	var others string
	switch {
	case a.APIKey != "" && (a.User != "" || a.Password != ""):
		others = "`api_key` and `user`/`password`"
	case a.APIKey != "":
		others = "`api_key`"
	case a.User != "" || a.Password != "":
		others = "`user`/`password`"
	default:
		return true, ""
	}
	sent := fmt.Sprintf("user %q and the URL's password", user.Username())
	if _, ok := user.Password(); !ok {
		sent = fmt.Sprintf("user %q with an empty password (the URL has none)", user.Username())
	}
	where := "each request"
	if without > 0 {
		where = fmt.Sprintf("each request to the %d endpoint(s) whose URL has user info", withUser)
	}
	notSent := others
	if c.Discovery.OnStart || c.Discovery.Interval > 0 || without > 0 {
		notSent = others + " (which only requests to a node whose URL has no user info, such as one that discovery finds, carry)"
	}
	return true, fmt.Sprintf("the endpoint URL carries user info and %s is set too: %s carries %s (`Authorization: Basic …`), "+
		"not %s, as in contrib (the elastic-transport client takes a URL's user info first); "+
		"remove the user info from the URL, or %s", others, where, sent, notSent, others)
}

// dynamicRoutingIgnoredWarning returns the warning logged when `dynamic_routing` is set but
// every signal that routes by attribute has a static index, so that no record is routed by its
// attributes and the keys have no effect, or "".
func (c *Config) dynamicRoutingIgnoredWarning() string {
	d := c.DynamicRouting
	if (!d.AllowDotTargets && len(d.AllowedTargets) == 0) || c.LogsIndex == "" || c.MetricsIndex == "" || c.TracesIndex == "" {
		return ""
	}
	return "`dynamic_routing` is set, but `logs_index`, `metrics_index` and `traces_index` are all set too: every document goes to its static index, " +
		"never where its attributes ask, so `dynamic_routing` has no effect; remove it"
}

// ecsSpanEventsNote returns the line logged when the traces pipeline is created with
// mapping::ecs_span_events_to_logs off and a `mapping::allowed_modes` of the configuration's own
// (not the default, every mode) that lists ecs, or "". Contrib writes no span events in the ecs
// mode then; this exporter keeps them, since dropping them would lose data that the user sent.
// The ignored `mapping::mode` plays no part: its own warning says that records are written in
// otel.
func (c *Config) ecsSpanEventsNote(sig signal.Kind) string {
	if sig != signal.Traces || c.Mapping.ECSSpanEventsToLogs ||
		!slices.Contains(c.Mapping.AllowedModes, serializer.ModeECS.String()) || slices.Equal(c.Mapping.AllowedModes, serializer.ModeNames()) {
		return ""
	}
	return "`mapping::ecs_span_events_to_logs` is off: span events of the ecs mode are written as ECS log documents routed like log records " +
		"(logs-generic-default unless data_stream.* or elasticsearch.index say otherwise), where contrib writes none. " +
		"Set `mapping::ecs_span_events_to_logs: true` to write them to Elastic APM's data streams as contrib then does: " +
		"exceptions to logs-apm.error-<namespace>, the other events to logs-apm.app.<service>-<namespace>"
}

// ecsSpanEventsIgnoredWarning returns the warning logged when the exporter is created with
// mapping::ecs_span_events_to_logs on and a mapping::allowed_modes without ecs, where the key
// has no effect, or "".
func (c *Config) ecsSpanEventsIgnoredWarning() string {
	if !c.Mapping.ECSSpanEventsToLogs || slices.Contains(c.Mapping.AllowedModes, serializer.ModeECS.String()) {
		return ""
	}
	return "`mapping::ecs_span_events_to_logs` is on, but `mapping::allowed_modes` does not list ecs, the only mode it applies to: it has no effect, as in contrib; " +
		"add ecs to `mapping::allowed_modes`, or remove `mapping::ecs_span_events_to_logs`"
}
