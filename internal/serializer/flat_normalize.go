// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import (
	"slices"

	"go.opentelemetry.io/collector/pdata/pcommon"
)

// isChild reports whether key lies below parent ("parent.x").
func isChild(key, parent string) bool {
	return len(key) > len(parent) && key[len(parent)] == '.' && key[:len(parent)] == parent
}

// normalize turns the sorted entries es into the document's fields, in place: of a repeated key
// the last entry wins, empty arrays are left out, and a scalar that collides with an object
// ("a" and "a.b") is renamed "a.value" (which loses to a key "a.value" of its own), unless
// protect says the scalar is a field to keep, in which case the keys below it are dropped. With
// nested set, the keys are not dotted paths and only repeats are dropped. Renamed keys are
// built in d's arena.
func (d *flatDoc) normalize(es []entry, nested bool, protect func(string) bool) []entry {
	for {
		out := es[:0]
		for i := range es {
			en := &es[i]
			if en.kind == kindDead || (i+1 < len(es) && es[i+1].key == en.key) {
				continue
			}
			if !nested && en.kind == kindValue && en.val.Type() == pcommon.ValueTypeSlice && en.val.Slice().Len() == 0 {
				continue
			}
			out = append(out, *en)
		}
		es = out
		if nested {
			return es
		}
		renamed := false
		for i := 0; i+1 < len(es); i++ {
			k := es[i].key
			if es[i].kind == kindDead || !isChild(es[i+1].key, k) {
				continue
			}
			if protect != nil && protect(k) {
				for j := i + 1; j < len(es) && isChild(es[j].key, k); j++ {
					es[j].kind = kindDead
				}
				continue
			}
			es[i].key = d.concat(k, ".value")
			es[i].renamed = true
			renamed = true
		}
		if !renamed {
			return slices.DeleteFunc(es, func(en entry) bool { return en.kind == kindDead })
		}
		sortEntries(es)
	}
}
