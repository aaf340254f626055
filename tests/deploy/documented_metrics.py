"""Checks that files use only metrics docs/metrics.md documents (which
metrics_e2e_test checks against what gnomond and an executor expose, so a
dashboard query or alert naming anything else fails here).

  documented_metrics.py docs/metrics.md FILE...

A name used with a histogram suffix (_bucket, _sum, _count) counts as its
family. Prints what is missing and exits 1 if anything is.
"""
import re
import sys

# gnomon's own families, grpc-ecosystem's gRPC server ones and the
# conventional process ones: every family a gnomon process exports.
NAME = r"(?:gnomon|grpc_server|process)_[a-z_]+"
documented = set(re.findall(rf"`({NAME})`", open(sys.argv[1]).read()))
used = set()
for path in sys.argv[2:]:
    for name in re.findall(rf"\b({NAME})", open(path).read()):
        used.add(re.sub(r"_(bucket|sum|count)$", "", name))
missing = sorted(used - documented)
if missing:
    print("not in docs/metrics.md:", ", ".join(missing))
    sys.exit(1)
print(f"{len(used)} metrics used, all documented")
