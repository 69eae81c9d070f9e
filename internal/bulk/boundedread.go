// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package bulk // import "github.com/otelcol-es/elasticsearchexporter/internal/bulk"

import "io"

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// readAtMost appends what r holds to dst, up to limit bytes in all; it stops there without
// reading further.
func readAtMost(dst []byte, r io.Reader, limit int) ([]byte, error) {
	for len(dst) < limit {
		if len(dst) == cap(dst) {
			grow := min(max(cap(dst), 512), limit-len(dst))
			dst = append(dst[:cap(dst)], make([]byte, grow)...)[:len(dst)]
		}
		n, err := r.Read(dst[len(dst):min(cap(dst), limit)])
		dst = dst[:len(dst)+n]
		if err == io.EOF {
			return dst, nil
		}
		if err != nil {
			return dst, err
		}
	}
	return dst, nil
}
