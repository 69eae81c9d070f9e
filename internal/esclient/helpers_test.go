// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log"
	"maps"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/config/configauth"
	"go.opentelemetry.io/collector/config/confighttp"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/extension/extensionauth"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

// authorizationSent builds a client from testConfig edited by edit, sends one request to a test
// server, and returns the Authorization header values the server got.
func authorizationSent(t *testing.T, edit func(*Config), host component.Host) []string {
	t.Helper()
	return authorizationSentWith(t, edit, host, func(http.Header) {})
}

func authorizationSentWith(t *testing.T, edit func(*Config), host component.Host, seen func(http.Header)) []string {
	t.Helper()
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Values("Authorization")
		seen(r.Header)
		w.Header().Set("X-Elastic-Product", "Elasticsearch")
	}))
	t.Cleanup(srv.Close)
	cfg := testConfig(srv.URL)
	edit(&cfg)
	c, err := New(context.Background(), cfg, host, componenttest.NewNopTelemetrySettings(), component.NewDefaultBuildInfo())
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close(context.Background())) })
	get(t, c)
	return got
}

// authHost is a host with the given extensions.
type authHost map[component.ID]component.Component

func (h authHost) GetExtensions() map[component.ID]component.Component { return h }

// headerAuth is an authenticator extension that sets one header to value on each request.
type headerAuth struct {
	component.StartFunc
	component.ShutdownFunc
	header, value string
}

func (a headerAuth) RoundTripper(base http.RoundTripper) (http.RoundTripper, error) {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		req = req.Clone(req.Context())
		req.Header.Set(a.header, a.value)
		return base.RoundTrip(req)
	}), nil
}

// testCA is a CA made for a test, which issues certificates.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

func newTestCA(t *testing.T, name string) testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(testSerial.Add(1)),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	return testCA{cert: cert, key: key}
}

// issue returns a certificate that ca signed for the template that edit completes (by default
// a server certificate for 127.0.0.1 and localhost, valid now), with the chain [it, ca].
func (ca testCA) issue(t *testing.T, edit func(*x509.Certificate)) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(testSerial.Add(1)),
		Subject:      pkix.Name{CommonName: "localhost"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(24 * time.Hour),
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:     []string{"localhost"},
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
	}
	if edit != nil {
		edit(tmpl)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	require.NoError(t, err)
	leaf, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	return tls.Certificate{Certificate: [][]byte{der, ca.cert.Raw}, PrivateKey: key, Leaf: leaf}
}

// fingerprint returns the SHA-256 fingerprint of cert as Elasticsearch prints it.
func fingerprint(cert *x509.Certificate) string {
	sum := sha256.Sum256(cert.Raw)
	return hex.EncodeToString(sum[:])
}

// opensslFingerprint returns it as `openssl x509 -fingerprint -sha256` does: uppercase pairs
// between colons.
func opensslFingerprint(cert *x509.Certificate) string {
	sum := sha256.Sum256(cert.Raw)
	pairs := make([]string, len(sum))
	for i, b := range sum {
		pairs[i] = strings.ToUpper(hex.EncodeToString([]byte{b}))
	}
	return strings.Join(pairs, ":")
}

// writePEM writes the certificates in PEM to a file of the test and returns its path.
func writePEM(t *testing.T, name string, blocks ...*pem.Block) string {
	t.Helper()
	var b []byte
	for _, block := range blocks {
		b = append(b, pem.EncodeToMemory(block)...)
	}
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, b, 0o600))
	return path
}

// chainServer starts an HTTPS server that answers GET / as Elasticsearch does, presents cert
// (with its chain) and takes the other TLS settings from edit, and returns its URL.
func chainServer(t *testing.T, cert tls.Certificate, edit func(*tls.Config)) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("X-Elastic-Product", "Elasticsearch")
		_, _ = io.WriteString(w, `{"cluster_name":"test","version":{"number":"9.5.4"}}`)
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes are expected
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	if edit != nil {
		edit(srv.TLS)
	}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv.URL
}

// testConfig is a Config for one endpoint.
func testConfig(url string) Config {
	return Config{
		HTTP:      confighttp.NewDefaultClientConfig(),
		Endpoints: Endpoints{Endpoint: url},
	}
}

// newTestClient builds a Client whose logs are recorded, closed when the test ends.
func newTestClient(t *testing.T, cfg Config) (*Client, *observer.ObservedLogs) {
	t.Helper()
	core, logs := observer.New(zapcore.DebugLevel)
	set := componenttest.NewNopTelemetrySettings()
	set.Logger = zap.New(core)
	build := component.BuildInfo{Command: "otelcol-test", Version: "1.2.3"}
	c, err := New(context.Background(), cfg, testHost{}, set, build)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close(context.Background())) })
	return c, logs
}

// get sends GET / through c and drains the answer.
func get(t *testing.T, c *Client) {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, "/", http.NoBody)
	require.NoError(t, err)
	resp, err := c.Perform(req)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusOK, resp.StatusCode)
}

// sortedURLs returns the client's node URLs as they are (user info and all), sorted.
func sortedURLs(c *Client) []string {
	var out []string
	for _, u := range c.URLs() {
		out = append(out, u.String())
	}
	slices.Sort(out)
	return out
}

// checkLog collects the results a CheckRecorder is given, the last per check.
type checkLog struct {
	mu   sync.Mutex
	last map[Check]bool
}

func (l *checkLog) record(c Check, failed bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.last == nil {
		l.last = map[Check]bool{}
	}
	l.last[c] = failed
}

func (l *checkLog) get() map[Check]bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[Check]bool{}
	maps.Copy(out, l.last)
	return out
}

// privilegeServer answers GET / with version, and _has_privileges with status and answer,
// keeping the body it was asked.
func privilegeServer(t *testing.T, version string, status int, answer string) (*httptest.Server, *[]byte) {
	t.Helper()
	var asked []byte
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Elastic-Product", "Elasticsearch")
		switch r.URL.Path {
		case "/":
			fmt.Fprintf(w, `{"cluster_name":"c","version":{"number":%q}}`, version)
		case privilegesPath:
			b, _ := io.ReadAll(r.Body)
			mu.Lock()
			asked = b
			mu.Unlock()
			w.WriteHeader(status)
			_, _ = io.WriteString(w, answer)
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &asked
}

// connectProxy is an HTTP proxy for CONNECT only: it answers status when status is not 200,
// and otherwise opens the tunnel to the requested address.
func connectProxy(t *testing.T, status int) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodConnect || status != http.StatusOK {
			w.WriteHeader(status)
			return
		}
		upstream, err := net.Dial("tcp", r.Host) //nolint:gosec // a CONNECT proxy dials the address its client asks for; only the test's client reaches it
		if err != nil {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		// The 200 goes on the hijacked connection itself: a response written before Hijack
		// may not have been sent yet, and is not sent after it.
		conn, buf, err := http.NewResponseController(w).Hijack()
		if err != nil {
			_ = upstream.Close()
			return
		}
		if _, err := io.WriteString(conn, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
			_ = upstream.Close()
			_ = conn.Close()
			return
		}
		if n := buf.Reader.Buffered(); n > 0 {
			// What the client sent right after the CONNECT, already read from the connection.
			b, _ := buf.Peek(n)
			if _, err := upstream.Write(b); err != nil {
				_ = upstream.Close()
				_ = conn.Close()
				return
			}
		}
		go func() { _, _ = io.Copy(upstream, conn); _ = upstream.Close() }()
		_, _ = io.Copy(conn, upstream)
		_ = conn.Close()
	}))
	t.Cleanup(srv.Close)
	return srv
}

// versionError runs the version check's request once and returns its error.
func versionError(t *testing.T, cfg Config) error {
	t.Helper()
	c, _ := newTestClient(t, cfg)
	_, _, _, err := c.serverVersion(context.Background())
	require.Error(t, err)
	return err
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// runChecker starts a TemplateChecker over c, stopped when the test ends.
func runChecker(t *testing.T, c *Client) *TemplateChecker {
	t.Helper()
	tc := NewTemplateChecker(c, c.logger)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			if _, ok := tc.Next(ctx); !ok {
				return
			}
		}
	})
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	return tc
}

// checksDone returns once every name observed before it has been checked. The worker takes a
// name from the queue only when the check before it is done, so once it has taken lastName,
// observed last, the earlier checks are over (lastName's own may still run).
func checksDone(t *testing.T, tc *TemplateChecker) {
	t.Helper()
	tc.Observe(lastName)
	require.Eventually(t, func() bool { return len(tc.queue) == 0 }, 10*time.Second, time.Millisecond,
		"the worker takes the name observed last")
}

// newTLSTestServer starts an HTTPS server whose TLS settings edit changes, closed when the
// test ends, and returns a client Config that trusts its certificate.
func newTLSTestServer(t *testing.T, edit func(*tls.Config)) Config {
	t.Helper()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("X-Elastic-Product", "Elasticsearch")
		_, _ = io.WriteString(w, `{}`)
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshake errors are expected
	srv.TLS = &tls.Config{}
	edit(srv.TLS)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	require.NoError(t, os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600))
	cfg := testConfig(srv.URL)
	cfg.HTTP.TLS.CAFile = ca
	return cfg
}

// expiredCert is a self-signed certificate for 127.0.0.1 that expired an hour ago.
func expiredCert(t *testing.T) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "expired"},
		NotBefore:             time.Now().Add(-48 * time.Hour),
		NotAfter:              time.Now().Add(-time.Hour),
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// performErr sends GET / and returns the error.
func performErr(t *testing.T, c *Client) error {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, "/", http.NoBody)
	require.NoError(t, err)
	resp, err := c.Perform(req)
	if resp != nil {
		require.NoError(t, resp.Body.Close())
	}
	return err
}

// fakeNodes answers every request 200 {} unless its host is down, and records the hosts
// reached, in order.
type fakeNodes struct {
	mu   sync.Mutex
	down map[string]bool
	hits []string
	// nodesHTTP, when set, is the answer to GET /_nodes/http.
	nodesHTTP string
	// handler, when set, answers every request to a host that is up, in place of 200 {}.
	handler http.HandlerFunc
}

func (f *fakeNodes) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		_ = req.Body.Close()
	}
	f.mu.Lock()
	f.hits = append(f.hits, req.URL.Host)
	down := f.down[req.URL.Host]
	nodesHTTP, handler := f.nodesHTTP, f.handler
	f.mu.Unlock()
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	if down {
		return nil, errNodeDown
	}
	if handler != nil {
		rec := httptest.NewRecorder()
		handler(rec, req)
		resp := rec.Result()
		resp.Request = req
		return resp, nil
	}
	body := `{}`
	if strings.HasSuffix(req.URL.Path, "/_nodes/http") && nodesHTTP != "" {
		body = nodesHTTP
	}
	return &http.Response{
		StatusCode: http.StatusOK, Request: req,
		Header: http.Header{"X-Elastic-Product": {"Elasticsearch"}},
		Body:   io.NopCloser(strings.NewReader(body)),
	}, nil
}

func (f *fakeNodes) setDown(host string, down bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down == nil {
		f.down = map[string]bool{}
	}
	f.down[host] = down
}

// count returns the number of requests that went to host.
func (f *fakeNodes) count(host string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, h := range f.hits {
		if h == host {
			n++
		}
	}
	return n
}

// last returns the host the last request went to.
func (f *fakeNodes) last() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.hits[len(f.hits)-1]
}

// fakeNodesConfig is a Config over http://<host> for each host, sending through nodes.
func fakeNodesConfig(nodes *fakeNodes, hosts ...string) Config {
	urls := make([]string, len(hosts))
	for i, h := range hosts {
		urls[i] = "http://" + h
	}
	cfg := testConfig("")
	cfg.Endpoints = Endpoints{Endpoints: urls}
	sendThrough(&cfg, nodes)
	return cfg
}

// send sends GET / with ctx and returns the host it went to and the error.
func send(ctx context.Context, t *testing.T, c *Client, nodes *fakeNodes) (string, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "/", http.NoBody)
	require.NoError(t, err)
	resp, err := c.Perform(req)
	if resp != nil {
		require.NoError(t, resp.Body.Close())
	}
	return nodes.last(), err
}

// hostsOf sends n requests, which must succeed, and returns the hosts they went to.
func hostsOf(t *testing.T, c *Client, nodes *fakeNodes, n int) []string {
	t.Helper()
	out := make([]string, n)
	for i := range out {
		host, err := send(context.Background(), t, c, nodes)
		require.NoError(t, err)
		out[i] = host
	}
	return out
}

// resurrectAfter is the time the client sets a node aside for at its n-th failure in a row
// (from 1): 60s, doubled at each failure, up to 32 minutes from the sixth.
func resurrectAfter(n int) time.Duration { return time.Minute << min(n-1, 5) }

// sendUntil sends GET / until a request goes to host, and returns that request's error.
func sendUntil(t *testing.T, c *Client, nodes *fakeNodes, host string) error {
	t.Helper()
	for range 10 {
		got, err := send(context.Background(), t, c, nodes)
		if got == host {
			return err
		}
		require.NoError(t, err)
	}
	t.Fatalf("no request went to %s", host)
	return nil
}

// sendThrough makes the client built from cfg with testHost send its requests to rt instead of
// the network: cfg names an authenticator extension of the test host, and confighttp hands
// that extension the transport it built, as it does for any auth extension, which answers
// with rt.
func sendThrough(cfg *Config, rt http.RoundTripper) {
	id := component.MustNewIDWithName("transport", strconv.FormatInt(transports.next.Add(1), 10))
	transports.byID.Store(id, rt)
	cfg.HTTP.Auth = configoptional.Some(configauth.Config{AuthenticatorID: id})
}

// testHost is the host of the tests' clients: its extensions are the authenticators of
// sendThrough.
type testHost struct{}

func (testHost) GetExtensions() map[component.ID]component.Component {
	exts := map[component.ID]component.Component{}
	transports.byID.Range(func(id, rt any) bool {
		exts[id.(component.ID)] = transportAuth{rt: rt.(http.RoundTripper)}
		return true
	})
	return exts
}

// transportAuth is an authenticator extension that sends through rt.
type transportAuth struct{ rt http.RoundTripper }

func (transportAuth) Start(context.Context, component.Host) error { return nil }

func (transportAuth) Shutdown(context.Context) error { return nil }

func (a transportAuth) RoundTripper(http.RoundTripper) (http.RoundTripper, error) {
	return a.rt, nil
}

// transports holds the round trippers of sendThrough, by extension id.
var transports struct {
	next atomic.Int64
	byID sync.Map // component.ID -> http.RoundTripper
}

var _ extensionauth.HTTPClient = transportAuth{}

// testSerial numbers the certificates the tests make, so that no two share a serial number.
var testSerial atomic.Int64

// lastName is the data stream that checksDone observes.
const lastName = "logs-last.otel-default"

// errNodeDown is the network error of a node that is down.
var errNodeDown = errors.New("connect: connection refused")
