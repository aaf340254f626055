#!/usr/bin/env bash
# Offline checks of the Helm chart (deploy/k8s/gnomon) and the plain manifests
# (deploy/k8s/manifests): helm lint, helm template with several value sets and
# assertions on the result (check_rendered.py), values.schema.json rejecting bad
# values, every rendered object validated against the Kubernetes API schemas
# (kubernetes-models), and the plain manifests in sync with the chart.
#
# Installs nothing: scripts/lib.sh's install_k8s_tools puts Helm and
# kubernetes-models under ~/.cache/gnomon-tools (GNOMON_TOOLS_DIR). Needs
# /usr/bin/python3 with yaml and cryptography (python3-yaml,
# python3-cryptography) and node. Exits non-zero on any failure and says what
# failed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../../scripts/lib.sh"
chart=$GNOMON_ROOT/deploy/k8s/gnomon
manifests=$GNOMON_ROOT/deploy/k8s/manifests
helm=${HELM:-$GNOMON_HELM}
python=/usr/bin/python3
KUBE_VERSION=1.27.0

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok   $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }

missing=()
[ -x "$helm" ] || missing+=("helm ($helm)")
$python -c 'import yaml' 2>/dev/null || missing+=("python3-yaml for $python")
$python -c 'import cryptography' 2>/dev/null || missing+=("python3-cryptography for $python")
command -v node >/dev/null || missing+=("node")
[ -f "$GNOMON_TOOLS_DIR/node_modules/kubernetes-models/package.json" ] || missing+=("kubernetes-models in $GNOMON_TOOLS_DIR")
[ -f "$GNOMON_TOOLS_DIR/node_modules/@kubernetes-models/prometheus-operator/package.json" ] ||
  missing+=("@kubernetes-models/prometheus-operator in $GNOMON_TOOLS_DIR")
[ -f "$GNOMON_TOOLS_DIR/node_modules/@kubernetes-models/cert-manager/package.json" ] ||
  missing+=("@kubernetes-models/cert-manager in $GNOMON_TOOLS_DIR")
command -v promtool >/dev/null || missing+=("promtool (Debian package prometheus)")
if ((${#missing[@]})); then
  echo "FAIL missing tools: ${missing[*]}"
  echo "     install them with: source scripts/lib.sh && install_deps  (or install_k8s_tools)"
  echo "0 passed, 1 failed"
  exit 1
fi

work=$(mktemp -d /tmp/gnomon-helm-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
export HELM_CACHE_HOME=$work/helm/cache HELM_CONFIG_HOME=$work/helm/config HELM_DATA_HOME=$work/helm/data

# run NAME CMD...: runs CMD, records pass/fail, shows its output on failure.
run() {
  local name=$1
  shift
  if "$@" >"$work/out" 2>&1; then
    pass "$name"
  else
    fail "$name"
    sed 's/^/     /' "$work/out"
  fi
}

render() {  # render NAME [helm args...] -> $work/NAME.yaml
  local name=$1
  shift
  "$helm" template g "$chart" --namespace jobs --kube-version "$KUBE_VERSION" "$@" >"$work/$name.yaml"
}

# expect_failure NAME PATTERN [helm args...]: helm template must fail, saying PATTERN.
expect_failure() {
  local name=$1 pattern=$2
  shift 2
  if "$helm" template g "$chart" --kube-version "$KUBE_VERSION" "$@" >"$work/out" 2>&1; then
    fail "$name: helm template accepted $*"
  elif grep -q -e "$pattern" "$work/out"; then
    pass "$name"
  else
    fail "$name: failed without saying '$pattern':"
    sed 's/^/     /' "$work/out"
  fi
}

# --- lint -------------------------------------------------------------------
run "helm lint (defaults)" "$helm" lint --strict "$chart"
run "helm lint (allInOne)" "$helm" lint --strict "$chart" --set allInOne=true
run "helm lint (mysql store, sample executor, network policy)" "$helm" lint --strict "$chart" \
  --set store.url=mysql://u:p@db:3306/gnomon --set sampleExecutor.enabled=true \
  --set sampleExecutor.accessTokenSecret.name=t --set networkPolicy.enabled=true
run "helm lint (TLS from cert-manager, mTLS, sample executor)" "$helm" lint --strict "$chart" \
  --set tls.enabled=true --set tls.certManager.enabled=true --set tls.certManager.issuerRef.name=ca \
  --set tls.requireClientCert=true --set sampleExecutor.enabled=true --set sampleExecutor.accessTokenSecret.name=t

run "helm lint (TLS off)" "$helm" lint --strict "$chart" --set tls.enabled=false
run "helm lint (generic executor, network policy, PodMonitor)" "$helm" lint --strict "$chart" \
  --set genericExecutor.enabled=true --set genericExecutor.app=ops --set genericExecutor.accessTokenSecret.name=t \
  --set 'genericExecutor.httpAllow={api.example.com}' --set networkPolicy.enabled=true \
  --set metrics.podMonitor.enabled=true

# --- render and assert --------------------------------------------------------
cat >"$work/custom-values.yaml" <<'EOF'
store:
  url: mysql://gnomon:Pw-s3cret-XYZ@db.example:3306/gnomon
clusterToken:
  value: cluster-token-0123456789abcdef
scheduler:
  replicas: 3
  resources:
    limits: {cpu: "2", memory: 1Gi}
registry:
  replicas: 4
  service: {type: LoadBalancer}
log:
  replicas: 1
config:
  retention-days: 14
podAnnotations:
  prometheus.io/scrape: "true"
nodeSelector: {pool: jobs}
tolerations:
  - {key: dedicated, operator: Equal, value: jobs, effect: NoSchedule}
networkPolicy:
  enabled: true
  ingressFrom:
    - ipBlock: {cidr: 10.20.0.0/16}
sampleExecutor:
  enabled: true
  app: billing
  accessTokenSecret: {name: billing-token, key: token}
EOF

jsons=()
check_case() {  # check_case CASE [helm args...]
  local case=$1
  shift
  if ! render "$case" "$@" 2>"$work/err"; then
    fail "render $case"
    sed 's/^/     /' "$work/err"
    return
  fi
  run "render $case and check it" $python "$here/check_rendered.py" "$case" "$work/$case.yaml" "$work/$case.json"
  [ -f "$work/$case.json" ] && jsons+=("$work/$case.json")
}
check_case default
check_case custom -f "$work/custom-values.yaml"
check_case existing --set store.existingSecret=my-db --set store.existingSecretKey=url \
  --set clusterToken.existingSecret=my-token --set clusterToken.existingSecretKey=token \
  --set adminToken.existingSecret=my-admin --set adminToken.existingSecretKey=token \
  --set tls.existingSecret=my-tls
check_case allinone --set allInOne=true
check_case allinone-mysql --set allInOne=true --set scheduler.replicas=5 \
  --set store.url=mysql://gnomon:Pw-s3cret-XYZ@db.example:3306/gnomon

# Plain http scrapes (TLS off); tls-generated and tls-* check the https ones.
check_case monitoring --set tls.enabled=false --set metrics.serviceMonitor.enabled=true \
  --set metrics.serviceMonitor.labels.release=kube-prometheus --set metrics.podMonitor.enabled=true \
  --set metrics.prometheusRule.enabled=true --set metrics.grafanaDashboard.enabled=true \
  --set networkPolicy.enabled=true --set sampleExecutor.enabled=true \
  --set sampleExecutor.accessTokenSecret.name=t
check_case metrics-off --set metrics.enabled=false --set metrics.serviceMonitor.enabled=true
check_case partitions --set partitions=256 --set metrics.prometheusRule.enabled=true
check_case http-ingress --set http.ingress.enabled=true --set http.ingress.host=gnomon.example.com \
  --set http.ingress.className=nginx --set 'http.ingress.tls[0].secretName=web-tls' \
  --set 'http.ingress.tls[0].hosts[0]=gnomon.example.com'
check_case http-ingress-allinone --set allInOne=true --set http.ingress.enabled=true
check_case http-off --set http.enabled=false --set http.ingress.enabled=true

# The generic executor (gnomon-executor): allow-lists, NetworkPolicy, PodMonitor.
cat >"$work/generic-values.yaml" <<'EOF'
genericExecutor:
  enabled: true
  app: ops
  replicas: 3
  accessTokenSecret: {name: ops-token}
  httpAllow: [api.example.com, "*.corp.example", 10.20.0.0/16]
  commandAllow: [/usr/local/bin/backup, /opt/jobs/]
  resources:
    limits: {memory: 256Mi}
networkPolicy: {enabled: true}
metrics:
  podMonitor: {enabled: true}
EOF
check_case generic-executor -f "$work/generic-values.yaml"
check_case generic-executor-minimal --set genericExecutor.enabled=true --set genericExecutor.app=ops \
  --set genericExecutor.accessTokenSecret.name=t --set metrics.enabled=false

# The release's life: the migration Job, the helm test Pod, spreading, extras.
check_case lifecycle
check_case migrate-url --set store.url=mysql://gnomon:Pw-s3cret-XYZ@db.example:3306/gnomon
check_case gitops --set store.existingSecret=gnomon-store --set clusterToken.existingSecret=gnomon-auth \
  --set adminToken.existingSecret=gnomon-auth --set tls.existingSecret=gnomon-tls
check_case allinone-hooks --set allInOne=true
cat >"$work/extras-values.yaml" <<'EOF'
image:
  repository: registry.example/gnomond
  tag: "9.9.9"
  digest: sha256:abababababababababababababababababababababababababababababababab
tls: {enabled: true, existingSecret: gnomon-tls}
tests:
  tokenSecret: {name: ops-token, key: token}
podAnnotations: {example.com/team: jobs}
# The SMTP password for alarm mails, as docs/kubernetes.md shows it.
extraVolumes:
  - name: smtp
    secret: {secretName: gnomon-smtp}
extraVolumeMounts:
  - {name: smtp, mountPath: /etc/gnomon/smtp, readOnly: true}
config:
  smtp-url: smtps://smtp.example.com:465
  smtp-user: gnomon
  smtp-password-file: /etc/gnomon/smtp/password
initContainers:
  - name: wait-for-db
    image: busybox:1.36
    command: [sh, -c, "until nc -z db.example 3306; do sleep 2; done"]
sidecars:
  - name: log-shipper
    image: fluent/fluent-bit:3.0
topologySpreadConstraints:
  - maxSkew: 1
    topologyKey: topology.kubernetes.io/zone
    whenUnsatisfiable: DoNotSchedule
    labelSelector: {matchLabels: {tier: gnomon}}
EOF
check_case extras -f "$work/extras-values.yaml"
check_case no-spread --set topologySpreadConstraints=null --set migrations.job.enabled=false \
  --set tests.enabled=false

# TLS: the certificate the chart generates (the default) with every consumer,
# turned off, from a Secret of the user's, or from cert-manager.
check_case tls-generated --set tls.requireClientCert=true \
  --set 'tls.certManager.extraDnsNames={gnomon.example.com}' --set 'tls.certManager.ipAddresses={10.1.2.3}' \
  --set sampleExecutor.enabled=true --set sampleExecutor.accessTokenSecret.name=t \
  --set metrics.serviceMonitor.enabled=true --set metrics.podMonitor.enabled=true --set networkPolicy.enabled=true \
  --set genericExecutor.enabled=true --set genericExecutor.app=ops --set genericExecutor.accessTokenSecret.name=t \
  --set 'genericExecutor.httpAllow={api.example.com}'
check_case tls-off --set tls.enabled=false
check_case tls-ports --set http.enabled=false --set metrics.enabled=false --set tls.serverName=gnomon.example.com \
  --set 'tls.certManager.extraDnsNames={gnomon.example.com}'
check_case tls-secret --set tls.enabled=true --set tls.existingSecret=gnomon-tls \
  --set tls.serverName=gnomon.example.com --set sampleExecutor.enabled=true \
  --set sampleExecutor.accessTokenSecret.name=t --set sampleExecutor.tls.existingSecret=executor-tls \
  --set metrics.serviceMonitor.enabled=true --set metrics.podMonitor.enabled=true
check_case tls-allinone --set allInOne=true --set tls.enabled=true --set tls.certManager.enabled=true \
  --set tls.certManager.issuerRef.name=ca
check_case tls-certmanager --set tls.enabled=true --set tls.certManager.enabled=true \
  --set tls.certManager.issuerRef.name=gnomon-ca --set tls.certManager.issuerRef.kind=ClusterIssuer \
  --set 'tls.certManager.extraDnsNames={gnomon.example.com}' --set tls.requireClientCert=true \
  --set sampleExecutor.enabled=true --set sampleExecutor.accessTokenSecret.name=t \
  --set metrics.serviceMonitor.enabled=true --set metrics.podMonitor.enabled=true --set networkPolicy.enabled=true \
  --set genericExecutor.enabled=true --set genericExecutor.app=ops --set genericExecutor.accessTokenSecret.name=t \
  --set 'genericExecutor.httpAllow={api.example.com}'

# The alerting rules: valid for Prometheus, and each alert fires when (and
# only when) it should (tests/deploy/alerts_test.yaml, default thresholds).
if render rules --set metrics.prometheusRule.enabled=true --show-only templates/prometheusrule.yaml &&
  $python -c 'import sys, yaml; yaml.safe_dump(yaml.safe_load(open(sys.argv[1]))["spec"], open(sys.argv[2], "w"))' \
    "$work/rules.yaml" "$work/rules-spec.yaml"; then
  mkdir -p "$work/promtool" && cp "$work/rules-spec.yaml" "$work/promtool/rules.yaml" &&
    cp "$here/alerts_test.yaml" "$work/promtool/"
  run "promtool check rules" promtool check rules "$work/promtool/rules.yaml"
  run "promtool test rules (every alert)" promtool test rules "$work/promtool/alerts_test.yaml"
else
  fail "render the PrometheusRule"
fi
# Every metric the rules and the dashboard use is one docs/metrics.md lists
# (which the metrics e2e test checks against what gnomond really serves).
run "rules and dashboard use only documented metrics" $python "$here/documented_metrics.py" \
  "$GNOMON_ROOT/docs/metrics.md" "$chart/files/alerts.yaml" "$chart/files/dashboard.json"

# The generated cluster token is random per install (upgrades keep it through
# lookup), and the pods' checksum follows the Secret's data: a render
# without cluster access (helm template) generates new tokens and a new
# checksum, so every pod rolls onto the new tokens together.
checksums() { grep 'checksum/secret:' "$1" | sort -u; }
if render tok1 && render tok2 && ! cmp -s <(grep 'cluster-token: "' "$work/tok1.yaml") \
  <(grep 'cluster-token: "' "$work/tok2.yaml"); then
  pass "cluster token generated per install"
else
  fail "cluster token generated per install: two renders gave the same token (or failed)"
fi
if [ "$(checksums "$work/tok1.yaml" | wc -l)" = 1 ] && ! cmp -s <(checksums "$work/tok1.yaml") <(checksums "$work/tok2.yaml"); then
  pass "checksum/secret: one per render, follows the generated tokens"
else
  fail "checksum/secret: one per render, follows the generated tokens"
  checksums "$work/tok1.yaml" "$work/tok2.yaml" | sed 's/^/     /'
fi
# A token given in values: the same value renders the same checksum, another
# value another one.
if render tokA --set clusterToken.value=token-aaaaaaaaaaaaaaaa --set adminToken.existingSecret=a &&
  render tokA2 --set clusterToken.value=token-aaaaaaaaaaaaaaaa --set adminToken.existingSecret=a &&
  render tokB --set clusterToken.value=token-bbbbbbbbbbbbbbbb --set adminToken.existingSecret=a &&
  cmp -s <(checksums "$work/tokA.yaml") <(checksums "$work/tokA2.yaml") &&
  ! cmp -s <(checksums "$work/tokA.yaml") <(checksums "$work/tokB.yaml"); then
  pass "checksum/secret changes when the cluster token changes, only then"
else
  fail "checksum/secret changes when the cluster token changes, only then"
fi
# GitOps: with the tokens and the store URL in Secrets of the operator's,
# renders without cluster access are identical (nothing random), so Argo CD
# or Flux sees no change and rolls nothing.
gitops=(--set store.existingSecret=gnomon-store --set clusterToken.existingSecret=gnomon-auth
  --set adminToken.existingSecret=gnomon-auth --set tls.existingSecret=gnomon-tls)
if render git1 "${gitops[@]}" && render git2 "${gitops[@]}" && cmp -s "$work/git1.yaml" "$work/git2.yaml"; then
  pass "GitOps: renders with operator-supplied Secrets are identical"
else
  fail "GitOps: renders with operator-supplied Secrets are identical"
  diff "$work/git1.yaml" "$work/git2.yaml" | head -20 | sed 's/^/     /'
fi

# Upgrades keep the token: a copy of the chart whose lookup returns the Secret
# given in values (helm template cannot reach a cluster) must reuse its token.
lookup_chart=$work/lookup-chart
cp -r "$chart" "$lookup_chart"
sed -i 's/lookup "v1" "Secret" .Release.Namespace (include "gnomon.secretName" .)/(.Values.testLookup | default dict)/' \
  "$lookup_chart/templates/_helpers.tpl"
kept=$(printf 'kept-token-from-the-first-install' | base64 -w0)
kept_admin=$(printf 'kept-admin-token-from-the-first-install' | base64 -w0)
if grep -q testLookup "$lookup_chart/templates/_helpers.tpl" &&
  "$helm" template g "$lookup_chart" --kube-version "$KUBE_VERSION" \
    --set "testLookup.data.cluster-token=$kept" --set "testLookup.data.admin-token=$kept_admin" \
    >"$work/lookup.yaml" 2>"$work/out" &&
  grep -q "cluster-token: \"$kept\"" "$work/lookup.yaml" &&
  grep -q "admin-token: \"$kept_admin\"" "$work/lookup.yaml" &&
  "$helm" template g "$lookup_chart" --kube-version "$KUBE_VERSION" \
    --set "testLookup.data.other=eA==" >"$work/lookup2.yaml" 2>>"$work/out" &&
  grep -q 'cluster-token: "' "$work/lookup2.yaml"; then
  pass "cluster and first admin tokens kept from the existing Secret on upgrade"
else
  fail "cluster and first admin tokens kept from the existing Secret on upgrade"
  sed 's/^/     /' "$work/out"
  grep -n cluster-token "$work/lookup.yaml" "$work/lookup2.yaml" 2>/dev/null | sed 's/^/     /'
fi
# The generated certificate likewise, from its own Secrets: kept while it
# names the Services and is not near expiry, else signed again by the kept CA.
tls_lookup_chart=$work/tls-lookup-chart
cp -r "$chart" "$tls_lookup_chart"
sed -i -e 's/lookup "v1" "Secret" .Release.Namespace (include "gnomon.tlsCaSecretName" .)/(.Values.testLookupTlsCa | default dict)/' \
  -e 's/lookup "v1" "Secret" .Release.Namespace (include "gnomon.tlsSecretName" .)/(.Values.testLookupTls | default dict)/' \
  "$tls_lookup_chart/templates/_helpers.tpl"
if [ "$(grep -c 'testLookupTls' "$tls_lookup_chart/templates/_helpers.tpl")" = 2 ]; then
  run "generated certificate: kept on upgrade, renewed by the kept CA (tls_upgrade.py)" \
    $python "$here/tls_upgrade.py" "$helm" "$tls_lookup_chart" "$work"
else
  fail "generated certificate on upgrade: the lookups of gnomon.generatedTls were not found to replace"
fi
# The TLS helm test's script, run offline against TLS and plaintext listeners.
if [ -f "$work/default.yaml" ] && [ -f "$work/tls-off.yaml" ]; then
  run "helm test Pod test-tls: passes TLS only, fails on a plaintext endpoint (tls_test_pod.py)" \
    $python "$here/tls_test_pod.py" "$work/default.yaml" "$work/tls-off.yaml"
fi
# ...and an upgrade that finds the same Secret renders the same checksum: no roll.
if "$helm" template g "$lookup_chart" --kube-version "$KUBE_VERSION" \
  --set "testLookup.data.cluster-token=$kept" --set "testLookup.data.admin-token=$kept_admin" \
  >"$work/lookup3.yaml" 2>"$work/out" && [ -n "$(checksums "$work/lookup.yaml")" ] &&
  cmp -s <(checksums "$work/lookup.yaml") <(checksums "$work/lookup3.yaml"); then
  pass "checksum/secret unchanged by an upgrade that keeps the tokens"
else
  fail "checksum/secret unchanged by an upgrade that keeps the tokens"
fi

# --- schema and guards reject bad values ----------------------------------------
expect_failure "schema: scheduler.replicas=-1" "scheduler.replicas" --set scheduler.replicas=-1
expect_failure "schema: log.replicas=two" "log.replicas" --set log.replicas=two
expect_failure "schema: image.pullPolicy=Sometimes" "pullPolicy" --set image.pullPolicy=Sometimes
expect_failure "schema: store.url=postgres://" "store.url" --set store.url=postgres://u@h/db
expect_failure "schema: port=70000" "port" --set port=70000
expect_failure "schema: short clusterToken.value" "clusterToken.value" --set clusterToken.value=short
expect_failure "schema: misspelt scheduler.replica" "replica" --set scheduler.replica=3
expect_failure "schema: allInOne=maybe" "allInOne" --set allInOne=maybe
expect_failure "schema: tls.enabled=maybe" "tls.enabled" --set tls.enabled=maybe
expect_failure "schema: tls.requireClientCert=yes" "requireClientCert" --set tls.requireClientCert=yes
expect_failure "schema: misspelt tls.existingSecrets" "existingSecrets" --set tls.existingSecrets=x
expect_failure "schema: tls.reloadInterval=soon" "reloadInterval" --set tls.reloadInterval=soon
expect_failure "schema: tls.certManager.privateKey.algorithm=DSA" "algorithm" \
  --set tls.certManager.privateKey.algorithm=DSA
expect_failure "schema: misspelt sampleExecutor.tls.secret" "secret" --set sampleExecutor.tls.secret=x
expect_failure "schema: image.digest not sha256" "digest" --set image.digest=latest
expect_failure "schema: topologySpreadConstraints without topologyKey" "topologyKey" \
  --set 'topologySpreadConstraints[0].maxSkew=1' --set 'topologySpreadConstraints[0].whenUnsatisfiable=ScheduleAnyway'
expect_failure "schema: extraVolumeMounts without mountPath" "mountPath" --set 'extraVolumeMounts[0].name=x'
expect_failure "schema: sidecars without name" "name" --set 'sidecars[0].image=x'
expect_failure "schema: misspelt migrations.job.enable" "enable" --set migrations.job.enable=false
expect_failure "schema: partitions=0" "partitions" --set partitions=0
expect_failure "schema: partitions=5000" "partitions" --set partitions=5000
expect_failure "guard: partitions through config" "set the chart's partitions value" \
  --set config.partitions=128
expect_failure "guard: SQLite with separate role pods" "SQLite" --set store.url=sqlite:/data/g.db
expect_failure "schema: tls.generated.validityDays=0" "validityDays" --set tls.generated.validityDays=0
expect_failure "schema: misspelt tls.generated.days" "days" --set tls.generated.days=30
expect_failure "guard: TLS from a Secret and cert-manager at once" "not both" --set tls.enabled=true \
  --set tls.existingSecret=x --set tls.certManager.enabled=true --set tls.certManager.issuerRef.name=ca
expect_failure "guard: cert-manager without an issuer" "tls.certManager.issuerRef.name" \
  --set tls.enabled=true --set tls.certManager.enabled=true
expect_failure "guard: sample executor without token Secret" "accessTokenSecret" --set sampleExecutor.enabled=true
expect_failure "guard: generic executor without app" "genericExecutor.app" --set genericExecutor.enabled=true \
  --set genericExecutor.accessTokenSecret.name=t
expect_failure "guard: generic executor without token Secret" "genericExecutor.accessTokenSecret.name" \
  --set genericExecutor.enabled=true --set genericExecutor.app=ops
expect_failure "schema: genericExecutor.httpAllow entry with a comma" "httpAllow" \
  --set 'genericExecutor.httpAllow[0]=a.example\,b.example'
expect_failure "schema: misspelt genericExecutor.httpAllowList" "httpAllowList" --set 'genericExecutor.httpAllowList={x}'
if "$helm" template g "$chart" --kube-version 1.23.0 >"$work/out" 2>&1; then
  fail "kubeVersion: Kubernetes 1.23 (no gRPC probes) accepted"
else
  pass "kubeVersion: Kubernetes 1.23 (no gRPC probes) refused"
fi

# --- NOTES.txt renders (via a copy of the chart that turns it into a ConfigMap) --
notes_chart=$work/notes-chart
cp -r "$chart" "$notes_chart"
{ echo '{{- define "gnomon-test.notes" }}'; cat "$chart/templates/NOTES.txt"; echo '{{- end }}'; } \
  >"$notes_chart/templates/_zz_notes.tpl"
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: notes\ndata:\n  notes: {{ include "gnomon-test.notes" . | toJson }}\n' \
  >"$notes_chart/templates/zz-notes.yaml"
check_notes() {  # check_notes NAME WANT... -- [helm args...]
  local name=$1
  shift
  local want=()
  while (($#)) && [ "$1" != "--" ]; do want+=("$1"); shift; done
  shift
  if ! "$helm" template g "$notes_chart" --namespace jobs --kube-version "$KUBE_VERSION" \
    --show-only templates/zz-notes.yaml "$@" >"$work/notes.yaml" 2>"$work/out"; then
    fail "NOTES $name: does not render"
    sed 's/^/     /' "$work/out"
    return
  fi
  $python -c 'import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))["data"]["notes"])' \
    "$work/notes.yaml" >"$work/notes.txt"
  local w ok=1
  for w in "${want[@]}"; do
    grep -qF -e "$w" "$work/notes.txt" || { ok=0; echo "     NOTES $name lacks: $w"; }
  done
  if ((ok)); then pass "NOTES $name"; else fail "NOTES $name"; sed 's/^/     | /' "$work/notes.txt"; fi
}
check_notes per-role "first admin token" "helm test g -n jobs" "port-forward svc/g-gnomon-scheduler 7070:7070" \
  "GNOMON_SERVER=g-gnomon-scheduler.jobs.svc:7070" "create secret generic g-gnomon-store" \
  "get secret g-gnomon -o jsonpath='{.data.admin-token}'" "g-gnomon-registry:7070" --
check_notes allinone "first admin token" "svc/g-gnomon 7070:7070" "get secret g-gnomon -o" -- \
  --set allInOne=true
check_notes own-admin-token "get secret ops-admin -o jsonpath='{.data.token}'" -- \
  --set adminToken.existingSecret=ops-admin --set adminToken.existingSecretKey=token
check_notes tls-generated "TLS is on" "generated by the chart" "secret g-gnomon-tls " "g-gnomon-tls-ca" --
check_notes tls-off "WARNING: TLS is off" "in plaintext" "helm test g -n jobs" "fails" -- --set tls.enabled=false
check_notes tls "TLS is on" "--tls-server-name g-gnomon-scheduler" "--ca ca.crt" "secret g-gnomon-tls" \
  "--cert client.crt" "exec deploy/g-gnomon-scheduler -- gnomonctl" "GNOMON_TLS_CERT" -- --set tls.enabled=true --set tls.certManager.enabled=true \
  --set tls.certManager.issuerRef.name=ca --set tls.requireClientCert=true

# --- the chart README: every value, generated from the schema -------------------
run "deploy/k8s/gnomon/README.md is current (deploy/k8s/readme.py)" $python "$GNOMON_ROOT/deploy/k8s/readme.py" --check
# The check itself: a stale README, or a value without a description, fails.
readme_copy=$work/readme-copy
mkdir -p "$readme_copy" && cp -r "$GNOMON_ROOT/deploy/k8s/readme.py" "$chart" "$readme_copy/"
echo "| stale |" >>"$readme_copy/gnomon/README.md"
if $python "$readme_copy/readme.py" --check >"$work/out" 2>&1; then
  fail "readme.py --check accepted a stale README"
else
  pass "readme.py --check refuses a stale README"
fi
$python - "$readme_copy/gnomon/values.schema.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
del s["properties"]["image"]["properties"]["digest"]["description"]
json.dump(s, open(sys.argv[1], "w"))
EOF
if ! $python "$readme_copy/readme.py" >"$work/out" 2>&1 && grep -q "image.digest: no description" "$work/out"; then
  pass "readme.py refuses a value without a description"
else
  fail "readme.py refuses a value without a description"
  sed 's/^/     /' "$work/out"
fi

# --- the image: no apt lists in layers, OCI labels, base pinned by digest ---------
dockerfile=$GNOMON_ROOT/deploy/docker/Dockerfile
run "Dockerfile hygiene (check_dockerfile.py)" $python "$here/check_dockerfile.py" "$dockerfile"
sed -e 's|rm -rf /var/lib/apt/lists/\*||' -e 's|@${BASE_DIGEST}||' "$dockerfile" >"$work/Dockerfile.bad"
if $python "$here/check_dockerfile.py" "$work/Dockerfile.bad" >"$work/out" 2>&1; then
  fail "check_dockerfile.py accepted apt lists left behind and an unpinned base"
elif grep -q "apt lists" "$work/out" && grep -q "not pinned" "$work/out"; then
  pass "check_dockerfile.py refuses apt lists left behind and an unpinned base"
else
  fail "check_dockerfile.py refused the broken Dockerfile for other reasons"
  sed 's/^/     /' "$work/out"
fi

# --- plain manifests ------------------------------------------------------------
if HELM=$helm "$manifests/generate.sh" "$work/gnomon.yaml" 2>"$work/out" &&
  diff -u "$manifests/gnomon.yaml" "$work/gnomon.yaml" >"$work/diff"; then
  pass "deploy/k8s/manifests/gnomon.yaml matches the chart"
else
  fail "deploy/k8s/manifests/gnomon.yaml is out of date: run deploy/k8s/manifests/generate.sh"
  head -40 "$work/out" "$work/diff" | sed 's/^/     /'
fi
if $python - "$manifests/gnomon.yaml" "$work/manifests.json" >"$work/out" 2>&1 <<'EOF'
import json, sys, yaml
objs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
json.dump(objs, open(sys.argv[2], "w"))
kinds = sorted(o["kind"] for o in objs)
want = ["Deployment", "PersistentVolumeClaim", "Secret", "Service", "Service", "ServiceAccount"]
if kinds != want:
    sys.exit(f"kinds {kinds}, want {want}")
dep = next(o for o in objs if o["kind"] == "Deployment")
args = dep["spec"]["template"]["spec"]["containers"][0]["args"]
if "--roles=scheduler,registry,log" not in args or dep["spec"]["replicas"] != 1:
    sys.exit(f"Deployment args {args} replicas {dep['spec']['replicas']}")
# The headless Service executors resolve (GNOMON_SCHEDULERS=gnomon-schedulers:7070)
# to reach the scheduler: the one pod.
svcs = {o["metadata"]["name"]: o for o in objs if o["kind"] == "Service"}
headless = svcs.get("gnomon-schedulers", {}).get("spec", {})
pod_labels = dep["spec"]["template"]["metadata"]["labels"]
if headless.get("clusterIP") != "None" or not headless.get("selector") or \
        any(pod_labels.get(k) != v for k, v in headless["selector"].items()):
    sys.exit(f"no headless Service gnomon-schedulers selecting the gnomond pod: {sorted(svcs)} {headless}")
# TLS on, from the Secret gnomon-tls the user creates: no key in the repository.
text = open(sys.argv[1]).read()
if "PRIVATE KEY" in text or "LS0tLS1CRUdJTi" in text or any(o.get("type") == "kubernetes.io/tls" for o in objs):
    sys.exit("a certificate or key in the plain manifests")
vols = [v["secret"]["secretName"] for v in dep["spec"]["template"]["spec"]["volumes"] if v["name"] == "tls"]
env = {e["name"]: e.get("value") for e in dep["spec"]["template"]["spec"]["containers"][0]["env"]}
if vols != ["gnomon-tls"] or env.get("GNOMON_TLS_CA") != "/etc/gnomon/tls/ca.crt":
    sys.exit(f"the plain manifests do not serve TLS from the Secret gnomon-tls: volumes {vols}")
EOF
then
  pass "plain manifests: all-in-one objects"
  jsons+=("$work/manifests.json")
else
  fail "plain manifests: all-in-one objects"
  sed 's/^/     /' "$work/out"
fi
# tls-cert.sh makes the certificate they need: signed by its CA, naming every
# Service of gnomon.yaml in each form (namespace "jobs"), localhost and
# 127.0.0.1, for server and client auth.
if bash "$manifests/tls-cert.sh" "$work/manifests-tls" jobs >"$work/out" 2>&1 &&
  PYTHONPATH=$here $python - "$manifests/gnomon.yaml" "$work/manifests-tls" >>"$work/out" 2>&1 <<'EOF'
import base64, sys, yaml
from cryptography import x509
from cryptography.x509.oid import ExtendedKeyUsageOID as EKU
import check_rendered as r
d = sys.argv[2]
b64 = lambda f: base64.b64encode(open(f"{d}/{f}", "rb").read()).decode()
leaf, root = r.pem_cert(b64("tls.crt")), r.pem_cert(b64("ca.crt"))
san = leaf.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
dns = set(san.get_values_for_type(x509.DNSName))
want = {"localhost"}
for o in yaml.safe_load_all(open(sys.argv[1])):
    if o and o["kind"] == "Service":
        n = o["metadata"]["name"]
        want |= {n, f"{n}.jobs", f"{n}.jobs.svc", f"{n}.jobs.svc.cluster.local"}
eku = set(leaf.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value)
bad = [f"lacks {sorted(want - dns)}"] if want - dns else []
bad += [] if [str(a) for a in san.get_values_for_type(x509.IPAddress)] == ["127.0.0.1"] else ["no IP 127.0.0.1"]
bad += [] if {EKU.SERVER_AUTH, EKU.CLIENT_AUTH} <= eku else [f"usages {eku}"]
bad += [] if r.signed_by(leaf, root) else ["tls.crt not signed by ca.crt"]
sys.exit("; ".join(bad) or None)
EOF
then
  pass "plain manifests: tls-cert.sh makes the certificate gnomon.yaml needs"
else
  fail "plain manifests: tls-cert.sh makes the certificate gnomon.yaml needs"
  sed 's/^/     /' "$work/out"
fi
if command -v kubectl >/dev/null && kubectl kustomize --help >/dev/null 2>&1; then
  if kubectl kustomize "$manifests" >"$work/kustomized.yaml" 2>"$work/out" &&
    $python -c 'import sys, yaml; k = sorted(d["kind"] for d in yaml.safe_load_all(open(sys.argv[1])) if d); sys.exit(0 if len(k) == 6 else f"kustomize gave {k}")' \
      "$work/kustomized.yaml" 2>>"$work/out"; then
    pass "kubectl kustomize deploy/k8s/manifests"
  else
    fail "kubectl kustomize deploy/k8s/manifests"
    sed 's/^/     /' "$work/out"
  fi
else
  echo "skip kubectl kustomize (kubectl not installed)"
fi

# --- every rendered object against the Kubernetes API schemas ---------------------
if ((${#jsons[@]})); then
  run "kubernetes-models: every rendered object valid" env NODE_PATH="$GNOMON_TOOLS_DIR/node_modules" \
    node "$here/validate_k8s.js" "${jsons[@]}"
  grep -h '^kubernetes-models:' "$work/out" | sed 's/^/     /'
  # The validator itself must catch a broken object.
  $python - "$work/tls-off.json" "$work/broken.json" <<'EOF'
import json, sys
objs = json.load(open(sys.argv[1]))  # TLS off: kubelet's gRPC probes
dep = next(o for o in objs if o["kind"] == "Deployment")
dep["spec"]["template"]["spec"]["containers"][0]["livenessProbe"]["grpc"]["port"] = "grpc"
json.dump([dep], open(sys.argv[2], "w"))
EOF
  if NODE_PATH="$GNOMON_TOOLS_DIR/node_modules" node "$here/validate_k8s.js" "$work/broken.json" >"$work/out" 2>&1; then
    fail "kubernetes-models: a string gRPC probe port was accepted"
  else
    pass "kubernetes-models: rejects a broken object"
  fi
  # ...and a broken cert-manager Certificate (not merely an unknown kind).
  $python - "$work/tls-certmanager.json" "$work/broken-cert.json" <<'EOF'
import json, sys
cert = next(o for o in json.load(open(sys.argv[1])) if o["kind"] == "Certificate")
cert["spec"]["usages"] = ["server-auth"]
json.dump([cert], open(sys.argv[2], "w"))
EOF
  if NODE_PATH="$GNOMON_TOOLS_DIR/node_modules" node "$here/validate_k8s.js" "$work/broken-cert.json" >"$work/out" 2>&1; then
    fail "kubernetes-models: a Certificate usage 'server-auth' was accepted"
  elif grep -q "usages" "$work/out"; then
    pass "kubernetes-models: rejects a broken Certificate"
  else
    fail "kubernetes-models: broken Certificate refused for another reason:"
    sed 's/^/     /' "$work/out"
  fi
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
