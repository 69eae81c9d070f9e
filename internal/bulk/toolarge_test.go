// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// After a 413, the requests that follow are cut at half the size refused, so they are not
// refused and split again; the limit doubles back every sizeRecovery
// without a 413, and a server that still refuses costs one 413 and a split when it does.
func TestTooLargeLimitIsRemembered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var sizes []int // documents per request
		refused := 0
		c := clientFunc(func(req *http.Request) (*http.Response, error) {
			raw, err := io.ReadAll(req.Body)
			require.NoError(t, err)
			docs := strings.Count(string(raw), "\n") / 2
			sizes = append(sizes, docs)
			if docs > 2 { // the server takes 2 documents per request at most
				refused++
				return answerStatus(http.StatusRequestEntityTooLarge)
			}
			items := make([]string, docs)
			for i := range items {
				items[i] = itemCreated
			}
			return answerItems(items...)
		})
		ix, err := New(Config{Client: c, MaxBulkBytes: 1 << 20})
		require.NoError(t, err)
		push := func() []int {
			t.Helper()
			sizes, refused = nil, 0
			res, err := ix.Send(context.Background(), batchOf(`{"n":0}`, `{"n":1}`, `{"n":2}`, `{"n":3}`))
			require.NoError(t, err)
			require.Equal(t, Result{Indexed: 4}, res)
			return sizes
		}

		assert.Equal(t, []int{4, 2, 2}, push(), "refused, then sent in halves")
		assert.Equal(t, 1, refused)
		assert.Equal(t, []int{2, 2}, push(), "cut at the size that was taken: no 413")
		assert.Zero(t, refused)

		time.Sleep(sizeRecovery - time.Second) // on the bubble's clock
		assert.Equal(t, []int{2, 2}, push(), "the limit holds for sizeRecovery")

		time.Sleep(time.Second)
		assert.Equal(t, []int{4, 2, 2}, push(), "then doubles back to max_size: refused again, learned again")
		assert.Equal(t, 1, refused)
		assert.Equal(t, []int{2, 2}, push())
	})
}

func TestSizeLimit(t *testing.T) {
	const configured = 1000
	var l sizeLimit
	t0 := time.Unix(0, 0)
	assert.Equal(t, configured, l.get(configured, t0), "none learned")

	limit, lowered := l.refused(800, t0)
	assert.Equal(t, 400, limit)
	assert.True(t, lowered)
	limit, lowered = l.refused(1000, t0.Add(time.Minute)) // a single large document: no lower
	assert.Equal(t, 400, limit)
	assert.False(t, lowered)
	limit, _ = l.refused(200, t0.Add(time.Minute))
	assert.Equal(t, 100, limit)

	t1 := t0.Add(time.Minute) // the last 413
	assert.Equal(t, 100, l.get(configured, t1.Add(sizeRecovery-1)))
	assert.Equal(t, 200, l.get(configured, t1.Add(sizeRecovery)))
	assert.Equal(t, 800, l.get(configured, t1.Add(3*sizeRecovery)))
	assert.Equal(t, configured, l.get(configured, t1.Add(4*sizeRecovery)), "back, and forgotten")
	assert.Zero(t, l.limit)
}
