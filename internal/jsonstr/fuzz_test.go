// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package jsonstr

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzAppendString checks any bytes, invalid UTF-8 included, against encoding/json: both
// replace each invalid byte by U+FFFD, so the two outputs must decode to the same string. The
// escaped contents must also be escapeReference's, byte for byte.
func FuzzAppendString(f *testing.F) {
	for _, tt := range stringTests {
		f.Add([]byte(tt.in))
	}
	f.Add([]byte("Échec de la réservation du stock pour l'article « Crème brûlée » : quantité insuffisante\n" +
		"注文 4821337 の支払いに失敗しました\xff order 4821337 shipped 🚚 to customer 😀 \"fast delivery 👍\"\n" +
		"java.lang.NullPointerException: Cannot invoke \"String.length()\" because \"sku\" is null\n" +
		"\tat com.example.shop.service.CartService.addItem(CartService.java:217)\n"))
	f.Add([]byte(strings.Join(escapePieces, "")))
	f.Fuzz(func(t *testing.T, in []byte) {
		got, invalid := Append(nil, string(in))
		if want, _ := escapeReference([]byte{'"'}, string(in)); !bytes.Equal(got, append(want, '"')) {
			t.Fatalf("Append(%q) = %q, want %q", in, got, want)
		}
		if !json.Valid(got) {
			t.Fatalf("Append(%q) = %q, not valid JSON", in, got)
		}
		if bytes.IndexByte(got, '\n') >= 0 {
			t.Fatalf("Append(%q) = %q, has a raw newline", in, got)
		}
		want, err := json.Marshal(string(in))
		if err != nil {
			t.Fatalf("json.Marshal(%q): %v", in, err)
		}
		if g, w := decodeJSONString(t, got), decodeJSONString(t, want); g != w {
			t.Fatalf("Append(%q) = %q, decodes to %q; encoding/json's %q decodes to %q", in, got, g, want, w)
		}
		if replaced := countInvalidBytes(in); invalid != replaced {
			t.Fatalf("Append(%q) invalid = %d, want %d", in, invalid, replaced)
		}
	})
}
