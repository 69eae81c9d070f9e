package loadgen

import (
	"encoding/binary"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pprofile"
)

// The profiles of a run are on-CPU samples of one process, the service's Go binary
// /usr/local/bin/checkout, as the eBPF profiler reports them: sample type samples/count,
// period type cpu/nanoseconds, one sample every ProfilePeriod, each sample one timestamp
// (count 1) on one of the stacks of profileStacks. Go frames are symbolized (function, file,
// line) in the binary's mapping; the frames in libz and libc, which the binary calls through
// cgo, are native and carry only their address. Every mapping has a build id
// (process.executable.build_id.htlhash). The resource is one host (host.id ProfileHostID,
// host.name) with the service's attributes and the run id; data_stream.* are not set, since
// the profiling data streams do not depend on them. A request holds one profile of at most
// Config.Batch samples, with a dictionary of its own. Sample i of a run is on stack
// profileStacks[profileSchedule[i % len(profileSchedule)]], at ProfilePeriod × (i - n) before
// the start of a run of n samples.

// ProfilePeriod is the time between two samples: 20 samples a second, the eBPF profiler's
// default.
const ProfilePeriod = 50 * time.Millisecond

// ProfileHostID is the host.id of the profiles' resource.
const ProfileHostID = "4c2b8e1f9d7a4b3c8e6f1a2d3c4b5a69"

// ProfileThread is the thread.name attribute of every sample.
const ProfileThread = "checkout"

// profileExecutable is a mapping of the profiled process.
type profileExecutable struct {
	path    string
	buildID string // process.executable.build_id.htlhash, 32 hex digits
}

var profileExecutables = []profileExecutable{
	{"/usr/local/bin/checkout", "9f3c1a7e5b2d4f60a8c1e3b5d7f90214"},
	{"/usr/lib/x86_64-linux-gnu/libz.so.1.3", "2d6e0b8a4c1f47e9b3a5c7d9e1f30486"},
	{"/usr/lib/x86_64-linux-gnu/libc.so.6", "7a1e5c3b9d0f42a6b8c4e2d6f0a13579"},
}

// profileFrame is a location: an address in an executable and, for a Go frame, its function,
// file and line.
type profileFrame struct {
	exe      int // index into profileExecutables
	addr     uint64
	function string // "" for a native frame
	file     string
	line     int64
}

func goFrame(addr uint64, function, file string, line int64) profileFrame {
	return profileFrame{exe: 0, addr: addr, function: function, file: file, line: line}
}

var (
	connServe   = goFrame(0x6c2f40, "net/http.(*conn).serve", "net/http/server.go", 2102)
	handlerFunc = goFrame(0x6b8a10, "net/http.HandlerFunc.ServeHTTP", "net/http/server.go", 2294)
	cgocall     = goFrame(0x404e2c, "runtime.cgocall", "runtime/cgocall.go", 167)
	cDeflate    = goFrame(0x7a1c55, "main._Cfunc_deflate", "_cgo_gotypes.go", 61)
	zWrite      = goFrame(0x7a2310, "main.(*zwriter).Write", "compress.go", 44)
	libzDeflate = profileFrame{exe: 1, addr: 0x2f10}
)

// profileStacks are the stacks of the samples, leaf first, as the profile's stack table holds
// them.
var profileStacks = [][]profileFrame{
	{ // JSON encoding of an order
		goFrame(0x47a3c0, "runtime.memmove", "runtime/memmove_amd64.s", 180),
		goFrame(0x5e91d4, "encoding/json.(*encodeState).string", "encoding/json/encode.go", 1040),
		goFrame(0x5e2a88, "encoding/json.Marshal", "encoding/json/encode.go", 165),
		goFrame(0x7b0c64, "main.(*server).handleOrders", "main.go", 88),
		handlerFunc, connServe,
	},
	{ // allocation while adding to a cart
		goFrame(0x4126e0, "runtime.mallocgc", "runtime/malloc.go", 1290),
		goFrame(0x412f88, "runtime.newobject", "runtime/malloc.go", 1710),
		goFrame(0x7b3a1c, "main.(*cart).add", "cart.go", 41),
		goFrame(0x7b11f0, "main.(*server).handleCart", "main.go", 120),
		handlerFunc, connServe,
	},
	{ // compression of a response in libz, through cgo
		profileFrame{exe: 1, addr: 0x3d5c},
		libzDeflate, cgocall, cDeflate, zWrite,
		goFrame(0x7b0e02, "main.(*server).handleOrders", "main.go", 95),
		handlerFunc, connServe,
	},
	{ // libz copying with libc's memcpy
		profileFrame{exe: 2, addr: 0x1a0c40},
		libzDeflate, cgocall, cDeflate, zWrite,
		goFrame(0x7b1402, "main.(*server).handleCart", "main.go", 131),
		handlerFunc, connServe,
	},
	{ // the garbage collector's mark worker
		goFrame(0x41e5a8, "runtime.scanobject", "runtime/mgcmark.go", 1446),
		goFrame(0x41d7b4, "runtime.gcDrain", "runtime/mgcmark.go", 1188),
		goFrame(0x4192f0, "runtime.gcBgMarkWorker.func2", "runtime/mgc.go", 1423),
		goFrame(0x474a6a, "runtime.systemstack", "runtime/asm_amd64.s", 514),
	},
}

// profileSchedule is the order of the samples' stacks, repeated: the JSON encoding is the
// hottest.
var profileSchedule = []int{0, 1, 0, 2, 0, 4, 1, 3, 0, 2}

// ProfileDocuments is what the exporter writes in the otel mode for the first n samples of a
// run, with nothing written before: one event per sample, the stack traces, the stack frames
// of symbolized frames and the executables of the stacks those samples are on, and one host.
// A later run writes its own events and host; its stack traces, frames and executables have
// the same ids as before.
type ProfileDocuments struct {
	Events, Stacktraces, Stackframes, Executables, Hosts int
}

// ProfileDocumentsOf returns the documents of the first n samples of a run.
func ProfileDocumentsOf(n int) ProfileDocuments {
	if n <= 0 {
		return ProfileDocuments{}
	}
	stacks := map[int]bool{}
	frames := map[profileFrame]bool{}
	exes := map[int]bool{}
	for i := range min(n, len(profileSchedule)) {
		s := profileSchedule[i]
		stacks[s] = true
		for _, f := range profileStacks[s] {
			if f.function != "" {
				frames[f] = true
			}
			exes[f.exe] = true
		}
	}
	return ProfileDocuments{Events: n, Stacktraces: len(stacks), Stackframes: len(frames), Executables: len(exes), Hosts: 1}
}

// profiles returns samples first to first+n-1 of the run, one profile.
func (g *generator) profiles(first, n int) pprofile.Profiles {
	pd := pprofile.NewProfiles()
	dict := pd.Dictionary()
	d := newDictBuilder(dict)

	rp := pd.ResourceProfiles().AppendEmpty()
	a := rp.Resource().Attributes()
	g.service(a)
	a.PutStr("host.id", ProfileHostID)
	sp := rp.ScopeProfiles().AppendEmpty()
	scope(sp.Scope())

	p := sp.Profiles().AppendEmpty()
	p.SampleType().SetTypeStrindex(d.str("samples"))
	p.SampleType().SetUnitStrindex(d.str("count"))
	p.PeriodType().SetTypeStrindex(d.str("cpu"))
	p.PeriodType().SetUnitStrindex(d.str("nanoseconds"))
	p.SetPeriod(ProfilePeriod.Nanoseconds())
	var id pprofile.ProfileID
	copy(id[:], g.traceBase[:8])
	binary.BigEndian.PutUint64(id[8:], uint64(first)+1)
	p.SetProfileID(id)

	stackIdx := make([]int32, len(profileStacks))
	for s, frames := range profileStacks {
		stackIdx[s] = d.stack(frames)
	}
	thread := d.attr("thread.name", ProfileThread)
	total := g.cfg.Profiles
	at := func(i int) pcommon.Timestamp {
		return pcommon.NewTimestampFromTime(g.now.Add(time.Duration(i-total) * ProfilePeriod))
	}
	p.SetTime(at(first))
	p.SetDurationNano(uint64(time.Duration(n) * ProfilePeriod))
	samples := p.Samples()
	samples.EnsureCapacity(n)
	for i := first; i < first+n; i++ {
		s := samples.AppendEmpty()
		s.SetStackIndex(stackIdx[profileSchedule[i%len(profileSchedule)]])
		s.AttributeIndices().Append(thread)
		s.TimestampsUnixNano().Append(uint64(at(i)))
	}
	return pd
}

// dictBuilder fills a profiles dictionary, each string, attribute, mapping, function and
// location once. Index 0 of every table is the empty entry the format asks for.
type dictBuilder struct {
	dict  pprofile.ProfilesDictionary
	strs  map[string]int32
	attrs map[[2]string]int32
	maps  map[int]int32
	funcs map[[2]string]int32
	locs  map[profileFrame]int32
	goTyp int32 // the attribute profile.frame.type=go
	nTyp  int32 // profile.frame.type=native
}

func newDictBuilder(dict pprofile.ProfilesDictionary) *dictBuilder {
	d := &dictBuilder{
		dict: dict, strs: map[string]int32{}, attrs: map[[2]string]int32{},
		maps: map[int]int32{}, funcs: map[[2]string]int32{}, locs: map[profileFrame]int32{},
	}
	d.str("")
	dict.AttributeTable().AppendEmpty()
	dict.MappingTable().AppendEmpty()
	dict.FunctionTable().AppendEmpty()
	dict.LocationTable().AppendEmpty()
	dict.StackTable().AppendEmpty()
	d.goTyp = d.attr("profile.frame.type", "go")
	d.nTyp = d.attr("profile.frame.type", "native")
	return d
}

func (d *dictBuilder) str(s string) int32 {
	if i, ok := d.strs[s]; ok {
		return i
	}
	d.dict.StringTable().Append(s)
	i := int32(d.dict.StringTable().Len() - 1)
	d.strs[s] = i
	return i
}

func (d *dictBuilder) attr(k, v string) int32 {
	if i, ok := d.attrs[[2]string{k, v}]; ok {
		return i
	}
	kv := d.dict.AttributeTable().AppendEmpty()
	kv.SetKeyStrindex(d.str(k))
	kv.Value().SetStr(v)
	i := int32(d.dict.AttributeTable().Len() - 1)
	d.attrs[[2]string{k, v}] = i
	return i
}

func (d *dictBuilder) mapping(exe int) int32 {
	if i, ok := d.maps[exe]; ok {
		return i
	}
	e := profileExecutables[exe]
	m := d.dict.MappingTable().AppendEmpty()
	m.SetFilenameStrindex(d.str(e.path))
	m.AttributeIndices().Append(d.attr("process.executable.build_id.htlhash", e.buildID))
	i := int32(d.dict.MappingTable().Len() - 1)
	d.maps[exe] = i
	return i
}

func (d *dictBuilder) function(name, file string) int32 {
	if i, ok := d.funcs[[2]string{name, file}]; ok {
		return i
	}
	fn := d.dict.FunctionTable().AppendEmpty()
	fn.SetNameStrindex(d.str(name))
	fn.SetSystemNameStrindex(d.str(name))
	fn.SetFilenameStrindex(d.str(file))
	i := int32(d.dict.FunctionTable().Len() - 1)
	d.funcs[[2]string{name, file}] = i
	return i
}

func (d *dictBuilder) location(f profileFrame) int32 {
	if i, ok := d.locs[f]; ok {
		return i
	}
	mi := d.mapping(f.exe)
	var fi int32
	if f.function != "" {
		fi = d.function(f.function, f.file)
	}
	loc := d.dict.LocationTable().AppendEmpty()
	loc.SetMappingIndex(mi)
	loc.SetAddress(f.addr)
	if f.function != "" {
		loc.AttributeIndices().Append(d.goTyp)
		line := loc.Lines().AppendEmpty()
		line.SetFunctionIndex(fi)
		line.SetLine(f.line)
	} else {
		loc.AttributeIndices().Append(d.nTyp)
	}
	i := int32(d.dict.LocationTable().Len() - 1)
	d.locs[f] = i
	return i
}

func (d *dictBuilder) stack(frames []profileFrame) int32 {
	st := d.dict.StackTable().AppendEmpty()
	for _, f := range frames {
		st.LocationIndices().Append(d.location(f))
	}
	return int32(d.dict.StackTable().Len() - 1)
}
