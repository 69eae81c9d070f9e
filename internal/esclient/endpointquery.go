// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient // import "github.com/otelcol-es/elasticsearchexporter/internal/esclient"

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
)

// exporterParams are the bulk request parameters the exporter sets itself, with what a query
// string that sets one is told to do instead. pipeline is not among them: the exporter sets it
// only from the `pipeline` key, and the configuration checks that the two agree.
var exporterParams = map[string]string{
	"filter_path":             "the exporter sets it from `bulk_response_filter_path`, always with the fields it reads to account for each document; set that key instead",
	"include_source_on_error": "the exporter sets it from `include_source_on_error` (false when that is not set, on Elasticsearch 8.18 and later); set that key instead",
	"require_data_stream":     "the exporter sets it on each document, for the data streams it writes; remove it",
}

// QueryParams returns the query parameters written in the endpoints' URLs
// (`https://es:9200?routing=abc`), which the exporter adds to every bulk request it sends, to
// whichever node, discovered ones included; Elastic Agent writes the `parameters` of a Beats
// Elasticsearch output this way. Requests other than bulk requests (the start-up checks,
// discovery) are sent without them: Elasticsearch refuses a parameter that an API does not
// take. It returns nil when no endpoint has a query string.
//
// Besides the errors of URLs, it refuses, naming the setting: a query string that does not
// parse (url.ParseQuery: a bad %-escape, a semicolon), a parameter without a name or given
// twice, one of exporterParams, and endpoints whose parameters differ, since every bulk request
// carries the same ones whichever node it goes to.
func (e Endpoints) QueryParams() (url.Values, error) {
	urls, keys, err := e.resolve()
	if err != nil {
		return nil, err
	}
	var first url.Values
	for i, u := range urls {
		params, err := endpointQuery(u.RawQuery)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", keys[i], err)
		}
		if i == 0 {
			first = params
			continue
		}
		if !maps.EqualFunc(params, first, slices.Equal) {
			return nil, fmt.Errorf("%s has the query parameters %q and %s %q: every bulk request carries the same "+
				"parameters, whichever node it goes to; give every URL the same query string, or none",
				keys[i], params.Encode(), keys[0], first.Encode())
		}
	}
	return first, nil
}

// endpointQuery parses the query string of an endpoint, nil when it is empty.
func endpointQuery(raw string) (url.Values, error) {
	if raw == "" {
		return nil, nil
	}
	params, err := url.ParseQuery(raw)
	if err != nil {
		return nil, fmt.Errorf("the query string %q does not parse (%w); write it as name=value pairs joined by &, "+
			"with %% + & = # ; and spaces in names and values %%-encoded", raw, err)
	}
	for _, name := range slices.Sorted(maps.Keys(params)) {
		switch {
		case name == "":
			return nil, fmt.Errorf("the query string %q has a parameter without a name", raw)
		case len(params[name]) > 1:
			return nil, fmt.Errorf("the query parameter %s is given %d times; give it once", name, len(params[name]))
		case exporterParams[name] != "":
			return nil, fmt.Errorf("the query parameter %s cannot be set in the URL: %s", name, exporterParams[name])
		}
	}
	return params, nil
}
