// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter // import "github.com/otelcol-es/elasticsearchexporter"

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.opentelemetry.io/collector/config/configcompression"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/exporter/exporterhelper"

	"github.com/otelcol-es/elasticsearchexporter/internal/esclient"
)

// removedKeys are contrib keys that no longer exist. Loading a config that
// has one fails with the message, rather than the generic "invalid keys".
var removedKeys = []struct{ key, msg string }{
	{"index", "`index` was removed; use `logs_index` / `traces_index`"},
	{"batcher", "`batcher` was removed; use `sending_queue::batch`"},
	{"mapping::dedup", "`mapping::dedup` was removed with no replacement: keys are always deduplicated and the layout is fixed per mapping mode"},
	{"mapping::dedot", "`mapping::dedot` was removed with no replacement: the layout is fixed per mapping mode"},
	{"mapping::fields", "`mapping::fields` was removed with no replacement: the layout is fixed per mapping mode"},
	{"mapping::file", "`mapping::file` was removed with no replacement: the layout is fixed per mapping mode"},
}

// Unmarshal implements confmap.Unmarshaler. On top of the plain decoding it
//   - refuses removed keys with a message naming the replacement;
//   - maps deprecated keys onto their replacements and records a
//     deprecation message for each (logged by the factory, see
//     logDeprecations);
//   - canonicalizes mapping mode names (lowercase, "no" means "none");
//   - refuses a `compression` that confighttp does not know either (br) with the exporter's
//     message, and leaves compression_params::level at 0 for snappy unless it is set (the
//     default level, 1, is gzip's);
//   - takes a sending_queue::queue_size set without a sizer as a number of requests, as
//     contrib and exporterhelper do (queueSizeInRequests);
//   - reads an `api_key` that YAML read as a map (the create API key response pasted without
//     quotes) back as its JSON text (apiKeyMapToJSON, below);
//   - takes this exporter's own key in the confighttp `tls` section,
//     tls::ca_trusted_fingerprint, out of it (takeCATrustedFingerprint, below).
//
// Unknown keys are refused by the decoding itself. All but the last two are about loading
// configurations written for contrib, hence their place here.
//
// Every problem is reported at once: the removed keys, the decode errors (every key of a wrong
// type and every unknown key, which the decoding reports together) and the bad deprecated
// values. The collector validates a configuration only once it has loaded, so when a removed
// key or a bad deprecated value fails the load, Unmarshal runs the validation itself and joins
// its errors. It does not after a decode error: a key that failed to decode keeps its default,
// and checking the rest against it could report problems that are not there.
func (c *Config) Unmarshal(conf *confmap.Conf) error {
	if conf == nil {
		return nil
	}
	removedErr := errors.Join(refuseRemovedKeys(conf), refuseUnknownCompression(conf))
	old, oldDecodeErr := takeDeprecatedKeys(conf)
	decodeErr := errors.Join(apiKeyMapToJSON(conf), c.takeCATrustedFingerprint(conf), conf.Unmarshal(c))
	if c.Compression == configcompression.TypeSnappy && !conf.IsSet("compression_params::level") {
		// The default level is gzip's: snappy has none.
		c.CompressionParams.Level = 0
	}

	c.queueSizeInRequests(conf)

	c.Mapping.Mode = canonicalMappingMode(c.Mapping.Mode)
	for i, m := range c.Mapping.AllowedModes {
		c.Mapping.AllowedModes[i] = canonicalMappingMode(m)
	}

	c.deprecations = nil
	deprecatedErr := c.applyDeprecated(conf, old)
	c.set = keysSet{
		maxConcurrentRequests: conf.IsSet("flow_control::max_concurrent_requests"),
		numConsumers:          conf.IsSet("sending_queue::num_consumers") || (old.NumWorkers != nil && *old.NumWorkers > 0),
	}
	err := errors.Join(removedErr, oldDecodeErr, decodeErr, deprecatedErr)
	if err == nil || oldDecodeErr != nil || decodeErr != nil {
		return err
	}
	return errors.Join(err, confmap.Validate(c))
}

// queueSizeInRequests keeps the meaning that a sending_queue::queue_size set without a sizer has
// in contrib and in exporterhelper: a number of requests. The default sizer is bytes (see
// createDefaultConfig), in which a queue_size of 10 would refuse every request.
func (c *Config) queueSizeInRequests(conf *confmap.Conf) {
	if !conf.IsSet("sending_queue::queue_size") || conf.IsSet("sending_queue::sizer") {
		return
	}
	if q := c.QueueBatchConfig.Get(); q != nil {
		q.Sizer = exporterhelper.RequestSizerTypeRequests
	}
}

// refuseUnknownCompression fails when `compression` names an encoding that confighttp does not
// know either (br, for one), with the message of the ones it knows and the exporter does not
// send, and deletes it from conf, so that the decoding does not report it again.
func refuseUnknownCompression(conf *confmap.Conf) error {
	v, ok := conf.Get("compression").(string)
	if !ok {
		return nil
	}
	var t configcompression.Type
	if t.UnmarshalText([]byte(v)) == nil {
		return nil
	}
	conf.Delete("compression")
	return compressionError(v)
}

// refuseRemovedKeys fails when conf sets a removed key, naming every one it sets, and deletes
// them from conf, so that the decoding does not report them again as unknown keys.
func refuseRemovedKeys(conf *confmap.Conf) error {
	var errs []error
	for _, r := range removedKeys {
		if conf.IsSet(r.key) {
			errs = append(errs, errors.New(r.msg))
			conf.Delete(r.key)
		}
	}
	return errors.Join(errs...)
}

// deprecatedKeys holds the values of deprecated keys; nil means not set.
type deprecatedKeys struct {
	NumWorkers *int                  `mapstructure:"num_workers"`
	Flush      *deprecatedFlush      `mapstructure:"flush"`
	Retry      *deprecatedRetry      `mapstructure:"retry"`
	LogsIdx    *deprecatedDynamicIdx `mapstructure:"logs_dynamic_index"`
	MetricsIdx *deprecatedDynamicIdx `mapstructure:"metrics_dynamic_index"`
	TracesIdx  *deprecatedDynamicIdx `mapstructure:"traces_dynamic_index"`
}

type deprecatedFlush struct {
	Bytes    *int64         `mapstructure:"bytes"`
	Interval *time.Duration `mapstructure:"interval"`
}

type deprecatedRetry struct {
	MaxRequests *int `mapstructure:"max_requests"`
}

type deprecatedDynamicIdx struct {
	Enabled bool `mapstructure:"enabled"`
}

// deprecatedKeyPaths are removed from the Conf before the remaining keys are
// decoded into Config, so that Config carries no dead fields.
var deprecatedKeyPaths = []string{
	"num_workers",
	"flush",
	"retry::max_requests",
	"logs_dynamic_index",
	"metrics_dynamic_index",
	"traces_dynamic_index",
}

// takeDeprecatedKeys decodes the deprecated keys present in conf and deletes
// them from conf. On a decode error it returns the keys that did decode, with the error.
func takeDeprecatedKeys(conf *confmap.Conf) (*deprecatedKeys, error) {
	present := map[string]any{}
	for _, path := range deprecatedKeyPaths {
		if !conf.IsSet(path) {
			continue
		}
		v := conf.Get(path)
		if parent, leaf, nested := strings.Cut(path, confmap.KeyDelimiter); nested {
			m, _ := present[parent].(map[string]any)
			if m == nil {
				m = map[string]any{}
				present[parent] = m
			}
			m[leaf] = v
		} else {
			present[path] = v
		}
		conf.Delete(path)
	}
	var old deprecatedKeys
	if len(present) == 0 {
		return &old, nil
	}
	err := confmap.NewFromStringMap(present).Unmarshal(&old)
	return &old, err
}

// applyDeprecated maps the deprecated keys onto their replacements. conf is
// the section being unmarshaled, used to detect a replacement key that is
// set too: as in contrib, the replacement then wins and the deprecated key is
// ignored, with a warning that names both, except for retry::max_requests
// with retry::max_retries, which contrib refuses too.
func (c *Config) applyDeprecated(conf *confmap.Conf, old *deprecatedKeys) error {
	var errs []error
	replaced := func(oldKey string, oldValue any, newKey string) bool {
		if !conf.IsSet(newKey) {
			return false
		}
		c.deprecate("`%s` (%v) and its replacement `%s` (%v) are both set: `%s` is used and `%s` is ignored, as in contrib; remove `%s`",
			oldKey, oldValue, newKey, conf.Get(newKey), newKey, oldKey, oldKey)
		return true
	}

	if old.Retry != nil && old.Retry.MaxRequests != nil {
		n := *old.Retry.MaxRequests
		switch {
		case conf.IsSet("retry::max_retries"):
			errs = append(errs, errors.New("both `retry::max_requests` and its replacement `retry::max_retries` are set; remove `retry::max_requests` (contrib refuses them together too)"))
		case n < 0:
			errs = append(errs, fmt.Errorf("`retry::max_requests` must be 0 (the default: `retry::max_retries` unchanged) or more (it counts the first attempt), got %d; use `retry::max_retries` instead", n))
		case n == 0:
			c.deprecate("`retry::max_requests` is deprecated; use `retry::max_retries` (0 meant the default: retry::max_retries left at %d)", c.Retry.MaxRetries)
		default:
			c.Retry.MaxRetries = n - 1
			c.deprecate("`retry::max_requests` is deprecated; use `retry::max_retries`, which does not count the first attempt (mapped to retry::max_retries: %d)", n-1)
		}
	}

	if old.NumWorkers != nil {
		n := *old.NumWorkers
		switch q := c.QueueBatchConfig.Get(); {
		case replaced("num_workers", n, "sending_queue::num_consumers"):
		case n < 0:
			errs = append(errs, fmt.Errorf("`num_workers` must be 0 (the default) or more, got %d; use `sending_queue::num_consumers` instead", n))
		case n == 0:
			c.deprecate("`num_workers` is deprecated; use `sending_queue::num_consumers` (0 meant the default: left unchanged)")
		case q == nil:
			c.deprecate("`num_workers` is deprecated; use `sending_queue::num_consumers` (ignored: the sending queue is disabled)")
		default:
			q.NumConsumers = n
			c.deprecate("`num_workers` is deprecated; use `sending_queue::num_consumers` (mapped to sending_queue::num_consumers: %d)", n)
		}
	}

	if old.Flush != nil {
		errs = append(errs, c.applyDeprecatedFlush(old.Flush, replaced)...)
	}

	for _, d := range []struct {
		key string
		v   *deprecatedDynamicIdx
	}{
		{"logs_dynamic_index", old.LogsIdx},
		{"metrics_dynamic_index", old.MetricsIdx},
		{"traces_dynamic_index", old.TracesIdx},
	} {
		if d.v != nil {
			c.deprecate("`%s` is deprecated and has no effect: data stream routing is always on when the static index (`logs_index`, `metrics_index`, `traces_index`) is empty; remove it", d.key)
		}
	}
	return errors.Join(errs...)
}

func (c *Config) applyDeprecatedFlush(f *deprecatedFlush, replaced func(oldKey string, oldValue any, newKey string) bool) []error {
	var errs []error
	var batch *exporterhelper.BatchConfig
	if q := c.QueueBatchConfig.Get(); q != nil {
		batch = q.Batch.Get()
	}

	if f.Bytes != nil {
		n := *f.Bytes
		switch {
		case replaced("flush::bytes", n, "sending_queue::batch::max_size"):
		case n < 0:
			errs = append(errs, fmt.Errorf("`flush::bytes` must be 0 (the default) or more, got %d; use `sending_queue::batch::max_size` instead", n))
		case n == 0:
			c.deprecate("`flush::bytes` is deprecated; use `sending_queue::batch::max_size` (0 meant the default: left unchanged)")
		case batch == nil:
			c.deprecate("`flush::bytes` is deprecated; use `sending_queue::batch::max_size` (ignored: sending_queue batching is disabled)")
		case batch.Sizer != exporterhelper.RequestSizerTypeBytes:
			// The sizer that was set explicitly wins, as an explicit max_size would.
			c.deprecate("`flush::bytes` is deprecated; use `sending_queue::batch::max_size` (ignored: `sending_queue::batch::sizer` is %s, and `flush::bytes` counts bytes; remove `flush::bytes`)", batch.Sizer.String())
		default:
			batch.MaxSize = n
			c.deprecate("`flush::bytes` is deprecated; use `sending_queue::batch::max_size` (mapped to sending_queue::batch::max_size: %d)", n)
		}
	}

	if f.Interval != nil {
		d := *f.Interval
		switch {
		case replaced("flush::interval", d, "sending_queue::batch::flush_timeout"):
		case d < 0:
			errs = append(errs, fmt.Errorf("`flush::interval` must be 0 (the default) or more, got %s; use `sending_queue::batch::flush_timeout` instead", d))
		case d == 0:
			c.deprecate("`flush::interval` is deprecated; use `sending_queue::batch::flush_timeout` (0 meant the default: left unchanged)")
		case batch == nil:
			c.deprecate("`flush::interval` is deprecated; use `sending_queue::batch::flush_timeout` (ignored: sending_queue batching is disabled)")
		default:
			batch.FlushTimeout = d
			c.deprecate("`flush::interval` is deprecated; use `sending_queue::batch::flush_timeout` (mapped to sending_queue::batch::flush_timeout: %s)", d)
		}
	}
	return errs
}

// apiKeyMapToJSON turns an api_key that YAML read as a map (the create API key response pasted
// without quotes) back into the JSON text that AuthenticationConfig.APIKey takes.
func apiKeyMapToJSON(conf *confmap.Conf) error {
	m, ok := conf.Get("api_key").(map[string]any)
	if !ok {
		return nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return errors.New("`api_key` is a map that cannot be read as the create API key response; " + esclient.APIKeyForms)
	}
	conf.Delete("api_key")
	return conf.Merge(confmap.NewFromStringMap(map[string]any{"api_key": string(b)}))
}

// caTrustedFingerprintKey is the key of Config.CATrustedFingerprint.
const caTrustedFingerprintKey = "tls::ca_trusted_fingerprint"

// takeCATrustedFingerprint sets CATrustedFingerprint from conf's tls::ca_trusted_fingerprint,
// which it deletes from conf, so that the tls section decodes into configtls's settings.
func (c *Config) takeCATrustedFingerprint(conf *confmap.Conf) error {
	if !conf.IsSet(caTrustedFingerprintKey) {
		return nil
	}
	v := conf.Get(caTrustedFingerprintKey)
	conf.Delete(caTrustedFingerprintKey)
	switch s := v.(type) {
	case string:
		c.CATrustedFingerprint = s
		return nil
	case nil:
		c.CATrustedFingerprint = ""
		return nil
	}
	return fmt.Errorf("`tls::ca_trusted_fingerprint` must be a string (quote it), %s; got %v", esclient.CAFingerprintForm, v)
}

// deprecate notes a deprecated key's warning, logged once per component at creation
// (logDeprecations).
func (c *Config) deprecate(format string, args ...any) {
	c.deprecations = append(c.deprecations, fmt.Sprintf(format, args...))
}
