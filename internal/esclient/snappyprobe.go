// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient // import "github.com/otelcol-es/elasticsearchexporter/internal/esclient"

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/klauspost/compress/s2"
	"go.uber.org/zap"
)

// snappyProbeBody is a bulk body of one empty line, in the snappy framing format: the
// stream identifier, then one uncompressed chunk holding "\n".
var snappyProbeBody = func() []byte {
	var b bytes.Buffer
	w := s2.NewWriter(&b, s2.WriterSnappyCompat())
	_, _ = w.Write([]byte("\n"))
	_ = w.Close()
	return b.Bytes()
}()

// snappyProbeWarning is the line of a node that does not decode snappy, or of what is in front
// of it.
const snappyProbeWarning = "`compression: snappy` is not possible: the start-up check's snappy-encoded bulk request " +
	"was not decoded (by a node, or a proxy or load balancer in front of it, that does not pass Content-Encoding: " +
	"snappy on); bulk requests are sent with gzip (level 1). Set `compression: gzip` to silence this"

// snappyProbeUnknownWarning is the line of the first answer to the snappy probe that tells
// nothing: a proxy that answers for the node (200 to any bulk request, for one), or no answer.
// Elasticsearch answers the probe 400 either way.
const snappyProbeUnknownWarning = "`compression: snappy` is not used yet: the start-up check's snappy-encoded bulk request " +
	"got an answer that does not tell whether Elasticsearch decodes snappy (Elasticsearch answers it 400, decoded or not; " +
	"this answer may come from a proxy or load balancer in front of it); bulk requests are sent with gzip (level 1) " +
	"and the check is asked again after 30s, then less often, up to every 10m, until it tells. " +
	"Make what is in front of Elasticsearch pass bulk requests on, or set `compression: gzip` to silence this"

// probeAnswer is what an answer to the snappy probe says.
type probeAnswer int

const (
	probeUnknown    probeAnswer = iota // no answer, or one that says nothing of the encoding: ask again later
	probeDecoded                       // the node decoded the body
	probeNotDecoded                    // the body reached the node undecoded, or was refused for its encoding
)

// ProbeSnappy asks whether the node decodes bulk request bodies sent with Content-Encoding:
// snappy, with a bulk request whose snappy body holds no action: a node that decodes it
// finds an empty line and answers 400 action_request_validation_exception "no requests added";
// a node that reads the snappy bytes as JSON (or a proxy that drops the header) answers 400
// x_content_parse_exception on line 1 (measured on 8.19.21 and 9.5.4). Nothing is written, and
// the request needs no privilege: Elasticsearch validates a bulk request before it authorizes
// it (a user without any index privilege gets the same answers). An answer that says nothing
// of the encoding (none, a 2xx or 3xx of a proxy, 401, 403, 408, 429, 5xx) is asked again after
// 30 seconds, doubling up to 10 minutes, until ctx ends; bulk requests are sent with gzip
// meanwhile, and the first such answer is a warning (the later ones are at Debug). It reports
// whether the node decodes snappy, and warns once when it does not.
func (c *Client) ProbeSnappy(ctx context.Context) bool {
	for retry, first := firstVersionRetry, true; ; retry, first = nextVersionRetry(retry), false {
		var answer probeAnswer
		var status int
		var detail string
		c.askNodes(ctx, func() bool {
			reqCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			answer, status, detail = c.probeSnappy(reqCtx)
			return status != 0
		})
		switch answer {
		case probeDecoded:
			c.checks.record(CheckSnappy, false)
			c.logger.Info("Elasticsearch decodes snappy request bodies; bulk requests are sent with snappy")
			return true
		case probeNotDecoded:
			c.checks.record(CheckSnappy, true)
			c.logger.Warn(snappyProbeWarning, zap.Int("status", status), zap.String("answer", detail))
			return false
		}
		if first {
			c.logger.Warn(snappyProbeUnknownWarning, zap.Int("status", status), zap.String("answer", detail))
		} else {
			c.logger.Debug("The snappy check got no answer that tells; bulk requests are sent with gzip until it does",
				zap.Int("status", status), zap.String("answer", detail))
		}
		if wait(ctx, retry) != nil {
			return false
		}
	}
}

// probeSnappy sends the probe once. status is the answer's, 0 when there was none; detail
// the answer's error type, or the error of a request that got none.
func (c *Client) probeSnappy(ctx context.Context) (answer probeAnswer, status int, detail string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "/_bulk?filter_path=error.type,error.reason", bytes.NewReader(snappyProbeBody))
	if err != nil {
		return probeUnknown, 0, err.Error()
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Content-Encoding", "snappy")
	resp, err := c.Perform(req)
	if err != nil {
		return probeUnknown, 0, err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	answer, detail = classifySnappyProbe(resp.StatusCode, body)
	return answer, resp.StatusCode, detail
}

// classifySnappyProbe reads the answer to the probe: 400 action_request_validation_exception
// means decoded; a parse error of line 1 (SnappyNotDecoded), 415 or another 4xx that is not
// about credentials, rate or time means not decoded or not passed on.
func classifySnappyProbe(status int, body []byte) (probeAnswer, string) {
	typ, _ := errorTypeReason(body)
	switch status {
	case http.StatusBadRequest:
		if typ == "action_request_validation_exception" {
			return probeDecoded, typ
		}
		return probeNotDecoded, typ
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusRequestTimeout, http.StatusTooManyRequests:
		return probeUnknown, typ
	}
	if status >= 400 && status < 500 {
		return probeNotDecoded, typ
	}
	return probeUnknown, typ
}

// SnappyNotDecoded tells whether the answer to a bulk request whose body was snappy shows that
// Elasticsearch read the snappy bytes as JSON: a node or a proxy that drops the
// Content-Encoding. It returns the answer's error type when so, empty otherwise. Measured on
// 8.19.21 and 9.5.4: the body's first line, the framing's stream identifier and compressed
// bytes, is not JSON, and the node answers 400 x_content_parse_exception on line 1 ("[1:1]
// Unrecognized token", or "[1:17] Invalid UTF-8 middle byte" when the first bytes happen to read
// as the start of a string); a body that does not end with a newline would be answered "The
// bulk request must be terminated by a newline". The action lines the exporter writes are
// valid JSON and end with one, so neither answer can be about a body the node decoded.
func SnappyNotDecoded(body []byte) string {
	typ, reason := errorTypeReason(body)
	switch typ {
	case "x_content_parse_exception", "json_parse_exception", "parse_exception":
		if strings.HasPrefix(reason, "[1:") {
			return typ
		}
	case "illegal_argument_exception":
		if strings.HasPrefix(reason, "The bulk request must be terminated by a newline") {
			return typ
		}
	}
	return ""
}

// errorTypeReason reads error.type and error.reason of an Elasticsearch error answer; empty
// when body is not one.
func errorTypeReason(body []byte) (typ, reason string) {
	var answer struct {
		Error struct {
			Type   string `json:"type"`
			Reason string `json:"reason"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &answer) != nil {
		return "", ""
	}
	return answer.Error.Type, answer.Error.Reason
}
