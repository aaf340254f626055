"""Hygiene of deploy/docker/Dockerfile, checked without docker (none runs in CI).

  check_dockerfile.py Dockerfile

- every RUN that runs apt-get update/install installs with
  --no-install-recommends and removes /var/lib/apt/lists/* in the same RUN
  (a later RUN cannot shrink an earlier layer);
- the runtime (last) stage's base is pinned by digest: FROM ${BASE_IMAGE}
  with ARG BASE_IMAGE=<name>@${BASE_DIGEST} (or a literal @sha256:), the
  ARG BASE_DIGEST declared with no default and the form
  debian:12-slim@sha256:... documented in the file;
- OCI labels org.opencontainers.image.{title,version,revision,created,source,
  base.name,base.digest}, version/revision/created from build arguments;
- the runtime stage runs as a non-root user.
Prints one line per problem; exits 1 if any.
"""
import re
import sys

problems = []


def instructions(text):
    """(keyword, argument) per instruction, continuation lines joined, comments dropped."""
    out, cur = [], ""
    for line in text.splitlines():
        if not cur and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.lstrip().startswith("#"):
            continue
        cur += line.rstrip("\\").rstrip() + " " if line.endswith("\\") else line
        if not line.endswith("\\"):
            kw, _, arg = cur.strip().partition(" ")
            out.append((kw.upper(), arg.strip()))
            cur = ""
    return out


def main():
    text = open(sys.argv[1]).read()
    ins = instructions(text)
    froms = [i for i, (kw, _) in enumerate(ins) if kw == "FROM"]
    if not froms:
        sys.exit("no FROM")
    global_args = {}
    for kw, arg in ins[: froms[0]]:
        if kw == "ARG":
            name, eq, default = arg.partition("=")
            global_args[name] = default if eq else None
    runtime = ins[froms[-1]:]

    for kw, arg in ins:
        if kw == "RUN" and re.search(r"apt-get\s+(-\S+\s+)*(update|install)", arg):
            if "install" in arg and "--no-install-recommends" not in arg:
                problems.append(f"RUN installs without --no-install-recommends: {arg[:80]}")
            if not re.search(r"rm -rf[^&;]*/var/lib/apt/lists/\*", arg):
                problems.append(f"RUN leaves apt lists in its layer (rm -rf /var/lib/apt/lists/*): {arg[:80]}")

    base = runtime[0][1].split()[0]
    pinned = "@sha256:" in base
    m = re.fullmatch(r"\$\{?(\w+)\}?", base)
    if m:
        default = global_args.get(m.group(1)) or ""
        pinned = "@sha256:" in default or bool(re.search(r"@\$\{?BASE_DIGEST\}?$", default))
    if not pinned:
        problems.append(f"runtime stage FROM {base} is not pinned by digest (…@${{BASE_DIGEST}} or @sha256:)")
    if "BASE_DIGEST" in global_args and global_args["BASE_DIGEST"] not in (None, ""):
        if not re.fullmatch(r"sha256:[0-9a-f]{64}", global_args["BASE_DIGEST"]):
            problems.append(f"ARG BASE_DIGEST default {global_args['BASE_DIGEST']} is not sha256:<64 hex>")
    if not re.search(r"debian:12-slim@sha256:", text):
        problems.append("the pinned form debian:12-slim@sha256:... is not documented in the Dockerfile")

    labels = " ".join(arg for kw, arg in runtime if kw == "LABEL")
    for key in ("title", "version", "revision", "created", "source", "base.name", "base.digest"):
        if f"org.opencontainers.image.{key}=" not in labels:
            problems.append(f"no LABEL org.opencontainers.image.{key} in the runtime stage")
    runtime_args = {arg.partition("=")[0] for kw, arg in runtime if kw == "ARG"}
    for key, var in (("version", "VERSION"), ("revision", "REVISION"), ("created", "CREATED")):
        if var not in runtime_args or not re.search(rf'image\.{key}="?\$\{{?{var}\}}?', labels):
            problems.append(f"org.opencontainers.image.{key} is not the build argument {var}")

    users = [arg for kw, arg in runtime if kw == "USER"]
    if not users or users[-1].split(":")[0] in ("root", "0"):
        problems.append(f"runtime stage runs as {users[-1] if users else 'root'}")

    for p in problems:
        print(f"FAIL {p}")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
