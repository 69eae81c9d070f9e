// Package estest holds helpers for tests that run against a real Elasticsearch node: where
// to find it, a small HTTP client, and the index templates that the node lacks.
//
// The node is described by the environment variables ES_ENDPOINT, ES_USER, ES_PASSWORD,
// ES_API_KEY and ES_CA_CERT. When ES_ENDPOINT is not set, they are read from the env file that
// `scripts/es.sh start` writes, <repo>/.es/env (ES_ENV_FILE names another file).
//
// Without a reachable node, tests are skipped, unless ES_REQUIRED=1 is set (as the Makefile's
// integration target does): then they fail and say how to start one.
package estest // import "github.com/otelcol-es/elasticsearchexporter/integrationtest/internal/estest"

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Config is where a node is and how to authenticate to it.
type Config struct {
	Endpoint string // e.g. https://127.0.0.1:9200, without a trailing slash
	User     string
	Password string
	APIKey   string // encoded form (base64 of "id:key"); used when User is empty
	CACert   string // path of a PEM CA file; empty for http or the system roots
	Source   string // where the values came from: "environment" or the env file's path
}

// Client talks to one node. Its fields are the node's configuration, so a test can pass them
// on, for example into a collector configuration.
type Client struct {
	Config
	HTTP *http.Client
}

// Required reports whether ES_REQUIRED asks tests to fail instead of skipping when the node
// or another prerequisite is missing.
func Required() bool {
	switch strings.ToLower(strings.TrimSpace(os.Getenv("ES_REQUIRED"))) {
	case "1", "true", "yes":
		return true
	}
	return false
}

// SkipOrFail skips the test, or fails it when ES_REQUIRED=1, with the reason and the fix.
func SkipOrFail(t testing.TB, reason, fix string) {
	t.Helper()
	if Required() {
		t.Fatalf("%s (ES_REQUIRED=1, so this fails instead of skipping); %s", reason, fix)
	}
	t.Skipf("%s; %s", reason, fix)
}

const startHint = "start a node with `scripts/es.sh start` (it writes .es/env), " +
	"or set ES_ENDPOINT with ES_USER/ES_PASSWORD or ES_API_KEY (and ES_CA_CERT for https)"

// FromEnv returns a client for the configured node after checking that it answers. Without a
// configured node the test is skipped (or fails, see [SkipOrFail]). A node that is configured
// by the environment but does not answer fails the test; one known only from a leftover env
// file counts as not configured.
func FromEnv(t testing.TB) *Client {
	t.Helper()
	cfg, err := LookupConfig()
	if err != nil {
		t.Fatalf("estest: %v", err)
	}
	if cfg.Endpoint == "" {
		SkipOrFail(t, "no Elasticsearch configured", startHint)
	}
	c, err := NewClient(cfg)
	if err != nil {
		t.Fatalf("estest: %v", err)
	}
	if err := c.Ping(); err != nil {
		if cfg.Source == "environment" {
			t.Fatalf("estest: Elasticsearch at %s (from the environment) does not answer: %v", cfg.Endpoint, err)
		}
		SkipOrFail(t, fmt.Sprintf("Elasticsearch at %s (from %s) does not answer: %v", cfg.Endpoint, cfg.Source, err), startHint)
	}
	return c
}

// LookupConfig reads the node's configuration from the environment, else from the env file.
// It returns an empty Endpoint when neither names a node.
func LookupConfig() (Config, error) {
	if ep := os.Getenv("ES_ENDPOINT"); ep != "" {
		return Config{
			Endpoint: strings.TrimRight(ep, "/"),
			User:     os.Getenv("ES_USER"),
			Password: os.Getenv("ES_PASSWORD"),
			APIKey:   os.Getenv("ES_API_KEY"),
			CACert:   os.Getenv("ES_CA_CERT"),
			Source:   "environment",
		}, nil
	}
	path := os.Getenv("ES_ENV_FILE")
	if path == "" {
		path = findEnvFile()
		if path == "" {
			return Config{}, nil
		}
	}
	vals, err := readEnvFile(path)
	if err != nil {
		return Config{}, err
	}
	return Config{
		Endpoint: strings.TrimRight(vals["ES_ENDPOINT"], "/"),
		User:     vals["ES_USER"],
		Password: vals["ES_PASSWORD"],
		APIKey:   vals["ES_API_KEY"],
		CACert:   vals["ES_CA_CERT"],
		Source:   path,
	}, nil
}

// Var returns the variable name of the node's environment as LookupConfig finds it: from the
// environment when ES_ENDPOINT is set there, else from the env file; empty when it has none.
func Var(name string) (string, error) {
	if os.Getenv("ES_ENDPOINT") != "" {
		return os.Getenv(name), nil
	}
	path := os.Getenv("ES_ENV_FILE")
	if path == "" {
		path = findEnvFile()
		if path == "" {
			return "", nil
		}
	}
	vals, err := readEnvFile(path)
	return vals[name], err
}

// findEnvFile looks for .es/env next to the integrationtest module, that is in the parent of
// the directory holding the module's go.mod, starting from the working directory.
func findEnvFile() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if isIntegrationModule(filepath.Join(dir, "go.mod")) {
			p := filepath.Join(filepath.Dir(dir), ".es", "env")
			if _, err := os.Stat(p); err == nil {
				return p
			}
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

const modulePath = "github.com/otelcol-es/elasticsearchexporter/integrationtest"

func isIntegrationModule(goMod string) bool {
	b, err := os.ReadFile(goMod)
	if err != nil {
		return false
	}
	for line := range strings.Lines(string(b)) {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`) == modulePath
		}
	}
	return false
}

// ModuleDir returns the directory of the integrationtest module, found from the working
// directory upwards.
func ModuleDir() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if isIntegrationModule(filepath.Join(dir, "go.mod")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("the integrationtest module's go.mod was not found above the working directory")
		}
		dir = parent
	}
}

// readEnvFile parses KEY=value lines; blank lines and lines starting with # are ignored.
func readEnvFile(path string) (map[string]string, error) {
	f, err := os.Open(path) //nolint:gosec // the env file the user points the tests at
	if err != nil {
		return nil, fmt.Errorf("reading the Elasticsearch env file: %w", err)
	}
	defer f.Close()
	vals := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		vals[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return vals, nil
}

// NewClient returns a client for cfg. It checks the CA file but does not contact the node.
func NewClient(cfg Config) (*Client, error) {
	u, err := url.Parse(cfg.Endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("ES_ENDPOINT %q (from %s) is not an http or https URL", cfg.Endpoint, cfg.Source)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if cfg.CACert != "" {
		pem, err := os.ReadFile(cfg.CACert)
		if err != nil {
			return nil, fmt.Errorf("ES_CA_CERT (from %s): %w", cfg.Source, err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("ES_CA_CERT %s (from %s) holds no PEM certificate", cfg.CACert, cfg.Source)
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	return &Client{Config: cfg, HTTP: &http.Client{Transport: tr, Timeout: 60 * time.Second}}, nil
}

// Do sends one request. path starts with a slash and may carry a query. body is nil, a
// []byte or string sent as is, or any other value sent as JSON.
func (c *Client) Do(method, path string, body any) (status int, respBody []byte, err error) {
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	case string:
		rd = strings.NewReader(b)
	default:
		j, jerr := json.Marshal(b)
		if jerr != nil {
			return 0, nil, fmt.Errorf("encoding the request body: %w", jerr)
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, c.Endpoint+path, rd)
	if err != nil {
		return 0, nil, err
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	switch {
	case c.User != "":
		req.SetBasicAuth(c.User, c.Password)
	case c.APIKey != "":
		req.Header.Set("Authorization", "ApiKey "+c.APIKey)
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	respBody, err = io.ReadAll(resp.Body)
	return resp.StatusCode, respBody, err
}

// Ping checks that the node answers GET _cluster/health with 200, so the credentials work
// too. (The integ-test-zip archive does not serve GET /.)
func (c *Client) Ping() error {
	status, body, err := c.Do(http.MethodGet, "/_cluster/health", nil)
	if err != nil {
		return err
	}
	if status != http.StatusOK {
		return fmt.Errorf("GET /_cluster/health answered %d: %s", status, truncate(body))
	}
	return nil
}

// MustDo is [Client.Do] that fails the test on a transport error or a status other than 2xx.
func (c *Client) MustDo(t testing.TB, method, path string, body any) []byte {
	t.Helper()
	status, resp, err := c.Do(method, path, body)
	// A data stream created a moment ago may not have its shard allocated yet: searches and
	// counts then answer 503 no_shard_available_action_exception for a short while.
	for wait := 0; err == nil && status == http.StatusServiceUnavailable && wait < 100; wait++ {
		time.Sleep(100 * time.Millisecond)
		status, resp, err = c.Do(method, path, body)
	}
	if err != nil {
		t.Fatalf("estest: %s %s: %v", method, path, err)
	}
	if status < 200 || status > 299 {
		t.Fatalf("estest: %s %s answered %d: %s", method, path, status, truncate(resp))
	}
	return resp
}

// Refresh makes the documents indexed so far in index (a name, pattern or comma-separated
// list) visible to search. A pattern that matches nothing is not an error.
func (c *Client) Refresh(t testing.TB, index string) {
	t.Helper()
	c.MustDo(t, http.MethodPost, "/"+url.PathEscape(index)+"/_refresh?ignore_unavailable=true&allow_no_indices=true", nil)
}

// Search returns the _source of the hits of query (a JSON request body, see [Client.Do]; nil
// matches everything) in index, in the order Elasticsearch returns them (up to its size,
// default 10). It does not refresh.
func (c *Client) Search(t testing.TB, index string, query any) []map[string]any {
	t.Helper()
	return c.search(t, index, query, false)
}

// SearchNumbers is [Client.Search] that keeps numbers as written ([json.Number]).
func (c *Client) SearchNumbers(t testing.TB, index string, query any) []map[string]any {
	t.Helper()
	return c.search(t, index, query, true)
}

func (c *Client) search(t testing.TB, index string, query any, useNumber bool) []map[string]any {
	t.Helper()
	resp := c.MustDo(t, http.MethodPost, "/"+url.PathEscape(index)+"/_search?ignore_unavailable=true&allow_no_indices=true", query)
	var r struct {
		Hits struct {
			Hits []struct {
				Source map[string]any `json:"_source"`
			} `json:"hits"`
		} `json:"hits"`
	}
	dec := json.NewDecoder(bytes.NewReader(resp))
	if useNumber {
		dec.UseNumber()
	}
	if err := dec.Decode(&r); err != nil {
		t.Fatalf("estest: decoding the search answer of %s: %v", index, err)
	}
	out := make([]map[string]any, 0, len(r.Hits.Hits))
	for _, h := range r.Hits.Hits {
		out = append(out, h.Source)
	}
	return out
}

// Count returns the number of documents in index (0 when it does not exist). It does not
// refresh.
func (c *Client) Count(t testing.TB, index string) int {
	t.Helper()
	return c.CountQuery(t, index, nil)
}

// CountQuery returns the number of documents in index that match query, a JSON body with a
// "query" key (nil counts everything). It does not refresh.
func (c *Client) CountQuery(t testing.TB, index string, query any) int {
	t.Helper()
	resp := c.MustDo(t, http.MethodPost, "/"+url.PathEscape(index)+"/_count?ignore_unavailable=true&allow_no_indices=true", query)
	var r struct {
		Count int `json:"count"`
	}
	if err := json.Unmarshal(resp, &r); err != nil {
		t.Fatalf("estest: decoding the count answer of %s: %v", index, err)
	}
	return r.Count
}

// TermQuery returns a request body that matches documents whose field equals value exactly.
func TermQuery(field string, value any) map[string]any {
	return map[string]any{"query": map[string]any{"term": map[string]any{field: value}}}
}

func truncate(b []byte) string {
	const limit = 2000
	if len(b) > limit {
		return string(b[:limit]) + "…"
	}
	return string(b)
}
