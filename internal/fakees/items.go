// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package fakees // import "github.com/otelcol-es/elasticsearchexporter/internal/fakees"

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/klauspost/compress/s2"
)

// Item is one bulk item as the server received it.
type Item struct {
	// Action is the decoded action line, e.g. {"create": {"_index": "logs-generic.otel-default"}}.
	Action map[string]map[string]any
	// Document is the source line, byte for byte.
	Document []byte
	// Query is the query of the request that carried the item.
	Query url.Values
}

// Op returns the item's action name and its metadata.
func (it Item) Op() (string, map[string]any) {
	for k, v := range it.Action {
		return k, v
	}
	return "", nil
}

// Index returns the item's _index.
func (it Item) Index() string {
	_, m := it.Op()
	s, _ := m["_index"].(string)
	return s
}

// ID returns the item's _id, empty when it has none.
func (it Item) ID() string {
	_, m := it.Op()
	s, _ := m["_id"].(string)
	return s
}

// ReadBody returns the body of a bulk request, decompressed when it is gzip or snappy (the
// framing format, which Elasticsearch decodes too).
func ReadBody(r *http.Request) ([]byte, error) {
	var body io.Reader = r.Body
	switch r.Header.Get("Content-Encoding") {
	case "gzip":
		gz, err := gzip.NewReader(r.Body)
		if err != nil {
			return nil, fmt.Errorf("bad gzip: %w", err)
		}
		body = gz
	case "snappy":
		body = s2.NewReader(r.Body)
	}
	raw, err := io.ReadAll(body)
	if err != nil {
		return nil, fmt.Errorf("bad body: %w", err)
	}
	return raw, nil
}

// parseBulk splits an NDJSON bulk body into items, decoding each action line.
func parseBulk(raw []byte, q url.Values) ([]Item, error) {
	var items []Item
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 0, 1<<20), 1<<30)
	for sc.Scan() {
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var action map[string]map[string]any
		if err := json.Unmarshal(line, &action); err != nil {
			return nil, fmt.Errorf("action line %d: %w", len(items), err)
		}
		if !sc.Scan() {
			return nil, fmt.Errorf("action line %d has no source line", len(items))
		}
		doc := append([]byte(nil), sc.Bytes()...)
		if !json.Valid(doc) {
			return nil, fmt.Errorf("source line %d is not valid JSON: %s", len(items), doc)
		}
		items = append(items, Item{Action: action, Document: doc, Query: q})
	}
	return items, sc.Err()
}

// DeadLetter is the document the exporter writes to its dead-letter index, as Elasticsearch
// stores it (see the bulk package's appendDeadLetter).
type DeadLetter struct {
	Timestamp string `json:"@timestamp"`
	Document  string `json:"document"`
	Index     string `json:"index"`
	HTTP      struct {
		Response struct {
			StatusCode int `json:"status_code"`
		} `json:"response"`
	} `json:"http"`
	Error struct{ Type, Reason string } `json:"error"`
}
