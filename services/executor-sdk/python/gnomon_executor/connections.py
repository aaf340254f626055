"""Registry.Session (membership and beats) and Dispatch.Connect (one stream
per gnomond replica: runs and calls in, answers and replies out)."""
from __future__ import annotations

import queue
import threading
import time
from typing import Any, Callable, Dict, List, Optional

import grpc

from . import channels


class RegistrySession:
    """Registers, beats every Registered.beat_interval (and within 100 ms of
    the busy state changing), deregisters on stop; reconnects with backoff,
    failing over between the registry endpoints."""

    MIN_BEAT_GAP = 0.1

    def __init__(self, pb: Any, endpoints: List[str], md: Any, register: Any,
                 beat_source: Callable[[], Any], tls: channels.Tls, backoff: channels.Backoff,
                 log: Callable[[str], None]):
        self._pb, self._endpoints, self._md = pb, endpoints, md
        self._register = register
        self._beat_source = beat_source
        self._tls = tls
        self._backoff = backoff
        self._log = log
        self._cv = threading.Condition()
        self._stopping = False
        self._stop_reason = ""
        self._dirty = False
        self._call: Optional[Any] = None
        self.registered = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="gnomon-registry", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def notify_busy_changed(self) -> None:
        with self._cv:
            self._dirty = True
            self._cv.notify_all()

    def stop(self, reason: str, timeout: float = 5.0) -> None:
        """Deregisters (when registered) and ends the session."""
        with self._cv:
            self._stopping = True
            self._stop_reason = reason
            if not self.registered.is_set() and self._call is not None:
                self._call.cancel()
            self._cv.notify_all()
        self._thread.join(timeout)
        with self._cv:
            if self._call is not None:
                self._call.cancel()
        self._thread.join()

    def _loop(self) -> None:
        index = 0
        while True:
            endpoint = self._endpoints[index % len(self._endpoints)]
            registered, error = self._session(endpoint)
            with self._cv:
                if self._stopping:
                    return
                if registered:
                    self._backoff.reset()
                else:
                    index += 1
                delay = self._backoff.next()
                self._log(f"registry session with {endpoint} ended: {error or 'closed'}; "
                          f"reconnecting in {delay:.2f}s")
                channels.wait(self._cv, delay, lambda: self._stopping)
                if self._stopping:
                    return

    def _requests(self, state: Dict[str, Any]):
        yield self._pb.registry.SessionRequest(register=self._register)
        with self._cv:
            while not (state["interval"] or state["done"] or self._stopping):
                self._cv.wait(0.1)
        last = time.monotonic()
        while True:
            with self._cv:
                interval = state["interval"] or 10.0
                while not (self._stopping or state["done"] or self._dirty):
                    left = last + interval - time.monotonic()
                    if left <= 0:
                        break
                    self._cv.wait(left)
                if self._dirty and not (self._stopping or state["done"]):
                    channels.wait(self._cv, last + self.MIN_BEAT_GAP - time.monotonic(),
                                  lambda: self._stopping or state["done"])
                self._dirty = False
                if state["done"]:
                    return
                if self._stopping:
                    if state["interval"]:
                        request = self._pb.registry.SessionRequest()
                        request.deregister.reason = self._stop_reason
                        state["deregistered"] = True
                        yield request
                    return
            beat = self._pb.registry.SessionRequest()
            b = self._beat_source()
            beat.beat.running_runs = b["running_runs"]
            beat.beat.queued_runs = b["queued_runs"]
            beat.beat.busy_job_count = b["busy_job_count"]
            for job_id, running, queued in b["busy_jobs"]:
                beat.beat.busy_jobs.add(job_id=job_id, running=running, queued=queued)
            try:
                import os
                beat.beat.load = os.getloadavg()[0]
            except OSError:
                pass
            last = time.monotonic()
            yield beat

    def _session(self, endpoint: str):
        state: Dict[str, Any] = {"interval": 0.0, "done": False, "deregistered": False}
        channel = channels.dial(endpoint, self._tls)
        registered, error = False, ""
        try:
            stub = self._pb.registry_grpc.RegistryStub(channel)
            call = stub.Session(self._requests(state), metadata=self._md)
            with self._cv:
                self._call = call
            for response in call:
                if response.WhichOneof("kind") == "registered" and not registered:
                    d = response.registered.beat_interval
                    with self._cv:
                        state["interval"] = (d.seconds + d.nanos / 1e9) or 10.0
                        self._cv.notify_all()
                    registered = True
                    self.registered.set()
                    self._log(f'registered app "{self._register.app_name}" as '
                              f'"{self._register.address}" with registry {endpoint}')
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.CANCELLED:
                error = f"{e.code().name}: {e.details()}"
                if e.code() in channels.REFUSALS:
                    error += " (refused: check the app name and access token)"
        finally:
            with self._cv:
                state["done"] = True
                self._call = None
                self._cv.notify_all()
            self.registered.clear()
            channel.close()
        return registered, error


class _Link:
    """One resolved scheduler address and its reconnect loop."""

    def __init__(self, owner: "SchedulerConnections", address: str, endpoint: str):
        self.owner, self.address, self.endpoint = owner, address, endpoint
        self.stopping = False
        self.replica = ""
        self.call: Optional[Any] = None
        self.thread = threading.Thread(target=self._loop, name=f"gnomon-connect-{address}",
                                       daemon=True)
        self.backoff = channels.Backoff(owner.backoff_initial, owner.backoff_max)

    def _loop(self) -> None:
        o = self.owner
        while True:
            progressed, error = self._stream()
            with o.cv:
                if self.stopping:
                    return
                if progressed:
                    self.backoff.reset()
                delay = self.backoff.next()
                if error:
                    o.log(f"scheduler stream to {self.address} ended: {error}; "
                          f"reconnecting in {delay:.2f}s")
                channels.wait(o.cv, delay, lambda: self.stopping)
                if self.stopping:
                    return

    def _stream(self):
        o = self.owner
        out: "queue.Queue[Any]" = queue.Queue()

        def requests():
            while True:
                m = out.get()
                if m is None:
                    return
                yield m

        host = channels.split_host_port(self.endpoint)
        channel = channels.dial(self.address, o.tls, host[0] if host else "")
        progressed, error = False, ""
        try:
            stub = o.pb.executor_grpc.DispatchStub(channel)
            call = stub.Connect(requests(), metadata=o.md)
            with o.cv:
                self.call = call
                if self.stopping:
                    call.cancel()
            responses = iter(call)
            first = next(responses, None)
            if first is None:
                return False, "ended before Welcome"
            if first.WhichOneof("kind") != "welcome":
                call.cancel()
                return False, "gnomond did not open the stream with Welcome"
            replica = first.welcome.replica_id
            with o.cv:
                other = [l.address for l in o.links.values()
                         if l is not self and replica and l.replica == replica]
                if not other:
                    self.replica = replica
            if other:
                call.cancel()
                return False, f'replica "{replica}" is connected through {other[0]}'
            out.put(o.pb.executor.ConnectRequest(hello=o.hello))
            o.log(f'connected to gnomond replica "{replica}" at {self.address} as executor '
                  f'"{o.hello.executor}" of app "{o.hello.app_name}"')
            for message in responses:
                kind = message.WhichOneof("kind")
                if kind == "runs":
                    out.put(o.pb.executor.ConnectRequest(answers=o.answer(message.runs)))
                    progressed = True
                elif kind == "call":
                    out.put(o.pb.executor.ConnectRequest(reply=o.reply(message.call)))
                    progressed = True
                # another Welcome, or a kind this executor does not know: nothing to answer
            progressed = True
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.CANCELLED:
                error = f"{e.code().name}: {e.details()}"
                progressed = progressed or e.code() not in channels.REFUSALS
        finally:
            out.put(None)
            with o.cv:
                self.call = None
                self.replica = ""
            channel.close()
        return progressed, error

    def stop(self) -> None:
        self.stopping = True
        if self.call is not None:
            self.call.cancel()


class SchedulerConnections:
    """Resolves the scheduler endpoints every resolve_interval and keeps one
    Dispatch.Connect stream per address (one per replica_id)."""

    def __init__(self, pb: Any, endpoints: List[str], md: Any, hello: Any,
                 answer: Callable[[Any], Any], reply: Callable[[Any], Any], tls: channels.Tls,
                 resolve_interval: float, backoff_initial: float, backoff_max: float,
                 log: Callable[[str], None]):
        self.pb, self.endpoints, self.md, self.hello = pb, endpoints, md, hello
        self.answer, self.reply = answer, reply
        self.tls = tls
        self.resolve_interval = resolve_interval
        self.backoff_initial, self.backoff_max = backoff_initial, backoff_max
        self.log = log
        self.cv = threading.Condition()
        self.links: Dict[str, _Link] = {}
        self._stopping = False
        self._errors: Dict[str, str] = {}
        self._thread = threading.Thread(target=self._resolve_loop, name="gnomon-resolver",
                                        daemon=True)

    def start(self) -> None:
        self._thread.start()

    def connected(self) -> int:
        with self.cv:
            return sum(1 for l in self.links.values() if l.replica)

    def stop(self) -> None:
        with self.cv:
            self._stopping = True
            links = list(self.links.values())
            for link in links:
                link.stop()
            self.cv.notify_all()
        self._thread.join()
        for link in links:
            link.thread.join()

    def _resolve_loop(self) -> None:
        while True:
            resolved: Dict[str, str] = {}
            failed = set()
            for endpoint in self.endpoints:
                try:
                    addresses = channels.resolve(endpoint)
                    error = "" if addresses else "no addresses"
                except (OSError, ValueError) as e:
                    addresses, error = [], str(e)
                if error:
                    failed.add(endpoint)
                    if self._errors.get(endpoint) != error:
                        self.log(f"scheduler endpoint {endpoint}: {error}; resolving again every "
                                 f"{self.resolve_interval:g}s")
                self._errors[endpoint] = error
                for a in addresses:
                    resolved.setdefault(a, endpoint)
            with self.cv:
                if self._stopping:
                    return
                for address, link in list(self.links.items()):
                    if address not in resolved and link.endpoint not in failed:
                        self.log(f"gnomond {address} is no longer resolved: closing its stream")
                        link.stop()
                        del self.links[address]
                for address, endpoint in resolved.items():
                    if address not in self.links:
                        link = self.links[address] = _Link(self, address, endpoint)
                        link.thread.start()
                channels.wait(self.cv, self.resolve_interval, lambda: self._stopping)
                if self._stopping:
                    return
