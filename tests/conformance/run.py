#!/usr/bin/env python3
"""Executor conformance suite: runs tests/conformance against any executor.

  /usr/bin/python3 tests/conformance/run.py --gnomond PATH --gnomonctl PATH \\
      --executor "CMD ARGS..." [-k PATTERN] [-v]

The executor command reads GNOMON_APP, GNOMON_REGISTRY, GNOMON_ACCESS_TOKEN,
GNOMON_EXECUTOR_NAME and GNOMON_SPOOL_DIR, accepts `--invocations-file FILE`
(appended), and prints a line containing "started as" once started.

Python stubs of proto/gnomon/v1/{common,executor,registry,log}.proto are
generated into a temporary directory; GNOMON_PY_STUBS names it in the
executor's environment (the Python executor uses it; others ignore it), and
the repository's services/executor-sdk/python is put on its PYTHONPATH.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
PROTOS = ("common", "executor", "registry", "log")


def generate_stubs(out: str) -> None:
    from grpc_tools import protoc
    proto = os.path.join(ROOT, "proto")
    include = os.path.join(os.path.dirname(protoc.__file__), "_proto")
    files = [os.path.join(proto, "gnomon", "v1", p + ".proto") for p in PROTOS]
    if protoc.main(["protoc", f"-I{proto}", f"-I{include}", f"--python_out={out}",
                    f"--grpc_python_out={out}", *files]) != 0:
        raise SystemExit("conformance: protoc failed")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--gnomond", required=True)
    p.add_argument("--gnomonctl", required=True)
    p.add_argument("--executor", required=True, help="the executor's command line (one string)")
    p.add_argument("-k", action="append", default=[], help="only tests matching (unittest -k)")
    p.add_argument("-v", action="store_true")
    args = p.parse_args()

    sys.dont_write_bytecode = True  # no __pycache__ in the source tree
    stubs = tempfile.mkdtemp(prefix="gnomon-conformance-stubs-")
    try:
        generate_stubs(stubs)
        sys.path[:0] = [stubs, HERE]
        import harness
        sdk = os.path.join(ROOT, "services", "executor-sdk", "python")
        pythonpath = os.pathsep.join(x for x in (sdk, os.environ.get("PYTHONPATH", "")) if x)
        harness.CONFIG.update(gnomond=os.path.abspath(args.gnomond),
                              gnomonctl=os.path.abspath(args.gnomonctl),
                              executor=args.executor,
                              env={"GNOMON_PY_STUBS": stubs, "PYTHONPATH": pythonpath,
                                   "PYTHONDONTWRITEBYTECODE": "1"})
        loader = unittest.TestLoader()
        if args.k:
            loader.testNamePatterns = [f"*{k}*" for k in args.k]
        suite = unittest.TestSuite()
        for name in ("test_fake", "test_real"):
            suite.addTests(loader.loadTestsFromName(name))
        start = time.monotonic()
        result = unittest.TextTestRunner(verbosity=2 if args.v else 1).run(suite)
        print(f"conformance: {result.testsRun} checks against {args.executor!r} in "
              f"{time.monotonic() - start:.1f}s")
        return 0 if result.wasSuccessful() else 1
    finally:
        shutil.rmtree(stubs, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
