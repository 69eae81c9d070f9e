// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package pipeline // import "github.com/otelcol-es/elasticsearchexporter/internal/pipeline"

import (
	"context"

	"github.com/otelcol-es/elasticsearchexporter/internal/bulk"
	"github.com/otelcol-es/elasticsearchexporter/internal/signal"
)

// The in-flight byte cap (flow_control::max_inflight_bytes) bounds the memory that pushes hold
// beyond the sending queue's own data: the batch of each push (its encoded documents, as
// allocated, and their metadata), held until every document has an outcome, one request buffer
// and compressor per push, and the batches kept between pushes (stateRetention). One bulk.ByteBudget is shared by the
// logs, metrics, traces and profiles exporters of a component.
//
// The size of a push is known only once it is encoded, and taking room only then would let
// every waiting push hold its encoded documents while it waits, so the cap would bound
// nothing. A push therefore takes room before it encodes, from an estimate: its number of
// records (log records, spans, data points, profile samples) times the encoded bytes per
// record of the last push of the same signal, and the request buffer for that many bytes. The
// same estimate sizes the push's batch buffer before it encodes (push), so that a large push
// does not grow it by doubling, copying what it encoded at each step. Once encoded, send
// corrects the room held to the real size; growing never
// waits, so pushes that underestimated cannot wait for each other. The room is given back when
// the push returns. A push whose estimate is larger than the whole cap runs alone, so it never
// waits forever. The bytes held can thus pass the cap by what the pushes under way
// underestimated, which the per-signal estimate keeps small once the load is steady.
//
// While a push waits for room it holds its sending-queue consumer: the queue fills up and, with
// block_on_overflow, the pipeline is pushed back. The wait ends with the push's context; the
// error is then not permanent, so nothing is dropped for it.

// initialBytesPerRecord are the estimates before a signal's first push: about one log
// document with its action line, one span or span event document, one data point's share of
// a metric document, generously.
var initialBytesPerRecord = [signal.Count]int64{
	signal.Logs:    2 << 10,
	signal.Metrics: 1 << 10,
	signal.Traces:  2 << 10,
	// a sample's event, with a share of the stack traces, frames and executables it refers to
	signal.Profiles: 1 << 10,
}

// admission is the room a push holds in the byte budget: held, for encoded, the estimated
// bytes of its documents, the room its batch buffer is given beyond them (batchHeadroom), the
// metadata of its documents (bulk.ItemBytes each), and their request buffer.
type admission struct {
	signal  signal.Kind
	records int
	encoded int64
	held    int64
}

// batchHeadroom is the share of its estimate (1/batchHeadroom) that a push's batch buffer is
// given beyond it when the buffer must be allocated: a push a little larger than the last of
// its signal fits without growing its buffer, which would copy it and hold the old and the new
// array until the next garbage collection, and a buffer kept between pushes is reused by the
// next push of about the same size (growBatch).
const batchHeadroom = 4

// batchBytes is what a push of records whose documents take encoded bytes holds in its batch:
// the buffer with its headroom, and the metadata of one document per record.
func batchBytes(encoded int64, records int) int64 {
	return encoded + encoded/batchHeadroom + int64(records)*bulk.ItemBytes
}

// growBatch sizes the batch of a push of records whose documents are estimated to take encoded
// bytes: a buffer kept from an earlier push is used as it is when it holds the estimate with
// half the headroom, and replaced by one with the whole headroom otherwise.
func growBatch(b *bulk.Batch, encoded int64, records int) {
	n := 0
	if int64(cap(b.Buf)) < encoded+encoded/(2*batchHeadroom) {
		n = int(encoded + encoded/batchHeadroom)
	}
	b.Grow(n, records)
}

// admit takes room for records of signal, from the estimate; the caller gives a.held back
// once the push returned, and send corrects it to the push's real size before. The admission
// is passed down the push as a parameter (a context value would be an allocation per push).
func (p *Pipeline) admit(ctx context.Context, sig signal.Kind, records int) (admission, error) {
	perRecord := p.estimates[sig].Load()
	if perRecord == 0 {
		perRecord = initialBytesPerRecord[sig]
	}
	a := admission{signal: sig, records: records, encoded: int64(records) * perRecord}
	a.held = batchBytes(a.encoded, records) + p.requestBufferBytes(a.encoded)
	if err := p.budget.Acquire(ctx, a.held); err != nil {
		p.countWaitGivenUp(ctx, records)
		return admission{}, err
	}
	return a, nil
}

// holdInflight makes the room held by the push's admission match what it holds once encoded:
// its batch, retained bytes (the buffer and the documents' metadata, as allocated: not only
// the encoded bytes), and the request buffer for the encoded bytes; and learns the signal's
// encoded bytes per record.
func (p *Pipeline) holdInflight(a *admission, encoded int, retained int64) {
	need := max(retained, int64(encoded)) + p.requestBufferBytes(int64(encoded))
	switch {
	case need > a.held:
		p.budget.Grow(need - a.held)
	case need < a.held:
		p.budget.Release(a.held - need)
	}
	a.encoded, a.held = int64(encoded), need
	if a.records > 0 {
		p.estimates[a.signal].Store(max(1, int64(encoded)/int64(a.records)))
	}
}

// requestBufferBytes is the memory of the request buffer that sending n bytes of documents
// needs; none for a pipeline that never sends.
func (p *Pipeline) requestBufferBytes(n int64) int64 {
	if p.indexer == nil {
		return 0
	}
	return int64(p.indexer.RequestBufferBytes(int(n)))
}

// errorTypeInflightWait is the error.type of records handed back because their push gave up
// waiting for room under the in-flight byte cap.
const errorTypeInflightWait = "inflight_bytes_wait"

// countWaitGivenUp counts n records handed back to the caller, with a non-permanent error,
// because their push's context ended while it waited for room: a retryable failure, nothing
// was sent.
func (p *Pipeline) countWaitGivenUp(ctx context.Context, n int) {
	var r bulk.PreSend
	r.Unsent(bulk.UnsentRetryable, errorTypeInflightWait, n)
	p.indexer.RecordPreSend(context.WithoutCancel(ctx), &r)
}
