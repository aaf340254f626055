"""Exact-protocol checks against a scripted fake gnomond (fake_gnomond.py):
answer rules and fencing, calls, result resending, the spool across kill -9."""
from __future__ import annotations

import itertools
import shutil
import signal
import types
import unittest

from gnomon.v1 import common_pb2, executor_pb2, executor_pb2_grpc, log_pb2, log_pb2_grpc
from gnomon.v1 import registry_pb2, registry_pb2_grpc

from fake_gnomond import FakeGnomond
from harness import Executor, tempdir

PB = types.SimpleNamespace(common=common_pb2, executor=executor_pb2, registry=registry_pb2,
                           log=log_pb2, executor_grpc=executor_pb2_grpc,
                           registry_grpc=registry_pb2_grpc, log_grpc=log_pb2_grpc)
E = executor_pb2
SERIAL, DISCARD = common_pb2.BLOCK_STRATEGY_SERIAL_EXECUTION, common_pb2.BLOCK_STRATEGY_DISCARD_LATER


def run(run_id, job_id, handler="demo", epoch=1, partition=0, probe=False, params="",
        block=SERIAL, script=False, receipt=b""):
    r = E.RunRequest(run_id=run_id, job_id=job_id, params=params, shard_total=1,
                     block_strategy=block, fence_epoch=epoch, fence_partition=partition,
                     probe=probe, receipt=receipt)
    if script:
        r.script.language = common_pb2.SCRIPT_LANGUAGE_SHELL
        r.script.source = "echo hi"
    else:
        r.bean.handler = handler
    return r


class FakeGnomondChecks(unittest.TestCase):
    def setUp(self) -> None:
        self.dir = tempdir("gnomon-conformance-fake-")
        self.fake = FakeGnomond(PB)
        self.ex = Executor("fakeapp", self.fake.address, "fake-token", "fake-1", self.dir)
        self.ex.start()
        self.fake.wait(lambda: self.fake.hellos and self.fake.registers, 15, "Register and Hello")

    def tearDown(self) -> None:
        self.ex.stop()
        self.fake.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    def dispatch(self, *runs) -> list:
        """Sends one runs message; returns its answers (the next answers message)."""
        n = len(self.fake.answers)
        self.fake.send(E.ConnectResponse(runs=E.DispatchRequest(runs=list(runs))))
        self.fake.wait(lambda: len(self.fake.answers) > n, 10, "answers")
        answers = list(self.fake.answers[n].answers)
        self.assertEqual([a.run_id for a in answers], [r.run_id for r in runs],
                         "one answer per run, in order")
        return answers

    def call(self, call_id: int, **kind) -> E.CallReply:
        self.fake.send(E.ConnectResponse(call=E.Call(id=call_id, **kind)))
        return self.fake.wait(lambda: next((r for r in self.fake.replies if r.id == call_id),
                                           None), 10, f"reply {call_id}")

    def assertAccepted(self, a, already=False, position=None):
        self.assertEqual(a.WhichOneof("outcome"), "accepted", a)
        self.assertEqual(a.accepted.already_accepted, already, a)
        if position is not None:
            self.assertEqual(a.accepted.queue_position, position, a)

    def assertRejected(self, a, kind):
        self.assertEqual(a.WhichOneof("outcome"), "rejected", a)
        self.assertEqual(a.rejected.kind, kind, a)
        self.assertEqual(a.rejected.code, 506, a)

    def test_handshake_credentials_register_hello_beats(self) -> None:
        f = self.fake
        reg, hello = f.registers[0], f.hellos[0]
        self.assertEqual(reg.app_name, "fakeapp")
        self.assertEqual(reg.address, "fake-1")
        self.assertTrue(reg.answers_probes)
        self.assertIn("demo", reg.handlers)
        self.assertTrue(0 < len(reg.instance_id) <= 64)
        self.assertEqual((hello.app_name, hello.executor, hello.instance_id),
                         ("fakeapp", "fake-1", reg.instance_id))
        for md in f.metadata["session"] + f.metadata["connect"]:
            self.assertEqual(md.get("x-gnomon-app"), "fakeapp")
            self.assertEqual(md.get("x-gnomon-access-token"), "fake-token")
        f.wait(lambda: f.beats >= 3, 5, "beats every Registered.beat_interval (200 ms)")

    def test_answer_rules_fencing_dedup_probes(self) -> None:
        A = self.dispatch(
            run(101, 1, epoch=5, partition=1),                 # accepted
            run(101, 1, epoch=5, partition=1),                 # the same id again
            run(102, 2, handler="no-such", epoch=5, partition=1),
            run(103, 3, script=True, epoch=5, partition=1),    # scripts: unsupported here
            run(104, 4, epoch=4, partition=1),                 # stale epoch
            run(105, 5, epoch=9, partition=2, probe=True),     # probe, not held; notes epoch 9
            run(106, 6, epoch=8, partition=2),                 # fenced off by the probe
            run(101, 1, epoch=1, partition=1, probe=True),     # probe of a held run, old epoch
            run(104, 4, epoch=6, partition=1),                 # refused before: may be accepted
        )
        self.assertAccepted(A[0])
        self.assertAccepted(A[1], already=True)
        self.assertRejected(A[2], E.REJECT_KIND_UNSUPPORTED)
        self.assertRejected(A[3], E.REJECT_KIND_UNSUPPORTED)
        self.assertRejected(A[4], E.REJECT_KIND_STALE_EPOCH)
        self.assertRejected(A[5], E.REJECT_KIND_NOT_HELD)
        self.assertRejected(A[6], E.REJECT_KIND_STALE_EPOCH)
        self.assertAccepted(A[7], already=True)
        self.assertAccepted(A[8])
        # Block strategies and queue positions.
        B = self.dispatch(run(110, 7, "slow", params="3000", block=DISCARD),
                          run(111, 7, "slow", params="10", block=DISCARD),
                          run(112, 8, "slow", params="3000"),
                          run(113, 8, "slow", params="10"))
        self.assertAccepted(B[0], position=0)
        self.assertRejected(B[1], E.REJECT_KIND_BLOCK_STRATEGY)
        self.assertAccepted(B[2], position=0)
        self.assertAccepted(B[3], position=1)
        # Only accepted runs ran: results for 101, 104 once each; none for the rest.
        f = self.fake
        f.wait(lambda: {101, 104} <= set(f.results()), 10, "results of 101 and 104")
        for rid in (102, 103, 105, 106, 111):
            self.assertEqual(self.ex.invocations_of(rid), 0, rid)
            self.assertNotIn(rid, f.results())
        self.assertEqual(self.ex.invocations_of(101), 1)

    def test_calls_beat_idle_beat_kill(self) -> None:
        self.dispatch(run(201, 9, "slow", params="30000"), run(202, 9, "slow", params="10"))
        beat = self.call(1, beat={})
        self.assertEqual(beat.WhichOneof("kind"), "beat")
        self.assertGreater(beat.beat.capacity, 0)
        self.fake.wait(lambda: self.ex.invocations_of(201) == 1, 10, "run 201 to start")
        self.assertEqual(self.call(2, beat={}).beat.running_runs, 1)
        idle = self.call(3, idle_beat={"job_id": 9}).idle_beat
        self.assertEqual((idle.idle, idle.running, idle.queued), (False, 1, 1))
        self.assertTrue(self.call(4, idle_beat={"job_id": 99}).idle_beat.idle)
        self.assertFalse(self.call(5, kill={"run_id": 999}).kill.found)
        self.assertTrue(self.call(6, kill={"run_id": 202, "reason": "test"}).kill.found)
        self.assertTrue(self.call(7, kill={"run_id": 201, "reason": "test"}).kill.found)
        f = self.fake
        res = f.wait(lambda: (lambda r: r if {201, 202} <= set(r) else None)(f.results()), 10,
                     "results of the killed runs")
        self.assertEqual(res[201].handle_code, 503)
        self.assertEqual(res[202].handle_code, 503)
        self.assertEqual(self.ex.invocations_of(202), 0, "killed while queued: never started")
        # A call of no kind (a newer gnomond's): a reply with the id and no kind.
        self.assertIsNone(self.call(8).WhichOneof("kind"))

    def test_unacknowledged_items_are_resent_on_a_new_stream(self) -> None:
        f = self.fake
        f.ack = False
        self.dispatch(run(301, 10, params="x"))
        f.wait(lambda: 301 in f.results(), 10, "the result of 301")
        first = len(f.report_streams) - 1
        kinds = [i.WhichOneof("item") for i in f.report_streams[first]]
        self.assertEqual(kinds[0], "started")
        self.assertEqual(kinds[-1], "result")
        self.assertEqual([i.sequence for i in f.report_streams[first]],
                         list(range(1, len(kinds) + 1)))
        with f.cv:
            f.ack = True
        f.end_report_streams()
        f.wait(lambda: len(f.report_streams) > first + 1 and 301 in f.results(first + 1), 15,
               "the items sent again on a new stream")
        again = f.report_streams[first + 1]
        self.assertEqual([i.sequence for i in again][:len(kinds)], list(range(1, len(kinds) + 1)))
        self.assertEqual([i.WhichOneof("item") for i in again][:len(kinds)], kinds)
        lines = [l.text for i in again if i.WhichOneof("item") == "log" for l in i.log.lines]
        self.assertEqual(lines, ["demo handler started", "params: x", "demo handler done"])

    def test_the_start_echoes_the_runs_receipt(self) -> None:
        f = self.fake
        receipt = bytes(range(256))  # Opaque: any bytes, echoed unchanged.
        self.dispatch(run(311, 11, receipt=receipt))
        f.wait(lambda: 311 in f.results(), 10, "the result of 311")
        with f.cv:
            starts = [i.started for s in f.report_streams for i in s
                      if i.WhichOneof("item") == "started" and i.started.run_id == 311]
        self.assertTrue(starts, "a start reported for 311")
        self.assertEqual(starts[0].receipt, receipt)

    def test_spool_survives_kill9_and_remembers_finished_runs(self) -> None:
        f = self.fake
        f.ack = False
        self.dispatch(run(401, 11, params="y"))
        f.wait(lambda: 401 in f.results(), 10, "the result of 401")
        self.ex.proc.signal(signal.SIGKILL)
        self.ex.proc.wait()
        streams = len(f.report_streams)
        old = f.registers[-1].instance_id
        with f.cv:
            f.ack = True
        self.ex.start()
        f.wait(lambda: len(f.registers) >= 2 and len(f.hellos) >= 2, 15, "a new registration")
        self.assertNotEqual(f.registers[-1].instance_id, old, "a new instance id per process")
        f.wait(lambda: any(401 in f.results(i) for i in range(streams, len(f.report_streams))),
               15, "the spooled result of 401 sent by the restarted executor")
        a = self.dispatch(run(401, 11, params="y"))
        self.assertAccepted(a[0], already=True)
        self.assertEqual(self.ex.invocations_of(401), 1)

    def test_sigterm_refuses_new_runs_and_deregisters(self) -> None:
        f = self.fake
        self.dispatch(run(501, 12, "slow", params="2500"))
        f.wait(lambda: self.ex.invocations_of(501) == 1, 10, "run 501 to start")
        self.ex.proc.signal(signal.SIGTERM)
        a: list = []
        ids = itertools.count(502)  # As many as it takes the signal to be handled.

        def shutting_down():  # fresh run ids until one is refused (the signal is async)
            a[:] = self.dispatch(run(next(ids), 13, "noop"), run(501, 12, "slow", params="2500"))
            return a[0].WhichOneof("outcome") == "rejected"
        f.wait(shutting_down, 20, "a run refused while draining")
        self.assertRejected(a[0], E.REJECT_KIND_SHUTTING_DOWN)
        self.assertAccepted(a[1], already=True)
        self.assertEqual(self.ex.proc.wait(30), 0)
        self.assertEqual(f.results()[501].handle_code, 200)
        self.assertEqual(len(f.deregisters), 1)
