"""The generated certificate across upgrades, used by helm_test.sh.

  tls_upgrade.py HELM CHART WORKDIR

CHART is a copy of the chart whose two lookups of the generated Secrets
read .Values.testLookupTls and .Values.testLookupTlsCa instead (helm
template cannot reach a cluster). Renders an install, then "upgrades" that
find its Secrets, and checks: an unchanged release keeps the CA and the
certificate byte for byte; new Service names, or a certificate near its
expiry, get a new certificate signed by the same CA (ca.crt unchanged);
without the CA's Secret a new CA is made. Prints one line per failure.
"""
import base64
import os
import subprocess
import sys

import yaml
from cryptography import x509

import check_rendered as r

helm, chart, work = sys.argv[1:4]
failures = []


def render(name, *args):
    out = subprocess.run([helm, "template", "g", chart, "--namespace", "jobs", "--kube-version", "1.27.0",
                          "--show-only", "templates/tls-secret.yaml", *args],
                         capture_output=True, text=True)
    if out.returncode:
        failures.append(f"{name}: helm template failed: {out.stderr.strip()}")
        return None
    secrets = {d["metadata"]["name"]: d for d in yaml.safe_load_all(out.stdout) if d}
    return secrets.get("g-gnomon-tls"), secrets.get("g-gnomon-tls-ca")


def found(name, tls, ca):
    """Values making the copy's lookups find these Secrets, as the cluster would hold them."""
    path = os.path.join(work, f"{name}.yaml")
    strip = lambda s: {"metadata": {"name": s["metadata"]["name"], "annotations": s["metadata"].get("annotations", {})},
                       "data": s["data"]}
    values = {}
    if tls:
        values["testLookupTls"] = strip(tls)
    if ca:
        values["testLookupTlsCa"] = strip(ca)
    with open(path, "w") as f:
        yaml.safe_dump(values, f)
    return ["-f", path]


def cert(secret, key="tls.crt"):
    return x509.load_pem_x509_certificate(base64.b64decode(secret["data"][key]))


def want(cond, what):
    if not cond:
        failures.append(what)


first = render("install")
if first and all(first):
    tls, ca = first
    # An upgrade that finds both Secrets: nothing changes.
    again = render("upgrade", *found("both", tls, ca))
    if again and all(again):
        want(again[0]["data"] == tls["data"], "upgrade: the certificate changed though nothing asked for it")
        want(again[1]["data"] == ca["data"], "upgrade: the CA changed")
        want(again[0]["metadata"]["annotations"] == tls["metadata"]["annotations"], "upgrade: annotations changed")
    # New Service names (all in one): a new certificate from the same CA, naming them.
    moved = render("names changed", "--set", "allInOne=true", *found("both", tls, ca))
    if moved and all(moved):
        want(moved[1]["data"] == ca["data"], "names changed: the CA changed")
        want(moved[0]["data"]["ca.crt"] == tls["data"]["ca.crt"], "names changed: ca.crt changed")
        want(moved[0]["data"]["tls.crt"] != tls["data"]["tls.crt"], "names changed: the certificate was kept")
        leaf = cert(moved[0])
        dns = leaf.extensions.get_extension_for_class(x509.SubjectAlternativeName).value.get_values_for_type(x509.DNSName)
        want("g-gnomon" in dns, f"names changed: new certificate lacks g-gnomon: {dns}")
        want(r.signed_by(leaf, cert(ca)), "names changed: new certificate not signed by the kept CA")
    # Near its expiry (fewer than renewBeforeDays left): renewed, same CA.
    old = dict(tls, metadata=dict(tls["metadata"], annotations=dict(tls["metadata"]["annotations"])))
    old["metadata"]["annotations"]["gnomon/not-after"] = "2020-01-01T00:00:00Z"
    renewed = render("near expiry", *found("expiring", old, ca))
    if renewed and all(renewed):
        want(renewed[0]["data"]["tls.crt"] != tls["data"]["tls.crt"], "near expiry: the certificate was kept")
        want(renewed[0]["data"]["ca.crt"] == tls["data"]["ca.crt"], "near expiry: ca.crt changed")
        want(r.signed_by(cert(renewed[0]), cert(ca)), "near expiry: new certificate not signed by the kept CA")
        want(renewed[0]["metadata"]["annotations"]["gnomon/not-after"] > "2027",
             f"near expiry: not-after {renewed[0]['metadata']['annotations']['gnomon/not-after']}")
    # A longer renewal window than what is left: renewed too.
    window = render("renewBeforeDays", "--set", "tls.generated.renewBeforeDays=900", *found("both", tls, ca))
    if window and all(window):
        want(window[0]["data"]["tls.crt"] != tls["data"]["tls.crt"], "renewBeforeDays 900 > 825: the certificate was kept")
    # The TLS Secret without the CA's (deleted by hand): a new CA and certificate.
    fresh = render("CA gone", *found("no-ca", tls, None))
    if fresh and all(fresh):
        want(fresh[1]["data"]["tls.crt"] != ca["data"]["tls.crt"], "CA gone: the old CA reappeared")
        want(fresh[0]["data"]["ca.crt"] == fresh[1]["data"]["tls.crt"], "CA gone: ca.crt is not the new CA")
        want(r.signed_by(cert(fresh[0]), cert(fresh[1])), "CA gone: certificate not signed by the new CA")
else:
    failures.append("install: no generated Secrets g-gnomon-tls and g-gnomon-tls-ca")
for f in failures:
    print(f"FAIL {f}")
sys.exit(1 if failures else 0)
