#!/usr/bin/python3
"""Writes deploy/k8s/gnomon/README.md: every chart value, from values.schema.json
(its descriptions and types) and values.yaml (its defaults).

  deploy/k8s/readme.py           rewrite the README
  deploy/k8s/readme.py --check   exit 1 if the committed README differs (tests/deploy)

Fails, naming them, on a value of values.yaml the schema does not describe
and on a schema property without a description, so a new value cannot be
added without documenting it. Needs /usr/bin/python3 with yaml (python3-yaml).
"""
import json
import os
import sys

import yaml

CHART = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gnomon")
README = os.path.join(CHART, "README.md")

HEADER = """# The gnomon Helm chart

Generated from `values.schema.json` and `values.yaml` by `deploy/k8s/readme.py`;
do not edit (`tests/deploy/helm_test.sh` fails when this file is out of date).
How to install, upgrade (migrations, the GitOps path for the tokens) and
scale: [docs/kubernetes.md](../../../docs/kubernetes.md).

```
helm install gnomon deploy/k8s/gnomon -n jobs --create-namespace \\
  --set store.existingSecret=gnomon-store \\
  --set image.repository=registry.example.com/gnomon/gnomond --set image.tag=0.1.0
helm test gnomon -n jobs
```

## Values

| value | type | default | description |
|---|---|---|---|
"""


def resolve(node, defs):
    if "$ref" in node:
        target = dict(defs[node["$ref"].split("/")[-1]])
        target.update({k: v for k, v in node.items() if k != "$ref"})
        return target
    return node


def type_of(node):
    if "enum" in node:
        return " | ".join(json.dumps(v) for v in node["enum"])
    t = node.get("type", "")
    return " | ".join(t) if isinstance(t, list) else t


def cell(text):
    return str(text).replace("|", "\\|").replace("<", "&lt;").replace("\n", " ")


def default_of(values, path):
    v = values
    for part in path.split("."):
        if not isinstance(v, dict) or part not in v:
            return ""
        v = v[part]
    if isinstance(v, (dict, list)) and len(json.dumps(v)) > 60:
        return "see values.yaml"
    return f"`{cell(json.dumps(v))}`"


def rows(schema, values):
    defs = schema.get("definitions", {})
    out, problems = [], []

    def walk(node, path, vals):
        shared = "$ref" in node  # A shared type (resources, ...): one row.
        node = resolve(node, defs)
        props = None if shared else node.get("properties")
        if path:
            if not node.get("description"):
                problems.append(f"{path}: no description in values.schema.json")
            default = "" if props else default_of(values, path)
            out.append(f"| `{path}` | {cell(type_of(node) or 'object')} | {default} | {cell(node.get('description', ''))} |")
        if not props:
            return
        for key in (vals or {}) if isinstance(vals, dict) else {}:
            if key not in props:
                problems.append(f"{path + '.' if path else ''}{key}: in values.yaml, not in values.schema.json")
        for key, child in props.items():
            walk(child, f"{path}.{key}" if path else key, vals.get(key) if isinstance(vals, dict) else None)

    walk(schema, "", values)
    return out, problems


def render():
    schema = json.load(open(os.path.join(CHART, "values.schema.json")))
    values = yaml.safe_load(open(os.path.join(CHART, "values.yaml")))
    out, problems = rows(schema, values)
    if problems:
        sys.exit("readme.py:\n  " + "\n  ".join(problems))
    return HEADER + "\n".join(out) + "\n"


def main():
    text = render()
    if sys.argv[1:] == ["--check"]:
        current = open(README).read() if os.path.exists(README) else ""
        if current != text:
            sys.exit(f"{README} is out of date: run deploy/k8s/readme.py")
        return
    with open(README, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
