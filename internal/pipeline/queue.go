// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package pipeline // import "github.com/otelcol-es/elasticsearchexporter/internal/pipeline"

import (
	"fmt"

	"go.opentelemetry.io/collector/consumer/consumererror"

	"github.com/otelcol-es/elasticsearchexporter/internal/bulk"
)

// pushError is the error a push returns, from the error of its Send (res is what became of
// its documents): records rejected for their mapping mode make it permanent unless the rest of
// the push failed otherwise, and, with a persistent queue, only a push handed back at shutdown
// may stay retryable.
func (p *Pipeline) pushError(st *pushState, res bulk.Result, err error) error {
	switch {
	case st.modeRejected == nil:
	case err == nil:
		err = consumererror.NewPermanent(st.modeRejected)
	default:
		// The error of the rest of the push decides whether it may be sent again.
		err = fmt.Errorf("%w; and %w", err, st.modeRejected)
	}
	if err != nil && p.set.PersistentQueue && res.HandedBack == 0 && !consumererror.IsPermanent(err) {
		// The persistent-queue rule: exporterhelper's retry is on with a persistent queue, so
		// that a push handed back at shutdown reaches it as retryable and the queue keeps the
		// batch; every other failure is made final, as without a persistent queue.
		err = consumererror.NewPermanent(err)
	}
	return err
}
