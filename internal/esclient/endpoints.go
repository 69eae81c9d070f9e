// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient // import "github.com/otelcol-es/elasticsearchexporter/internal/esclient"

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
)

// EnvURL names the environment variable read when no endpoint, endpoints or cloudid is set: a
// comma-separated list of Elasticsearch URLs.
const EnvURL = "ELASTICSEARCH_URL"

// Endpoints says where Elasticsearch is: the config keys endpoint, endpoints and cloudid, of
// which at most one may be set. When none is, the EnvURL environment variable is used.
type Endpoints struct {
	// Endpoint is a single URL (endpoint).
	Endpoint string
	// Endpoints is a list of URLs used round-robin (endpoints).
	Endpoints []string
	// CloudID is an Elastic Cloud ID, `[name:]base64("host$es_uuid$kibana_uuid")` (cloudid).
	CloudID string
}

// URLs returns the Elasticsearch URLs to send to, from exactly one of Endpoint, Endpoints and
// CloudID, or else from the comma-separated EnvURL environment variable. Its errors quote the
// config key (or the variable) they are about.
func (e Endpoints) URLs() ([]*url.URL, error) {
	urls, _, err := e.resolve()
	return urls, err
}

// resolve returns the URLs of URLs, and for each the name of the setting that gave it, as the
// errors quote it: `endpoint`, `endpoints`[i], `cloudid` or ELASTICSEARCH_URL[i].
func (e Endpoints) resolve() (urls []*url.URL, keys []string, err error) {
	var set []string
	if e.Endpoint != "" {
		set = append(set, "`endpoint`")
	}
	if len(e.Endpoints) > 0 {
		set = append(set, "`endpoints`")
	}
	if e.CloudID != "" {
		set = append(set, "`cloudid`")
	}
	if len(set) > 1 {
		return nil, nil, fmt.Errorf("%s are set together; set only one of `endpoint`, `endpoints` and `cloudid`", strings.Join(set, " and "))
	}

	switch {
	case e.Endpoint != "":
		u, err := parseEndpoint(e.Endpoint)
		if err != nil {
			return nil, nil, fmt.Errorf("`endpoint`: %w", err)
		}
		return []*url.URL{u}, []string{"`endpoint`"}, nil
	case len(e.Endpoints) > 0:
		return parseEndpointList("`endpoints`", e.Endpoints)
	case e.CloudID != "":
		u, err := parseCloudID(e.CloudID)
		if err != nil {
			return nil, nil, fmt.Errorf("`cloudid`: %w", err)
		}
		return []*url.URL{u}, []string{"`cloudid`"}, nil
	}

	env := os.Getenv(EnvURL)
	if strings.TrimSpace(env) == "" {
		return nil, nil, fmt.Errorf("no Elasticsearch endpoint: set `endpoint`, `endpoints` or `cloudid`, or the %s environment variable", EnvURL)
	}
	return parseEndpointList(EnvURL, strings.Split(env, ","))
}

func parseEndpointList(key string, list []string) ([]*url.URL, []string, error) {
	urls := make([]*url.URL, 0, len(list))
	keys := make([]string, 0, len(list))
	for i, s := range list {
		name := fmt.Sprintf("%s[%d]", key, i)
		u, err := parseEndpoint(strings.TrimSpace(s))
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		urls = append(urls, u)
		keys = append(keys, name)
	}
	return urls, keys, nil
}

func parseEndpoint(s string) (*url.URL, error) {
	if s == "" {
		return nil, errors.New("empty URL; use e.g. https://localhost:9200")
	}
	// The messages quote the URL without its password (see RedactURL).
	u, err := url.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("invalid URL %q: %s", RedactURL(s), parseProblem(s, err))
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("URL %q must start with http:// or https://", RedactURL(s))
	}
	if u.Host == "" {
		return nil, fmt.Errorf("URL %q has no host", RedactURL(s))
	}
	if strings.Contains(s, "@") && u.User == nil {
		// http://user:12#pass@host parses with the host "user:12".
		return nil, fmt.Errorf("invalid URL %q: %s", RedactURL(s),
			"the user info holds a character that must be percent-encoded (such as # / ? @ or a space)")
	}
	// The transport puts the URL's path in front of each request's: a trailing slash would
	// make GET /_nodes/_local of the version check GET //_nodes/_local, which Elasticsearch has
	// no handler for (9.5.4 answers 400), and a bulk request POST //_bulk.
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = strings.TrimRight(u.RawPath, "/")
	return u, nil
}

// parseCloudID decodes an Elastic Cloud ID, `[name:]base64("host[:port]$es_uuid[:port][$kibana_uuid[:port]]")`,
// into https://<es_uuid>.<host>[:port], as Beats and Elastic Agent do: the port after es_uuid,
// else the one after host, else none (443). Parts after es_uuid are not used. The base64 may be
// standard or URL-safe, with or without its padding.
func parseCloudID(id string) (*url.URL, error) {
	encoded := id
	if i := strings.LastIndexByte(id, ':'); i >= 0 {
		encoded = id[i+1:]
	}
	decoded, ok := decodeBase64(encoded)
	if !ok || encoded == "" {
		return nil, errors.New("invalid Cloud ID: the part after the last ':' is not base64; expected [name:]base64(host$es_uuid$kibana_uuid)")
	}
	parts := strings.Split(decoded, "$")
	if len(parts) < 2 || parts[0] == "" || parts[1] == "" {
		return nil, fmt.Errorf("invalid Cloud ID: decoded value %q is not host$es_uuid$kibana_uuid", decoded)
	}
	host, port := splitCloudPort(parts[0], "")
	esUUID, port := splitCloudPort(parts[1], port)
	hostPort := esUUID + "." + host
	if port != "" {
		hostPort += ":" + port
	}
	u, err := url.Parse("https://" + hostPort)
	if err != nil || u.Host != hostPort || u.Path != "" || u.User != nil || strings.ContainsAny(hostPort, "?#") ||
		!validPort(port) || host == "" || esUUID == "" {
		return nil, fmt.Errorf("invalid Cloud ID: decoded value %q does not form a URL https://<es_uuid>.<host>[:port]", decoded)
	}
	return u, nil
}

// CloudIDHasKibanaPart reports whether an Elastic Cloud ID that parseCloudID reads holds a part
// after es_uuid (the Kibana one, which every Cloud ID of Elastic Cloud has), which is not used.
func CloudIDHasKibanaPart(id string) bool {
	if _, err := parseCloudID(id); err != nil {
		return false
	}
	encoded := id[strings.LastIndexByte(id, ':')+1:]
	decoded, _ := decodeBase64(encoded)
	return strings.Count(decoded, "$") >= 2
}

// splitCloudPort splits "name:port" at its last ':'; without one, the port is def.
func splitCloudPort(s, def string) (name, port string) {
	if i := strings.LastIndexByte(s, ':'); i >= 0 {
		return s[:i], s[i+1:]
	}
	return s, def
}

// validPort reports whether p is empty or a TCP port number.
func validPort(p string) bool {
	if p == "" {
		return true
	}
	n, err := strconv.Atoi(p)
	return err == nil && n > 0 && n < 65536 && strconv.Itoa(n) == p
}
