"""Checks that files use only metrics docs/metrics.md documents.

  documented_metrics.py docs/metrics.md FILE...

A name used with a histogram suffix (_bucket, _sum, _count) counts as its
family. Prints what is missing and exits 1 if anything is.
"""
import re
import sys

documented = set(re.findall(r"`(gnomon_[a-z_]+)`", open(sys.argv[1]).read()))
used = set()
for path in sys.argv[2:]:
    for name in re.findall(r"\b(gnomon_[a-z_]+)", open(path).read()):
        used.add(re.sub(r"_(bucket|sum|count)$", "", name))
missing = sorted(used - documented)
if missing:
    print("not in docs/metrics.md:", ", ".join(missing))
    sys.exit(1)
print(f"{len(used)} metrics used, all documented")
