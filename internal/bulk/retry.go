// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk // import "github.com/otelcol-es/elasticsearchexporter/internal/bulk"

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"time"

	"github.com/otelcol-es/elasticsearchexporter/internal/esclient"
)

// RetryConfig controls retries of bulk requests and of single documents. Retries happen
// inside Send, so that only the documents without a final outcome are sent again.
type RetryConfig struct {
	// Enabled turns retries on. Default: true.
	Enabled bool `mapstructure:"enabled"`

	// MaxRetries is the number of retries of a push, after the first attempt of
	// each of its bulk requests, shared by its requests and its dead letters; 0
	// retries none (contrib takes 0 as not set, and retries 2 times), -1
	// retries without limit. Default: 30, which with the default intervals keeps
	// retrying through an outage of at least 10 minutes (about 16 minutes on
	// average) before documents are given up.
	MaxRetries int `mapstructure:"max_retries"`

	// InitialInterval is the wait before the first retry; later waits grow
	// exponentially. Default: 100ms.
	InitialInterval time.Duration `mapstructure:"initial_interval"`

	// MaxInterval caps the wait between retries. Default: 1m.
	MaxInterval time.Duration `mapstructure:"max_interval"`

	// RetryOnStatus lists the HTTP statuses of a whole bulk response that are
	// retried, and, while retry_on_document_status is not set, those of a
	// single document too. Default: 429, 502, 503, 504.
	RetryOnStatus []int `mapstructure:"retry_on_status"`

	// RetryOnDocumentStatus lists the HTTP statuses of a single document in a
	// bulk response that are retried. Not set (the default): the statuses of
	// retry_on_status and any 5xx.
	RetryOnDocumentStatus []int `mapstructure:"retry_on_document_status"`

	// AuthGracePeriod is how long a whole request answered 401 or 403 is
	// retried, counted from the first such answer after a success, while
	// credentials are being rotated; then the failure is permanent. 0 makes
	// it permanent at once. A 401 or 403 that RetryOnStatus lists is retried
	// as any status it lists, within MaxRetries and whatever the grace period,
	// as in contrib. A single document's 401 or 403 is permanent unless the
	// statuses retried for documents list it. Default: 1m.
	AuthGracePeriod time.Duration `mapstructure:"auth_grace_period"`

	// prevent unkeyed literal initialization
	_ struct{}
}

// Check reports every retry setting out of range, each message quoting its key under
// `retry::` and saying what would be valid. The component's Config.Validate reports these
// errors. The method is not named Validate on purpose: the collector calls Validate on every
// field of a configuration that has one, and each error would then be reported twice.
func (r *RetryConfig) Check() error {
	var errs []error
	add := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf(format, args...))
	}
	if r.MaxRetries < -1 {
		add("`retry::max_retries` must be 0 or more, or -1 for no limit, got %d", r.MaxRetries)
	}
	if r.AuthGracePeriod < 0 {
		add("`retry::auth_grace_period` must be 0 or more, got %s", r.AuthGracePeriod)
	}
	if r.InitialInterval < 0 {
		add("`retry::initial_interval` must be 0 or more, got %s", r.InitialInterval)
	}
	if r.MaxInterval < 0 {
		add("`retry::max_interval` must be 0 or more, got %s", r.MaxInterval)
	}
	if r.InitialInterval > r.MaxInterval && r.MaxInterval >= 0 {
		add("`retry::initial_interval` (%s) must not exceed `retry::max_interval` (%s)", r.InitialInterval, r.MaxInterval)
	}
	for _, code := range r.RetryOnStatus {
		if code < 100 || code > 599 {
			add("`retry::retry_on_status` entry %d is not an HTTP status; use codes between 100 and 599", code)
		}
	}
	for _, code := range r.RetryOnDocumentStatus {
		if code < 100 || code > 599 {
			add("`retry::retry_on_document_status` entry %d is not an HTTP status; use codes between 100 and 599", code)
		}
	}
	return errors.Join(errs...)
}

// retryableRequest tells whether a failed request is worth sending again.
func (ix *Indexer) retryableRequest(status int, err error) bool {
	switch status {
	case 0:
		// Network errors and timeouts, but not our own cancellation, and not a TLS handshake
		// refused for a setting (a server certificate that cannot be verified, a client
		// certificate the server requires, no TLS version or cipher suite in common):
		// waiting does not fix those.
		_, tlsSetting := esclient.TLSConfigProblem(err)
		return !errors.Is(err, context.Canceled) && !tlsSetting
	case http.StatusUnauthorized, http.StatusForbidden:
		// Listed in retry_on_status: retried as any status listed there, as in contrib.
		return slices.Contains(ix.cfg.Retry.RetryOnStatus, status) || ix.authGrace()
	}
	return slices.Contains(ix.cfg.Retry.RetryOnStatus, status)
}

// authGrace tells whether a request answered 401 or 403 is still within the grace period that
// covers credentials being rotated. The period starts at the first such answer after a
// success (see noteSuccess).
func (ix *Indexer) authGrace() bool {
	if ix.cfg.Retry.AuthGracePeriod <= 0 {
		return false
	}
	now := time.Now().UnixNano()
	first := ix.authFailingSince.Load()
	if first == 0 {
		ix.authFailingSince.CompareAndSwap(0, now)
		return true
	}
	return time.Duration(now-first) < ix.cfg.Retry.AuthGracePeriod
}

// noteSuccess ends an authentication grace period.
func (ix *Indexer) noteSuccess() {
	if ix.authFailingSince.Load() != 0 {
		ix.authFailingSince.Store(0)
	}
}

// retryableDocument tells whether a document that failed with status is worth sending again.
func (ix *Indexer) retryableDocument(status int) bool {
	if ix.cfg.Retry.RetryOnDocumentStatus != nil {
		return slices.Contains(ix.cfg.Retry.RetryOnDocumentStatus, status)
	}
	return status >= 500 || slices.Contains(ix.cfg.Retry.RetryOnStatus, status)
}

// canRetry tells whether a Send that made retries retries so far may retry once more: the
// retry budget is the Send's, shared by its requests and by its dead letters, so that a dead
// letter that fails for the same outage as its document does not start a second schedule, and
// the time a Send takes is bounded (see docs/delivery.md). The wait before a retry grows with
// the attempts of its request only (see backoff).
func (ix *Indexer) canRetry(retries int) bool {
	r := ix.cfg.Retry
	return r.Enabled && ix.stopCtx.Err() == nil && (r.MaxRetries < 0 || retries < r.MaxRetries)
}

// wait is Wait that also ends when Stop is called.
func (ix *Indexer) wait(ctx context.Context, d time.Duration) error {
	return waitUnless(ctx, ix.stopCtx.Done(), d)
}

// backoff returns the wait before retry attempt+1: the interval of the schedule (see
// RetryConfig.interval) with jitter over its upper half.
func (ix *Indexer) backoff(attempt int) time.Duration {
	return jitter(ix.cfg.Retry.interval(attempt))
}

// interval returns the nominal wait before retry attempt+1: InitialInterval (100ms when not
// set) doubled attempt times, capped at MaxInterval (1m when not set).
func (r *RetryConfig) interval(attempt int) time.Duration {
	d := r.InitialInterval
	if d <= 0 {
		d = 100 * time.Millisecond
	}
	maxInterval := r.MaxInterval
	if maxInterval <= 0 {
		maxInterval = time.Minute
	}
	for range attempt {
		d *= 2
		if d >= maxInterval {
			d = maxInterval
			break
		}
	}
	return d
}

// jitter returns a random wait between d/2 and d, so that pushes that failed together do not
// retry together.
func jitter(d time.Duration) time.Duration {
	half := d / 2
	return half + rand.N(half+1)
}

// waitUnless waits for d; it returns ctx's error when ctx ends first, and errStopped when stop
// is closed first (a nil stop never is).
func waitUnless(ctx context.Context, stop <-chan struct{}, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-stop:
		return errStopped
	case <-t.C:
		return nil
	}
}
