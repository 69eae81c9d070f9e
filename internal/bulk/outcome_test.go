// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/consumer/consumererror"
)

// scriptedClient reads each request and answers the n-th (from 0) with answer(n).
type scriptedClient struct {
	n      int
	answer func(n int) (*http.Response, error)
}

func (c *scriptedClient) Perform(req *http.Request) (*http.Response, error) {
	_, _ = io.Copy(io.Discard, req.Body)
	n := c.n
	c.n++
	return c.answer(n)
}

// answerItems answers 200 with a bulk response of the given items.
func answerItems(items ...string) (*http.Response, error) {
	return okClient(`{"items":[` + strings.Join(items, ",") + `]}`)(nil)
}

const (
	itemCreated  = `{"create":{"_index":"i","status":201}}`
	itemRejected = `{"create":{"_index":"i","status":400,"error":{"type":"mapper_parsing_exception","reason":"x"}}}`
	itemBusy     = `{"create":{"_index":"i","status":503,"error":{"type":"unavailable_shards_exception","reason":"x"}}}`
	itemConflict = `{"create":{"_index":"d","status":409,"error":{"type":"version_conflict_engine_exception","reason":"x"}}}`
)

func batchOf(docs ...string) *Batch {
	var b Batch
	for _, d := range docs {
		start := len(b.Buf)
		b.Buf = append(b.Buf, d...)
		b.Add(start, Item{Index: "logs-a"})
	}
	return &b
}

// A dead letter whose first request's answer is lost is stored; its resend is answered 409
// (content-derived id): it counts as dead-lettered, not as a duplicate of the push, and the
// push succeeds.
func TestDeadLetterResentAfterLostAnswer(t *testing.T) {
	c := &scriptedClient{answer: func(n int) (*http.Response, error) {
		switch n {
		case 0, 1: // the push's document: 503 twice, given up
			return answerItems(itemBusy)
		case 2: // the dead letter: stored, but the answer is lost
			return nil, errors.New("connection reset by peer")
		default: // resent dead letter: already there
			return answerItems(itemConflict)
		}
	}}
	ix, err := New(Config{
		Client: c, MaxBulkBytes: 1 << 20, DeadLetterIndex: "d",
		Retry: RetryConfig{Enabled: true, MaxRetries: 1, InitialInterval: 1},
	})
	require.NoError(t, err)
	res, err := ix.Send(context.Background(), batchOf(`{"n":1}`))
	assert.Equal(t, 4, c.n)
	assert.Equal(t, 0, res.Duplicate, "the dead letter is not a duplicate of the push")
	assert.Equal(t, 1, res.DeadLettered)
	assert.NoError(t, err, "every document is dead-lettered")
}

// The documents of a response that does not match the request are dropped and dead-lettered;
// the push fails (a dead letter stored for another of its documents must not hide the drop).
func TestMismatchedResponseIsDeadLettered(t *testing.T) {
	c := &scriptedClient{answer: func(n int) (*http.Response, error) {
		switch n {
		case 0:
			return answerItems(itemRejected, itemBusy) // doc 0 rejected (dead letter), doc 1 retried
		case 1:
			return answerItems(itemCreated, itemCreated) // 2 items for the 1 document resent
		default:
			return answerItems(itemCreated) // the dead letter
		}
	}}
	ix, err := New(Config{
		Client: c, MaxBulkBytes: 1 << 20, DeadLetterIndex: "d",
		Retry: RetryConfig{Enabled: true, MaxRetries: 3, InitialInterval: 1},
	})
	require.NoError(t, err)
	res, err := ix.Send(context.Background(), batchOf(`{"n":0}`, `{"n":1}`))
	t.Logf("result %+v, err %v", res, err)
	assert.Equal(t, 1, res.Dropped)
	assert.Error(t, err, "document 1 is dropped and not dead-lettered")
}

// A dead letter that cannot be written fails the push, also when its document was rejected
// for good.
func TestDeadLetterFailureFailsThePush(t *testing.T) {
	c := &scriptedClient{answer: func(n int) (*http.Response, error) {
		if n == 0 {
			return answerItems(itemRejected)
		}
		return &http.Response{StatusCode: http.StatusForbidden, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(`{}`))}, nil
	}}
	ix, err := New(Config{Client: c, MaxBulkBytes: 1 << 20, DeadLetterIndex: "d"})
	require.NoError(t, err)
	res, err := ix.Send(context.Background(), batchOf(`{"n":0}`))
	t.Logf("result %+v, err %v", res, err)
	assert.Error(t, err, "the dead letter could not be written")
}

// An item with two actions counts twice for docappender but once for compactClient: the
// response is taken as not matching the request, and every document still gets an outcome.
func TestResponseItemWithTwoActions(t *testing.T) {
	two := `{"create":{"_index":"i","status":400,"error":{"type":"e"}},"index":{"_index":"i","status":400,"error":{"type":"e"}}}`
	c := &scriptedClient{answer: func(int) (*http.Response, error) { return answerItems(two, itemCreated) }}
	ix, err := New(Config{Client: c, MaxBulkBytes: 1 << 20})
	require.NoError(t, err)
	res, err := ix.Send(context.Background(), batchOf(`{"n":0}`, `{"n":1}`, `{"n":2}`))
	t.Logf("result %+v, err %v", res, err)
	assert.Equal(t, 3, res.Indexed+res.Rejected+res.Dropped+res.Duplicate)
}

// At Stop, a Send none of whose documents has an outcome yet is handed back with
// HandBackOnStop: retryable, no dead letter. One that already indexed some documents drops
// the rest (resending the batch would store those twice), which then get their dead letter.
func TestHandBackOnStop(t *testing.T) {
	for _, tc := range []struct {
		name     string
		first    []string // the answer to the first request
		want     Result
		requests int
		handBack bool
	}{
		{name: "nothing written", first: []string{itemBusy, itemBusy}, want: Result{HandedBack: 2}, requests: 1, handBack: true},
		{name: "one indexed", first: []string{itemCreated, itemBusy}, want: Result{Indexed: 1, Dropped: 1, DeadLettered: 1}, requests: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			requests := make(chan int, 10)
			c := &scriptedClient{answer: func(n int) (*http.Response, error) {
				requests <- n
				if n > 0 {
					return answerItems(itemCreated) // a dead letter
				}
				return answerItems(tc.first...)
			}}
			ix, err := New(Config{
				Client: c, MaxBulkBytes: 1 << 20, HandBackOnStop: true, DeadLetterIndex: "d",
				Retry: RetryConfig{Enabled: true, MaxRetries: -1, InitialInterval: time.Hour, MaxInterval: time.Hour},
			})
			require.NoError(t, err)
			go func() {
				<-requests
				ix.Stop()
			}()
			res, err := ix.Send(context.Background(), batchOf(`{"n":0}`, `{"n":1}`))
			assert.Equal(t, tc.want, res)
			assert.Equal(t, tc.requests, c.n)
			if tc.handBack {
				require.Error(t, err)
				assert.False(t, consumererror.IsPermanent(err), "%v", err)
			} else {
				assert.NoError(t, err, "every document is indexed or dead-lettered")
			}
		})
	}
}
