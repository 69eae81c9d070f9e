// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package benchdata // import "github.com/otelcol-es/elasticsearchexporter/internal/lab/benchdata"

import (
	"strconv"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pprofile"
)

// ProfileStacks is the number of distinct stacks of the profiles of Profiles.
const ProfileStacks = 4

// Profiles returns one CPU profile of n samples, sampled at 20 Hz, in one resource with
// host.id and one scope, marked read-only. The samples go round ProfileStacks stacks of three
// frames, leaf first: a native frame of one of two executables with a build id, a symbolized Go
// frame of its own, and a Go main frame all stacks share. Each sample has one timestamp, so it
// is one event; the stacks, their frames, the two executables and the host are written once.
func Profiles(n int) pprofile.Profiles {
	pd := pprofile.NewProfiles()
	dict := pd.Dictionary()
	strs := dict.StringTable()
	str := func(s string) int32 {
		strs.Append(s)
		return int32(strs.Len() - 1)
	}
	str("")
	attrs := dict.AttributeTable()
	attrs.AppendEmpty() // 0: none
	attr := func(k, v string) int32 {
		kv := attrs.AppendEmpty()
		kv.SetKeyStrindex(str(k))
		kv.Value().SetStr(v)
		return int32(attrs.Len() - 1)
	}
	native, golang := attr("profile.frame.type", "native"), attr("profile.frame.type", "go")

	dict.MappingTable().AppendEmpty()
	for i, exe := range []string{"/usr/lib/libc.so.6", "/usr/lib/libssl.so.3"} {
		m := dict.MappingTable().AppendEmpty()
		m.SetFilenameStrindex(str(exe))
		m.AttributeIndices().Append(attr("process.executable.build_id.htlhash", "600dcafe600dcafe600dcafe600dcaf"+strconv.Itoa(i)))
	}
	dict.FunctionTable().AppendEmpty()
	dict.LocationTable().AppendEmpty()
	goFrame := func(name string, line int64) int32 {
		fn := dict.FunctionTable().AppendEmpty()
		fn.SetNameStrindex(str(name))
		fn.SetFilenameStrindex(str("main.go"))
		loc := dict.LocationTable().AppendEmpty()
		loc.AttributeIndices().Append(golang)
		l := loc.Lines().AppendEmpty()
		l.SetFunctionIndex(int32(dict.FunctionTable().Len() - 1))
		l.SetLine(line)
		return int32(dict.LocationTable().Len() - 1)
	}
	mainFrame := goFrame("main.main", 10)
	dict.StackTable().AppendEmpty()
	for i := range ProfileStacks {
		loc := dict.LocationTable().AppendEmpty()
		loc.SetMappingIndex(int32(1 + i%2))
		loc.SetAddress(uint64(0x1000 + 0x10*i))
		loc.AttributeIndices().Append(native)
		leaf := int32(dict.LocationTable().Len() - 1)
		work := goFrame("main.work"+strconv.Itoa(i), int64(20+i))
		dict.StackTable().AppendEmpty().LocationIndices().Append(leaf, work, mainFrame)
	}

	rp := pd.ResourceProfiles().AppendEmpty()
	rp.Resource().Attributes().PutStr("host.id", "host-1")
	rp.Resource().Attributes().PutStr("service.name", "checkout")
	sp := rp.ScopeProfiles().AppendEmpty()
	sp.Scope().SetName("checkout.profiler")
	p := sp.Profiles().AppendEmpty()
	p.SampleType().SetTypeStrindex(str("samples"))
	p.SampleType().SetUnitStrindex(str("count"))
	p.PeriodType().SetTypeStrindex(str("cpu"))
	p.PeriodType().SetUnitStrindex(str("nanoseconds"))
	p.SetPeriod(50_000_000)
	p.SetTime(pcommon.Timestamp(baseTime))
	p.Samples().EnsureCapacity(n)
	for i := range n {
		s := p.Samples().AppendEmpty()
		s.SetStackIndex(int32(1 + i%ProfileStacks))
		s.TimestampsUnixNano().Append(uint64(baseTime + i*50_000_000))
	}
	pd.MarkReadOnly()
	return pd
}
