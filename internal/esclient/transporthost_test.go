// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/config/configauth"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/extension/extensionauth"
)

// sendThrough makes the client built from cfg with testHost send its requests to rt instead of
// the network: cfg names an authenticator extension of the test host, and confighttp hands
// that extension the transport it built, as it does for any auth extension, which answers
// with rt.
func sendThrough(cfg *Config, rt http.RoundTripper) {
	id := component.MustNewIDWithName("transport", strconv.FormatInt(transports.next.Add(1), 10))
	transports.byID.Store(id, rt)
	cfg.HTTP.Auth = configoptional.Some(configauth.Config{AuthenticatorID: id})
}

// transports holds the round trippers of sendThrough, by extension id.
var transports struct {
	next atomic.Int64
	byID sync.Map // component.ID -> http.RoundTripper
}

// testHost is the host of the tests' clients: its extensions are the authenticators of
// sendThrough.
type testHost struct{}

func (testHost) GetExtensions() map[component.ID]component.Component {
	exts := map[component.ID]component.Component{}
	transports.byID.Range(func(id, rt any) bool {
		exts[id.(component.ID)] = transportAuth{rt: rt.(http.RoundTripper)}
		return true
	})
	return exts
}

// transportAuth is an authenticator extension that sends through rt.
type transportAuth struct{ rt http.RoundTripper }

var _ extensionauth.HTTPClient = transportAuth{}

func (transportAuth) Start(context.Context, component.Host) error { return nil }
func (transportAuth) Shutdown(context.Context) error              { return nil }
func (a transportAuth) RoundTripper(http.RoundTripper) (http.RoundTripper, error) {
	return a.rt, nil
}
