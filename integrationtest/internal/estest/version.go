package estest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// Version is a node's version: major, minor, patch.
type Version [3]int

func (v Version) String() string { return fmt.Sprintf("%d.%d.%d", v[0], v[1], v[2]) }

// AtLeast reports whether v is want or newer.
func (v Version) AtLeast(want Version) bool {
	for i := range v {
		if v[i] != want[i] {
			return v[i] > want[i]
		}
	}
	return true
}

// Version returns the node's version, read from GET _nodes/_local (the integ-test-zip
// archive does not serve GET /). It fails the test when the answer names no version.
func (c *Client) Version(t testing.TB) Version {
	t.Helper()
	var nodes struct {
		Nodes map[string]struct {
			Version string `json:"version"`
		} `json:"nodes"`
	}
	body := c.MustDo(t, http.MethodGet, "/_nodes/_local?filter_path=nodes.*.version", nil)
	if err := json.Unmarshal(body, &nodes); err != nil {
		t.Fatalf("estest: reading the node's version from %s: %v", truncate(body), err)
	}
	for _, n := range nodes.Nodes {
		if v, ok := parseVersion(n.Version); ok {
			return v
		}
		t.Fatalf("estest: the node's version %q is not major.minor.patch", n.Version)
	}
	t.Fatalf("estest: GET _nodes/_local names no node: %s", truncate(body))
	return Version{}
}

// SkipBefore skips the test on a node older than want, saying why (what the older version
// lacks or does otherwise), and returns the node's version. Such a skip is expected on an older
// node, so it is a skip even with ES_REQUIRED=1.
func (c *Client) SkipBefore(t testing.TB, want Version, why string) Version {
	t.Helper()
	v := c.Version(t)
	if !v.AtLeast(want) {
		t.Skipf("Elasticsearch %s is older than %s: %s", v, want, why)
	}
	return v
}

// parseVersion reads "major.minor.patch[-suffix]".
func parseVersion(s string) (Version, bool) {
	var v Version
	s, _, _ = strings.Cut(s, "-")
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return v, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return v, false
		}
		v[i] = n
	}
	return v, true
}
