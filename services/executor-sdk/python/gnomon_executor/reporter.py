"""LogService.ReportResults: starts, log lines and results, through the spool."""
from __future__ import annotations

import threading
import time
from typing import Any, Callable, Dict, List, Optional

import grpc

from . import channels
from .spool import Spool

MAX_IN_FLIGHT = 4096
MAX_MESSAGE_BYTES = 1 << 20
LOG_FLUSH_INTERVAL = 0.05
LOG_FLUSH_LINES = 100


def _ts(msg: Any, t: float) -> None:
    msg.seconds = int(t)
    msg.nanos = int((t - int(t)) * 1e9)


class _Stream:
    def __init__(self) -> None:
        self.cursor = 0
        self.sequence = 1
        self.in_flight: Dict[int, int] = {}  # sequence -> spool id
        self.done = False
        self.acked_any = False


class Reporter:
    """Spools every item durably, sends it, drops it when acknowledged, and
    resends whatever is unacknowledged on every new stream."""

    def __init__(self, pb: Any, spool: Spool, endpoints: List[str], md: Any, executor_name: str,
                 tls: channels.Tls, backoff: channels.Backoff, log: Callable[[str], None]):
        self._pb = pb
        self._spool = spool
        self._endpoints = endpoints
        self._md = md
        self._name = executor_name
        self._tls = tls
        self._backoff = backoff
        self._log = log
        self._cv = threading.Condition()
        self._lines: Dict[int, List[Any]] = {}
        self._line_count = 0
        self._stopping = False
        self._call: Optional[Any] = None
        self.acked = 0
        self._thread = threading.Thread(target=self._loop, name="gnomon-reporter", daemon=True)
        self._flusher = threading.Thread(target=self._flush_loop, name="gnomon-log-flush",
                                         daemon=True)

    def start(self) -> None:
        self._thread.start()
        self._flusher.start()

    # --- the RunSink ------------------------------------------------------

    def started(self, run_id: int, start: float, receipt: bytes = b"") -> None:
        item = self._pb.log.ReportItem()
        item.started.run_id = run_id
        _ts(item.started.start_time, start)
        item.started.executor_address = self._name
        item.started.receipt = receipt
        with self._cv:
            self._spool_locked(item)

    def line(self, run_id: int, number: int, when: float, text: str) -> None:
        line = self._pb.common.LogLine(line_number=number, text=text)
        _ts(line.time, when)
        with self._cv:
            lines = self._lines.setdefault(run_id, [])
            lines.append(line)
            self._line_count += 1
            if len(lines) >= LOG_FLUSH_LINES:
                self._flush_locked(run_id)

    def finished(self, run_id: int, code: int, message: str, start: float, end: float,
                 output: str = "") -> None:
        item = self._pb.log.ReportItem()
        r = item.result
        r.run_id, r.handle_code, r.handle_message, r.output = run_id, code, message, output
        _ts(r.start_time, start)
        _ts(r.end_time, end)
        with self._cv:
            self._flush_locked(run_id)  # a run's lines always go before its result
            self._spool_locked(item)

    # --- draining ---------------------------------------------------------

    def pending(self) -> int:
        with self._cv:
            return len(self._spool) + self._line_count

    def drain(self, timeout: float) -> bool:
        """Waits until everything is acknowledged; False at the timeout."""
        end = time.monotonic() + timeout
        with self._cv:
            self._flush_all_locked()
            while len(self._spool) > 0:
                left = end - time.monotonic()
                if left <= 0:
                    return False
                self._cv.wait(min(left, 0.1))
        return True

    def stop(self) -> None:
        with self._cv:
            self._stopping = True
            if self._call is not None:
                self._call.cancel()
            self._cv.notify_all()
        self._thread.join()
        self._flusher.join()
        with self._cv:
            self._flush_all_locked()  # into the spool, for the next start

    # --- internals ----------------------------------------------------------

    def _spool_locked(self, item: Any) -> None:
        self._spool.append(item)
        self._cv.notify_all()

    def _flush_locked(self, run_id: int) -> None:
        lines = self._lines.pop(run_id, None)
        if not lines:
            return
        item = self._pb.log.ReportItem()
        item.log.run_id = run_id
        item.log.lines.extend(lines)
        self._line_count -= len(lines)
        self._spool_locked(item)

    def _flush_all_locked(self) -> None:
        for run_id in list(self._lines):
            self._flush_locked(run_id)

    def _flush_loop(self) -> None:
        with self._cv:
            while not self._stopping:
                self._cv.wait(LOG_FLUSH_INTERVAL)
                self._flush_all_locked()

    def _loop(self) -> None:
        index = 0
        while True:
            with self._cv:
                while not self._stopping and len(self._spool) == 0:
                    self._cv.wait(0.5)
                if self._stopping:
                    return
            endpoint = self._endpoints[index % len(self._endpoints)]
            progressed, error = self._run_stream(endpoint)
            if progressed:
                self._backoff.reset()
            else:
                index += 1
            with self._cv:
                if self._stopping:
                    return
                delay = self._backoff.next()
                if error:
                    self._log(f"results stream to {endpoint} ended: {error}; "
                              f"{len(self._spool)} items waiting, retrying in {delay:.2f}s")
                channels.wait(self._cv, delay, lambda: self._stopping)

    def _requests(self, st: _Stream):
        while True:
            with self._cv:
                while True:
                    if self._stopping or st.done:
                        return
                    room = MAX_IN_FLIGHT - len(st.in_flight)
                    batch = self._spool.after(st.cursor, min(room, 512)) if room > 0 else []
                    if batch:
                        break
                    self._cv.wait(0.1)
                request = self._pb.log.ReportResultsRequest()
                size = 0
                for rid, item in batch:
                    size += item.ByteSize()
                    if request.items and size > MAX_MESSAGE_BYTES:
                        break
                    out = request.items.add()
                    out.CopyFrom(item)
                    out.sequence = st.sequence
                    st.in_flight[st.sequence] = rid
                    st.sequence += 1
                    st.cursor = rid
            yield request

    def _run_stream(self, endpoint: str):
        st = _Stream()
        channel = channels.dial(endpoint, self._tls)
        error = ""
        try:
            stub = self._pb.log_grpc.LogServiceStub(channel)
            call = stub.ReportResults(self._requests(st), metadata=self._md)
            with self._cv:
                self._call = call
                if self._stopping:
                    call.cancel()
            for response in call:
                with self._cv:
                    for ack in response.acks:
                        rid = st.in_flight.pop(ack.sequence, None)
                        if rid is None:
                            continue
                        self._spool.remove(rid)
                        self.acked += 1
                        st.acked_any = True
                    self._cv.notify_all()
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.CANCELLED:
                error = f"{e.code().name}: {e.details()}"
        finally:
            with self._cv:
                st.done = True
                self._call = None
                self._cv.notify_all()
            channel.close()
        return st.acked_any, error
