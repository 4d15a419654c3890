#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`confine export k8s` (doc/SPEC.md 20) parses as Kubernetes objects: every
field it writes is checked against the type the Kubernetes API reference
documents for v1.29 (core/v1 List, Pod, PodSpec, Container, SecurityContext,
Volume...; networking.k8s.io/v1 NetworkPolicy; with --kind SandboxTemplate,
kubernetes-sigs/agent-sandbox's extensions.agents.x-k8s.io/v1alpha1
SandboxTemplate, whose podTemplate must be the Pod's spec), and a field the table does
not know fails (a typo or an invented field is not an object Kubernetes
accepts). Then its policy content matches the OCI export's of the same
policy, field by field: command and args, env, working directory, the
writable volumes and read-only subPaths against the bundle's binds, the
seccomp profile against linux.seccomp, network off against the network
namespace. --runtime-class and --image land in the pod, bad values are
refused.

Usage: k8s_types.py CONFINE
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "helpers"))
from tap import Tap  # noqa: E402

TAP = Tap()

API_VERSION = "v1.29"
STR, INT, BOOL = "string", "integer", "boolean"


def lst(item):
    return ("list", item)


def mp(item):
    return ("map", item)


def enum(*words):
    return ("enum", words)


# The v1.29 API reference's types (kubernetes.io/docs/reference/kubernetes-api/),
# only the fields the export may write; each object type a dict.
OBJECT_META = {"name": STR, "labels": mp(STR), "annotations": mp(STR)}
SECCOMP = {"type": enum("Localhost", "RuntimeDefault", "Unconfined"), "localhostProfile": STR}
CAPABILITIES = {"add": lst(STR), "drop": lst(STR)}
SECURITY_CONTEXT = {"readOnlyRootFilesystem": BOOL, "allowPrivilegeEscalation": BOOL,
                    "privileged": BOOL, "capabilities": CAPABILITIES, "seccompProfile": SECCOMP,
                    "runAsUser": INT, "runAsGroup": INT, "runAsNonRoot": BOOL}
POD_SECURITY_CONTEXT = {"runAsUser": INT, "runAsGroup": INT, "runAsNonRoot": BOOL,
                        "seccompProfile": SECCOMP}
ENV_VAR = {"name": STR, "value": STR}
VOLUME_MOUNT = {"name": STR, "mountPath": STR, "subPath": STR, "readOnly": BOOL}
RESOURCES = {"limits": mp(STR), "requests": mp(STR)}
CONTAINER = {"name": STR, "image": STR, "command": lst(STR), "args": lst(STR),
             "workingDir": STR, "env": lst(ENV_VAR), "securityContext": SECURITY_CONTEXT,
             "volumeMounts": lst(VOLUME_MOUNT), "resources": RESOURCES}
VOLUME = {"name": STR,
          "hostPath": {"path": STR, "type": enum("", "DirectoryOrCreate", "Directory",
                                                 "FileOrCreate", "File", "Socket",
                                                 "CharDevice", "BlockDevice")},
          "emptyDir": {"medium": enum("", "Memory"), "sizeLimit": STR}}
POD_SPEC = {"runtimeClassName": STR, "restartPolicy": enum("Always", "OnFailure", "Never"),
            "automountServiceAccountToken": BOOL, "enableServiceLinks": BOOL,
            "hostNetwork": BOOL, "hostPID": BOOL, "hostIPC": BOOL,
            "securityContext": POD_SECURITY_CONTEXT, "containers": lst(CONTAINER),
            "volumes": lst(VOLUME)}
LABEL_SELECTOR = {"matchLabels": mp(STR)}
PEER = {"podSelector": LABEL_SELECTOR, "namespaceSelector": LABEL_SELECTOR}
PORT = {"protocol": enum("TCP", "UDP", "SCTP"), "port": INT}
NETWORK_POLICY_SPEC = {"podSelector": LABEL_SELECTOR,
                       "policyTypes": lst(enum("Ingress", "Egress")),
                       "ingress": lst({"from": lst(PEER), "ports": lst(PORT)}),
                       "egress": lst({"to": lst(PEER), "ports": lst(PORT)})}
# kubernetes-sigs/agent-sandbox's SandboxTemplate, extensions.agents.x-k8s.io/v1alpha1
# (its docs/api.md): podTemplate {metadata {labels, annotations}, spec PodSpec}
# (required), networkPolicy {ingress, egress} (a restricted NetworkPolicySpec:
# no podSelector or policyTypes, the controller's), networkPolicyManagement
# Managed|Unmanaged, envVarsInjectionPolicy Allowed|Overrides|Disallowed.
POD_TEMPLATE = {"metadata": {"labels": mp(STR), "annotations": mp(STR)}, "spec": POD_SPEC}
TEMPLATE_NETWORK_POLICY = {"ingress": lst({"from": lst(PEER), "ports": lst(PORT)}),
                           "egress": lst({"to": lst(PEER), "ports": lst(PORT)})}
SANDBOX_TEMPLATE_SPEC = {"podTemplate": POD_TEMPLATE, "networkPolicy": TEMPLATE_NETWORK_POLICY,
                         "networkPolicyManagement": enum("Managed", "Unmanaged"),
                         "envVarsInjectionPolicy": enum("Allowed", "Overrides", "Disallowed")}
TEMPLATE_KIND = ("extensions.agents.x-k8s.io/v1alpha1", "SandboxTemplate")
KINDS = {
    TEMPLATE_KIND: {"apiVersion": STR, "kind": STR, "metadata": OBJECT_META,
                    "spec": SANDBOX_TEMPLATE_SPEC},
    ("v1", "Pod"): {"apiVersion": STR, "kind": STR, "metadata": OBJECT_META, "spec": POD_SPEC},
    ("networking.k8s.io/v1", "NetworkPolicy"): {"apiVersion": STR, "kind": STR,
                                                "metadata": OBJECT_META,
                                                "spec": NETWORK_POLICY_SPEC},
}
# Required by the API: a Pod's containers (each with a name), a volume's
# name, a mount's name and path, an env var's name, a policy's podSelector.
REQUIRED = {id(CONTAINER): ["name"], id(VOLUME): ["name"], id(VOLUME_MOUNT): ["name", "mountPath"],
            id(ENV_VAR): ["name"], id(POD_SPEC): ["containers"],
            id(NETWORK_POLICY_SPEC): ["podSelector"], id(SANDBOX_TEMPLATE_SPEC): ["podTemplate"],
            id(POD_TEMPLATE): ["spec"]}

problems = []

# The API's resource.Quantity, as its serialized form: a number, then a
# binary or decimal suffix, or an exponent.
QUANTITY = re.compile(r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)"
                      r"(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?$")


def check(value, kind, path):
    if isinstance(kind, dict):
        if not isinstance(value, dict):
            problems.append("%s: expected an object, got %r" % (path, value))
            return
        for key in REQUIRED.get(id(kind), []):
            if key not in value:
                problems.append("%s.%s: required by the API, missing" % (path, key))
        for key, item in value.items():
            if key not in kind:
                problems.append("%s.%s: not a field of this type in %s" % (path, key, API_VERSION))
            else:
                check(item, kind[key], path + "." + key)
    elif isinstance(kind, tuple) and kind[0] == "list":
        if not isinstance(value, list):
            problems.append("%s: expected a list" % path)
            return
        for i, item in enumerate(value):
            check(item, kind[1], "%s[%d]" % (path, i))
    elif isinstance(kind, tuple) and kind[0] == "map":
        if not isinstance(value, dict):
            problems.append("%s: expected a map" % path)
            return
        for key, item in value.items():
            check(item, kind[1], "%s[%s]" % (path, key))
    elif isinstance(kind, tuple) and kind[0] == "enum":
        if not isinstance(value, str) or value not in kind[1]:
            problems.append("%s: %r is not one of %s" % (path, value, kind[1]))
    elif kind == STR:
        if not isinstance(value, str):
            problems.append("%s: expected a string, got %r" % (path, value))
    elif kind == INT:
        if not isinstance(value, int) or isinstance(value, bool):
            problems.append("%s: expected an integer, got %r" % (path, value))
    elif kind == BOOL:
        if not isinstance(value, bool):
            problems.append("%s: expected a boolean, got %r" % (path, value))


def export(confine, target, bundle, policy, argv):
    r = subprocess.run([confine, "export", target, "--bundle", bundle, "--json"] + policy +
                       ["--"] + argv, capture_output=True, text=True,
                       env=dict(os.environ, CONFINE_TEST_API_TOKEN="x", CONFINE_TEST_PLAIN="p"))
    if r.returncode != 0:
        TAP.check(False, "confine export %s" % target, r.stdout + r.stderr)
        raise SystemExit(TAP.done())
    return json.loads(r.stdout)


def template_check(confine, base, policy, argv, tag, network, pod, objects):
    """--kind SandboxTemplate: agent-sandbox's types, the Pod export's spec as
    its podTemplate, field by field, and the network as its networkPolicy."""
    export(confine, "k8s", os.path.join(base, "tmpl"), ["--kind", "SandboxTemplate"] + policy,
           argv)
    with open(os.path.join(base, "tmpl", "k8s.json")) as f:
        listed = json.load(f)
    items = listed.get("items", [])
    keys = [(i.get("apiVersion"), i.get("kind")) for i in items]
    if listed.get("kind") != "List" or keys != [TEMPLATE_KIND]:
        problems.append("%s: --kind SandboxTemplate wrote %s, expected one %s" % (tag, keys,
                                                                                   TEMPLATE_KIND))
        return
    check(items[0], KINDS[TEMPLATE_KIND], "%s: SandboxTemplate" % tag)
    spec = items[0]["spec"]
    if spec.get("podTemplate", {}).get("spec") != pod["spec"]:
        problems.append("%s: the template's pod spec differs from the Pod export's" % tag)
    if spec.get("envVarsInjectionPolicy") != "Disallowed":
        problems.append("%s: a claim could inject environment past the env filter" % tag)
    off = network[0] == "--allow-host" or network[1] == "off"
    if off:
        rules = spec.get("networkPolicy")
        if spec.get("networkPolicyManagement") != "Managed" or rules is None or \
                rules.get("ingress") != [] or \
                rules.get("egress") != objects["items"][1]["spec"]["egress"]:
            problems.append("%s: the template's networkPolicy is not the NetworkPolicy's rules "
                            "(%s)" % (tag, rules))
    elif spec.get("networkPolicyManagement") != "Unmanaged" or "networkPolicy" in spec:
        problems.append("%s: network on is not an Unmanaged template" % tag)


def limits_check(confine, base, ws, argv):
    """The limits policy: memory and the temp size are Quantities, the same
    numbers as the bundle's; the limits a pod spec cannot hold are reported
    unenforced, never dropped."""
    policy = ["-m", "workspace-write", "-w", ws, "--max-memory", "64M", "--max-temp", "8M",
              "--max-pids", "50", "--max-open-files", "100", "--max-cpu", "30"]
    k8s = export(confine, "k8s", os.path.join(base, "k8s-limits"), policy, argv)
    oci = export(confine, "oci", os.path.join(base, "oci-limits"), policy, argv)
    with open(os.path.join(base, "k8s-limits", "k8s.json")) as f:
        pod = json.load(f)["items"][0]
    with open(os.path.join(base, "oci-limits", "config.json")) as f:
        config = json.load(f)
    check(pod, KINDS[("v1", "Pod")], "limits: Pod")
    memory = pod["spec"]["containers"][0].get("resources", {}).get("limits", {}).get("memory")
    tmp = [v["emptyDir"] for v in pod["spec"]["volumes"] if v["name"] == "tmp"]
    size = tmp[0].get("sizeLimit") if tmp else None
    for name, value in (("resources.limits.memory", memory), ("the /tmp sizeLimit", size)):
        if not isinstance(value, str) or not QUANTITY.match(value):
            problems.append("limits: %s %r is not a Quantity" % (name, value))
    if memory != str(64 << 20) or size != str(8 << 20):
        problems.append("limits: memory %r, sizeLimit %r: not 64 MiB and 8 MiB" % (memory, size))
    tmpfs = [m for m in config["mounts"] if m["destination"] == "/tmp"]
    if not tmpfs or "size=%d" % (8 << 20) not in tmpfs[0]["options"]:
        problems.append("limits: the bundle's /tmp is not sized as the pod's (%s)" % tmpfs)
    rlimits = {r["type"]: r["hard"] for r in config["process"].get("rlimits", [])}
    if rlimits.get("RLIMIT_NOFILE") != 100 or rlimits.get("RLIMIT_CPU") != 30:
        problems.append("limits: the bundle's rlimits are %s" % rlimits)
    if os.getuid() == 0 and (config["linux"].get("resources") !=
                             {"pids": {"limit": 50}, "memory": {"limit": 64 << 20}}):
        problems.append("limits: the bundle's resources are %s" % config["linux"].get("resources"))
    statuses = {c["clause"]: c["status"] for c in k8s["clauses"]}
    want = {"limits.memory": "partial", "limits.temp": "partial", "limits.pids": "unenforced",
            "limits.openFiles": "unenforced", "limits.cpuSeconds": "unenforced"}
    if any(statuses.get(k) != v for k, v in want.items()) or k8s["enforcement"] != "partial":
        problems.append("limits: the k8s report says %s" % statuses)
    if not all(any(c["clause"] == k for c in oci["clauses"]) for k in want):
        problems.append("limits: the OCI report leaves a limit out: %s" %
                        [c["clause"] for c in oci["clauses"]])


def class_and_image_check(confine, base, ws, argv):
    """--runtime-class NAME and --image IMAGE: the pod's runtimeClassName
    and image (the Pod's and the SandboxTemplate's), the placeholder's
    annotation gone; without them gvisor and the placeholder, annotated. A
    name that is not a DNS-1123 label, an image with whitespace or a
    control byte or past 512 bytes, and either flag on the oci target:
    USAGE, 125, the message naming the value, nothing written."""
    policy = ["-m", "workspace-write", "-w", ws, "--network", "off"]
    image = "registry.example.org:5000/team/tools:1.2@sha256:" + "0" * 64

    def pods(words, kind):
        bundle = os.path.join(base, "class-" + kind)
        export(confine, "k8s", bundle, ["--kind", kind] + words + policy, argv)
        with open(os.path.join(bundle, "k8s.json")) as f:
            item = json.load(f)["items"][0]
        check(item, KINDS[(item["apiVersion"], item["kind"])], "class/image: " + kind)
        if kind == "Pod":
            return item["metadata"], item["spec"]
        return item["spec"]["podTemplate"]["metadata"], item["spec"]["podTemplate"]["spec"]

    for kind in ("Pod", "SandboxTemplate"):
        meta, spec = pods([], kind)
        c = spec["containers"][0]
        TAP.check(spec.get("runtimeClassName") == "gvisor" and
                  c.get("image") == "debian:bookworm-slim" and
                  "confine.run/image" in meta.get("annotations", {}),
                  "%s: without the flags, runtimeClassName gvisor and the annotated placeholder"
                  % kind, "%s %s %s" % (spec.get("runtimeClassName"), c.get("image"), meta))
        meta, spec = pods(["--runtime-class", "kata-fc", "--image", image], kind)
        c = spec["containers"][0]
        TAP.check(spec.get("runtimeClassName") == "kata-fc" and c.get("image") == image and
                  "confine.run/image" not in meta.get("annotations", {}),
                  "%s: --runtime-class and --image are the pod's, no placeholder note" % kind,
                  "%s %s %s" % (spec.get("runtimeClassName"), c.get("image"), meta))
    bad = [(["--runtime-class", v], "k8s", v) for v in
           ("Gvisor", "run_sc", "-gvisor", "gvisor-", "", "a" * 64, "g.visor")]
    bad += [(["--image", v], "k8s", v) for v in
            ("debian bookworm", "debian\tslim", "debian\x01", "", "a" * 513, "debian\n")]
    bad += [(["--runtime-class", "gvisor"], "oci", "--runtime-class is for"),
            (["--image", "debian"], "oci", "--image is for")]
    wrong = []
    for words, target, named in bad:
        out = os.path.join(base, "refused")
        r = subprocess.run([confine, "export", target, "--bundle", out] + words +
                           ["-w", ws, "--", "true"], capture_output=True, text=True)
        shown = "".join("?" if ord(ch) < 0x20 else ch for ch in named)[:80]
        if r.returncode != 125 or os.path.exists(out) or \
                ('"%s"' % shown if target == "k8s" else shown) not in r.stderr:
            wrong.append("%s %r: %d %s" % (target, words, r.returncode, r.stderr.strip()[:300]))
    TAP.check(not wrong, "a bad --runtime-class or --image, or either on oci: 125 naming the "
              "value, nothing written", "; ".join(wrong))
    # The bounds themselves are accepted.
    meta, spec = pods(["--runtime-class", "a" * 63, "--image", "a" * 512], "Pod")
    TAP.check(spec.get("runtimeClassName") == "a" * 63 and
              spec["containers"][0].get("image") == "a" * 512,
              "a 63-byte class and a 512-byte image are accepted",
              "%s" % spec.get("runtimeClassName"))


def main():
    confine = sys.argv[1]
    base = tempfile.mkdtemp(prefix="confine-export-k8s-", dir="/var/tmp")
    try:
        ws = os.path.join(base, "ws")
        cache = os.path.join(base, "cache")
        os.makedirs(ws)
        os.makedirs(cache)
        subprocess.run(["git", "init", "-q", ws], check=True)
        with open(os.path.join(ws, "notes.md"), "w") as f:
            f.write("n")
        argv = ["sh", "-c", "echo hi"]
        # A word outside the kinds, and --kind on the oci target: USAGE, 125,
        # nothing written.
        for words, target in ((["--kind", "Deployment"], "k8s"), (["--kind", "Pod"], "oci")):
            out = os.path.join(base, "refused")
            r = subprocess.run([confine, "export", target, "--bundle", out] + words +
                               ["-w", ws, "--", "true"], capture_output=True, text=True)
            if r.returncode != 125 or os.path.exists(out) or \
                    ("Deployment" not in r.stderr and "--kind is for" not in r.stderr):
                problems.append("export %s %s: not refused as usage (%d %s)" %
                                (target, words, r.returncode, r.stderr.strip()))
        for network in (["--network", "off"], ["--allow-host", "example.org"],
                        ["--network", "on"]):
            policy = ["-m", "workspace-write", "-w", ws, "--writable", cache, "--protect",
                      "notes.md"] + network
            k8s = export(confine, "k8s", os.path.join(base, "k8s"), policy, argv)
            oci = export(confine, "oci", os.path.join(base, "oci"), policy, argv)
            with open(os.path.join(base, "k8s", "k8s.json")) as f:
                objects = json.load(f)
            with open(os.path.join(base, "k8s", "seccomp.json")) as f:
                profile = json.load(f)
            with open(os.path.join(base, "oci", "config.json")) as f:
                config = json.load(f)
            tag = " ".join(network)
            if objects.get("apiVersion") != "v1" or objects.get("kind") != "List":
                problems.append("%s: not a v1 List" % tag)
            kinds = []
            for i, item in enumerate(objects.get("items", [])):
                key = (item.get("apiVersion"), item.get("kind"))
                kinds.append(key[1])
                if key not in KINDS:
                    problems.append("%s: items[%d] is %s, not a kind this export writes" % (tag, i, key))
                    continue
                check(item, KINDS[key], "%s: %s" % (tag, key[1]))
            want = ["Pod"] + (["NetworkPolicy"] if network[0] != "--network" or
                              network[1] == "off" else [])
            if kinds != want:
                problems.append("%s: items %s, expected %s" % (tag, kinds, want))
            pod = objects["items"][0]
            c = pod["spec"]["containers"][0]
            proc = config["process"]
            # Field by field against the OCI bundle of the same policy.
            if c["command"] != proc["args"]:
                problems.append("%s: command differs from the bundle's args" % tag)
            if ["%s=%s" % (e["name"], e["value"]) for e in c["env"]] != proc["env"]:
                problems.append("%s: env differs from the bundle's" % tag)
            if c["workingDir"] != proc["cwd"]:
                problems.append("%s: workingDir differs from the bundle's cwd" % tag)
            if profile != config["linux"]["seccomp"]:
                problems.append("%s: seccomp.json differs from linux.seccomp" % tag)
            # The bundle runs a non-root exporter as root of its own user
            # namespace (the exporter on the host); the pod runs as the exporter.
            if pod["spec"]["securityContext"]["runAsUser"] != os.getuid() or \
                    proc["user"]["uid"] != 0:
                problems.append("%s: runAsUser or the bundle's uid is not the exporter's" % tag)
            if os.getuid() != 0 and config["linux"]["uidMappings"] != [
                    {"containerID": 0, "hostID": os.getuid(), "size": 1}]:
                problems.append("%s: the bundle does not map the exporter to root" % tag)
            rw = sorted(m["destination"] for m in config["mounts"]
                        if m["type"] == "bind" and "rw" in m["options"] and
                        m["destination"] in (ws, cache))
            k8s_rw = sorted(m["mountPath"] for m in c["volumeMounts"]
                            if not m.get("readOnly") and "subPath" not in m and
                            m["mountPath"] != "/tmp")
            if rw != k8s_rw:
                problems.append("%s: writable volumes %s, bundle binds %s" % (tag, k8s_rw, rw))
            ro = sorted(m["destination"] for m in config["mounts"]
                        if m["type"] == "bind" and "rro" in m["options"] and
                        m["destination"] != "/")
            k8s_ro = sorted(m["mountPath"] for m in c["volumeMounts"] if "subPath" in m)
            if ro != k8s_ro:
                problems.append("%s: read-only subPaths %s, bundle binds %s" % (tag, k8s_ro, ro))
            if os.path.join(ws, "notes.md") not in k8s_ro:
                problems.append("%s: the protected notes.md is not a read-only subPath" % tag)
            sc = c["securityContext"]
            if not (sc["readOnlyRootFilesystem"] and not sc["allowPrivilegeEscalation"] and
                    sc["capabilities"]["drop"] == ["ALL"] and
                    sc["seccompProfile"]["type"] == "Localhost"):
                problems.append("%s: the container's securityContext is not the contract's" % tag)
            if pod["spec"]["runtimeClassName"] != "gvisor":
                problems.append("%s: runtimeClassName is not gvisor" % tag)
            has_netns = any(n["type"] == "network" for n in config["linux"]["namespaces"])
            if has_netns != ("NetworkPolicy" in kinds):
                problems.append("%s: a NetworkPolicy %s the bundle's network namespace" %
                                (tag, "without" if not has_netns else "missing for"))
            if network[0] == "--allow-host":
                egress = objects["items"][1]["spec"]["egress"]
                allowed = [c for c in k8s["clauses"] if c["clause"] == "network"]
                if not egress or not all(c["status"] == "unenforced" for c in allowed):
                    problems.append("%s: the allowlist is not egress to the proxy, reported "
                                    "unenforced" % tag)
            template_check(confine, base, policy, argv, tag, network, pod, objects)
            for report in (k8s, oci):
                if any(c["status"] not in ("enforced", "partial", "unenforced")
                       for c in report["clauses"]):
                    problems.append("%s: a clause status outside the contract" % tag)
        limits_check(confine, base, ws, argv)
        class_and_image_check(confine, base, ws, argv)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    # one case: every field of every export checked (the problems are its detail)
    TAP.check(not problems, "the k8s export's fields are %s's types and match the OCI export"
              % API_VERSION, "; ".join(problems))
    return TAP.done()


if __name__ == "__main__":
    sys.exit(main())
