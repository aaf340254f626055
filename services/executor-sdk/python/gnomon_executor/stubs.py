"""Locating (or generating) the Python protobuf/gRPC stubs of proto/gnomon/v1.

Generated code is never committed. The stubs live in a directory holding
``gnomon/v1/*_pb2.py``; it is found, in order, from the ``stubs_dir``
argument of :func:`load`, the ``GNOMON_PY_STUBS`` environment variable, or
generated on the fly into a temporary directory from ``GNOMON_PROTO_DIR``
(default: the repository's ``proto/`` next to this package) with
``grpc_tools.protoc``.
"""
from __future__ import annotations

import importlib
import os
import sys
import tempfile
import types
from typing import Optional

_HERE = os.path.dirname(os.path.abspath(__file__))
PROTOCOL_FILES = ("common", "executor", "registry", "log")
_DEFAULT_PROTO_DIR = os.path.normpath(os.path.join(_HERE, "..", "..", "..", "..", "proto"))


def generate(proto_dir: str, out_dir: str) -> None:
    """Runs protoc (grpc_tools) on proto_dir/gnomon/v1/*.proto into out_dir."""
    from grpc_tools import protoc  # type: ignore

    os.makedirs(out_dir, exist_ok=True)
    # Only the executor protocol's files: admin.proto uses proto3 `optional`,
    # which older protoc releases (Debian's python3-grpc-tools) refuse.
    protos = [os.path.join(proto_dir, "gnomon", "v1", f + ".proto") for f in PROTOCOL_FILES]
    missing = [p for p in protos if not os.path.exists(p)]
    if missing:
        raise RuntimeError(f"missing protos: {missing}")
    include = os.path.join(os.path.dirname(protoc.__file__), "_proto")
    args = ["protoc", f"-I{proto_dir}", f"-I{include}", f"--python_out={out_dir}",
            f"--grpc_python_out={out_dir}", *protos]
    if protoc.main(args) != 0:
        raise RuntimeError("protoc failed on " + proto_dir)


def load(stubs_dir: Optional[str] = None) -> types.SimpleNamespace:
    """Imports the stubs; returns a namespace with the modules
    ``common``, ``executor``, ``registry``, ``log`` (``*_pb2``) and
    ``executor_grpc``, ``registry_grpc``, ``log_grpc`` (``*_pb2_grpc``)."""
    path = stubs_dir or os.environ.get("GNOMON_PY_STUBS", "")
    if not path:
        proto_dir = os.environ.get("GNOMON_PROTO_DIR", _DEFAULT_PROTO_DIR)
        path = tempfile.mkdtemp(prefix="gnomon-py-stubs-")
        generate(proto_dir, path)
    if path not in sys.path:
        sys.path.insert(0, path)
    ns = types.SimpleNamespace()
    for name in ("common", "executor", "registry", "log"):
        setattr(ns, name, importlib.import_module(f"gnomon.v1.{name}_pb2"))
    for name in ("executor", "registry", "log"):
        setattr(ns, name + "_grpc", importlib.import_module(f"gnomon.v1.{name}_pb2_grpc"))
    return ns
