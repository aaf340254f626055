"""Admission and execution of runs: per-job queues, block strategies, a worker
pool, timeouts and kills (the C++ SDK's run_manager/run_state, in Python)."""
from __future__ import annotations

import collections
import threading
import time
import traceback
from dataclasses import dataclass
from typing import Any, Callable, Deque, Dict, Iterable, Optional, Protocol

SUCCESS, FAILURE, TIMEOUT, KILLED, REJECTED = 200, 500, 502, 503, 506
MAX_LINE_BYTES = 64 * 1024
MAX_MESSAGE_BYTES = 64 * 1024
MAX_OUTPUT_BYTES = 4096  # RunResult.output; the log service refuses longer
BEAT_BUSY_JOBS = 1000

# RejectKind and BlockStrategy values (executor.proto / common.proto).
REJECT_BLOCK_STRATEGY, REJECT_QUEUE_FULL, REJECT_UNSUPPORTED = 1, 2, 3
REJECT_SHUTTING_DOWN, REJECT_STALE_EPOCH, REJECT_NOT_HELD = 4, 5, 6
BLOCK_DISCARD_LATER, BLOCK_COVER_EARLY = 2, 3


def _head(text: str, limit: int) -> str:
    """The longest prefix of text of at most limit UTF-8 bytes."""
    data = text.encode("utf-8", "replace")
    if len(data) <= limit:
        return text
    return data[:limit].decode("utf-8", "ignore")


class RunSink(Protocol):
    """Where a run's start, lines and result go (the result reporter)."""

    def started(self, run_id: int, start: float, receipt: bytes = b"") -> None: ...
    def line(self, run_id: int, number: int, when: float, text: str) -> None: ...
    def finished(self, run_id: int, code: int, message: str, start: float, end: float,
                 output: str = "") -> None: ...


@dataclass
class Outcome:
    """The answer to one RunRequest."""
    accepted: bool = False
    already_accepted: bool = False
    queue_position: int = 0
    code: int = REJECTED
    kind: int = 0
    reason: str = ""


def reject(kind: int, reason: str) -> Outcome:
    return Outcome(accepted=False, code=REJECTED, kind=kind, reason=reason)


class RunState:
    """One accepted run: its cancellation, termination and result."""

    def __init__(self, request: Any, sink: RunSink):
        self.request = request
        self.run_id: int = request.run_id
        self._sink = sink
        self._lock = threading.Lock()
        self.cancel_event = threading.Event()
        self.cancel_reason = ""
        self._termination: Optional[int] = None  # TIMEOUT or KILLED
        self._termination_message = ""
        self._result: Optional[tuple] = None
        self._output = ""
        self._started = False
        self._start = 0.0
        self._closed = False
        self._next_line = 1

    def timeout_seconds(self) -> float:
        if not self.request.HasField("timeout"):
            return 0.0
        return self.request.timeout.seconds + self.request.timeout.nanos / 1e9

    def mark_started(self, now: float) -> bool:
        """Reports the start; False if the run already ended (killed while queued)."""
        with self._lock:
            if self._closed:
                return False
            self._started = True
            self._start = now
            # The receipt is echoed: the scheduler records the dispatch with the start.
            self._sink.started(self.run_id, now, self.request.receipt)
            return True

    def log(self, text: str) -> None:
        with self._lock:
            if self._closed:
                return
            now = time.time()
            if text.endswith("\n"):
                text = text[:-1]
            for part in text.split("\n"):
                while True:
                    piece = _head(part, MAX_LINE_BYTES)
                    self._sink.line(self.run_id, self._next_line, now, piece)
                    self._next_line += 1
                    part = part[len(piece):]
                    if not part:
                        break

    def set_result(self, code: int, message: str) -> None:
        with self._lock:
            self._result = (code, _head(message, MAX_MESSAGE_BYTES))

    def set_output(self, value: str) -> None:
        """The output reported with the result, whatever it is (Context.set_output)."""
        if not isinstance(value, str):
            raise TypeError(f"output must be a str, not {type(value).__name__}")
        try:
            size = len(value.encode("utf-8"))
        except UnicodeEncodeError:
            raise ValueError("output is not valid UTF-8 (it holds a lone surrogate)") from None
        if size > MAX_OUTPUT_BYTES:
            raise ValueError(f"output is {size} bytes in UTF-8, longer than the limit of "
                             f"{MAX_OUTPUT_BYTES} bytes")
        with self._lock:
            if self._closed:
                raise RuntimeError("output not set: the run was reported already (its handler "
                                   "ignored cancellation)")
            self._output = value

    def terminate(self, code: int, message: str) -> bool:
        """Cancels the run as timed out (502) or killed (503); False if it
        ended or was terminated already."""
        with self._lock:
            if self._closed or self._termination is not None:
                return False
            self._termination = code
            self._termination_message = message
            self.cancel_reason = message
        self.cancel_event.set()
        return True

    def finish(self, now: float) -> bool:
        """Reports the result (once)."""
        with self._lock:
            if self._closed:
                return False
            if self._termination is not None:
                code, message = self._termination, self._termination_message
            elif self._result is not None:
                code, message = self._result
            else:
                code, message = SUCCESS, ""
            # The output goes also with a failure, a timeout or a kill.
            self._sink.finished(self.run_id, code, message, self._start if self._started else now,
                                now, self._output)
            self._closed = True
            return True


class Context:
    """What a handler gets: the run's parameters, a log and its cancellation.

    >>> def invoice(ctx: Context) -> None:
    ...     ctx.log("invoicing " + ctx.params)

    A workflow node's run reads its parents' outputs (``inputs``) and may
    return an output of its own (``set_output``), which its children get:

    >>> def count(ctx: Context) -> None:
    ...     ctx.set_output(str(len(ctx.inputs.get("extract", "").splitlines())))
    """

    def __init__(self, run: RunState, deadline: Optional[float]):
        self._run = run
        r = run.request
        self.run_id: int = r.run_id
        self.job_id: int = r.job_id
        self.params: str = r.params
        self.shard_index: int = r.shard_index
        self.shard_total: int = r.shard_total
        self.attempt: int = r.attempt
        self.handler: str = r.bean.handler
        #: A workflow node's run: its workflow run (0 for other runs) and its
        #: parents' outputs, parent node -> output (empty for other runs).
        self.workflow_run_id: int = r.workflow_run_id
        self.inputs: Dict[str, str] = {}
        for i in r.inputs:
            self.inputs.setdefault(i.node, i.output)
        #: time.monotonic() value past which the run times out, or None.
        self.deadline = deadline

    def log(self, text: str) -> None:
        """Appends a log line (several if text has newlines) to the run's log."""
        self._run.log(text)

    @property
    def cancelled(self) -> bool:
        """True once the run was killed or timed out: return soon."""
        return self._run.cancel_event.is_set()

    def wait_cancelled(self, timeout: float) -> bool:
        """Sleeps up to timeout seconds; True (at once) if cancelled meanwhile."""
        return self._run.cancel_event.wait(timeout)

    @property
    def cancel_reason(self) -> str:
        return self._run.cancel_reason

    def set_result(self, code: int, message: str = "") -> None:
        """Sets the handle code (200 success; anything else fails) and message."""
        self._run.set_result(code, message)

    def set_output(self, value: str) -> None:
        """Sets the output reported with the run's result (last call wins; none
        set: ""). ValueError, keeping the output set before, if value is longer
        than MAX_OUTPUT_BYTES (4096) in UTF-8; RuntimeError if the run was
        reported already (its handler was abandoned after ignoring
        cancellation). A run that fails, times out or is killed reports the
        output set until then."""
        self._run.set_output(value)


Handler = Callable[[Context], None]


class _Job:
    def __init__(self, job_id: int):
        self.job_id = job_id
        self.waiting: Deque[RunState] = collections.deque()
        self.current: Optional[RunState] = None
        self.runner: Optional["_Worker"] = None
        self.deadline: Optional[float] = None  # monotonic; the run's timeout
        self.grace_deadline: Optional[float] = None  # after a terminate
        self.in_ready = False

    def busy(self) -> bool:
        return self.current is not None or bool(self.waiting)

    def load(self) -> tuple:
        return (1 if self.current else 0, len(self.waiting))


class _Worker:
    def __init__(self) -> None:
        self.abandoned = False


class _RecentIds:
    """The last `capacity` run ids added, with O(1) membership."""

    def __init__(self, capacity: int, seed: Iterable[int] = ()):
        self._capacity = capacity
        self._order: Deque[int] = collections.deque()
        self._set: set = set()
        for run_id in seed:
            self.add(run_id)

    def add(self, run_id: int) -> None:
        if run_id in self._set or self._capacity <= 0:
            return
        self._order.append(run_id)
        self._set.add(run_id)
        while len(self._order) > self._capacity:
            self._set.discard(self._order.popleft())

    def __contains__(self, run_id: int) -> bool:
        return run_id in self._set


class RunManager:
    """Admits runs (``submit``), runs them on a pool, kills them (``kill``)."""

    def __init__(self, handlers: Dict[str, Handler], sink: RunSink, *, max_concurrent: int,
                 max_queued: int, max_queued_per_job: int, remembered: int,
                 remembered_ids: Iterable[int] = (), cancel_grace: float = 2.0,
                 on_busy_changed: Callable[[], None] = lambda: None,
                 log_error: Callable[[str], None] = lambda m: None):
        self._handlers = dict(handlers)
        self._sink = sink
        self.capacity = max_concurrent
        self._max_queued = max_queued
        self._max_queued_per_job = max_queued_per_job
        self._cancel_grace = cancel_grace
        self._on_busy_changed = on_busy_changed
        self._log_error = log_error
        self._mu = threading.Condition(threading.Lock())
        self._jobs: Dict[int, _Job] = {}
        self._run_jobs: Dict[int, int] = {}
        self._recent = _RecentIds(remembered, remembered_ids)
        self._ready: Deque[_Job] = collections.deque()
        self._queued = 0
        self._running = 0
        self._live_workers = 0
        self._idle_workers = 0
        self._accepting = True
        self._stopping = False
        self._watchdog = threading.Thread(target=self._watch, name="gnomon-watchdog", daemon=True)
        self._watchdog.start()

    # --- admission -------------------------------------------------------

    def _recall_locked(self, run_id: int) -> Optional[Outcome]:
        job_id = self._run_jobs.get(run_id)
        if job_id is None and run_id not in self._recent:
            return None
        out = Outcome(accepted=True, already_accepted=True)
        job = self._jobs.get(job_id) if job_id is not None else None
        if job is not None:
            for i, r in enumerate(job.waiting):
                if r.run_id == run_id:
                    out.queue_position = i + (1 if job.current else 0)
                    break
        return out

    def recall(self, run_id: int) -> Optional[Outcome]:
        """The answer for a run accepted before, or None."""
        with self._mu:
            return self._recall_locked(run_id)

    def submit(self, request: Any) -> Outcome:
        """Admits or refuses a run (not a probe; fencing is checked before)."""
        with self._mu:
            known = self._recall_locked(request.run_id)
            if known is not None:
                return known
            if not self._accepting:
                return reject(REJECT_SHUTTING_DOWN, "executor is shutting down")
            task = request.WhichOneof("task")
            if task == "script":
                return reject(REJECT_UNSUPPORTED, "script runs are not allowed on this executor "
                              "(the Python executor runs no scripts)")
            if task != "bean":
                return reject(REJECT_UNSUPPORTED,
                              "the run request names neither a handler nor a script")
            if request.bean.handler not in self._handlers:
                return reject(REJECT_UNSUPPORTED, f'no handler named "{request.bean.handler}" '
                              "is registered on this executor")
            job = self._jobs.get(request.job_id)
            running, queued = job.load() if job else (0, 0)
            busy = running + queued > 0
            now = time.monotonic()
            if busy and request.block_strategy == BLOCK_DISCARD_LATER:
                return reject(REJECT_BLOCK_STRATEGY, f"job {request.job_id} is running and the "
                              "block strategy is DISCARD_LATER")
            if busy and request.block_strategy == BLOCK_COVER_EARLY:
                assert job is not None
                why = f"covered by run {request.run_id} (block strategy COVER_EARLY)"
                self._terminate_current_locked(job, KILLED, why, now)
                for r in job.waiting:
                    self._drop_locked(r, why)
                job.waiting.clear()
            elif running + queued > self._max_queued_per_job:
                return reject(REJECT_QUEUE_FULL, f"job {request.job_id} already has {queued} runs "
                              "queued on this executor (its queue is full)")
            if self._queued >= self._max_queued:
                return reject(REJECT_QUEUE_FULL, f"executor is at capacity: {self._queued} runs "
                              f"are waiting for its {self.capacity} workers (its queue is full)")
            if job is None:
                job = self._jobs[request.job_id] = _Job(request.job_id)
            out = Outcome(accepted=True,
                          queue_position=len(job.waiting) + (1 if job.current else 0))
            job.waiting.append(RunState(request, self._sink))
            self._queued += 1
            self._run_jobs[request.run_id] = request.job_id
            self._recent.add(request.run_id)
            self._make_ready_locked(job)
        self._on_busy_changed()
        return out

    # --- kill, load, beat --------------------------------------------------

    def kill(self, run_id: int, reason: str) -> bool:
        """Stops a running or queued run (reported 503); False if not held."""
        with self._mu:
            job_id = self._run_jobs.get(run_id)
            job = self._jobs.get(job_id) if job_id is not None else None
            if job is None:
                return False
            why = f"killed: {reason}" if reason else "killed"
            if job.current is not None and job.current.run_id == run_id:
                self._terminate_current_locked(job, KILLED, why, time.monotonic())
                return True
            for r in list(job.waiting):
                if r.run_id == run_id:
                    self._drop_locked(r, why + " (before it started)")
                    job.waiting.remove(r)
                    self._settle_locked(job)
                    break
        self._on_busy_changed()
        return True

    def load(self, job_id: int) -> tuple:
        """(running, queued) of a job here."""
        with self._mu:
            job = self._jobs.get(job_id)
            return job.load() if job else (0, 0)

    def running_runs(self) -> int:
        with self._mu:
            return self._running

    def beat_state(self) -> dict:
        """running_runs, queued_runs, busy_jobs [(job, running, queued)], busy_job_count."""
        with self._mu:
            busy = [(j.job_id,) + j.load() for j in self._jobs.values() if j.busy()]
            running, queued = self._running, self._queued
        busy.sort(key=lambda b: (-(b[1] + b[2]), b[0]))
        return {"running_runs": running, "queued_runs": queued,
                "busy_jobs": busy[:BEAT_BUSY_JOBS], "busy_job_count": len(busy)}

    # --- shutdown ----------------------------------------------------------

    def stop_accepting(self) -> None:
        with self._mu:
            self._accepting = False

    def shutdown(self, grace: float) -> None:
        """Refuses new runs, waits up to grace for the held ones, then kills
        what is left (503) and stops the pool."""
        deadline = time.monotonic() + grace
        with self._mu:
            self._accepting = False
            while self._run_jobs and time.monotonic() < deadline:
                self._mu.wait(min(0.05, max(0.0, deadline - time.monotonic())))
            if self._run_jobs:
                now = time.monotonic()
                for job in self._jobs.values():
                    self._terminate_current_locked(job, KILLED,
                                                   "killed: the executor is shutting down", now)
                    for r in job.waiting:
                        self._drop_locked(r, "killed: the executor shut down before the run "
                                             "started")
                    job.waiting.clear()
                    self._settle_locked(job)
                while self._run_jobs:  # the watchdog abandons handlers deaf to cancellation
                    self._mu.wait(0.05)
            self._stopping = True
            self._mu.notify_all()

    # --- internals (self._mu held) ---------------------------------------

    def _make_ready_locked(self, job: _Job) -> None:
        if job.in_ready or job.current is not None or not job.waiting:
            return
        job.in_ready = True
        self._ready.append(job)
        self._wake_locked()

    def _wake_locked(self) -> None:
        """Hands ready work to an idle worker, or starts one below capacity."""
        if self._idle_workers > 0:
            self._mu.notify()
        elif self._live_workers < self.capacity:
            self._live_workers += 1
            threading.Thread(target=self._work, args=(_Worker(),), name="gnomon-worker",
                             daemon=True).start()

    def _drop_locked(self, run: RunState, why: str) -> None:
        run.terminate(KILLED, why)
        run.finish(time.time())
        self._run_jobs.pop(run.run_id, None)
        self._queued -= 1

    def _terminate_current_locked(self, job: _Job, code: int, why: str, now: float) -> None:
        if job.current is not None and job.current.terminate(code, why):
            job.grace_deadline = now + self._cancel_grace

    def _settle_locked(self, job: _Job) -> None:
        if not job.busy() and self._jobs.get(job.job_id) is job:
            del self._jobs[job.job_id]

    def _work(self, me: _Worker) -> None:
        with self._mu:
            while True:
                if not self._ready:
                    if self._stopping:
                        break
                    self._idle_workers += 1
                    self._mu.wait()
                    self._idle_workers -= 1
                    continue
                job = self._ready.popleft()
                job.in_ready = False
                if job.current is not None or not job.waiting:
                    continue
                run = job.waiting.popleft()
                self._queued -= 1
                self._running += 1
                job.current, job.runner = run, me
                timeout = run.timeout_seconds()
                deadline = time.monotonic() + timeout if timeout > 0 else None
                job.deadline = deadline
                self._mu.release()
                try:
                    self._on_busy_changed()
                    if run.mark_started(time.time()):
                        self._execute(run, deadline)
                finally:
                    self._mu.acquire()
                if me.abandoned:  # the watchdog reported the run and replaced this thread
                    return
                self._run_jobs.pop(run.run_id, None)
                self._running -= 1
                job.current, job.runner = None, None
                job.deadline = job.grace_deadline = None
                self._make_ready_locked(job)
                self._settle_locked(job)
                self._mu.release()
                try:
                    run.finish(time.time())  # once the job is free here
                    self._on_busy_changed()
                finally:
                    self._mu.acquire()
                self._mu.notify_all()
            self._live_workers -= 1

    def _execute(self, run: RunState, deadline: Optional[float]) -> None:
        ctx = Context(run, deadline)
        try:
            self._handlers[run.request.bean.handler](ctx)
        except Exception as e:  # a handler's exception fails its run with the text
            run.set_result(FAILURE, f"handler raised: {type(e).__name__}: {e}")
            self._log_error(f"run {run.run_id}: handler raised:\n{traceback.format_exc()}")

    def _watch(self) -> None:
        with self._mu:
            while not (self._stopping and not self._jobs):
                self._mu.wait(0.02)
                now = time.monotonic()
                changed = False
                for job in list(self._jobs.values()):
                    if job.current is None:
                        continue
                    if job.deadline is not None and job.deadline <= now:
                        job.deadline = None
                        t = job.current.timeout_seconds()
                        self._terminate_current_locked(job, TIMEOUT, f"timed out after {t:g}s",
                                                       now)
                    if job.grace_deadline is not None and job.grace_deadline <= now:
                        self._abandon_locked(job)
                        changed = True
                if changed:
                    self._mu.notify_all()
                    self._mu.release()
                    try:
                        self._on_busy_changed()
                    finally:
                        self._mu.acquire()

    def _abandon_locked(self, job: _Job) -> None:
        """The current handler ignored cancellation past the grace: report
        it now and leave its thread behind."""
        run = job.current
        assert run is not None and job.runner is not None
        run.finish(time.time())
        self._run_jobs.pop(run.run_id, None)
        self._running -= 1
        job.runner.abandoned = True
        self._live_workers -= 1
        job.current, job.runner = None, None
        job.deadline = job.grace_deadline = None
        self._make_ready_locked(job)
        self._settle_locked(job)
        if self._ready:
            self._wake_locked()
