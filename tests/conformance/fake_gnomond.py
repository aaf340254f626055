"""A scripted stand-in for gnomond (Registry, Dispatch, LogService) for the
protocol checks a real gnomond cannot be made to provoke on demand."""
from __future__ import annotations

import queue
import threading
from concurrent import futures
from typing import Any, Dict, List, Optional

import grpc


class FakeGnomond:
    def __init__(self, pb: Any):
        self.pb = pb
        self.cv = threading.Condition()
        self.metadata: Dict[str, List[dict]] = {"session": [], "connect": [], "report": []}
        self.registers: List[Any] = []
        self.beats = 0
        self.deregisters: List[Any] = []
        self.hellos: List[Any] = []
        self.answers: List[Any] = []   # DispatchResponse, in arrival order
        self.replies: List[Any] = []
        self.report_streams: List[List[Any]] = []  # items per ReportResults stream
        self.ack = True
        self._outbox: "Optional[queue.Queue[Any]]" = None  # The newest stream's.
        self._end_reports = 0
        self.server = grpc.server(futures.ThreadPoolExecutor(max_workers=32))
        me = self

        class Registry(pb.registry_grpc.RegistryServicer):
            def Session(self, it, context):
                return me._session(it, context)

        class Dispatch(pb.executor_grpc.DispatchServicer):
            def Connect(self, it, context):
                return me._connect(it, context)

        class Log(pb.log_grpc.LogServiceServicer):
            def ReportResults(self, it, context):
                return me._report(it, context)

        pb.registry_grpc.add_RegistryServicer_to_server(Registry(), self.server)
        pb.executor_grpc.add_DispatchServicer_to_server(Dispatch(), self.server)
        pb.log_grpc.add_LogServiceServicer_to_server(Log(), self.server)
        port = self.server.add_insecure_port("127.0.0.1:0")
        self.address = f"127.0.0.1:{port}"
        self.server.start()

    def stop(self) -> None:
        self.server.stop(0)

    def _note(self, key: str, context: Any) -> None:
        with self.cv:
            self.metadata[key].append(dict(context.invocation_metadata()))
            self.cv.notify_all()

    # --- Registry.Session ----------------------------------------------------
    def _session(self, it, context):
        self._note("session", context)
        first = next(it, None)
        if first is None:
            return
        with self.cv:
            self.registers.append(first.register)
            self.cv.notify_all()
        r = self.pb.registry.SessionResponse()
        r.registered.beat_interval.nanos = 200_000_000
        r.registered.beat_timeout.seconds = 2
        yield r
        for m in it:
            with self.cv:
                if m.WhichOneof("kind") == "beat":
                    self.beats += 1
                elif m.WhichOneof("kind") == "deregister":
                    self.deregisters.append(m.deregister)
                self.cv.notify_all()
            if m.WhichOneof("kind") == "beat":
                yield self.pb.registry.SessionResponse(beat_ack={})

    # --- Dispatch.Connect ------------------------------------------------------
    def send(self, message: Any) -> None:
        """Queues a ConnectResponse (runs or call) for the executor's newest
        stream (the one that said Hello last: a killed executor's old stream
        may not have been noticed as gone yet, and must not swallow it)."""
        self.wait(lambda: self._outbox is not None, 10, "a stream that said Hello")
        with self.cv:
            outbox = self._outbox
        outbox.put(message)

    def _connect(self, it, context):
        self._note("connect", context)
        done = threading.Event()
        outbox: "queue.Queue[Any]" = queue.Queue()

        def read():
            try:
                for m in it:
                    with self.cv:
                        kind = m.WhichOneof("kind")
                        if kind == "hello":
                            self.hellos.append(m.hello)
                            self._outbox = outbox
                        elif kind == "answers":
                            self.answers.append(m.answers)
                        elif kind == "reply":
                            self.replies.append(m.reply)
                        self.cv.notify_all()
            except grpc.RpcError:
                pass
            done.set()
        threading.Thread(target=read, daemon=True).start()
        yield self.pb.executor.ConnectResponse(welcome={"replica_id": "fake-0"})
        while not done.is_set() and context.is_active():
            try:
                m = outbox.get(timeout=0.05)
            except queue.Empty:
                continue
            yield m

    # --- LogService.ReportResults -----------------------------------------------
    def end_report_streams(self) -> None:
        """Ends the open ReportResults streams UNAVAILABLE (as a stopping gnomond)."""
        with self.cv:
            self._end_reports += 1
            self.cv.notify_all()

    def _report(self, it, context):
        self._note("report", context)
        items: List[Any] = []
        acks: "queue.Queue[Any]" = queue.Queue()
        with self.cv:
            self.report_streams.append(items)
            generation = self._end_reports
        done = threading.Event()

        def read():
            try:
                for req in it:
                    with self.cv:
                        items.extend(req.items)
                        ack = self.ack
                        self.cv.notify_all()
                    if ack:
                        resp = self.pb.log.ReportResultsResponse()
                        for item in req.items:
                            resp.acks.add(sequence=item.sequence, ack=1)
                        acks.put(resp)
            except grpc.RpcError:
                pass
            done.set()
        threading.Thread(target=read, daemon=True).start()
        while not done.is_set() and context.is_active():
            with self.cv:
                if self._end_reports != generation:
                    context.abort(grpc.StatusCode.UNAVAILABLE, "fake gnomond: stream ended")
            try:
                yield acks.get(timeout=0.05)
            except queue.Empty:
                continue

    # --- waiting ---------------------------------------------------------------
    def wait(self, pred, timeout: float = 15.0, what: str = "condition"):
        import time
        end = time.monotonic() + timeout
        with self.cv:
            while True:
                v = pred()
                if v:
                    return v
                left = end - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"fake gnomond: timed out waiting for {what}")
                self.cv.wait(min(left, 0.1))

    def results(self, stream: int = -1) -> Dict[int, Any]:
        """run id -> RunResult among the items of a ReportResults stream (all if -1)."""
        streams = self.report_streams if stream == -1 else [self.report_streams[stream]]
        out = {}
        for items in streams:
            for i in items:
                if i.WhichOneof("item") == "result":
                    out[i.result.run_id] = i.result
        return out
