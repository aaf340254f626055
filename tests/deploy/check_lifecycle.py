"""Cases of check_rendered.py for the release's life: the migration Job
(pre-install/pre-upgrade hook), the helm test Pods (list-groups, and tls,
which fails on a plaintext endpoint), TLS turned off, topology spreading and
the pod extras (volumes, init containers, sidecars, annotations, digest).

check_rendered.py calls cases(module) with itself, for its check helpers.
"""

import re

HOOK = "helm.sh/hook"
SCHED_SVC = "g-gnomon-scheduler:7070"


def cases(r):
    full = r.FULL

    def kinds(objs, kind):
        return r.by_kind(objs, kind)

    def hook_of(o):
        return o["metadata"].get("annotations", {}).get(HOOK)

    def check_no_plain_secrets(where, pod):
        for c in pod.get("containers", []) + pod.get("initContainers", []):
            for e in c.get("env", []):
                if any(w in e["name"] for w in ("TOKEN", "STORE", "PASSWORD")) and not e["name"].endswith("_FILE"):
                    r.check("value" not in e, f"{where}: {e['name']} is a plain value")

    def check_migrate_job(objs, store_secret, store_key, hook_secret):
        jobs = kinds(objs, "Job")
        job = jobs.get(f"{full}-migrate")
        if not r.check(job is not None, f"no migration Job (have {sorted(jobs)})"):
            return
        ann = job["metadata"]["annotations"]
        r.check(ann.get(HOOK) == "pre-install,pre-upgrade", f"migration Job hook {ann.get(HOOK)}")
        r.check("hook-succeeded" in ann.get("helm.sh/hook-delete-policy", ""), "migration Job never deleted")
        pod = job["spec"]["template"]["spec"]
        c = pod["containers"][0]
        r.check(c.get("command") == ["gnomond"] and c.get("args") == ["--migrate-only"],
                f"migration Job runs {c.get('command')} {c.get('args')}")
        r.check(pod.get("restartPolicy") == "Never", "migration Job restartPolicy")
        # The release's ServiceAccount does not exist yet at pre-install.
        r.check("serviceAccountName" not in pod, f"migration Job uses {pod.get('serviceAccountName')}")
        r.check(c.get("securityContext", {}).get("readOnlyRootFilesystem") is True, "migration Job root writable")
        check_no_plain_secrets("migration Job", pod)
        r.check_secret_ref(objs, "migration Job", r.env_of(c), "GNOMON_STORE", store_secret, store_key,
                           must_exist=hook_secret)
        secrets = kinds(objs, "Secret")
        hooked = secrets.get(f"{full}-migrate")
        if hook_secret:
            # The chart's own Secret is not there before install: the Job's comes first.
            if r.check(hooked is not None, "no hook Secret for the migration Job's store URL"):
                a = hooked["metadata"]["annotations"]
                r.check(a.get(HOOK) == "pre-install,pre-upgrade", f"hook Secret hook {a.get(HOOK)}")
                r.check(int(a.get("helm.sh/hook-weight", "0")) < int(ann.get("helm.sh/hook-weight", "0")),
                        "hook Secret not created before the Job")
        else:
            r.check(hooked is None, "a hook Secret rendered though the store URL is in a Secret already")

    def check_test_pod(objs, token_secret, token_key, tls=False):
        pods = kinds(objs, "Pod")
        pod = pods.get(f"{full}-test-list-groups")
        if not r.check(pod is not None, f"no helm test Pod (have {sorted(pods)})"):
            return
        r.check(hook_of(pod) == "test", f"test Pod hook {hook_of(pod)}")
        c = pod["spec"]["containers"][0]
        r.check(c.get("command") == ["gnomonctl"] and c.get("args") == [f"--server={SCHED_SVC}", "group", "list"],
                f"test Pod runs {c.get('command')} {c.get('args')}")
        r.check(SCHED_SVC.split(":")[0] in kinds(objs, "Service"), "test Pod dials a Service not rendered")
        env = r.env_of(c)
        r.check_secret_ref(objs, "test Pod", env, "GNOMON_TOKEN", token_secret, token_key,
                           must_exist=token_secret == full)
        check_no_plain_secrets("test Pod", pod["spec"])
        if tls:
            r.check(env.get("GNOMON_TLS", {}).get("value") == "true", "test Pod without TLS")
            r.check(env.get("GNOMON_TLS_CA", {}).get("value") == "/etc/gnomon/tls/ca.crt", "test Pod without ca.crt")
            r.check(any(v["name"] == "tls" for v in pod["spec"].get("volumes", [])), "test Pod lacks the TLS volume")
        else:
            r.check(not [e for e in env if e.startswith("GNOMON_TLS")], f"test Pod has TLS env with TLS off: {sorted(env)}")

    def check_tls_test_pod(objs, tls_secret, server_name=None, http=True, metrics=True):
        """The helm test that fails on a plaintext endpoint: every gnomond Service's
        gRPC port over TLS (verified for the name clients verify) and refused in
        plaintext, its HTTP and metrics ports giving no plaintext HTTP answer.
        tls_secret None: TLS off, and the script fails whatever it finds.
        """
        pod = kinds(objs, "Pod").get(f"{full}-test-tls")
        if not r.check(pod is not None, f"no helm test Pod {full}-test-tls (have {sorted(kinds(objs, 'Pod'))})"):
            return
        r.check(hook_of(pod) == "test", f"TLS test Pod hook {hook_of(pod)}")
        spec = pod["spec"]
        r.check(spec.get("restartPolicy") == "Never" and spec.get("automountServiceAccountToken") is False,
                "TLS test Pod: restartPolicy Never, no ServiceAccount token")
        c = spec["containers"][0]
        r.check(c.get("command") == ["bash", "-c"] and len(c.get("args", [])) == 1, f"TLS test Pod runs {c.get('command')}")
        r.check(not [e for e in c.get("env", []) if e["name"].startswith("GNOMON_")],
                "TLS test Pod: GNOMON_* env would make gnomonctl's plaintext call TLS")
        sc = c.get("securityContext", {})
        r.check(sc.get("readOnlyRootFilesystem") is True and sc.get("allowPrivilegeEscalation") is False,
                f"TLS test Pod securityContext {sc}")
        lists = kinds(objs, "Pod").get(f"{full}-test-list-groups")
        if lists is not None:
            r.check(c["image"] == lists["spec"]["containers"][0]["image"], "the test Pods run different images")
        script = (c.get("args") or [""])[0]
        r.check(f"tls={'on' if tls_secret else 'off'}\n" in script, f"TLS test Pod's script: tls is not {'on' if tls_secret else 'off'}")
        vols = [v for v in spec.get("volumes", []) if "secret" in v]
        if tls_secret:
            r.check([v["secret"]["secretName"] for v in vols] == [tls_secret], f"TLS test Pod mounts {vols}, want {tls_secret}")
            r.check("--ca=/etc/gnomon/tls/ca.crt" in script, "TLS test Pod does not verify against ca.crt")
        else:
            r.check(not vols, f"TLS test Pod mounts {vols} with TLS off")
            r.check(re.search(r'tls" != on.*\n.*tls.enabled is false.*\n\s*exit 1', script),
                    "TLS test Pod does not fail with TLS off")
        # The calls: one per Service and port, nothing else.
        calls = re.findall(r"^\s*(grpc|http) (\S+)(?: (\S+))?(?: (\S+))?$", script, re.M)
        want = []
        for name, svc in sorted(kinds(objs, "Service").items()):
            grpc_port = next(p["port"] for p in svc["spec"]["ports"] if p["name"] == "grpc")
            want.append(("grpc", f"{name}:{grpc_port}", server_name or name, ""))
            for port in svc["spec"]["ports"]:
                if port["name"] in ("http", "metrics"):
                    want.append(("http", name, str(port["port"]), port["name"]))
        r.check(sorted(calls) == sorted(want), f"TLS test Pod checks {sorted(calls)}, want {sorted(want)}")
        r.check(any(w[3] == "http" for w in want) == http and any(w[3] == "metrics" for w in want) == metrics,
                "TLS test Pod: HTTP or metrics ports not as configured")
        # Plaintext gRPC: the same call without flags must fail; an HTTP/1 answer fails the test.
        r.check(re.search(r'if gnomonctl --server="\$1" --rpc-timeout=5s health check --service=liveness; then\s*\n\s*bad',
                          script), "TLS test Pod: no plaintext gRPC call that fails the test when it succeeds")
        r.check("[[ $line == HTTP/* ]]" in script, "TLS test Pod: no plaintext HTTP check")

    def check_spread(objs, want_keys):
        for name, d in kinds(objs, "Deployment").items():
            if r.is_executor(name):
                continue
            role = d["spec"]["selector"]["matchLabels"]["app.kubernetes.io/component"]
            tsc = d["spec"]["template"]["spec"].get("topologySpreadConstraints", [])
            r.check([t["topologyKey"] for t in tsc] == want_keys, f"{name}: spread over {tsc}, want {want_keys}")
            for t in tsc:
                r.check(t.get("labelSelector", {}).get("matchLabels", {}).get("app.kubernetes.io/component") == role,
                        f"{name}: spread selector {t.get('labelSelector')} is not the role's pods")

    def case_lifecycle(objs, text):
        """Defaults: the Job and test Pod, spreading over zones and nodes."""
        check_migrate_job(objs, f"{full}-store", "store-url", hook_secret=False)
        check_test_pod(objs, full, "admin-token", tls=True)
        check_tls_test_pod(objs, f"{full}-tls")
        check_spread(objs, ["topology.kubernetes.io/zone", "kubernetes.io/hostname"])
        for name, d in kinds(objs, "Deployment").items():
            r.check(r.container(d)["image"] == "gnomon/gnomond:0.1.0", f"{name}: image {r.container(d)['image']}")

    def case_migrate_url(objs, text):
        """The chart holds the store URL: the Job reads it from a hook Secret of its own."""
        check_migrate_job(objs, f"{full}-migrate", "store-url", hook_secret=True)
        r.check(r.secret_value(objs, f"{full}-migrate", "store-url") == r.CUSTOM_URL, "hook Secret's URL")

    def case_gitops(objs, text):
        """Operator-supplied Secrets: nothing generated, everything referenced by name."""
        r.check(not kinds(objs, "Secret"), f"Secrets rendered: {sorted(kinds(objs, 'Secret'))}")
        for name, d in kinds(objs, "Deployment").items():
            env = r.env_of(r.container(d))
            r.check_secret_ref(objs, name, env, "GNOMON_CLUSTER_TOKEN", "gnomon-auth", "cluster-token", must_exist=False)
            r.check_admin_token(objs, name, d, "gnomon-auth", "admin-token")
        check_migrate_job(objs, "gnomon-store", "store-url", hook_secret=False)
        check_test_pod(objs, "gnomon-auth", "admin-token", tls=True)
        check_tls_test_pod(objs, "gnomon-tls")

    def case_allinone_hooks(objs, text):
        """All in one: the pod migrates at start (Recreate); no Job."""
        r.check(not kinds(objs, "Job"), "migration Job rendered all in one")
        pods = kinds(objs, "Pod")
        r.check(f"{full}-test-list-groups" in pods, "no helm test Pod all in one")
        c = pods.get(f"{full}-test-list-groups", {"spec": {"containers": [{}]}})["spec"]["containers"][0]
        r.check(f"--server={full}:7070" in c.get("args", []), f"test Pod args {c.get('args')}")
        check_tls_test_pod(objs, f"{full}-tls")

    def case_extras(objs, text):
        """extraVolumes/Mounts (the SMTP password), initContainers, sidecars, spreading overridden, digest."""
        check_test_pod(objs, "ops-token", "token", tls=True)
        check_tls_test_pod(objs, "gnomon-tls")
        digest = "sha256:" + "ab" * 32
        for name, d in kinds(objs, "Deployment").items():
            pod = d["spec"]["template"]["spec"]
            c = r.container(d)
            r.check(c["name"] == "gnomond", f"{name}: first container is {c['name']}")
            r.check(c["image"] == f"registry.example/gnomond@{digest}", f"{name}: image {c['image']}")
            r.check({"name": "smtp", "mountPath": "/etc/gnomon/smtp", "readOnly": True} in c.get("volumeMounts", []),
                    f"{name}: SMTP password not mounted: {c.get('volumeMounts')}")
            vols = {v["name"]: v for v in pod["volumes"]}
            r.check(vols.get("smtp", {}).get("secret", {}).get("secretName") == "gnomon-smtp",
                    f"{name}: no smtp volume from Secret gnomon-smtp")
            r.check("tls" in vols, f"{name}: extraVolumes replaced the chart's volumes")
            r.check(r.env_of(c).get("GNOMON_SMTP_PASSWORD_FILE", {}).get("value") == "/etc/gnomon/smtp/password",
                    f"{name}: smtp-password-file not passed")
            r.check([i["name"] for i in pod.get("initContainers", [])] == ["wait-for-db"], f"{name}: initContainers")
            r.check([x["name"] for x in pod["containers"]] == ["gnomond", "log-shipper"], f"{name}: sidecars")
            ann = d["spec"]["template"]["metadata"]["annotations"]
            r.check(ann.get("example.com/team") == "jobs" and "checksum/secret" in ann, f"{name}: annotations {ann}")
            tsc = pod.get("topologySpreadConstraints", [])
            r.check(len(tsc) == 1 and tsc[0]["whenUnsatisfiable"] == "DoNotSchedule"
                    and tsc[0]["labelSelector"] == {"matchLabels": {"tier": "gnomon"}},
                    f"{name}: spread not as given: {tsc}")
        for name, j in kinds(objs, "Job").items():
            r.check(j["spec"]["template"]["spec"]["containers"][0]["image"] == f"registry.example/gnomond@{digest}",
                    f"{name}: image not by digest")
        for name, p in kinds(objs, "Pod").items():
            r.check(p["spec"]["containers"][0]["image"] == f"registry.example/gnomond@{digest}",
                    f"{name}: image not by digest")

    def case_tls_off(objs, text):
        """tls.enabled=false, the explicit opt-out: plaintext everywhere, and the TLS test fails."""
        r.check_per_role(objs, {"scheduler": 2, "registry": 2, "log": 2},
                         f"{full}-store", "store-url", full, "cluster-token", tls=False)
        r.check_no_tls(objs)
        r.check_http_ports(objs)
        check_test_pod(objs, full, "admin-token", tls=False)
        check_tls_test_pod(objs, None)

    def case_tls_ports(objs, text):
        """The TLS test checks only the ports that are served."""
        check_tls_test_pod(objs, f"{full}-tls", server_name="gnomon.example.com", http=False, metrics=False)

    def case_no_spread(objs, text):
        check_spread(objs, [])
        r.check(not kinds(objs, "Job") and not kinds(objs, "Pod"), "Job or test Pod rendered though disabled")

    return {
        "lifecycle": case_lifecycle,
        "migrate-url": case_migrate_url,
        "gitops": case_gitops,
        "allinone-hooks": case_allinone_hooks,
        "extras": case_extras,
        "no-spread": case_no_spread,
        "tls-off": case_tls_off,
        "tls-ports": case_tls_ports,
    }
