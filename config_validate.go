// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package elasticsearchexporter // import "github.com/otelcol-es/elasticsearchexporter"

import (
	"compress/gzip"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"go.opentelemetry.io/collector/config/configcompression"
	"go.opentelemetry.io/collector/config/confighttp"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/exporter/exporterhelper"

	"github.com/otelcol-es/elasticsearchexporter/internal/bulk"
	"github.com/otelcol-es/elasticsearchexporter/internal/esclient"
	"github.com/otelcol-es/elasticsearchexporter/internal/routing"
	"github.com/otelcol-es/elasticsearchexporter/internal/serializer"
)

// Validate implements confmap.Validator. Every message quotes the YAML key
// and says what would be valid; all problems are reported at once.
//
// Each sub-config checks itself with an unexported validate method: confmap.Validate calls
// every nested Validate method on its own and prefixes its errors with the key path, which
// would repeat the key that each message already quotes in full. Config.Validate composes them
// in the order of the YAML reference.
func (c *Config) Validate() error {
	return errors.Join(
		c.validateEndpoints(),
		c.Authentication.validate(),
		validateHTTPClient(&c.ClientConfig),
		c.validateCATrustedFingerprint(),
		c.Mapping.validate(),
		c.Retry.Check(),
		validateSendingQueue(c.QueueBatchConfig, c.MetadataKeys),
		c.FlowControl.validate(),
		c.Discovery.validate(),
		c.LogstashFormat.validate(),
		c.DynamicRouting.validate(),
		c.validateFilterPath(),
		c.Telemetry.validate(),
	)
}

// validateEndpoints checks endpoint, endpoints and cloudid (or ELASTICSEARCH_URL), with the
// query parameters of their URLs, which every bulk request carries. A pipeline parameter
// beside a different `pipeline` is refused: the request would carry only one of them.
func (c *Config) validateEndpoints() error {
	params, err := c.endpoints().QueryParams()
	if err != nil {
		return err
	}
	if p := params.Get("pipeline"); params.Has("pipeline") && c.Pipeline != "" && p != c.Pipeline {
		return fmt.Errorf("the endpoint URLs' query parameter pipeline=%s and `pipeline` (%s) name different ingest "+
			"pipelines for the documents that do not name their own; keep only one of them", p, c.Pipeline)
	}
	return nil
}

// validateFilterPath checks bulk_response_filter_path.
func (c *Config) validateFilterPath() error {
	_, err := bulk.FilterPath(c.BulkResponseFilterPath)
	return err
}

// validateHTTPClient checks the confighttp settings that the exporter gives a meaning of its
// own: timeout and compression.
func validateHTTPClient(hc *confighttp.ClientConfig) error {
	var errs []error
	if hc.Timeout < 0 {
		errs = append(errs, fmt.Errorf("`timeout` must be 0 or more (it is the deadline of each bulk request; 0: none), got %s", hc.Timeout))
	}
	switch hc.Compression {
	case "", "none":
	case configcompression.TypeGzip:
		if l := hc.CompressionParams.Level; l < gzip.DefaultCompression || l > gzip.BestCompression {
			errs = append(errs, fmt.Errorf("`compression_params::level` must be between -1 and 9 for gzip (1 is fastest, 9 smallest, -1 the library default), got %d", l))
		}
	case configcompression.TypeSnappy:
		if l := hc.CompressionParams.Level; l != 0 {
			errs = append(errs, fmt.Errorf("`compression_params::level` does not apply to snappy, which has no levels; leave it out, got %d", l))
		}
	default:
		errs = append(errs, compressionError(string(hc.Compression)))
	}
	return errors.Join(errs...)
}

// compressionError refuses a `compression` the exporter cannot send: it compresses the bulk
// body itself, in gzip or snappy, the encodings that Elasticsearch decodes and that it writes.
func compressionError(got string) error {
	return fmt.Errorf("`compression` must be `gzip`, `snappy` or `none`, got %q: Elasticsearch decodes gzip, deflate and "+
		"snappy request bodies, not zstd, br or lz4, and the exporter writes gzip and snappy", got)
}

// validateCATrustedFingerprint refuses a tls::ca_trusted_fingerprint that is not a SHA-256
// fingerprint, or that is set beside tls::insecure_skip_verify: true, which turns off the
// verification that it is for.
func (c *Config) validateCATrustedFingerprint() error {
	if c.CATrustedFingerprint == "" {
		return nil
	}
	if _, err := esclient.ParseCAFingerprint(c.CATrustedFingerprint); err != nil {
		return fmt.Errorf("`tls::ca_trusted_fingerprint` %w", err)
	}
	if c.TLS.InsecureSkipVerify {
		return errors.New("`tls::ca_trusted_fingerprint` is set beside `tls::insecure_skip_verify: true`, which turns off the " +
			"verification of the server's certificate that the fingerprint is for; remove one of them")
	}
	return nil
}

// validate refuses an api_key that no request can carry: one with a control character inside
// (a line break in the middle of a pasted key). A key in none of the forms esclient.EncodeAPIKey
// reads loads, as in contrib, and is sent as it is, with a start-up line (apiKeyFormWarning).
func (a *AuthenticationConfig) validate() error {
	if strings.IndexFunc(strings.TrimSpace(string(a.APIKey)), unicode.IsControl) >= 0 {
		return errors.New("`api_key` holds a control character (a line break inside the key?), which no request header can carry; " +
			esclient.APIKeyForms)
	}
	return nil
}

// validate checks the date format even when logstash_format is off, as routing does, so that a
// format that cannot make index names is refused before it is switched on.
func (l LogstashFormatConfig) validate() error {
	if l.DateFormat == "" {
		if l.Enabled {
			return fmt.Errorf("`logstash_format::date_format` must not be empty when `logstash_format::enabled` is true; e.g. %q", routing.DefaultDateFormat)
		}
		return nil
	}
	return routing.CheckDateFormat(l.DateFormat)
}

// validate checks dynamic_routing::allowed_targets (its error names the key).
func (d DynamicRoutingConfig) validate() error {
	_, err := routing.NewRouter(routing.Settings{AllowedTargets: d.AllowedTargets})
	return err
}

func (m MappingConfig) validate() error {
	var errs []error
	if !isMappingMode(m.Mode) {
		errs = append(errs, fmt.Errorf("`mapping::mode` must be one of %s, got %q (it is ignored, as in contrib: remove it)", strings.Join(mappingModes, ", "), m.Mode))
	}
	if len(m.AllowedModes) == 0 {
		errs = append(errs, fmt.Errorf("`mapping::allowed_modes` must list at least one mapping mode (%s); leave it out to allow them all", strings.Join(mappingModes, ", ")))
	}
	for _, name := range m.AllowedModes {
		if !isMappingMode(name) {
			errs = append(errs, fmt.Errorf("`mapping::allowed_modes` entry %q is not a mapping mode; valid: %s", name, strings.Join(mappingModes, ", ")))
		}
	}
	return errors.Join(errs...)
}

func (f FlowControlConfig) validate() error {
	var errs []error
	if n := f.MaxInflightBytes; n < 0 {
		errs = append(errs, fmt.Errorf("`flow_control::max_inflight_bytes` must be 0 (no cap) or a positive number of bytes, e.g. 67108864 for 64 MiB, got %d", n))
	}
	if n := f.MaxConcurrentRequests; n < 0 {
		errs = append(errs, fmt.Errorf("`flow_control::max_concurrent_requests` must be 0 (`sending_queue::num_consumers`) or positive, got %d", n))
	}
	return errors.Join(errs...)
}

func (d DiscoveryConfig) validate() error {
	if d.Interval < 0 {
		return fmt.Errorf("`discover::interval` must be 0 (off) or positive, got %s", d.Interval)
	}
	return nil
}

func (t TelemetryConfig) validate() error {
	if t.LogFailedDocsInputRateLimit < 0 {
		return fmt.Errorf("`telemetry::log_failed_docs_input_rate_limit` must be 0 or more, got %s", t.LogFailedDocsInputRateLimit)
	}
	return nil
}

// validateSendingQueue checks the batch sizes of sending_queue and the partition keys, which
// metadata_keys sets.
func validateSendingQueue(qc configoptional.Optional[exporterhelper.QueueBatchConfig], metadataKeys []string) error {
	var errs []error
	add := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf(format, args...))
	}
	if q := qc.Get(); q != nil {
		if b := q.Batch.Get(); b != nil {
			if b.MinSize < 0 {
				add("`sending_queue::batch::min_size` must be 0 or more, got %d", b.MinSize)
			}
			if b.MaxSize < 0 {
				add("`sending_queue::batch::max_size` must be 0 or more (0 means no limit), got %d", b.MaxSize)
			}
			if b.MaxSize > 0 && b.MinSize > b.MaxSize {
				add("`sending_queue::batch::min_size` (%d) must not exceed `sending_queue::batch::max_size` (%d)", b.MinSize, b.MaxSize)
			}
			if len(metadataKeys) > 0 && len(b.Partition.MetadataKeys) > 0 {
				add("`metadata_keys` and `sending_queue::batch::partition::metadata_keys` are both set; set only `metadata_keys`")
			}
		}
	}
	seen := map[string]bool{}
	for _, k := range metadataKeys {
		l := strings.ToLower(k)
		if seen[l] {
			add("`metadata_keys` lists %q twice (keys are case-insensitive)", k)
		}
		seen[l] = true
	}
	return errors.Join(errs...)
}

// mappingModes lists the name of every mapping mode, in documentation order. The names are the
// serializer's.
var mappingModes = serializer.ModeNames()

// canonicalMappingMode lowercases a mode name and resolves the "no" alias
// that contrib accepts for "none".
func canonicalMappingMode(name string) string {
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "no" {
		return serializer.ModeNone.String()
	}
	return name
}

// isMappingMode reports whether name is the canonical name of a mapping mode.
func isMappingMode(name string) bool { return slices.Contains(mappingModes, name) }
