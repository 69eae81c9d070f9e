// Copyright The OpenTelemetry Authors
// SPDX-License-Identifier: Apache-2.0

package serializer // import "github.com/otelcol-es/elasticsearchexporter/internal/serializer"

import (
	"iter"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/otelcol-es/elasticsearchexporter/internal/controlattr"
)

// The conversion of OpenTelemetry semantic convention names to Elastic Common Schema (ECS)
// names, for the ecs mapping mode. The tables are those of the contrib exporter, so that users
// who switch keep their documents. Only the top-level keys of an attribute map are converted;
// a map value is flattened under the converted name.

// ecsRule says what becomes of an attribute in ECS mode.
type ecsRule uint8

const (
	ecsKeep    ecsRule = iota // written under its own name
	ecsRename                 // written under the ECS name only
	ecsSkip                   // not written
	ecsAlsoNew                // written under its own name, and under the ECS name unless the map has that key
)

// ecsResourceRule converts a resource attribute.
func ecsResourceRule(k string) (string, ecsRule) {
	switch k {
	case "service.instance.id":
		return "service.node.name", ecsRename
	case "deployment.environment", "deployment.environment.name":
		return "service.environment", ecsRename
	case "telemetry.sdk.language":
		return "service.language.name", ecsRename
	case "telemetry.sdk.version":
		return "service.language.version", ecsRename
	case "telemetry.sdk.name", "telemetry.distro.name", "telemetry.distro.version":
		return "", ecsSkip // written as agent.name and agent.version
	case "cloud.platform":
		return "cloud.service.name", ecsRename
	case "container.image.tags":
		return "container.image.tag", ecsRename
	case "host.name":
		return "host.hostname", ecsAlsoNew
	case "host.arch":
		return "host.architecture", ecsRename
	case "process.parent_pid":
		return "process.parent.pid", ecsRename
	case "process.executable.name":
		return "process.title", ecsRename
	case "process.executable.path":
		return "process.executable", ecsRename
	case "process.command_line":
		return "process.args", ecsRename
	case "process.runtime.name":
		return "service.runtime.name", ecsRename
	case "process.runtime.version":
		return "service.runtime.version", ecsRename
	case "os.name":
		return "host.os.name", ecsRename
	case "os.type":
		return "host.os.platform", ecsRename
	case "os.description":
		return "host.os.full", ecsRename
	case "os.version":
		return "host.os.version", ecsRename
	case "client.address":
		return "client.ip", ecsRename
	case "source.address":
		return "source.ip", ecsRename
	case "k8s.deployment.name":
		return "kubernetes.deployment.name", ecsRename
	case "k8s.namespace.name":
		return "kubernetes.namespace", ecsRename
	case "k8s.node.name":
		return "kubernetes.node.name", ecsRename
	case "k8s.pod.name":
		return "kubernetes.pod.name", ecsRename
	case "k8s.pod.uid":
		return "kubernetes.pod.uid", ecsRename
	case "k8s.job.name":
		return "kubernetes.job.name", ecsRename
	case "k8s.cronjob.name":
		return "kubernetes.cronjob.name", ecsRename
	case "k8s.statefulset.name":
		return "kubernetes.statefulset.name", ecsRename
	case "k8s.replicaset.name":
		return "kubernetes.replicaset.name", ecsRename
	case "k8s.daemonset.name":
		return "kubernetes.daemonset.name", ecsRename
	case "k8s.container.name":
		return "kubernetes.container.name", ecsRename
	case "k8s.cluster.name":
		return "orchestrator.cluster.name", ecsRename
	case "faas.instance":
		return "faas.id", ecsRename
	case "faas.trigger":
		return "faas.trigger.type", ecsRename
	}
	return "", ecsKeep
}

// ecsScopeRule converts a scope attribute: scope attributes are written as they are.
func ecsScopeRule(string) (string, ecsRule) { return "", ecsKeep }

// ecsLogRule converts a log record attribute, or a span event attribute.
func ecsLogRule(k string) (string, ecsRule) {
	switch k {
	case "event.name":
		return "event.action", ecsRename
	case "exception.message":
		return "error.message", ecsRename
	case "exception.stacktrace":
		return "error.stacktrace", ecsRename
	case "exception.type":
		return "error.type", ecsRename
	case "exception.escaped":
		return "event.error.exception.handled", ecsRename
	case "http.response.body.size":
		return "http.response.encoded_body_size", ecsRename
	}
	return "", ecsKeep
}

// ecsSpanRule converts a span attribute of an Elastic APM span.
func ecsSpanRule(k string) (string, ecsRule) {
	if k == "messaging.destination.name" {
		return "span.message.queue.name", ecsRename
	}
	return ecsSpanCommonRule(k)
}

// ecsTransactionRule converts a span attribute of a span whose attribute processor.event is
// "transaction": its messaging destination is the transaction's queue.
func ecsTransactionRule(k string) (string, ecsRule) {
	if k == "messaging.destination.name" {
		return "transaction.message.queue.name", ecsRename
	}
	return ecsSpanCommonRule(k)
}

func ecsSpanCommonRule(k string) (string, ecsRule) {
	switch k {
	case "messaging.operation.name":
		return "span.action", ecsRename
	case "db.system":
		return "span.db.type", ecsRename
	case "db.namespace":
		return "span.db.instance", ecsRename
	case "db.query.text":
		return "span.db.statement", ecsRename
	case "http.response.body.size":
		return "http.response.encoded_body_size", ecsRename
	}
	return "", ecsKeep
}

// ecsProtected reports whether key is an ECS field the ecs mode writes by name: a conversion
// target or a field of its own. When such a field holds a value and other keys sit below it
// (key.x), those keys are dropped rather than the field being renamed to key.value, so that
// the ECS field keeps its name.
func ecsProtected(key string) bool {
	switch key {
	case "@timestamp", "message", "log.level", "event.severity", "event.action", "event.outcome",
		"trace.id", "span.id", "parent.id", "span.name", "span.kind", "span.links",
		"agent.name", "agent.version", "host.os.type",
		"data_stream.type", "data_stream.dataset", "data_stream.namespace",
		"service.node.name", "service.environment", "service.language.name", "service.language.version",
		"cloud.service.name", "container.image.tag", "host.hostname", "host.architecture",
		"process.parent.pid", "process.title", "process.executable", "process.args",
		"service.runtime.name", "service.runtime.version",
		"host.os.name", "host.os.platform", "host.os.full", "host.os.version", "client.ip", "source.ip",
		"kubernetes.deployment.name", "kubernetes.namespace", "kubernetes.node.name", "kubernetes.pod.name",
		"kubernetes.pod.uid", "kubernetes.job.name", "kubernetes.cronjob.name", "kubernetes.statefulset.name",
		"kubernetes.replicaset.name", "kubernetes.daemonset.name", "kubernetes.container.name",
		"orchestrator.cluster.name", "faas.id", "faas.trigger.type",
		"error.message", "error.stacktrace", "error.type", "event.error.exception.handled",
		"http.response.encoded_body_size", "span.db.type", "span.db.instance", "span.db.statement",
		"span.message.queue.name", "transaction.message.queue.name", "span.action":
		return true
	}
	return false
}

// addECS adds the attributes of m, converted by rule, to d. Control attributes are left out.
func (d *flatDoc) addECS(m pcommon.Map, rule func(string) (string, ecsRule)) {
	for k, v := range ecsAttributes(m, rule) {
		d.addValue(d.key("", k), v, 1)
	}
}

// ecsAttributes yields the attributes of m converted by rule, in m's order: the key each is
// written under (not repaired) and its value. Control attributes are left out.
func ecsAttributes(m pcommon.Map, rule func(string) (string, ecsRule)) iter.Seq2[string, pcommon.Value] {
	return func(yield func(string, pcommon.Value) bool) {
		for k, v := range m.All() {
			if controlattr.Is(k) {
				continue
			}
			to, r := rule(k)
			switch r {
			case ecsSkip:
				continue
			case ecsRename:
				if !yield(to, v) {
					return
				}
			case ecsAlsoNew:
				if _, ok := m.Get(to); !ok {
					if !yield(to, v) {
						return
					}
				}
				if !yield(k, v) {
					return
				}
			default:
				if !yield(k, v) {
					return
				}
			}
		}
	}
}

// ecsAgent holds the fields the ecs mode derives from the resource once per resource.
type ecsAgent struct {
	name, version, hostOSType string
}

// deriveECSAgent derives agent.name, agent.version and host.os.type from the resource
// attributes. agent.name is "<telemetry.sdk.name or otlp>[/<telemetry.sdk.language or
// unknown>[/<telemetry.distro.name>]]", built in d's arena; agent.version is the distro
// version, else the SDK version.
func deriveECSAgent(d *flatDoc, attrs pcommon.Map) ecsAgent {
	sdk, lang, distro := "otlp", "", ""
	if v, ok := attrs.Get("telemetry.sdk.name"); ok {
		sdk = v.Str()
	}
	if v, ok := attrs.Get("telemetry.sdk.language"); ok {
		lang = v.Str()
	}
	if v, ok := attrs.Get("telemetry.distro.name"); ok {
		distro = v.Str()
		if lang == "" {
			lang = "unknown"
		}
	}
	var a ecsAgent
	start := len(d.arena)
	d.arena = append(d.arena, sdk...)
	switch {
	case distro != "":
		d.arena = append(append(append(append(d.arena, '/'), lang...), '/'), distro...)
	case lang != "":
		d.arena = append(append(d.arena, '/'), lang...)
	}
	a.name = arenaString(d.arena[start:])
	if v, ok := attrs.Get("telemetry.distro.version"); ok {
		a.version = v.Str()
	} else if v, ok := attrs.Get("telemetry.sdk.version"); ok {
		a.version = v.Str()
	}
	// ECS allows linux, macos, unix and windows (and the mobile systems); any other OS leaves
	// host.os.type out.
	if v, ok := attrs.Get("os.type"); ok {
		switch s := v.Str(); s {
		case "windows", "linux":
			a.hostOSType = s
		case "darwin":
			a.hostOSType = "macos"
		case "aix", "hpux", "solaris":
			a.hostOSType = "unix"
		}
	}
	if v, ok := attrs.Get("os.name"); ok {
		switch v.Str() {
		case "Android":
			a.hostOSType = "android"
		case "iOS":
			a.hostOSType = "ios"
		}
	}
	return a
}
