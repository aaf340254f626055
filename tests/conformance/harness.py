"""Processes for the conformance suite: a real gnomond, gnomonctl, executors."""
from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import tempfile
import threading
import time
from typing import Callable, Dict, List, Optional

# Set by run.py.
CONFIG: Dict[str, object] = {"gnomond": "", "gnomonctl": "", "executor": "", "env": {}}
POLL = 0.1


def wait_for(cond: Callable[[], object], timeout: float = 30.0, what: str = "condition"):
    """Polls cond every POLL seconds until it returns something truthy."""
    end = time.monotonic() + timeout
    while True:
        v = cond()
        if v:
            return v
        if time.monotonic() >= end:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(POLL)


class Process:
    """A child process whose merged stdout/stderr is collected by a thread."""

    def __init__(self, argv: List[str], env: Optional[Dict[str, str]] = None):
        self.argv = argv
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     env=env, text=True, errors="replace",
                                     start_new_session=True)
        self._lines: List[str] = []
        self._cv = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            with self._cv:
                self._lines.append(line.rstrip("\n"))
                self._cv.notify_all()

    def output(self) -> str:
        with self._cv:
            return "\n".join(self._lines)

    def wait_line(self, needle: str, timeout: float = 30.0) -> str:
        end = time.monotonic() + timeout
        with self._cv:
            while True:
                for line in self._lines:
                    if needle in line:
                        return line
                left = end - time.monotonic()
                if left <= 0 or self.proc.poll() is not None and not self._more():
                    raise AssertionError(f"{self.argv[0]}: no line with {needle!r}; output:\n"
                                         + "\n".join(self._lines[-40:]))
                self._cv.wait(min(left, 0.2))

    def _more(self) -> bool:
        return False

    def signal(self, sig: int) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)

    def wait(self, timeout: float = 60.0) -> int:
        return self.proc.wait(timeout)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


class Gnomond:
    """A real gnomond on a SQLite store in dir; restartable on the same port."""

    def __init__(self, directory: str):
        self.dir = directory
        self.listen = "127.0.0.1:0"
        self.address = ""
        self.token = ""
        self.proc: Optional[Process] = None

    def start(self) -> None:
        argv = [str(CONFIG["gnomond"]), f"--listen={self.listen}",
                f"--store=sqlite:{self.dir}/g.db", f"--admin-token-file={self.dir}/admin.token",
                "--beat-interval=500ms"]
        self.proc = Process(argv)
        line = self.proc.wait_line("gnomond listening on", 30)
        self.address = line.split(" on ", 1)[1].split()[0]
        self.listen = self.address
        with open(os.path.join(self.dir, "admin.token")) as f:
            self.token = f.read().strip()

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.stop()

    def ctl(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        argv = [str(CONFIG["gnomonctl"]), "--server", self.address, "--token", self.token,
                *args]
        r = subprocess.run(argv, capture_output=True, text=True, timeout=60)
        if check and r.returncode != 0:
            raise AssertionError(f"gnomonctl {' '.join(args)} exited {r.returncode}: "
                                 f"{r.stderr}{r.stdout}")
        return r

    def json(self, *args: str) -> dict:
        out = self.ctl(*args, "-o", "json").stdout
        return json.JSONDecoder().raw_decode(out.lstrip())[0]  # text may follow the document

    # -- conveniences --
    def group(self, app: str) -> str:
        """Creates a group; returns its access token."""
        return self.json("group", "create", app)["access_token"]

    def group_id(self, app: str) -> str:
        for g in self.json("group", "list").get("groups", []):
            if g.get("app_name") == app:
                return g["id"]
        raise AssertionError(f"no group {app}")

    def job(self, app: str, handler: str, params: str = "", *extra: str) -> str:
        args = ["job", "create", "--group", self.group_id(app), "--handler", handler, "--manual"]
        if params:
            args += ["--params", params]
        return self.json(*args, *extra)["id"]

    def trigger(self, job: str, *extra: str) -> List[str]:
        return self.json("job", "trigger", job, *extra)["run_ids"]

    def run(self, run_id: str) -> dict:
        return self.json("run", "get", run_id)

    def wait_run(self, run_id: str, pred: Callable[[dict], bool], timeout: float = 30.0,
                 what: str = "") -> dict:
        last: Dict[str, dict] = {}

        def check():
            last["r"] = self.run(run_id)
            return last["r"] if pred(last["r"]["run"]) else None
        try:
            return wait_for(check, timeout, what or f"run {run_id}")
        except AssertionError as e:
            raise AssertionError(f"{e}; last state: {json.dumps(last.get('r', {}).get('run'))}")

    def wait_ended(self, run_id: str, timeout: float = 30.0) -> dict:
        return self.wait_run(run_id, lambda r: r["status"] in ("RUN_STATUS_SUCCEEDED",
                                                               "RUN_STATUS_FAILED"),
                             timeout, f"run {run_id} to end")

    def executors(self, app: str) -> List[dict]:
        for g in self.json("executor", "list").get("groups", []):
            if g.get("app_name") == app:
                return g.get("executors", [])
        return []


class Executor:
    """The executor under test: the --executor command line, configured by GNOMON_* env."""

    def __init__(self, app: str, registry: str, token: str, name: str, workdir: str,
                 spool: Optional[str] = None):
        self.app, self.registry, self.token, self.name = app, registry, token, name
        self.spool = spool or os.path.join(workdir, f"spool-{name}")
        self.invocations = os.path.join(workdir, f"invocations-{name}")
        self.proc: Optional[Process] = None

    def start(self) -> "Executor":
        env = {k: v for k, v in os.environ.items() if not k.startswith("GNOMON_")}
        env.update(CONFIG["env"])  # type: ignore[arg-type]
        env.update(GNOMON_APP=self.app, GNOMON_REGISTRY=self.registry,
                   GNOMON_ACCESS_TOKEN=self.token, GNOMON_EXECUTOR_NAME=self.name,
                   GNOMON_SPOOL_DIR=self.spool)
        argv = shlex.split(str(CONFIG["executor"])) + ["--invocations-file", self.invocations]
        self.proc = Process(argv, env)
        self.proc.wait_line("started as", 30)
        return self

    def invocations_of(self, run_id: str) -> int:
        try:
            with open(self.invocations) as f:
                return sum(1 for line in f if line.split()[:1] == [str(run_id)])
        except FileNotFoundError:
            return 0

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.stop()


def tempdir(prefix: str) -> str:
    return tempfile.mkdtemp(prefix=prefix)
