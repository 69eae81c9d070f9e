package estest

import "testing"

func TestParseVersionAndAtLeast(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Version
		ok   bool
	}{
		{"8.19.21", Version{8, 19, 21}, true},
		{"9.5.4-SNAPSHOT", Version{9, 5, 4}, true},
		{"9.5", Version{}, false},
		{"9.x.4", Version{}, false},
		{"", Version{}, false},
	} {
		got, ok := parseVersion(c.in)
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("parseVersion(%q) = %v, %v; want %v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
	v := Version{8, 19, 21}
	for _, c := range []struct {
		want Version
		at   bool
	}{
		{Version{8, 18, 0}, true},
		{Version{8, 19, 21}, true},
		{Version{8, 19, 22}, false},
		{Version{9, 0, 0}, false},
		{Version{7, 99, 99}, true},
	} {
		if got := v.AtLeast(c.want); got != c.at {
			t.Errorf("%v.AtLeast(%v) = %v, want %v", v, c.want, got, c.at)
		}
	}
}
