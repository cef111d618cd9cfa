package cluster

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// k8sMount is where the shards' PersistentVolumeClaim is mounted.
const k8sMount = "/datasets"

// writeK8sJob writes a Kubernetes Indexed Job running the campaign's
// shards: pod i (JOB_COMPLETION_INDEX, from 0) runs shard i+1 of N into
// DIR/part-(i+1) on a shared volume; `weft merge` combines the parts
// afterwards (an annotation holds the command). The model path is used as
// given, relative to the image's working directory, and weft must be on
// the image's PATH.
func writeK8sJob(w io.Writer, c *Campaign, image, claim, version string) error {
	if !strings.HasPrefix(c.Dir, "/") {
		c.Dir = k8sMount + "/" + strings.TrimPrefix(c.Dir, "datasets/")
	}
	// Every part by name (seq), so that a missing one fails the merge.
	merge := fmt.Sprintf("weft merge -o %s $(seq -f %s 1 %d)", ShellQuote(c.Dir+"/merged"), ShellQuote(c.Dir+"/part-%g"), c.Shards)
	shard := "exec " + c.shardCommand("weft", c.Model, c.Dir, "$((JOB_COMPLETION_INDEX + 1))", strconv.Itoa(c.Jobs))
	job := yamlMap{
		{"apiVersion", "batch/v1", ""},
		{"kind", "Job", ""},
		{"metadata", yamlMap{
			{"name", k8sName(c.Name), ""},
			{"labels", yamlMap{{"app.kubernetes.io/name", "weft", ""}}, ""},
			{"annotations", yamlMap{
				{"weft.dev/model", c.Model, ""},
				{"weft.dev/seeds", strconv.Itoa(c.Seeds), ""},
				{"weft.dev/merge", merge, "once every index has succeeded, run this where the volume is mounted"},
			}, ""},
		}, ""},
		{"spec", yamlMap{
			{"completionMode", "Indexed", "pod i runs shard i+1 of the campaign (weft's shards count from 1)"},
			{"completions", c.Shards, ""},
			{"parallelism", c.Shards, ""},
			{"backoffLimitPerIndex", 3, "a retried shard resumes its part: runs already written are kept"},
			{"template", yamlMap{{"spec", k8sPodSpec(c, image, claim, shard), ""}}, ""},
		}, ""},
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# weft campaign %s: %d seeds in %d shards (weft %s).\n# kubectl apply -f THIS_FILE; then run the weft.dev/merge annotation's command.\n",
		c.Model, c.Seeds, c.Shards, version)
	job.write(&b, 0)
	_, err := io.WriteString(w, b.String())
	return err
}

// k8sPodSpec is the shard pods' spec.
func k8sPodSpec(c *Campaign, image, claim, shard string) yamlMap {
	container := yamlMap{
		{"name", "shard", ""},
		{"image", image, ""},
		{"command", yamlList{"/bin/sh", "-c", shard}, ""},
		{"resources", yamlMap{{"requests", yamlMap{{"cpu", strconv.Itoa(c.Jobs), ""}}, ""}}, ""},
		{"securityContext", k8sSecurityContext(), k8sSecurityWhy},
		{"volumeMounts", yamlList{yamlMap{{"name", "datasets", ""}, {"mountPath", k8sMount, ""}}}, ""},
	}
	return yamlMap{
		{"restartPolicy", "Never", ""},
		{"containers", yamlList{container}, ""},
		{"volumes", yamlList{yamlMap{
			{"name", "datasets", ""},
			{"persistentVolumeClaim", yamlMap{{"claimName", claim, ""}}, ""},
		}}, ""},
	}
}

// k8sSecurityWhy documents, in the manifest, why the shards need more
// than a default container.
const k8sSecurityWhy = `weft's supervisor runs every node under a seccomp user-notification filter
and controls it through ptrace, which a default container forbids:
- seccompProfile Unconfined: the runtime's default profile refuses
  personality(ADDR_NO_RANDOMIZE) (nodes run without ASLR, so equal states
  have equal bytes), ptrace, process_vm_readv/writev and pidfd_getfd.
- SYS_PTRACE: pidfd_getfd takes each node's notification listener, ptrace
  rewrites its auxiliary vector at exec and writes weft's vDSO over the
  node's (/proc/PID/mem), process_vm_readv/writev read and write node memory.
- appArmorProfile Unconfined: the default AppArmor profile restricts ptrace.
- runAsUser 0: weft's supervisor is tested as root; the build cache
  ($WEFT_CACHE, else ~/.cache/weft) must be writable.
The filter itself needs no CAP_SYS_ADMIN: the launcher sets no_new_privs
before loading it. Where seccompProfile/appArmorProfile are not honoured,
privileged: true is the blunt equivalent.`

// k8sSecurityContext is the shard container's securityContext.
func k8sSecurityContext() yamlMap {
	return yamlMap{
		{"runAsUser", 0, ""},
		{"capabilities", yamlMap{{"add", yamlList{"SYS_PTRACE"}, ""}}, ""},
		{"seccompProfile", yamlMap{{"type", "Unconfined", ""}}, ""},
		{"appArmorProfile", yamlMap{{"type", "Unconfined", ""}}, ""},
	}
}

// k8sName turns s into a DNS-1123 label short enough for a Job's name.
func k8sName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	name := b.String()
	if len(name) > 50 {
		name = name[:50]
	}
	if name = strings.Trim(name, "-"); name == "" {
		name = "weft"
	}
	return name
}

// yamlMap is a YAML mapping that keeps its keys in order; yamlList is a
// sequence. Values are strings, ints, yamlMap or yamlList.
type (
	yamlMap  []yamlEntry
	yamlList []any
)

// yamlEntry is one key of a yamlMap, with an optional comment above it.
type yamlEntry struct {
	key     string
	val     any
	comment string
}

// write emits m in block style at indent ind. Strings are double-quoted
// with JSON escapes, which YAML reads the same way.
func (m yamlMap) write(b *strings.Builder, ind int) {
	pad := strings.Repeat(" ", ind)
	for _, e := range m {
		for line := range strings.Lines(e.comment) {
			b.WriteString(pad + "# " + strings.TrimRight(line, "\n") + "\n")
		}
		if s, ok := yamlScalar(e.val); ok {
			b.WriteString(pad + e.key + ": " + s + "\n")
			continue
		}
		b.WriteString(pad + e.key + ":\n")
		writeYAMLValue(b, e.val, ind+2)
	}
}

func (l yamlList) write(b *strings.Builder, ind int) {
	pad := strings.Repeat(" ", ind)
	for _, v := range l {
		if s, ok := yamlScalar(v); ok {
			b.WriteString(pad + "- " + s + "\n")
			continue
		}
		// The item at ind+2, its first line's indent turned into "- ".
		var item strings.Builder
		writeYAMLValue(&item, v, ind+2)
		b.WriteString(pad + "- " + strings.TrimPrefix(item.String(), pad+"  "))
	}
}

func writeYAMLValue(b *strings.Builder, v any, ind int) {
	switch v := v.(type) {
	case yamlMap:
		v.write(b, ind)
	case yamlList:
		v.write(b, ind)
	default:
		panic(fmt.Sprintf("weft: yaml value of type %T", v))
	}
}

// yamlScalar formats a scalar (ok false for a mapping or sequence).
func yamlScalar(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return strconv.Quote(v), true
	case int:
		return strconv.Itoa(v), true
	case bool:
		return strconv.FormatBool(v), true
	}
	return "", false
}
