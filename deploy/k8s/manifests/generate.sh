#!/usr/bin/env bash
# Regenerates gnomon.yaml, the all-in-one install as plain manifests, from the
# Helm chart (allInOne=true, objects named "gnomon"), so the two never drift.
# tests/deploy/helm_test.sh fails when gnomon.yaml is out of date.
#   deploy/k8s/manifests/generate.sh [OUTPUT]     (default: gnomon.yaml here)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../../../scripts/lib.sh"
out=${1:-$here/gnomon.yaml}
helm=${HELM:-$GNOMON_HELM}
[ -x "$helm" ] || { echo "generate.sh: no helm at $helm (source scripts/lib.sh; install_k8s_tools)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HELM_CACHE_HOME=$tmp/cache HELM_CONFIG_HOME=$tmp/config HELM_DATA_HOME=$tmp/data
{
  echo "# gnomon, all roles in one pod with SQLite on a PersistentVolumeClaim."
  echo "# Generated from deploy/k8s/gnomon by deploy/k8s/manifests/generate.sh; do not edit."
  echo "# Install: kubectl apply -k deploy/k8s/manifests  (see docs/kubernetes.md, \"Without Helm\")"
  echo "# TLS is on. The certificate is the Secret gnomon-tls (tls.crt, tls.key, ca.crt),"
  echo "# which you create before applying: deploy/k8s/manifests/tls-cert.sh makes one."
  echo "# A generated certificate cannot be part of this file: its private key would"
  echo "# be in the repository, the same for every install."
  "$helm" template gnomon "$here/../gnomon" --kube-version 1.27.0 \
    --set allInOne=true --set fullnameOverride=gnomon --set adminToken.existingSecret=gnomon-admin-token \
    --set tls.existingSecret=gnomon-tls --set tests.enabled=false |
    grep -v -e '^# Source:' -e 'helm.sh/chart:' -e 'app.kubernetes.io/managed-by:' \
      -e 'app.kubernetes.io/instance:'
} >"$tmp/out.yaml"
mv "$tmp/out.yaml" "$out"
