// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient

import (
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/collector/extension/extensionauth"
)

// transports holds the round trippers of sendThrough, by extension id.
var transports struct {
	next atomic.Int64
	byID sync.Map // component.ID -> http.RoundTripper
}

var _ extensionauth.HTTPClient = transportAuth{}
