#!/usr/bin/env bash
# Makes the certificate the plain manifests (gnomon.yaml) use: a CA of your
# own and a certificate it signs for the Services "gnomon" and
# "gnomon-schedulers" in each form a client may dial, localhost and
# 127.0.0.1, extended key usages server and client auth (what the chart
# generates when installed with Helm). Needs openssl.
#   deploy/k8s/manifests/tls-cert.sh DIR [NAMESPACE [CLUSTER_DOMAIN]]
# writes DIR/ca.crt, DIR/ca.key, DIR/tls.crt and DIR/tls.key, then
#   kubectl -n NAMESPACE create secret generic gnomon-tls --type=kubernetes.io/tls \
#     --from-file=DIR/tls.crt --from-file=DIR/tls.key --from-file=DIR/ca.crt
# Keep ca.key out of the cluster (and of Git): it is only needed to sign a
# new certificate from the same CA (run again with the same DIR: the CA is
# kept when DIR/ca.key exists).
set -euo pipefail
[ $# -ge 1 ] || { sed -n '2,15p' "$0" >&2; exit 2; }
dir=$1 ns=${2:-default} domain=${3:-cluster.local}
mkdir -p "$dir"
umask 077
if [ ! -f "$dir/ca.key" ]; then
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 3650 \
    -subj /CN=gnomon-ca -keyout "$dir/ca.key" -out "$dir/ca.crt" 2>/dev/null
fi
names=""
for svc in gnomon gnomon-schedulers; do
  for form in "$svc" "$svc.$ns" "$svc.$ns.svc" "$svc.$ns.svc.$domain"; do names+="DNS:$form,"; done
done
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=gnomon \
  -keyout "$dir/tls.key" -out "$dir/tls.csr" 2>/dev/null
openssl x509 -req -in "$dir/tls.csr" -CA "$dir/ca.crt" -CAkey "$dir/ca.key" -CAcreateserial \
  -days 825 -out "$dir/tls.crt" -extfile <(printf '%s\n' \
    "subjectAltName=${names}DNS:localhost,IP:127.0.0.1" \
    "extendedKeyUsage=serverAuth,clientAuth" "keyUsage=critical,digitalSignature,keyEncipherment" \
    "basicConstraints=critical,CA:FALSE") 2>/dev/null
rm -f "$dir/tls.csr" "$dir/ca.srl"
echo "Wrote $dir/ca.crt, $dir/tls.crt, $dir/tls.key (and the CA's key, $dir/ca.key). Now:"
echo "  kubectl -n $ns create secret generic gnomon-tls --type=kubernetes.io/tls \\"
echo "    --from-file=$dir/tls.crt --from-file=$dir/tls.key --from-file=$dir/ca.crt"
