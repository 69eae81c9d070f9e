// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package pipeline // import "github.com/otelcol-es/elasticsearchexporter/internal/pipeline"

import (
	"context"

	"github.com/otelcol-es/elasticsearchexporter/internal/bulk"
)

// send hands the batch to the bulk indexer (internal/bulk: requests of at most the bulk size,
// group commit, retries, dead letters), after handing it the push's report of what was not
// sent and what encoding repaired, and correcting the push's room under the in-flight byte cap to its encoded size. It returns
// what became of the batch's documents and the push's error (see pushError). a is the push's
// admission.
func (p *Pipeline) send(ctx context.Context, st *pushState, a *admission) (bulk.Result, error) {
	p.recordPreSend(ctx, st)
	p.holdInflight(a, len(st.batch.Buf), st.batch.Retained())
	inflight := int64(len(st.batch.Buf))
	p.telemetry.ElasticsearchInflightBytes.Add(ctx, inflight)
	defer p.telemetry.ElasticsearchInflightBytes.Add(context.WithoutCancel(ctx), -inflight)
	res, err := p.indexer.Send(ctx, &st.batch)
	return res, p.pushError(st, res, err)
}
