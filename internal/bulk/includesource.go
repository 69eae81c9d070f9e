// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk // import "github.com/otelcol-es/elasticsearchexporter/internal/bulk"

import (
	"errors"
	"net/http"
	"strings"

	"github.com/elastic/go-docappender/v2"
)

// includeSourceRefused tells whether a bulk request was answered 400 because the server does
// not take the parameter include_source_on_error, as Elasticsearch before 8.18 does. If so,
// the Indexer stops sending the parameter, from this request on: the next request body is made
// without it (takeBody), for the caller to send the request again. Without the parameter
// docappender leaves out Elasticsearch's error reasons, which such servers may fill with
// document content.
func (ix *Indexer) includeSourceRefused(status int, err error) bool {
	if status != http.StatusBadRequest {
		return false
	}
	ff, ok := errors.AsType[docappender.ErrorFlushFailed](err)
	if !ok || !refusesIncludeSource(ff.ResponseBody()) {
		return false
	}
	if ix.includeSource.Swap(int32(docappender.Unset)) != int32(docappender.Unset) {
		ix.gen.Add(1)
		ix.cfg.Logger.Warn("Elasticsearch refused the bulk parameter include_source_on_error (it takes it from 8.18 on); " +
			"requests are sent without it from now on, and Elasticsearch's reasons for rejecting documents, which may then " +
			"quote their content, are left out of logs and dead letters")
	}
	return true
}

// refusesIncludeSource tells whether body is Elasticsearch's answer to a request with a
// parameter it does not know, include_source_on_error: an illegal_argument_exception whose
// reason reads "request [/_bulk] contains unrecognized parameter: [include_source_on_error]".
func refusesIncludeSource(body string) bool {
	return strings.Contains(body, "illegal_argument_exception") &&
		strings.Contains(body, "unrecognized parameter: [include_source_on_error]")
}
