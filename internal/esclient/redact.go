// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package esclient // import "github.com/otelcol-es/elasticsearchexporter/internal/esclient"

import (
	"errors"
	"net/url"
	"strings"
)

// A URL's password never reaches a log line or an error: endpoints may be written
// http://user:password@host. Every URL the package logs or puts in an error goes through
// RedactURL, and every error that can carry a *url.Error through redactError.

// redacted replaces a password, as url.URL.Redacted writes it.
const redacted = "xxxxx"

// RedactURL returns s with the password of its user info replaced by "xxxxx", as
// url.URL.Redacted does, also when s does not parse as a URL (as in the error that says so).
// The rest of s is kept as it is.
func RedactURL(s string) string {
	rest := s
	if _, after, ok := strings.Cut(s, "://"); ok {
		rest = after
	}
	var at int
	if u, err := url.Parse(s); err == nil && u.Opaque == "" && u.User != nil {
		// The user info ends at the last '@' of the authority.
		authority := rest
		if i := strings.IndexAny(rest, "/?#"); i >= 0 {
			authority = rest[:i]
		}
		at = strings.LastIndexByte(authority, '@')
	} else {
		// Unparsable, or parsed otherwise than meant: "user:pass@host" parses as the scheme
		// "user", and "http://user:12#pass@host" as the host "user:12" and a fragment.
		// Everything before the last '@' after the scheme is taken as user info.
		at = strings.LastIndexByte(rest, '@')
	}
	if at < 0 {
		return s
	}
	user, _, hasPassword := strings.Cut(rest[:at], ":")
	if !hasPassword {
		return s
	}
	return s[:len(s)-len(rest)] + user + ":" + redacted + rest[at:]
}

// parseProblem says why s, which url.Parse refused with err, is not a URL, without quoting
// its password: url.Parse's messages quote parts of the URL ("invalid port \":pass\"").
func parseProblem(s string, err error) string {
	red := RedactURL(s)
	if red == s {
		return urlErrorDetail(err)
	}
	if _, err := url.Parse(red); err != nil {
		return urlErrorDetail(err)
	}
	return "the user info holds a character that must be percent-encoded (such as # / ? @ or a space)"
}

// urlErrorDetail is the reason of a *url.Error, without the URL it quotes.
func urlErrorDetail(err error) string {
	if ue, ok := errors.AsType[*url.Error](err); ok {
		return ue.Err.Error()
	}
	return err.Error()
}

// redactError returns err with the password of every URL held by a *url.Error in its tree
// replaced by "xxxxx", and the reason of such a parse error, which may quote a part of the
// password, rewritten. The *url.Errors are redacted in place, for whoever unwraps them; the
// returned error's message is redacted too, as wrappers may hold the message they were made
// with. A nil err stays nil.
func redactError(err error) error {
	var replacer []string
	walkErrors(err, func(e error) {
		ue, ok := e.(*url.Error) //nolint:errorlint // walkErrors visits every wrapped error
		if !ok {
			return
		}
		orig, before := ue.URL, ue.Error()
		ue.URL = RedactURL(orig)
		if ue.URL == orig {
			return
		}
		if ue.Op == "parse" {
			ue.Err = errors.New(parseProblem(orig, ue.Err))
		}
		replacer = append(replacer, before, ue.Error())
	})
	if len(replacer) == 0 {
		return err
	}
	return &redactedError{msg: strings.NewReplacer(replacer...).Replace(err.Error()), err: err}
}

// redactedError is an error whose message was redacted; it wraps the original error, whose
// *url.Errors are redacted too.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// walkErrors calls f on err and on every error it wraps.
func walkErrors(err error, f func(error)) {
	for err != nil {
		f(err)
		switch u := err.(type) { //nolint:errorlint // walks the tree by hand
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				walkErrors(e, f)
			}
			return
		default:
			return
		}
	}
}
