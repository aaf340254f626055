"""The executor: registration, scheduler streams, answering runs and calls,
running handlers and reporting results (docs/executor-protocol.md)."""
from __future__ import annotations

import datetime
import json
import os
import secrets
import signal
import sys
import threading
from typing import Any, Callable, Dict, Optional

from . import channels, stubs
from .connections import RegistrySession, SchedulerConnections
from .options import Options
from .reporter import Reporter
from .runs import (REJECT_NOT_HELD, REJECT_STALE_EPOCH, REJECTED, Handler, Outcome, RunManager)
from .spool import Spool


def _stderr(message: str) -> None:
    """One line on stderr; with GNOMON_LOG_FORMAT=json one JSON object per
    line (time, level, program, message), as gnomon's C++ programs write."""
    if os.environ.get("GNOMON_LOG_FORMAT") == "json":
        now = datetime.datetime.now(datetime.timezone.utc)
        line = json.dumps({"time": now.strftime("%Y-%m-%dT%H:%M:%S.") +
                           f"{now.microsecond // 1000:03d}Z",
                           "level": "INFO", "program": "gnomon-python-executor",
                           "message": message}, ensure_ascii=False)
    else:
        line = f"gnomon-executor: {message}"
    print(line, file=sys.stderr, flush=True)


class Executor:
    """A gnomon executor. Register handlers, then ``start()``; ``run()``
    blocks until SIGTERM/SIGINT and stops gracefully.

    >>> ex = Executor(Options.from_env())
    >>> ex.handler("invoice")(lambda ctx: ctx.log("invoicing " + ctx.params))
    >>> ex.start(); ex.run()
    """

    def __init__(self, options: Options, stubs_dir: Optional[str] = None,
                 log: Callable[[str], None] = _stderr):
        self.options = options
        self.name = options.name
        self.instance_id = secrets.token_hex(16)
        self._log = log
        self.pb = stubs.load(stubs_dir)
        self._handlers: Dict[str, Handler] = {}
        self._admit = threading.Lock()
        self._max_epochs: Dict[int, int] = {}
        self._stopped = threading.Event()
        self._stopping = False
        self._manager: Optional[RunManager] = None

    def handler(self, name: str) -> Callable[[Handler], Handler]:
        """Decorator registering a bean handler under `name`."""
        def register(fn: Handler) -> Handler:
            self._handlers[name] = fn
            return fn
        return register

    def add_handler(self, name: str, fn: Handler) -> None:
        self._handlers[name] = fn

    # --- lifecycle ----------------------------------------------------------

    def start(self) -> None:
        """Starts registering, serving and reporting. Raises ValueError (naming
        the option or file) for TLS settings that cannot work, before
        connecting anywhere."""
        o, pb = self.options, self.pb
        tls = o.tls
        tls.check()
        md = channels.metadata(o.app_name, o.access_token)
        spool = Spool(o.spool_dir, pb.log.ReportItem.FromString, o.remembered_runs)
        if not spool.durable:
            self._log("no spool directory: results are kept in memory and lost if the process "
                      "dies")
        elif spool.recovered:
            self._log(f"re-sending {spool.recovered} unacknowledged items from the spool "
                      f"{o.spool_dir}")
        self._reporter = Reporter(pb, spool, o.log_services, md, self.name, tls,
                                  channels.Backoff(o.reconnect_initial, o.reconnect_max),
                                  self._log)
        self._manager = RunManager(
            self._handlers, self._reporter, max_concurrent=o.max_concurrent_runs,
            max_queued=o.max_queued_runs, max_queued_per_job=o.max_queued_runs_per_job,
            remembered=o.remembered_runs, remembered_ids=spool.recovered_result_runs(),
            cancel_grace=o.cancel_grace, on_busy_changed=self._busy_changed, log_error=self._log)
        register = pb.registry.Register(
            app_name=o.app_name, address=self.name, handlers=sorted(self._handlers),
            capacity=o.max_concurrent_runs, version=o.version, labels=o.labels,
            instance_id=self.instance_id, answers_probes=True)
        self._session = RegistrySession(
            pb, o.registry_endpoints, md, register, self._manager.beat_state, tls,
            channels.Backoff(o.reconnect_initial, o.reconnect_max), self._log)
        hello = pb.executor.Hello(app_name=o.app_name, executor=self.name,
                                  instance_id=self.instance_id)
        self._connections = SchedulerConnections(
            pb, o.schedulers, md, hello, self.answer, self.reply, tls, o.resolve_interval,
            o.reconnect_initial, o.reconnect_max, self._log)
        self._reporter.start()
        self._session.start()
        self._connections.start()

    def _busy_changed(self) -> None:
        session = getattr(self, "_session", None)
        if session is not None:
            session.notify_busy_changed()

    def shutdown(self, grace: float = 30.0) -> None:
        """Refuses new runs, lets held runs finish within grace (then kills
        them), flushes results, deregisters, closes the streams."""
        if self._stopping:
            self._stopped.wait()
            return
        self._stopping = True
        assert self._manager is not None
        self._manager.shutdown(grace)
        if not self._reporter.drain(self.options.shutdown_flush_timeout):
            self._log(f"{self._reporter.pending()} results/log items not yet acknowledged; they "
                      "stay in the spool and are re-sent on the next start")
        self._session.stop("executor shutting down")
        self._connections.stop()
        self._reporter.stop()
        self._stopped.set()

    def run(self, grace: float = 30.0) -> None:
        """Blocks until SIGTERM or SIGINT, then shuts down (a second signal exits at once)."""
        got = threading.Event()

        def on_signal(signum: int, frame: Any) -> None:
            if got.is_set():
                sys.exit(1)
            got.set()

        signal.signal(signal.SIGTERM, on_signal)
        signal.signal(signal.SIGINT, on_signal)
        while not got.wait(0.5):
            pass
        self._log("stopping: draining runs")
        self.shutdown(grace)

    # --- answering runs and calls ----------------------------------------------

    def answer(self, request: Any) -> Any:
        """One DispatchResponse for a DispatchRequest: one answer per run, in order."""
        response = self.pb.executor.DispatchResponse()
        for run in request.runs:
            response.answers.append(self._answer_one(run))
        return response

    def _answer_one(self, run: Any) -> Any:
        assert self._manager is not None
        with self._admit:  # the epoch check and the admission are one step
            seen = self._max_epochs.get(run.fence_partition, 0)
            current = run.fence_epoch >= seen
            if current:
                self._max_epochs[run.fence_partition] = run.fence_epoch
            known = self._manager.recall(run.run_id)
            if known is not None:
                outcome = known
            elif run.probe:
                outcome = Outcome(code=REJECTED, kind=REJECT_NOT_HELD,
                                  reason="not held by this executor")
            elif not current:
                outcome = Outcome(code=REJECTED, kind=REJECT_STALE_EPOCH,
                                  reason=f"stale scheduler: fencing epoch {run.fence_epoch} < "
                                         f"{seen} of partition {run.fence_partition}")
            else:
                outcome = self._manager.submit(run)
        answer = self.pb.executor.RunAnswer(run_id=run.run_id)
        if outcome.accepted:
            answer.accepted.queue_position = outcome.queue_position
            answer.accepted.already_accepted = outcome.already_accepted
        else:
            answer.rejected.code = outcome.code
            answer.rejected.reason = outcome.reason
            answer.rejected.kind = outcome.kind
        return answer

    def reply(self, call: Any) -> Any:
        """The CallReply to a Call (beat, idle beat, kill; no kind if unknown)."""
        assert self._manager is not None
        reply = self.pb.executor.CallReply(id=call.id)
        kind = call.WhichOneof("kind")
        if kind == "beat":
            reply.beat.running_runs = self._manager.running_runs()
            reply.beat.capacity = self._manager.capacity
        elif kind == "idle_beat":
            running, queued = self._manager.load(call.idle_beat.job_id)
            reply.idle_beat.running, reply.idle_beat.queued = running, queued
            reply.idle_beat.idle = running == 0 and queued == 0
        elif kind == "kill":
            reply.kill.found = self._manager.kill(call.kill.run_id, call.kill.reason)
        return reply
