"""Assertions on the Helm chart's rendered output, used by helm_test.sh.

  check_rendered.py CASE RENDERED.yaml [JSON_OUT]

CASE names the values the file was rendered with (see CASES). Prints one
line per failed assertion and exits 1 if any failed. With JSON_OUT, also
writes the objects as a JSON array for the kubernetes-models validator.
"""
import base64
import datetime
import ipaddress
import json
import sys

import yaml
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID

RELEASE = "g"
FULL = "g-gnomon"
PASSWORD = "Pw-s3cret-XYZ"  # in the "custom" case's store URL
CUSTOM_URL = f"mysql://gnomon:{PASSWORD}@db.example:3306/gnomon"
CUSTOM_TOKEN = "cluster-token-0123456789abcdef"

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
    return cond


def by_kind(objs, kind):
    return {o["metadata"]["name"]: o for o in objs if o["kind"] == kind}


def container(dep):
    return dep["spec"]["template"]["spec"]["containers"][0]


def env_of(c):
    return {e["name"]: e for e in c.get("env", [])}


def secret_value(objs, name, key):
    s = by_kind(objs, "Secret").get(name)
    if s is None or key not in s.get("data", {}):
        return None
    return base64.b64decode(s["data"][key]).decode()


def check_secret_ref(objs, where, env, var, secret, key, must_exist=True):
    e = env.get(var)
    if not check(e is not None, f"{where}: no env {var}"):
        return
    check("value" not in e, f"{where}: {var} given as a plain value, not from a Secret")
    ref = e.get("valueFrom", {}).get("secretKeyRef", {})
    check(ref.get("name") == secret and ref.get("key") == key,
          f"{where}: {var} from {ref}, want secret {secret} key {key}")
    if must_exist:
        check(secret_value(objs, secret, key) is not None,
              f"{where}: {var} refers to {secret}/{key}, which is not rendered")


def check_admin_token(objs, where, dep, secret=FULL, key="admin-token"):
    """gnomond reads the first admin token from the Secret, mounted whole (no subPath), never a plain value."""
    c = container(dep)
    check(env_of(c).get("GNOMON_ADMIN_TOKEN_FILE", {}).get("value") == "/etc/gnomon/admin/admin-token",
          f"{where}: GNOMON_ADMIN_TOKEN_FILE is not the mounted Secret file")
    vols = {v["name"]: v for v in dep["spec"]["template"]["spec"].get("volumes", [])}
    src = vols.get("admin-token", {}).get("secret", {})
    check(src.get("secretName") == secret and src.get("items") == [{"key": key, "path": "admin-token"}],
          f"{where}: admin-token volume is not key {key} of Secret {secret}: {src}")
    mounts = [m for m in c.get("volumeMounts", []) if m["name"] == "admin-token"]
    check(mounts == [{"name": "admin-token", "mountPath": "/etc/gnomon/admin", "readOnly": True}],
          f"{where}: admin-token mount {mounts}")
    if secret == FULL:
        token = secret_value(objs, FULL, key)
        check(token is not None and len(token) >= 32, f"{where}: the chart's Secret has no admin token")


def check_pod_basics(where, dep, port=7070, tls=False):
    pod = dep["spec"]["template"]["spec"]
    c = container(dep)
    if tls:
        # kubelet's gRPC probe speaks plaintext only: against a TLS-only
        # listener it would fail, so with TLS gnomonctl asks (its TLS files
        # from the container's GNOMON_TLS_* variables), with the same
        # services as the gRPC probes.
        env = {e["name"]: e.get("value") for e in c.get("env", [])}
        check(env.get("GNOMON_TLS_CERT") and env.get("GNOMON_TLS_KEY"),
              f"{where}: with TLS the probes need GNOMON_TLS_CERT/KEY in the container: {env}")
        for probe, service in (("livenessProbe", "liveness"), ("startupProbe", "liveness"),
                               ("readinessProbe", None)):
            cmd = c.get(probe, {}).get("exec", {}).get("command", [])
            want = ["gnomonctl", "health", "check", f"--server=127.0.0.1:{port}", "--tls-server-name=*",
                    "--rpc-timeout=3s"] + ([f"--service={service}"] if service else [])
            check(cmd == want and "grpc" not in c.get(probe, {}),
                  f"{where}: with TLS, {probe} is not {want}: {c.get(probe)}")
    else:
        for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
            p = c.get(probe, {})
            check(p.get("grpc", {}).get("port") == port, f"{where}: {probe} is not a gRPC probe on {port}: {p}")
        # A store outage makes a pod unready (overall status), never restarts it.
        for probe in ("livenessProbe", "startupProbe"):
            check(c.get(probe, {}).get("grpc", {}).get("service") == "liveness",
                  f"{where}: {probe} does not ask the 'liveness' service")
        check("service" not in c.get("readinessProbe", {}).get("grpc", {}),
              f"{where}: readinessProbe must ask the overall status")
    check(any(p.get("containerPort") == port for p in c.get("ports", [])), f"{where}: no containerPort {port}")
    sc = c.get("securityContext", {})
    check(sc.get("readOnlyRootFilesystem") is True, f"{where}: readOnlyRootFilesystem not set")
    check(sc.get("allowPrivilegeEscalation") is False, f"{where}: allowPrivilegeEscalation not false")
    check(sc.get("capabilities", {}).get("drop") == ["ALL"], f"{where}: capabilities not drop [ALL]")
    check(sc.get("runAsNonRoot") is True or pod.get("securityContext", {}).get("runAsNonRoot") is True,
          f"{where}: runAsNonRoot not set")
    check("resources" in c and c["resources"], f"{where}: no resources")
    mounts = {m["mountPath"] for m in c.get("volumeMounts", [])}
    check("/tmp" in mounts, f"{where}: no writable /tmp with a read-only root")


HEADLESS = f"{FULL}-schedulers"
EXECUTORS = ("-sample-executor", "-generic-executor")


def is_executor(name):
    """A Deployment (or Service, NetworkPolicy) of an executor the chart deploys, not of gnomond."""
    return name.endswith(EXECUTORS)


def is_headless(svc):
    return svc["spec"].get("clusterIP") == "None"


def check_schedulers_service(objs, component):
    """The headless Service of the scheduler pods, which executors resolve to reach every replica."""
    svcs = by_kind(objs, "Service")
    headless = sorted(n for n, s in svcs.items() if is_headless(s))
    check(headless == [HEADLESS], f"want one headless Service {HEADLESS}, have {headless}")
    svc = svcs.get(HEADLESS)
    if not check(svc is not None, f"no Service {HEADLESS}"):
        return
    spec = svc["spec"]
    check(spec.get("clusterIP") == "None", f"{HEADLESS}: clusterIP {spec.get('clusterIP')!r}, want None")
    # A starting scheduler waits for its executors to connect before it takes
    # partitions (and only then is ready): they must find it while unready.
    check(spec.get("publishNotReadyAddresses") is True, f"{HEADLESS}: publishNotReadyAddresses not true")
    check([(p["name"], p["port"], p["targetPort"]) for p in spec["ports"]] == [("grpc", 7070, "grpc")],
          f"{HEADLESS}: ports {spec['ports']}, want grpc 7070 only")
    want = {"app.kubernetes.io/name": "gnomon", "app.kubernetes.io/instance": RELEASE,
            "app.kubernetes.io/component": component}
    check(spec.get("selector") == want, f"{HEADLESS}: selects {spec.get('selector')}, want {want}")
    # It selects exactly the pods that run the scheduler role.
    runs_scheduler = []
    for name, d in by_kind(objs, "Deployment").items():
        labels = d["spec"]["template"]["metadata"]["labels"]
        if all(labels.get(k) == v for k, v in want.items()):
            runs_scheduler.append(name)
            roles = (roles_arg(d) or ["--roles="])[0].split("=", 1)[1].split(",")
            check("scheduler" in roles, f"{HEADLESS} selects {name}, which runs {roles}")
    check(runs_scheduler, f"{HEADLESS} selects no Deployment's pods")
    # The ServiceMonitor scrapes each pod once, through the role Services.
    check(svc["metadata"]["labels"].get("app.kubernetes.io/component") not in
          ("server", "scheduler", "registry", "log"), f"{HEADLESS} has a role's component label")


def check_sample_executor(objs, app, registry, log):
    """The sample executor connects out: no gRPC port, no probes, its name from the pod, every scheduler pod."""
    se = by_kind(objs, "Deployment").get(f"{FULL}-sample-executor")
    if not check(se is not None, "sample executor Deployment missing"):
        return None
    c = container(se)
    env = env_of(c)
    check(env.get("GNOMON_REGISTRY", {}).get("value") == registry, "sample executor GNOMON_REGISTRY")
    check(env.get("GNOMON_LOG_SERVICE", {}).get("value") == log, "sample executor GNOMON_LOG_SERVICE")
    check(env.get("GNOMON_APP", {}).get("value") == app, "sample executor GNOMON_APP")
    sched = env.get("GNOMON_SCHEDULERS", {}).get("value")
    check(sched == f"{HEADLESS}:7070", f"sample executor GNOMON_SCHEDULERS {sched!r}, want {HEADLESS}:7070")
    svc = by_kind(objs, "Service").get((sched or "").split(":")[0])
    check(svc is not None and is_headless(svc), f"sample executor GNOMON_SCHEDULERS {sched!r} is not a headless Service")
    check(env.get("GNOMON_EXECUTOR_NAME", {}).get("value") == "$(POD_NAME)",
          f"sample executor GNOMON_EXECUTOR_NAME {env.get('GNOMON_EXECUTOR_NAME')}")
    names = [e["name"] for e in c.get("env", [])]
    pod_name = env.get("POD_NAME", {}).get("valueFrom", {}).get("fieldRef", {}).get("fieldPath")
    check(pod_name == "metadata.name" and "GNOMON_EXECUTOR_NAME" in names
          and names.index("POD_NAME") < names.index("GNOMON_EXECUTOR_NAME"),
          f"sample executor: POD_NAME ({pod_name!r}) from the downward API before GNOMON_EXECUTOR_NAME: {names}")
    for gone in ("GNOMON_LISTEN", "GNOMON_ADVERTISE", "POD_IP", "GNOMON_TLS_REQUIRE_CLIENT_CERT"):
        check(gone not in env, f"sample executor still has {gone}")
    ports = [p["name"] for p in c.get("ports", [])]
    check(ports in ([], ["metrics"]), f"sample executor ports {ports}: it serves nothing but metrics")
    for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
        check(probe not in c, f"sample executor has a {probe}: it serves no gRPC")
    check(not [s for s in by_kind(objs, "Service") if "sample-executor" in s], "a Service for the sample executor")
    return se


def check_generic_executor(objs, app, token_secret, http_allow, command_allow, metrics=True):
    """gnomon-executor connects out like the sample executor; the allow-lists reach its command line."""
    ge = by_kind(objs, "Deployment").get(f"{FULL}-generic-executor")
    if not check(ge is not None, "generic executor Deployment missing"):
        return None
    where = "generic executor"
    c = container(ge)
    check(c.get("command") == ["gnomon-executor"], f"{where}: command {c.get('command')}, want [gnomon-executor]")
    env = env_of(c)
    check(env.get("GNOMON_APP", {}).get("value") == app, f"{where}: GNOMON_APP {env.get('GNOMON_APP')}")
    check_secret_ref(objs, where, env, "GNOMON_ACCESS_TOKEN", token_secret, "access-token", must_exist=False)
    check(env.get("GNOMON_REGISTRY", {}).get("value") == f"{FULL}-registry:7070", f"{where}: GNOMON_REGISTRY")
    sched = env.get("GNOMON_SCHEDULERS", {}).get("value")
    check(sched == f"{HEADLESS}:7070", f"{where}: GNOMON_SCHEDULERS {sched!r}, want {HEADLESS}:7070")
    svc = by_kind(objs, "Service").get((sched or "").split(":")[0])
    check(svc is not None and is_headless(svc), f"{where}: GNOMON_SCHEDULERS {sched!r} is not a headless Service")
    check(env.get("GNOMON_EXECUTOR_NAME", {}).get("value") == "$(POD_NAME)",
          f"{where}: GNOMON_EXECUTOR_NAME {env.get('GNOMON_EXECUTOR_NAME')}")
    names = [e["name"] for e in c.get("env", [])]
    pod_name = env.get("POD_NAME", {}).get("valueFrom", {}).get("fieldRef", {}).get("fieldPath")
    check(pod_name == "metadata.name" and "GNOMON_EXECUTOR_NAME" in names
          and names.index("POD_NAME") < names.index("GNOMON_EXECUTOR_NAME"),
          f"{where}: POD_NAME ({pod_name!r}) from the downward API before GNOMON_EXECUTOR_NAME: {names}")
    check(env.get("GNOMON_SPOOL_DIR", {}).get("value") == "/var/spool/gnomon", f"{where}: GNOMON_SPOOL_DIR")
    vols = {v["name"]: v for v in ge["spec"]["template"]["spec"].get("volumes", [])}
    check("emptyDir" in vols.get("spool", {}), f"{where}: spool is not an emptyDir: {vols.get('spool')}")
    mounts = {m["name"]: m["mountPath"] for m in c.get("volumeMounts", [])}
    check(mounts.get("spool") == "/var/spool/gnomon", f"{where}: spool mounted at {mounts.get('spool')}")
    args = c.get("args", [])
    for flag, allowed in (("--http-allow", http_allow), ("--command-allow", command_allow)):
        given = [a for a in args if a.startswith(flag + "=")]
        want = [f"{flag}={','.join(allowed)}"] if allowed else []
        check(given == want, f"{where}: {flag} args {given}, want {want}")
    check("--allow-scripts" not in args, f"{where}: --allow-scripts though allowScripts is off")
    for gone in ("GNOMON_LISTEN", "GNOMON_ADVERTISE", "POD_IP", "GNOMON_TLS_REQUIRE_CLIENT_CERT"):
        check(gone not in env, f"{where} has {gone}")
    ports = [(p["name"], p["containerPort"]) for p in c.get("ports", [])]
    check(ports == ([("metrics", 7071)] if metrics else []), f"{where}: ports {ports}: it serves nothing but metrics")
    if metrics:
        check(env.get("GNOMON_METRICS_LISTEN", {}).get("value") == "0.0.0.0:7071", f"{where}: GNOMON_METRICS_LISTEN")
    for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
        check(probe not in c, f"{where} has a {probe}: it serves no gRPC")
    check(not [s for s in by_kind(objs, "Service") if "generic-executor" in s], "a Service for the generic executor")
    sc = c.get("securityContext", {})
    check(sc.get("readOnlyRootFilesystem") is True and sc.get("allowPrivilegeEscalation") is False
          and sc.get("capabilities", {}).get("drop") == ["ALL"], f"{where}: securityContext {sc}")
    check(ge["spec"]["template"]["spec"].get("securityContext", {}).get("runAsNonRoot") is True,
          f"{where}: runAsNonRoot not set")
    check("/tmp" in mounts.values(), f"{where}: no writable /tmp with a read-only root")
    return ge


def case_generic_executor(objs, text):
    """genericExecutor.enabled with allow-lists, the NetworkPolicy and the PodMonitor."""
    check_per_role(objs, {"scheduler": 2, "registry": 2, "log": 2},
                   f"{FULL}-store", "store-url", FULL, "cluster-token", tls=True)
    names = check_generated_tls(objs)
    verified = check_tls(objs, f"{FULL}-tls", mtls=False)
    check("generic executor -> GNOMON_SCHEDULERS" in verified, "generic executor not rendered with TLS")
    check_names_verified(names, verified)
    check_http_ports(objs)
    check(f"{FULL}-sample-executor" not in by_kind(objs, "Deployment"), "sample executor rendered though disabled")
    ge = check_generic_executor(objs, "ops", "ops-token", ["api.example.com", "*.corp.example", "10.20.0.0/16"],
                                ["/usr/local/bin/backup", "/opt/jobs/"])
    if ge is not None:
        check(ge["spec"]["replicas"] == 3, f"generic executor replicas {ge['spec']['replicas']}, want 3")
        limits = container(ge)["resources"].get("limits", {})
        check(limits.get("memory") == "256Mi", f"generic executor resources {container(ge)['resources']}")
    nps = by_kind(objs, "NetworkPolicy")
    np = nps.get(f"{FULL}-generic-executor")
    if check(np is not None, f"no NetworkPolicy for the generic executor: {sorted(nps)}"):
        spec = np["spec"]
        check(spec["podSelector"]["matchLabels"].get("app.kubernetes.io/component") == "generic-executor",
              f"generic executor NetworkPolicy selects {spec['podSelector']}")
        check(spec.get("policyTypes") == ["Ingress"], f"generic executor NetworkPolicy types {spec.get('policyTypes')}")
        ports = [p["port"] for rule in spec.get("ingress", []) for p in rule.get("ports", [])]
        check(ports == ["metrics"] and all("from" not in r for r in spec["ingress"]),
              f"generic executor NetworkPolicy admits {spec.get('ingress')}, want the metrics port only")
        if ge is not None:
            labels = ge["spec"]["template"]["metadata"]["labels"]
            check(all(labels.get(k) == v for k, v in spec["podSelector"]["matchLabels"].items()),
                  "generic executor NetworkPolicy does not select its pods")
    pm = by_kind(objs, "PodMonitor").get(f"{FULL}-generic-executor")
    if check(pm is not None, f"no PodMonitor for the generic executor: {sorted(by_kind(objs, 'PodMonitor'))}"):
        check(pm["spec"]["selector"]["matchLabels"].get("app.kubernetes.io/component") == "generic-executor",
              f"generic executor PodMonitor selects {pm['spec']['selector']}")
        check([e["port"] for e in pm["spec"]["podMetricsEndpoints"]] == ["metrics"], "PodMonitor not on port metrics")


def case_generic_executor_minimal(objs, text):
    """Only the required values: no allow-list on the command line (nothing allowed), metrics off."""
    ge = check_generic_executor(objs, "ops", "t", [], [], metrics=False)
    if ge is not None:
        check("args" not in container(ge), f"generic executor args {container(ge).get('args')}: want none")
    check(not by_kind(objs, "NetworkPolicy") and not by_kind(objs, "PodMonitor"),
          "NetworkPolicy or PodMonitor rendered though disabled")


def roles_arg(dep):
    return [a for a in container(dep).get("args", []) if a.startswith("--roles=")]


def check_per_role(objs, replicas, store_secret, store_key, token_secret, token_key, tls=False,
                   admin_secret=FULL, admin_key="admin-token"):
    deps = by_kind(objs, "Deployment")
    svcs = by_kind(objs, "Service")
    pdbs = by_kind(objs, "PodDisruptionBudget")
    for role in ("scheduler", "registry", "log"):
        name = f"{FULL}-{role}"
        dep = deps.get(name)
        if not check(dep is not None, f"no Deployment {name} (have {sorted(deps)})"):
            continue
        check(roles_arg(dep) == [f"--roles={role}"], f"{name}: args {roles_arg(dep)}, want --roles={role}")
        check(dep["spec"]["replicas"] == replicas[role],
              f"{name}: replicas {dep['spec']['replicas']}, want {replicas[role]}")
        check_pod_basics(name, dep, tls=tls)
        check_admin_token(objs, name, dep, admin_secret, admin_key)
        env = env_of(container(dep))
        check_secret_ref(objs, name, env, "GNOMON_STORE", store_secret, store_key,
                         must_exist=store_secret == FULL)
        check_secret_ref(objs, name, env, "GNOMON_CLUSTER_TOKEN", token_secret, token_key,
                         must_exist=token_secret == FULL)
        sel = dep["spec"]["selector"]["matchLabels"]
        check(sel.get("app.kubernetes.io/component") == role, f"{name}: selector {sel}")
        tmpl = dep["spec"]["template"]["metadata"]["labels"]
        check(all(tmpl.get(k) == v for k, v in sel.items()), f"{name}: pod labels do not match selector")
        svc = svcs.get(name)
        if check(svc is not None, f"no Service {name}"):
            check(svc["spec"]["selector"] == sel, f"Service {name} selects {svc['spec']['selector']}, not {sel}")
            # gRPC, then metrics and HTTP (each on unless disabled).
            ports = [p["port"] for p in svc["spec"]["ports"]]
            check(ports[0] == 7070 and set(ports[1:]) <= {7071, 7080}, f"Service {name}: ports {ports}, want [7070, 7071, 7080]")
        pdb = pdbs.get(name)
        if check(pdb is not None, f"no PodDisruptionBudget {name}"):
            check(pdb["spec"]["selector"]["matchLabels"] == sel, f"PDB {name}: wrong selector")
    if f"{FULL}-scheduler" in deps:
        env = env_of(container(deps[f"{FULL}-scheduler"]))
        ep = env.get("GNOMON_REGISTRY_ENDPOINT", {}).get("value")
        check(ep == f"{FULL}-registry:7070", f"scheduler: GNOMON_REGISTRY_ENDPOINT {ep!r}, want {FULL}-registry:7070")
        check(ep is None or ep.split(":")[0] in svcs, f"scheduler: registry endpoint {ep} is not a rendered Service")
    for role in ("registry", "log"):
        if f"{FULL}-{role}" in deps:
            check("GNOMON_REGISTRY_ENDPOINT" not in env_of(container(deps[f"{FULL}-{role}"])),
                  f"{role}: has GNOMON_REGISTRY_ENDPOINT")
    servers = sorted(n for n in deps if not is_executor(n))
    check(len(servers) == 3, f"want 3 gnomond Deployments, have {servers}")
    check_schedulers_service(objs, "scheduler")
    check(not by_kind(objs, "PersistentVolumeClaim"), "per-role mode renders a PersistentVolumeClaim")


def check_no_tls(objs):
    check(not by_kind(objs, "Certificate"), "a Certificate rendered with TLS off")
    tls_secrets = [n for n, s in by_kind(objs, "Secret").items() if s.get("type") == "kubernetes.io/tls"]
    check(not tls_secrets, f"TLS Secrets rendered with TLS off: {tls_secrets}")
    for name, d in by_kind(objs, "Deployment").items():
        pod = d["spec"]["template"]["spec"]
        check(not [e for e in env_of(container(d)) if e.startswith("GNOMON_TLS")], f"{name}: TLS env with TLS off")
        check(all(v["name"] != "tls" for v in pod.get("volumes", [])), f"{name}: TLS volume with TLS off")


def partitions_of(objs):
    """GNOMON_PARTITIONS of every gnomond container (Deployments, the migration Job), by where."""
    out = {}
    for kind in ("Deployment", "Job"):
        for name, o in by_kind(objs, kind).items():
            for c in o["spec"]["template"]["spec"]["containers"]:
                if c["name"] in ("gnomond", "migrate"):
                    out[f"{kind} {name}"] = env_of(c).get("GNOMON_PARTITIONS", {}).get("value")
    return out


def check_partitions(objs, want):
    """Every gnomond, and the migration Job that records it in a new store, gets the same count."""
    got = partitions_of(objs)
    check(got, "no gnomond container rendered")
    for where, value in got.items():
        check(value == want, f"{where}: GNOMON_PARTITIONS is {value!r}, want {want!r}")


def case_partitions(objs, text):
    check_partitions(objs, "256")
    check(any(c == "Job" for c in (o["kind"] for o in objs)), "no migration Job rendered")
    rules = [r for o in by_kind(objs, "PrometheusRule").values()
             for g in o["spec"]["groups"] for r in g["rules"]]
    unowned = [r for r in rules if r.get("alert") == "GnomonPartitionUnowned"]
    if check(len(unowned) == 1, "no GnomonPartitionUnowned alert"):
        check(unowned[0]["expr"].strip().endswith("< 256"),
              f"GnomonPartitionUnowned compares with another count: {unowned[0]['expr']}")
        check("of the 256 partitions" in unowned[0]["annotations"]["description"],
              f"GnomonPartitionUnowned description: {unowned[0]['annotations']['description']}")


def case_default(objs, text):
    check_per_role(objs, {"scheduler": 2, "registry": 2, "log": 2},
                   f"{FULL}-store", "store-url", FULL, "cluster-token", tls=True)
    # TLS by default, from a certificate the chart generates.
    check(not by_kind(objs, "Certificate"), "a Certificate rendered without tls.certManager")
    names = check_generated_tls(objs)
    check_names_verified(names, check_tls(objs, f"{FULL}-tls", mtls=False))
    token = secret_value(objs, FULL, "cluster-token")
    check(token is not None and len(token) >= 32, f"generated cluster token too short: {token!r}")
    check(secret_value(objs, FULL, "store-url") is None, "default values invent a store URL")
    check(not by_kind(objs, "NetworkPolicy"), "NetworkPolicy rendered though disabled")
    check("sample-executor" not in text, "sample executor rendered though disabled")
    check("generic-executor" not in text and "gnomon-executor" not in text,
          "generic executor (gnomon-executor) rendered though disabled")
    check_http_ports(objs)
    check(not by_kind(objs, "Ingress"), "Ingress rendered though disabled")
    check_partitions(objs, "64")


def case_custom(objs, text):
    check_per_role(objs, {"scheduler": 3, "registry": 4, "log": 1}, FULL, "store-url", FULL, "cluster-token",
                   tls=True)
    check(PASSWORD not in text, "the store password appears in plain text in the rendered output")
    check(secret_value(objs, FULL, "store-url") == CUSTOM_URL, "Secret store-url is not the given URL")
    check(secret_value(objs, FULL, "cluster-token") == CUSTOM_TOKEN, "Secret cluster-token is not the given value")
    check(CUSTOM_TOKEN not in text, "the cluster token appears in plain text")
    deps = by_kind(objs, "Deployment")
    sched = deps.get(f"{FULL}-scheduler")
    if sched:
        env = env_of(container(sched))
        check(env.get("GNOMON_RETENTION_DAYS", {}).get("value") == "14", "config retention-days not passed as env")
        ann = sched["spec"]["template"]["metadata"].get("annotations", {})
        check(ann.get("prometheus.io/scrape") == "true", f"podAnnotations missing: {ann}")
        pod = sched["spec"]["template"]["spec"]
        check(pod.get("nodeSelector") == {"pool": "jobs"}, f"nodeSelector {pod.get('nodeSelector')}")
        check(pod.get("tolerations", [{}])[0].get("key") == "dedicated", "tolerations not rendered")
        check(container(sched)["resources"].get("limits", {}).get("cpu") == "2", "scheduler resources override lost")
    reg = deps.get(f"{FULL}-registry")
    if reg:
        check(container(reg)["resources"].get("limits", {}).get("cpu") is None, "registry got the scheduler's resources")
    check(by_kind(objs, "Service").get(f"{FULL}-registry", {}).get("spec", {}).get("type") == "LoadBalancer",
          "registry.service.type LoadBalancer not rendered")
    nps = by_kind(objs, "NetworkPolicy")
    if check(sorted(nps) == [FULL, f"{FULL}-sample-executor"], f"want NetworkPolicies of gnomond and the sample executor, have {sorted(nps)}"):
        np = nps[FULL]
        froms = np["spec"]["ingress"][0]["from"]
        check({"ipBlock": {"cidr": "10.20.0.0/16"}} in froms, f"networkPolicy.ingressFrom not rendered: {froms}")
        # Executors connect to gnomond; nothing connects to an executor but Prometheus.
        se_np = nps[f"{FULL}-sample-executor"]["spec"]
        check(se_np["podSelector"]["matchLabels"].get("app.kubernetes.io/component") == "sample-executor",
              f"sample executor NetworkPolicy selects {se_np['podSelector']}")
        check(se_np.get("policyTypes") == ["Ingress"], f"sample executor NetworkPolicy types {se_np.get('policyTypes')}")
        ports = [p["port"] for rule in se_np.get("ingress", []) for p in rule.get("ports", [])]
        check(ports == ["metrics"] and all("from" not in r for r in se_np["ingress"]),
              f"sample executor NetworkPolicy admits {se_np.get('ingress')}, want the metrics port only")
    se = check_sample_executor(objs, "billing", f"{FULL}-registry:7070", f"{FULL}-log:7070")
    if se is not None:
        check_secret_ref(objs, "sample-executor", env_of(container(se)), "GNOMON_ACCESS_TOKEN", "billing-token",
                         "token", must_exist=False)


def case_existing(objs, text):
    check_per_role(objs, {"scheduler": 2, "registry": 2, "log": 2}, "my-db", "url", "my-token", "token",
                   admin_secret="my-admin", admin_key="token", tls=True)
    check(not by_kind(objs, "Secret"), f"Secrets rendered though existing ones were named: {sorted(by_kind(objs, 'Secret'))}")
    check_tls(objs, "my-tls", mtls=False)


def check_all_in_one(objs, text, store_url, tls=False):
    deps = by_kind(objs, "Deployment")
    if not check(list(deps) == [FULL], f"allInOne: want one Deployment {FULL}, have {sorted(deps)}"):
        return
    dep = deps[FULL]
    check(dep["spec"]["replicas"] == 1, f"allInOne: replicas {dep['spec']['replicas']}, want 1")
    check(dep["spec"].get("strategy", {}).get("type") == "Recreate", "allInOne: strategy is not Recreate")
    check(roles_arg(dep) == ["--roles=scheduler,registry,log"], f"allInOne: args {roles_arg(dep)}")
    check_pod_basics(FULL, dep, tls=tls)
    env = env_of(container(dep))
    check_secret_ref(objs, FULL, env, "GNOMON_STORE", FULL, "store-url")
    check(secret_value(objs, FULL, "store-url") == store_url, f"allInOne: store-url {secret_value(objs, FULL, 'store-url')!r}")
    check("GNOMON_CLUSTER_TOKEN" not in env, "allInOne: a cluster token is passed though one process has all roles")
    check("GNOMON_REGISTRY_ENDPOINT" not in env, "allInOne: registry endpoint set")
    check_admin_token(objs, FULL, dep)
    pvcs = by_kind(objs, "PersistentVolumeClaim")
    if check(list(pvcs) == [FULL], f"allInOne: want PVC {FULL}, have {sorted(pvcs)}"):
        check(pvcs[FULL]["spec"]["resources"]["requests"]["storage"] == "2Gi", "allInOne: PVC size")
    vols = {v["name"]: v for v in dep["spec"]["template"]["spec"]["volumes"]}
    check(vols.get("data", {}).get("persistentVolumeClaim", {}).get("claimName") == FULL, "allInOne: PVC not mounted")
    mounts = {m["name"]: m["mountPath"] for m in container(dep)["volumeMounts"]}
    check(mounts.get("data") == "/var/lib/gnomon", f"allInOne: data volume mounted at {mounts.get('data')}")
    svcs = by_kind(objs, "Service")
    check(sorted(svcs) == [FULL, HEADLESS], f"allInOne: want Services {FULL} and {HEADLESS}, have {sorted(svcs)}")
    check_schedulers_service(objs, "server")
    check(not by_kind(objs, "PodDisruptionBudget"), "allInOne: PDB rendered")


def case_allinone(objs, text):
    check_all_in_one(objs, text, "sqlite:/var/lib/gnomon/gnomon.db", tls=True)
    names = check_generated_tls(objs)
    check_names_verified(names, check_tls(objs, f"{FULL}-tls", mtls=False))


def case_allinone_mysql(objs, text):
    # Role replicas are ignored in allInOne mode; a MySQL URL is kept secret.
    check_all_in_one(objs, text, CUSTOM_URL, tls=True)
    check(PASSWORD not in text, "the store password appears in plain text in the rendered output")


def check_metrics_ports(objs):
    """Every Deployment serves metrics on port 7071 and its Service exposes it."""
    for name, d in by_kind(objs, "Deployment").items():
        c = container(d)
        ports = {p["name"]: p["containerPort"] for p in c.get("ports", [])}
        check(ports.get("metrics") == 7071, f"{name}: no metrics port 7071: {ports}")
        check(env_of(c).get("GNOMON_METRICS_LISTEN", {}).get("value") == "0.0.0.0:7071",
              f"{name}: GNOMON_METRICS_LISTEN not 0.0.0.0:7071")
    for name, s in by_kind(objs, "Service").items():
        if is_headless(s):  # executors' way to every scheduler pod: gRPC only
            continue
        ports = {p["name"]: p for p in s["spec"]["ports"]}
        check(ports.get("metrics", {}).get("targetPort") == "metrics", f"{name}: no metrics Service port")


def case_monitoring(objs, text):
    """Rendered with tls.enabled=false: plain http scrapes (tls-generated and tls-* check https)."""
    check_per_role(objs, {"scheduler": 2, "registry": 2, "log": 2},
                   f"{FULL}-store", "store-url", FULL, "cluster-token")
    check_no_tls(objs)
    check_sample_executor(objs, "sample", f"{FULL}-registry:7070", f"{FULL}-log:7070")
    check_metrics_ports(objs)
    sm = by_kind(objs, "ServiceMonitor").get(FULL)
    if check(sm is not None, "no ServiceMonitor"):
        check(sm["metadata"]["labels"].get("release") == "kube-prometheus", "ServiceMonitor labels not applied")
        check([e["port"] for e in sm["spec"]["endpoints"]] == ["metrics"], "ServiceMonitor not on port metrics")
        comps = sm["spec"]["selector"]["matchExpressions"][0]["values"]
        check(sorted(comps) == ["log", "registry", "scheduler", "server"], f"ServiceMonitor selects {comps}")
        check(all(e.get("scheme", "http") == "http" and "tlsConfig" not in e for e in sm["spec"]["endpoints"]),
              "ServiceMonitor scrapes with TLS though TLS is off")
    pm = by_kind(objs, "PodMonitor").get(f"{FULL}-executors")
    if check(pm is not None, "no PodMonitor for executors"):
        check(pm["spec"]["selector"]["matchLabels"].get("app.kubernetes.io/component") == "sample-executor",
              "PodMonitor does not select the sample executor")
        check(all(e.get("scheme", "http") == "http" for e in pm["spec"]["podMetricsEndpoints"]),
              "PodMonitor scrapes with TLS though TLS is off")
    rule = by_kind(objs, "PrometheusRule").get(FULL)
    if check(rule is not None, "no PrometheusRule"):
        alerts = [r["alert"] for g in rule["spec"]["groups"] for r in g["rules"]]
        for want in ("GnomonTriggerLatencyHigh", "GnomonMisfires", "GnomonPartitionUnowned",
                     "GnomonOldestDueSlotTooOld", "GnomonNoExecutorForRunningJobs",
                     "GnomonResultSpoolBackingUp", "GnomonStoreErrors"):
            check(want in alerts, f"PrometheusRule lacks {want}")
    cm = by_kind(objs, "ConfigMap").get(f"{FULL}-dashboard")
    if check(cm is not None, "no Grafana dashboard ConfigMap"):
        check(cm["metadata"]["labels"].get("grafana_dashboard") == "1", "dashboard not labelled for the sidecar")
        dash = json.loads(cm["data"]["gnomon.json"])
        check(len(dash["panels"]) >= 10, "dashboard has few panels")
    # The NetworkPolicy lets Prometheus reach the metrics port.
    np = by_kind(objs, "NetworkPolicy").get(FULL)
    if check(np is not None, "no NetworkPolicy"):
        ports = [p["port"] for rule in np["spec"]["ingress"] for p in rule["ports"]]
        check("metrics" in ports, f"NetworkPolicy ports {ports}")


def case_metrics_off(objs, text):
    for name, d in by_kind(objs, "Deployment").items():
        c = container(d)
        check("GNOMON_METRICS_LISTEN" not in env_of(c), f"{name}: metrics on though disabled")
        check(all(p["name"] != "metrics" for p in c.get("ports", [])), f"{name}: metrics port though disabled")
    for name, s in by_kind(objs, "Service").items():
        check(7071 not in [p["port"] for p in s["spec"]["ports"]], f"{name}: metrics port though disabled")
    check(not by_kind(objs, "ServiceMonitor"), "ServiceMonitor rendered with metrics off")


def check_http_ports(objs, on=True):
    """Every gnomond serves the HTTP API on port 7080 and its Service exposes it (or none, when off)."""
    for name, d in by_kind(objs, "Deployment").items():
        if is_executor(name):
            continue
        c = container(d)
        ports = {p["name"]: p["containerPort"] for p in c.get("ports", [])}
        listen = env_of(c).get("GNOMON_HTTP_LISTEN", {}).get("value")
        if on:
            check(ports.get("http") == 7080, f"{name}: no http port 7080: {ports}")
            check(listen == "0.0.0.0:7080", f"{name}: GNOMON_HTTP_LISTEN {listen!r}, want 0.0.0.0:7080")
            console = env_of(c).get("GNOMON_CONSOLE_DIR", {}).get("value")
            check(console == "/usr/share/gnomon/console", f"{name}: GNOMON_CONSOLE_DIR {console!r}")
        else:
            check("http" not in ports and listen is None, f"{name}: HTTP API on though disabled")
    for name, s in by_kind(objs, "Service").items():
        if is_executor(name) or is_headless(s):
            continue
        ports = {p["name"]: p for p in s["spec"]["ports"]}
        check(("http" in ports) == on, f"{name}: http Service port {'missing' if on else 'though disabled'}")


def ingress_routes(objs):
    """The Ingress's (path, Service) pairs; checks each Service exists and has port http."""
    ing = by_kind(objs, "Ingress").get(FULL)
    if not check(ing is not None, "no Ingress"):
        return []
    svcs = by_kind(objs, "Service")
    routes = []
    for rule in ing["spec"]["rules"]:
        for p in rule["http"]["paths"]:
            svc = p["backend"]["service"]
            check(svc["port"] == {"name": "http"}, f"Ingress path {p['path']}: port {svc['port']}")
            check(svc["name"] in svcs, f"Ingress path {p['path']}: no Service {svc['name']}")
            routes.append((p["path"], svc["name"]))
    return routes


def case_http_ingress(objs, text):
    check_http_ports(objs)
    # Each call to the role that serves it; the rest (console, JobAdmin) to the scheduler.
    check(ingress_routes(objs) == [("/v1/LogService/", f"{FULL}-log"), ("/v1/Registry/", f"{FULL}-registry"),
                                   ("/", f"{FULL}-scheduler")], f"Ingress routes {ingress_routes(objs)}")
    ing = by_kind(objs, "Ingress")[FULL]
    check(ing["spec"]["rules"][0].get("host") == "gnomon.example.com", "Ingress host")
    check(ing["spec"].get("ingressClassName") == "nginx", "Ingress class")
    check(ing["spec"]["tls"][0]["secretName"] == "web-tls", "Ingress TLS")


def case_http_ingress_allinone(objs, text):
    check_http_ports(objs)
    check(ingress_routes(objs) == [("/", FULL)], f"Ingress routes {ingress_routes(objs)}")


def case_http_off(objs, text):
    check_http_ports(objs, on=False)
    check(not by_kind(objs, "Ingress"), "Ingress rendered with the HTTP API off")


TLS_DIR = "/etc/gnomon/tls"
NAMESPACE = "jobs"


def check_tls_pod(where, dep, secret, mtls, port):
    """The pod mounts `secret` whole, read-only, and points the TLS variables at its files.

    port None: an executor, which serves no gRPC (no probes, and no
    GNOMON_TLS_REQUIRE_CLIENT_CERT: its certificate is a client certificate).
    """
    pod = dep["spec"]["template"]["spec"]
    c = container(dep)
    # kubelet's gRPC probe cannot do TLS: gnomonctl asks the served port.
    for probe in ("livenessProbe", "readinessProbe", "startupProbe") if port else ():
        p = c.get(probe)
        if p is None:
            check(probe == "startupProbe", f"{where}: no {probe}")
            continue
        cmd = p.get("exec", {}).get("command", [])
        check(cmd[:6] == ["gnomonctl", "health", "check", f"--server=127.0.0.1:{port}", "--tls-server-name=*",
                          "--rpc-timeout=3s"] and "grpc" not in p,
              f"{where}: with TLS, {probe} is not gnomonctl health check on {port}: {p}")
    vols = [v for v in pod.get("volumes", []) if v.get("secret", {}).get("secretName") == secret]
    if not check(len(vols) == 1, f"{where}: want one volume of Secret {secret}, have {pod.get('volumes')}"):
        return
    vol = vols[0]
    # The whole Secret: no items (tls.crt, tls.key and ca.crt all needed).
    check("items" not in vol["secret"], f"{where}: TLS volume picks items {vol['secret'].get('items')}")
    if "fsGroup" in pod.get("securityContext", {}):
        check(vol["secret"].get("defaultMode") == 0o440, f"{where}: TLS files mode {vol['secret'].get('defaultMode')}, want 0440")
    mounts = [m for m in c.get("volumeMounts", []) if m["name"] == vol["name"]]
    if not check(len(mounts) == 1, f"{where}: TLS volume mounted {len(mounts)} times"):
        return
    m = mounts[0]
    # A subPath mount is a copy taken at start: it never sees a renewed certificate.
    check("subPath" not in m and "subPathExpr" not in m, f"{where}: TLS volume mounted with subPath: {m}")
    check(m.get("readOnly") is True, f"{where}: TLS volume not read-only")
    check(m["mountPath"] == TLS_DIR, f"{where}: TLS volume at {m['mountPath']}, want {TLS_DIR}")
    env = env_of(c)
    for var, f in (("GNOMON_TLS_CERT", "tls.crt"), ("GNOMON_TLS_KEY", "tls.key"), ("GNOMON_TLS_CA", "ca.crt")):
        got = env.get(var, {}).get("value")
        check(got == f"{m['mountPath']}/{f}", f"{where}: {var}={got!r}, want {m['mountPath']}/{f}")
    want = ("true" if mtls else "false") if port else None
    got = env.get("GNOMON_TLS_REQUIRE_CLIENT_CERT", {}).get("value")
    check(got == want, f"{where}: GNOMON_TLS_REQUIRE_CLIENT_CERT={got!r}, want {want}")


def check_no_subpath_secrets(objs):
    """No container anywhere mounts a Secret volume with subPath."""
    for name, d in by_kind(objs, "Deployment").items():
        pod = d["spec"]["template"]["spec"]
        secret_vols = {v["name"] for v in pod.get("volumes", []) if "secret" in v}
        for c in pod["containers"]:
            for m in c.get("volumeMounts", []):
                check(not (m["name"] in secret_vols and ("subPath" in m or "subPathExpr" in m)),
                      f"{name}/{c['name']}: Secret volume {m['name']} mounted with subPath")


def check_tls(objs, secret, mtls, executor_secret=None, server_name=None, generic_secret=None):
    """Every gnomond pod and the sample executor serve and dial with TLS from `secret`.

    Returns {client: name it verifies in gnomond's certificate}.
    """
    deps = by_kind(objs, "Deployment")
    check_no_subpath_secrets(objs)
    servers = {n: d for n, d in deps.items() if not is_executor(n)}
    check(servers, "no gnomond Deployment")
    verified = {}
    for name, d in servers.items():
        check_tls_pod(name, d, secret, mtls, 7070)
        env = env_of(container(d))
        check(env.get("GNOMON_TLS_RELOAD_INTERVAL", {}).get("value") == "60s", f"{name}: GNOMON_TLS_RELOAD_INTERVAL")
        sn = env.get("GNOMON_TLS_SERVER_NAME", {}).get("value")
        if name == FULL:  # all in one: the scheduler dials its own registry at 127.0.0.1
            check(sn == (server_name or FULL), f"{name}: GNOMON_TLS_SERVER_NAME={sn!r}, want {server_name or FULL}")
            verified[name] = sn
        elif name.endswith("-scheduler"):
            want = server_name or env.get("GNOMON_REGISTRY_ENDPOINT", {}).get("value", "").split(":")[0]
            check(sn == want, f"{name}: GNOMON_TLS_SERVER_NAME={sn!r}, want {want}")
            verified[name] = sn
        else:
            check(sn is None, f"{name}: GNOMON_TLS_SERVER_NAME set in a pod that dials nothing")
    se = deps.get(f"{FULL}-sample-executor")
    if se is not None:
        check_tls_pod("sample-executor", se, executor_secret or secret, mtls, None)
        c = container(se)
        env = env_of(c)
        check("--tls-reload-interval=60s" in c.get("args", []), f"sample executor args {c.get('args')}")
        sn = env.get("GNOMON_TLS_SERVER_NAME", {}).get("value")
        check(sn == server_name, f"sample executor: GNOMON_TLS_SERVER_NAME={sn!r}, want {server_name!r}")
        # The scheduler pods are dialled by address but verified for the
        # name GNOMON_SCHEDULERS gives (the headless Service's).
        for var in ("GNOMON_REGISTRY", "GNOMON_LOG_SERVICE", "GNOMON_SCHEDULERS"):
            host = env.get(var, {}).get("value", "").split(":")[0]
            check(host, f"sample executor: no {var}")
            verified[f"sample executor -> {var}"] = sn or host
    ge = deps.get(f"{FULL}-generic-executor")
    if ge is not None:
        check_tls_pod("generic-executor", ge, generic_secret or secret, mtls, None)
        c = container(ge)
        env = env_of(c)
        # gnomon-executor has no --tls-reload-interval (an unknown flag stops it): the SDK's 60 s.
        check(not [a for a in c.get("args", []) if a.startswith("--tls-reload")],
              f"generic executor args {c.get('args')}: gnomon-executor has no --tls-reload-interval")
        sn = env.get("GNOMON_TLS_SERVER_NAME", {}).get("value")
        check(sn == server_name, f"generic executor: GNOMON_TLS_SERVER_NAME={sn!r}, want {server_name!r}")
        for var in ("GNOMON_REGISTRY", "GNOMON_LOG_SERVICE", "GNOMON_SCHEDULERS"):
            host = env.get(var, {}).get("value", "").split(":")[0]
            check(host, f"generic executor: no {var}")
            verified[f"generic executor -> {var}"] = sn or host
    return verified


def check_certificate(objs, issuer_ref):
    """The one cert-manager Certificate: names every Service in every form; returns it."""
    certs = by_kind(objs, "Certificate")
    if not check(list(certs) == [FULL], f"want one Certificate {FULL}, have {sorted(certs)}"):
        return None
    cert = certs[FULL]
    check(cert["apiVersion"] == "cert-manager.io/v1", f"Certificate apiVersion {cert['apiVersion']}")
    spec = cert["spec"]
    check(spec.get("secretName") == f"{FULL}-tls", f"Certificate secretName {spec.get('secretName')!r}, want {FULL}-tls")
    names = set(spec.get("dnsNames", []))
    svcs = by_kind(objs, "Service")
    check(svcs, "no Service")
    for svc in svcs:
        for form in (svc, f"{svc}.{NAMESPACE}", f"{svc}.{NAMESPACE}.svc", f"{svc}.{NAMESPACE}.svc.cluster.local"):
            check(form in names, f"Certificate dnsNames lack {form}")
    usages = set(spec.get("usages", []))
    check({"server auth", "client auth"} <= usages, f"Certificate usages {sorted(usages)}")
    check(spec.get("issuerRef") == issuer_ref, f"Certificate issuerRef {spec.get('issuerRef')}, want {issuer_ref}")
    check(spec.get("duration") == "2160h" and spec.get("renewBefore") == "360h",
          f"Certificate duration {spec.get('duration')} renewBefore {spec.get('renewBefore')}")
    check(spec.get("privateKey", {}).get("rotationPolicy") == "Always", "Certificate privateKey.rotationPolicy")
    return cert


def check_names_verified(names, verified):
    """Whatever name a client verifies in gnomond's certificate, the certificate (`names`) carries it."""
    check(verified, "no client verifies a name")
    for client, name in verified.items():
        check(name in names, f"{client} verifies {name!r}, which the certificate does not name")


def pem_cert(b64):
    return x509.load_pem_x509_certificate(base64.b64decode(b64))


def signed_by(cert, issuer):
    """Whether `issuer`'s key signed `cert` (RSA or ECDSA)."""
    key = issuer.public_key()
    try:
        if isinstance(key, rsa.RSAPublicKey):
            key.verify(cert.signature, cert.tbs_certificate_bytes, padding.PKCS1v15(), cert.signature_hash_algorithm)
        else:
            key.verify(cert.signature, cert.tbs_certificate_bytes, ec.ECDSA(cert.signature_hash_algorithm))
    except Exception:  # cryptography's InvalidSignature, or a key of another kind
        return False
    return True


def days_valid(cert):
    return (cert.not_valid_after - cert.not_valid_before).total_seconds() / 86400


def check_generated_tls(objs, extra_dns=(), extra_ips=()):
    """The certificate the chart generates: a CA Secret no pod mounts, and
    <fullname>-tls (kubernetes.io/tls: tls.crt, tls.key, ca.crt) whose
    certificate parses, is signed by that CA, names every rendered Service in
    every form plus localhost and 127.0.0.1, and allows server and client
    auth. Both kept on uninstall. Returns the certificate's DNS names.
    """
    secrets = by_kind(objs, "Secret")
    tls, ca = secrets.get(f"{FULL}-tls"), secrets.get(f"{FULL}-tls-ca")
    if not check(tls is not None and ca is not None,
                 f"no generated Secrets {FULL}-tls and {FULL}-tls-ca: {sorted(secrets)}"):
        return set()
    for s in (tls, ca):
        name = s["metadata"]["name"]
        check(s.get("type") == "kubernetes.io/tls", f"Secret {name}: type {s.get('type')}")
        check(s["metadata"].get("annotations", {}).get("helm.sh/resource-policy") == "keep",
              f"Secret {name}: not kept on uninstall (helm.sh/resource-policy)")
    check(sorted(tls["data"]) == ["ca.crt", "tls.crt", "tls.key"], f"{FULL}-tls keys {sorted(tls['data'])}")
    check(sorted(ca["data"]) == ["tls.crt", "tls.key"], f"{FULL}-tls-ca keys {sorted(ca['data'])}")
    check(tls["data"].get("ca.crt") == ca["data"].get("tls.crt"), f"{FULL}-tls ca.crt is not the CA of {FULL}-tls-ca")
    try:
        leaf, root = pem_cert(tls["data"]["tls.crt"]), pem_cert(tls["data"]["ca.crt"])
        key = serialization.load_pem_private_key(base64.b64decode(tls["data"]["tls.key"]), None)
        ca_key = serialization.load_pem_private_key(base64.b64decode(ca["data"]["tls.key"]), None)
    except (KeyError, ValueError) as e:
        check(False, f"generated certificate or key does not parse: {e}")
        return set()
    pub = serialization.PublicFormat.SubjectPublicKeyInfo
    der = serialization.Encoding.DER
    check(key.public_key().public_bytes(der, pub) == leaf.public_key().public_bytes(der, pub),
          "tls.key is not the key of tls.crt")
    check(ca_key.public_key().public_bytes(der, pub) == root.public_key().public_bytes(der, pub),
          "the CA Secret's key is not the CA certificate's")
    check(root.extensions.get_extension_for_class(x509.BasicConstraints).value.ca, "ca.crt is not a CA")
    check(signed_by(leaf, root) and leaf.issuer == root.subject, "tls.crt is not signed by ca.crt")
    check(signed_by(root, root), "ca.crt is not self-signed")
    bc = leaf.extensions.get_extension_for_class(x509.BasicConstraints).value if any(
        isinstance(e.value, x509.BasicConstraints) for e in leaf.extensions) else None
    check(bc is None or not bc.ca, "tls.crt is a CA")
    check(abs(days_valid(leaf) - 825) < 1, f"tls.crt valid {days_valid(leaf):.1f} days, want 825")
    check(abs(days_valid(root) - 3650) < 1, f"ca.crt valid {days_valid(root):.1f} days, want 3650")
    eku = set(leaf.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value)
    check({ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH} <= eku,
          f"tls.crt extended key usages {eku}")
    san = leaf.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    dns = set(san.get_values_for_type(x509.DNSName))
    ips = {str(a) for a in san.get_values_for_type(x509.IPAddress)}
    svcs = by_kind(objs, "Service")
    check(svcs, "no Service")
    for svc in svcs:
        for form in (svc, f"{svc}.{NAMESPACE}", f"{svc}.{NAMESPACE}.svc", f"{svc}.{NAMESPACE}.svc.cluster.local"):
            check(form in dns, f"generated certificate lacks {form}")
    for name in ("localhost", *extra_dns):
        check(name in dns, f"generated certificate lacks {name}")
    for ip in ("127.0.0.1", *extra_ips):
        check(str(ipaddress.ip_address(ip)) in ips, f"generated certificate lacks IP {ip}: {ips}")
    ann = tls["metadata"].get("annotations", {})
    try:
        not_after = datetime.datetime.strptime(ann.get("gnomon/not-after", ""), "%Y-%m-%dT%H:%M:%SZ")
        check(abs((not_after - leaf.not_valid_after).total_seconds()) < 300,
              f"annotation gnomon/not-after {not_after} is not the certificate's {leaf.not_valid_after}")
    except ValueError:
        check(False, f"{FULL}-tls: annotation gnomon/not-after {ann.get('gnomon/not-after')!r}")
    check(len(ann.get("gnomon/names-sha256", "")) == 64, f"{FULL}-tls: no gnomon/names-sha256 annotation")
    # The CA's key reaches no pod.
    for kind in ("Deployment", "Job", "Pod"):
        for name, o in by_kind(objs, kind).items():
            pod = o["spec"] if kind == "Pod" else o["spec"]["template"]["spec"]
            mounted = [v for v in pod.get("volumes", []) if v.get("secret", {}).get("secretName") == f"{FULL}-tls-ca"]
            check(not mounted, f"{kind} {name} mounts the CA's Secret")
    return dns


def check_monitors_https(objs, cert_names, secret, executor_secret):
    """With TLS on, /metrics is HTTPS: the monitors scrape https, verifying a name gnomond's certificate carries."""
    for kind, name, key, sec in (("ServiceMonitor", FULL, "endpoints", secret),
                                 ("PodMonitor", f"{FULL}-executors", "podMetricsEndpoints", executor_secret)):
        mon = by_kind(objs, kind).get(name)
        if not check(mon is not None, f"no {kind} {name}"):
            continue
        for e in mon["spec"][key]:
            check(e.get("scheme") == "https", f"{kind}: scheme {e.get('scheme')}, want https")
            tc = e.get("tlsConfig", {})
            ca = tc.get("ca", {}).get("secret", {})
            check(ca == {"name": sec, "key": "ca.crt"}, f"{kind}: tlsConfig.ca {ca}, want {sec}/ca.crt")
            check(cert_names is None or tc.get("serverName") in cert_names,
                  f"{kind}: serverName {tc.get('serverName')!r} not in the certificate")
    for name, svc in by_kind(objs, "Service").items():
        if is_headless(svc):
            continue
        ports = {p["name"]: p for p in svc["spec"]["ports"]}
        check(ports.get("metrics", {}).get("appProtocol") == "https", f"Service {name}: metrics appProtocol not https")


def case_tls_secret(objs, text):
    # The user's Secret; the sample executor its own; a server name of the user's.
    check_per_role(objs, {"scheduler": 2, "registry": 2, "log": 2},
                   f"{FULL}-store", "store-url", FULL, "cluster-token", tls=True)
    check_tls(objs, "gnomon-tls", mtls=False, executor_secret="executor-tls", server_name="gnomon.example.com")
    check_sample_executor(objs, "sample", f"{FULL}-registry:7070", f"{FULL}-log:7070")
    check(not by_kind(objs, "Certificate"), "a Certificate rendered though tls.existingSecret is given")
    check("gnomon-tls" not in by_kind(objs, "Secret"), "the chart renders the user's TLS Secret")
    check(f"{FULL}-tls-ca" not in by_kind(objs, "Secret"), "a CA generated though tls.existingSecret is given")
    check_monitors_https(objs, {"gnomon.example.com"}, "gnomon-tls", "executor-tls")


def case_tls_allinone(objs, text):
    check_all_in_one(objs, text, "sqlite:/var/lib/gnomon/gnomon.db", tls=True)
    cert = check_certificate(objs, {"name": "ca", "kind": "Issuer", "group": "cert-manager.io"})
    if cert:
        check_names_verified(set(cert["spec"]["dnsNames"]), check_tls(objs, cert["spec"]["secretName"], mtls=False))


def case_tls_certmanager(objs, text):
    # mTLS, the sample executor, a ClusterIssuer and an extra name.
    check_per_role(objs, {"scheduler": 2, "registry": 2, "log": 2},
                   f"{FULL}-store", "store-url", FULL, "cluster-token", tls=True)
    cert = check_certificate(objs, {"name": "gnomon-ca", "kind": "ClusterIssuer", "group": "cert-manager.io"})
    if cert:
        verified = check_tls(objs, cert["spec"]["secretName"], mtls=True)
        check(any(k.startswith("sample executor") for k in verified), "sample executor not rendered")
        check("sample executor -> GNOMON_SCHEDULERS" in verified, "sample executor verifies no scheduler name")
        check("generic executor -> GNOMON_SCHEDULERS" in verified, "generic executor not rendered with TLS")
        check_names_verified(set(cert["spec"]["dnsNames"]), verified)
        check("gnomon.example.com" in cert["spec"]["dnsNames"], "Certificate lacks tls.certManager.extraDnsNames")
        check_monitors_https(objs, set(cert["spec"]["dnsNames"]), cert["spec"]["secretName"], cert["spec"]["secretName"])
        pm = by_kind(objs, "PodMonitor").get(f"{FULL}-generic-executor")
        if check(pm is not None, "no PodMonitor for the generic executor with TLS"):
            for e in pm["spec"]["podMetricsEndpoints"]:
                check(e.get("scheme") == "https" and e.get("tlsConfig", {}).get("ca", {}).get("secret")
                      == {"name": cert["spec"]["secretName"], "key": "ca.crt"},
                      f"generic executor PodMonitor endpoint {e}")
    check_sample_executor(objs, "sample", f"{FULL}-registry:7070", f"{FULL}-log:7070")
    check_generic_executor(objs, "ops", "t", ["api.example.com"], [])
    check(not [n for n, s in by_kind(objs, "Secret").items() if s.get("type") == "kubernetes.io/tls"],
          "a TLS Secret generated though cert-manager writes it")


def case_tls_generated(objs, text):
    """The generated certificate with every consumer: mTLS, both executors, the monitors, extra names."""
    check_per_role(objs, {"scheduler": 2, "registry": 2, "log": 2},
                   f"{FULL}-store", "store-url", FULL, "cluster-token", tls=True)
    check(not by_kind(objs, "Certificate"), "a Certificate rendered without tls.certManager")
    names = check_generated_tls(objs, extra_dns=["gnomon.example.com"], extra_ips=["10.1.2.3"])
    verified = check_tls(objs, f"{FULL}-tls", mtls=True)
    for client in ("sample executor", "generic executor"):
        check(f"{client} -> GNOMON_SCHEDULERS" in verified, f"{client} not rendered with TLS")
    check_names_verified(names, verified)
    check_monitors_https(objs, names, f"{FULL}-tls", f"{FULL}-tls")
    check_sample_executor(objs, "sample", f"{FULL}-registry:7070", f"{FULL}-log:7070")
    check_generic_executor(objs, "ops", "t", ["api.example.com"], [])


CASES = {
    "tls-generated": case_tls_generated,
    "tls-secret": case_tls_secret,
    "tls-allinone": case_tls_allinone,
    "tls-certmanager": case_tls_certmanager,
    "monitoring": case_monitoring,
    "metrics-off": case_metrics_off,
    "http-ingress": case_http_ingress,
    "http-ingress-allinone": case_http_ingress_allinone,
    "http-off": case_http_off,
    "default": case_default,
    "custom": case_custom,
    "existing": case_existing,
    "allinone": case_allinone,
    "allinone-mysql": case_allinone_mysql,
    "partitions": case_partitions,
    "generic-executor": case_generic_executor,
    "generic-executor-minimal": case_generic_executor_minimal,
}


def main():
    import check_lifecycle
    CASES.update(check_lifecycle.cases(sys.modules[__name__]))
    case, path = sys.argv[1], sys.argv[2]
    text = open(path).read()
    objs = [d for d in yaml.safe_load_all(text) if d]
    for o in objs:
        check(o.get("metadata", {}).get("labels", {}).get("app.kubernetes.io/part-of") == "gnomon",
              f"{o['kind']} {o['metadata'].get('name')}: no app.kubernetes.io/part-of label")
    # No secret in a plain env value, whatever the case.
    for d in by_kind(objs, "Deployment").values():
        for c in d["spec"]["template"]["spec"]["containers"]:
            for e in c.get("env", []):
                secretish = any(w in e["name"] for w in ("TOKEN", "STORE", "PASSWORD"))
                if secretish and not e["name"].endswith("_FILE"):
                    check("value" not in e, f"{d['metadata']['name']}: {e['name']} is a plain value")
            for a in c.get("args", []):
                check(not a.startswith(("--store", "--cluster-token", "--token")),
                      f"{d['metadata']['name']}: secret on the command line: {a}")
    check("mysql://" not in text, "a mysql:// URL appears in plain text")
    # Executors connect out: nothing advertises or serves an executor address.
    for gone in ("GNOMON_ADVERTISE", "GNOMON_LISTEN", "executor-tls-server-name"):
        check(gone not in text, f"{gone} appears in the rendered output (executors connect out now)")
    for d in by_kind(objs, "Deployment").values():
        for c in d["spec"]["template"]["spec"]["containers"]:
            ports = [p.get("containerPort") for p in c.get("ports", [])]
            check(9999 not in ports, f"{d['metadata']['name']}: containerPort 9999 (the old Executor service port)")
    # One partition count for the whole installation.
    check(len(set(partitions_of(objs).values())) <= 1,
          f"gnomond containers disagree on GNOMON_PARTITIONS: {partitions_of(objs)}")
    CASES[case](objs, text)
    if len(sys.argv) > 3:
        with open(sys.argv[3], "w") as f:
            json.dump(objs, f)
    for f in failures:
        print(f"FAIL [{case}] {f}")
    real = failures
    print(f"[{case}] {len(objs)} objects, {len(real)} failed assertions")
    sys.exit(1 if real else 0)


if __name__ == "__main__":
    main()
