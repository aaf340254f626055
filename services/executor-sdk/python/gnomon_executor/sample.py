"""python3 -m gnomon_executor.sample: the sample executor's handlers in Python.

Handlers (as examples/sample_handlers.cc):
  demo      logs three lines including its params, succeeds
  invoice   logs "invoicing PARAMS", succeeds
  shell     runs params as a /bin/sh command, streams its output; exit code decides
  http      GETs the URL in params; 2xx succeeds
  sharding  logs "shard I of N"; params "fail-shard=N" fails shard N
  slow      sleeps params milliseconds, honouring cancellation, or ignoring it
            when params end with " ignore-cancel"
  fail      always fails with 500
  noop      does nothing and succeeds

Configuration from GNOMON_* (see README.md); prints
"gnomon-python-executor started as NAME" once started; stops gracefully on
SIGTERM/SIGINT.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time
import urllib.request
from typing import Callable, Dict

from . import Context, Executor, Options


def demo(ctx: Context) -> None:
    ctx.log("demo handler started")
    ctx.log("params: " + ctx.params)
    ctx.log("demo handler done")


def invoice(ctx: Context) -> None:
    ctx.log("invoicing " + ctx.params)


def shell(ctx: Context) -> None:
    if not ctx.params:
        ctx.set_result(500, "shell: params must be a command")
        return
    proc = subprocess.Popen(["/bin/sh", "-c", ctx.params], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)

    def reap() -> None:
        ctx.wait_cancelled(1e9)
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, 15)
            except ProcessLookupError:
                pass
    threading.Thread(target=reap, daemon=True).start()
    assert proc.stdout is not None
    for line in proc.stdout:
        ctx.log(line)
    code = proc.wait()
    if code != 0 and not ctx.cancelled:
        ctx.set_result(500, f"command exited with code {code}")


def http(ctx: Context) -> None:
    url = ctx.params.strip()
    if not url:
        ctx.set_result(500, "http: params must be a URL")
        return
    timeout = max(ctx.deadline - time.monotonic(), 0.001) if ctx.deadline else 60.0
    ctx.log("GET " + url)
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            body = resp.read(64 * 1024)
            status = resp.status
    except urllib.error.HTTPError as e:
        body, status = b"", e.code
    except Exception as e:  # noqa: BLE001 - any failure fails the run with its text
        ctx.set_result(500, f"http: {e}")
        return
    ctx.log(f"HTTP {status}, {len(body)} bytes")
    if body:
        ctx.log(body[:2048].decode("utf-8", "replace"))
    if not 200 <= status < 300:
        ctx.set_result(500, f"http: status {status}")


def sharding(ctx: Context) -> None:
    ctx.log(f"shard {ctx.shard_index} of {ctx.shard_total}")
    if ctx.params.startswith("fail-shard="):
        try:
            failing = int(ctx.params[len("fail-shard="):])
        except ValueError:
            return
        if failing == ctx.shard_index:
            ctx.set_result(500, f"sharding: shard {failing} fails on purpose")


def slow(ctx: Context) -> None:
    params = ctx.params
    ignore = params.endswith(" ignore-cancel")
    if ignore:
        params = params[: -len(" ignore-cancel")]
    try:
        ms = int(params)
        if ms < 0:
            raise ValueError
    except ValueError:
        ctx.set_result(500, "slow: params must be milliseconds, optionally followed by "
                            "' ignore-cancel'")
        return
    ctx.log(f"sleeping {ms} ms" + (" (ignoring cancellation)" if ignore else ""))
    end = time.monotonic() + ms / 1000.0
    while time.monotonic() < end:
        step = min(0.02, end - time.monotonic())
        if ignore:
            time.sleep(max(step, 0))
        elif ctx.wait_cancelled(max(step, 0)):
            ctx.log("cancelled: " + ctx.cancel_reason)
            return
    ctx.log("slept")


def noop(ctx: Context) -> None:
    pass


def fail(ctx: Context) -> None:
    ctx.log("this handler always fails")
    ctx.set_result(500, "fail handler: failed on purpose")


HANDLERS: Dict[str, Callable[[Context], None]] = {
    "demo": demo, "invoice": invoice, "shell": shell, "http": http, "sharding": sharding,
    "slow": slow, "fail": fail, "noop": noop}


def counted(fn: Callable[[Context], None], fd: int) -> Callable[[Context], None]:
    """Appends "run_id job_id attempt" to the invocations file, then runs fn."""
    def wrapper(ctx: Context) -> None:
        os.write(fd, f"{ctx.run_id} {ctx.job_id} {ctx.attempt}\n".encode())
        fn(ctx)
    return wrapper


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m gnomon_executor.sample",
                                description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--name", help="executor name (GNOMON_EXECUTOR_NAME; default hostname:pid)")
    p.add_argument("--spool-dir", help="durable result spool (GNOMON_SPOOL_DIR)")
    p.add_argument("--invocations-file", default="",
                   help='append "run_id job_id attempt" here at every handler invocation')
    p.add_argument("--max-concurrent-runs", type=int, default=16)
    p.add_argument("--max-queued-runs", type=int, default=65536)
    p.add_argument("--max-queued-runs-per-job", type=int, default=256)
    p.add_argument("--shutdown-grace", type=float, default=30.0, help="seconds")
    p.add_argument("--stubs-dir", default=None,
                   help="generated stubs (GNOMON_PY_STUBS; default: generated from proto/)")
    p.add_argument("--tls-ca", help="PEM roots verifying gnomond (GNOMON_TLS_CA)")
    p.add_argument("--tls-cert", help="PEM client certificate presented to gnomond, for "
                                      "mutual TLS (GNOMON_TLS_CERT)")
    p.add_argument("--tls-key", help="PEM key of --tls-cert (GNOMON_TLS_KEY)")
    p.add_argument("--tls-server-name", help="name gnomond's certificate must carry; empty: "
                                             "the host dialled (GNOMON_TLS_SERVER_NAME)")
    args = p.parse_args(argv)
    # A flag given overrides its variable.
    env = dict(os.environ)
    for flag, var in (("tls_ca", "GNOMON_TLS_CA"), ("tls_cert", "GNOMON_TLS_CERT"),
                      ("tls_key", "GNOMON_TLS_KEY"),
                      ("tls_server_name", "GNOMON_TLS_SERVER_NAME")):
        if getattr(args, flag) is not None:
            env[var] = getattr(args, flag)
    try:
        options = Options.from_env(env)
    except ValueError as e:
        print(f"gnomon-python-executor: {e}", file=sys.stderr)
        return 2
    if args.name:
        options.executor_name = args.name
    if args.spool_dir:
        options.spool_dir = args.spool_dir
    options.max_concurrent_runs = args.max_concurrent_runs
    options.max_queued_runs = args.max_queued_runs
    options.max_queued_runs_per_job = args.max_queued_runs_per_job
    if not options.access_token:
        print("gnomon-python-executor: GNOMON_ACCESS_TOKEN is required", file=sys.stderr)
        return 2
    executor = Executor(options, stubs_dir=args.stubs_dir)
    fd = -1
    if args.invocations_file:
        fd = os.open(args.invocations_file, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    for name, fn in HANDLERS.items():
        executor.add_handler(name, counted(fn, fd) if fd >= 0 else fn)
    try:
        executor.start()
    except ValueError as e:
        print(f"gnomon-python-executor: {e}", file=sys.stderr)
        return 2
    print(f"gnomon-python-executor started as {executor.name}", flush=True)
    executor.run(args.shutdown_grace)
    return 0


if __name__ == "__main__":
    sys.exit(main())
