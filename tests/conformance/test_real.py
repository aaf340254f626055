"""Conformance checks against a REAL gnomond, driven with gnomonctl."""
from __future__ import annotations

import os
import shutil
import signal
import time
import unittest

from harness import Executor, Gnomond, tempdir, wait_for

ENDED = ("RUN_STATUS_SUCCEEDED", "RUN_STATUS_FAILED")


def _ms(ts: str) -> float:
    """RFC 3339 (…Z) to epoch seconds, enough for ordering."""
    from datetime import datetime
    return datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp()


class RealGnomond(unittest.TestCase):
    """One gnomond and executor A for the class; each test its own job(s)."""

    @classmethod
    def setUpClass(cls) -> None:
        cls.dir = tempdir("gnomon-conformance-")
        cls.g = Gnomond(cls.dir)
        cls.g.start()
        cls.app = "conf"
        cls.token = cls.g.group(cls.app)
        cls.a = Executor(cls.app, cls.g.address, cls.token, "conf-a", cls.dir).start()
        wait_for(lambda: any(e["address"] == "conf-a" for e in cls.g.executors(cls.app)), 30,
                 "conf-a to register")

    @classmethod
    def tearDownClass(cls) -> None:
        cls.a.stop()
        cls.g.stop()
        shutil.rmtree(cls.dir, ignore_errors=True)

    def ended(self, run_id: str, timeout: float = 30.0) -> dict:
        return self.g.wait_ended(run_id, timeout)["run"]

    def running_started(self, run_id: str) -> dict:
        """Waits until the run is RUNNING and its start report is stored."""
        return self.g.wait_run(run_id, lambda r: r["status"] == "RUN_STATUS_RUNNING"
                               and "start_time" in r, 30, f"run {run_id} to start")["run"]

    def test_registration_is_listed_and_beats(self) -> None:
        e = [e for e in self.g.executors(self.app) if e["address"] == "conf-a"][0]
        for h in ("demo", "fail", "slow", "sharding", "noop", "invoice"):
            self.assertIn(h, e["handlers"])
        self.assertGreater(e["capacity"], 0)
        self.assertTrue(e["answers_probes"])
        self.assertTrue(0 < len(e["instance_id"]) <= 64)
        # Beats keep it registered: it stays listed, as the same instance, for
        # twice gnomond's beat timeout (500 ms x missed beats); the listing's
        # last_beat_time is refreshed only on change, so it is not the check.
        end = time.monotonic() + 4.0
        while time.monotonic() < end:
            now = [x for x in self.g.executors(self.app) if x["address"] == "conf-a"]
            self.assertEqual([x["instance_id"] for x in now], [e["instance_id"]],
                             "dropped or re-registered: beats missing?")
            time.sleep(0.2)  # observation over a period, not synchronisation

    def test_run_succeeds_with_log_lines_and_result(self) -> None:
        job = self.g.job(self.app, "demo", "hello world")
        run = self.g.trigger(job)[0]
        r = self.g.wait_ended(run)
        self.assertEqual(r["run"]["status"], "RUN_STATUS_SUCCEEDED", r)
        self.assertEqual(r["run"]["handle_code"], 200)
        self.assertEqual(r["run"]["executor_address"], "conf-a")
        self.assertIn("start_time", r["run"])
        # Lines may land just after the result: wait for all three.
        r = self.g.wait_run(run, lambda x: x.get("log_line_count") == "3", 10, "3 log lines")
        texts = [(int(l["line_number"]), l["text"]) for l in r["log_lines"]]
        self.assertEqual(texts, [(1, "demo handler started"), (2, "params: hello world"),
                                 (3, "demo handler done")])
        self.assertEqual(self.a.invocations_of(run), 1)

    def test_failing_handler_fails_with_its_message(self) -> None:
        run = self.g.trigger(self.g.job(self.app, "fail"))[0]
        r = self.ended(run)
        self.assertEqual(r["status"], "RUN_STATUS_FAILED")
        self.assertEqual(r["handle_code"], 500)
        self.assertEqual(r["handle_message"], "fail handler: failed on purpose")

    def test_unknown_handler_is_refused_unsupported(self) -> None:
        run = self.g.trigger(self.g.job(self.app, "no-such-handler"))[0]
        r = self.ended(run)
        self.assertEqual(r["status"], "RUN_STATUS_FAILED")
        self.assertIn(506, (r["handle_code"], r["trigger_code"]), r)
        self.assertIn("no-such-handler", r["handle_message"] + r["trigger_message"], r)
        self.assertEqual(self.a.invocations_of(run), 0)

    def test_serial_execution_queues_runs_of_a_job(self) -> None:
        job = self.g.job(self.app, "slow", "700", "--block", "serial")
        runs = [self.g.trigger(job)[0] for _ in range(3)]
        ended = [self.ended(r) for r in runs]
        for r in ended:
            self.assertEqual(r["status"], "RUN_STATUS_SUCCEEDED", r)
        spans = sorted((_ms(r["start_time"]), _ms(r["end_time"])) for r in ended)
        for (s1, e1), (s2, _) in zip(spans, spans[1:]):
            self.assertLessEqual(e1, s2 + 0.005, f"runs of a SERIAL job overlapped: {spans}")

    def test_discard_later_refuses_while_a_run_is_active(self) -> None:
        job = self.g.job(self.app, "slow", "3000", "--block", "discard-later")
        first = self.g.trigger(job)[0]
        self.running_started(first)
        second = self.g.trigger(job)[0]
        r2 = self.ended(second)
        self.assertEqual(r2["status"], "RUN_STATUS_FAILED")
        self.assertIn(506, (r2["handle_code"], r2["trigger_code"]), r2)
        self.assertIn("DISCARD_LATER", r2["handle_message"] + r2["trigger_message"])
        self.assertEqual(self.ended(first)["status"], "RUN_STATUS_SUCCEEDED")
        self.assertEqual(self.a.invocations_of(second), 0)

    def test_cover_early_kills_the_running_run_and_runs_the_new_one(self) -> None:
        job = self.g.job(self.app, "slow", "30000", "--block", "cover-early")
        first = self.g.trigger(job)[0]
        self.running_started(first)
        second = self.g.trigger(job, "--params", "200")[0]
        r1 = self.ended(first, 15)
        self.assertEqual(r1["status"], "RUN_STATUS_FAILED")
        self.assertEqual(r1["handle_code"], 503, r1)
        r2 = self.ended(second, 15)
        self.assertEqual(r2["status"], "RUN_STATUS_SUCCEEDED", r2)
        self.assertGreaterEqual(_ms(r2["start_time"]) + 0.005, _ms(r1["end_time"]) - 0.5)

    def test_timeout_fails_the_run_502(self) -> None:
        job = self.g.job(self.app, "slow", "20000", "--run-timeout", "1s")
        r = self.ended(self.g.trigger(job)[0], 15)
        self.assertEqual(r["status"], "RUN_STATUS_FAILED")
        self.assertEqual(r["handle_code"], 502, r)
        self.assertLess(_ms(r["end_time"]) - _ms(r["start_time"]), 8)

    def test_kill_stops_a_running_run_503(self) -> None:
        job = self.g.job(self.app, "slow", "30000")
        run = self.g.trigger(job)[0]
        self.running_started(run)
        self.g.ctl("run", "kill", run)
        r = self.ended(run, 15)
        self.assertEqual(r["status"], "RUN_STATUS_FAILED")
        self.assertEqual(r["handle_code"], 503, r)

    def test_sharding_broadcast_across_two_executors(self) -> None:
        b = Executor(self.app, self.g.address, self.token, "conf-b", self.dir).start()
        try:
            wait_for(lambda: len(self.g.executors(self.app)) == 2, 30, "conf-b to register")
            job = self.g.job(self.app, "sharding", "", "--route", "broadcast")
            runs = self.g.trigger(job)
            self.assertEqual(len(runs), 2)
            got = {}
            for run in runs:
                r = self.ended(run)
                self.assertEqual(r["status"], "RUN_STATUS_SUCCEEDED", r)
                self.assertEqual(r["shard_total"], 2)
                lines = self.g.wait_run(run, lambda x: x.get("log_line_count") == "1", 10)
                self.assertEqual(lines["log_lines"][0]["text"],
                                 f"shard {r['shard_index']} of 2")
                got[r["shard_index"]] = r["executor_address"]
                ex = self.a if r["executor_address"] == "conf-a" else b
                self.assertEqual(ex.invocations_of(run), 1)
            self.assertEqual(set(got), {0, 1})
            self.assertEqual(set(got.values()), {"conf-a", "conf-b"})
        finally:
            b.proc.signal(signal.SIGTERM)
            b.proc.wait(30)
            wait_for(lambda: len(self.g.executors(self.app)) == 1, 10, "conf-b to leave")

    def test_sigterm_drains_deregisters_and_a_restart_keeps_results_once(self) -> None:
        app = "conf-term"
        token = self.g.group(app)
        ex = Executor(app, self.g.address, token, "term-1", self.dir).start()
        wait_for(lambda: self.g.executors(app), 30, "term-1 to register")
        job = self.g.job(app, "slow", "1500")
        run = self.g.trigger(job)[0]
        self.running_started(run)
        ex.proc.signal(signal.SIGTERM)
        self.assertEqual(ex.proc.wait(30), 0, ex.proc.output())
        # Drained: the run finished and its result was acknowledged before exit...
        r = self.g.run(run)["run"]
        self.assertEqual(r["status"], "RUN_STATUS_SUCCEEDED", r)
        # ...and it deregistered (dropped at once, not after the beat timeout).
        self.assertEqual(self.g.executors(app), [])
        ex.start()  # same name, same spool
        wait_for(lambda: self.g.executors(app), 30, "term-1 to register again")
        runs = [self.g.trigger(self.g.job(app, "demo", str(i)))[0] for i in range(3)]
        for rid in runs + [run]:
            self.assertEqual(self.ended(rid)["status"], "RUN_STATUS_SUCCEEDED")
            self.assertEqual(ex.invocations_of(rid), 1, rid)
        ex.proc.signal(signal.SIGTERM)
        self.assertEqual(ex.proc.wait(30), 0)


class GnomondFailures(unittest.TestCase):
    """Checks that stop, freeze or kill -9 gnomond: each test its own gnomond."""

    def setUp(self) -> None:
        self.dir = tempdir("gnomon-conformance-")
        self.g = Gnomond(self.dir)
        self.g.start()
        self.app = "conf-fail"
        self.token = self.g.group(self.app)
        self.ex = Executor(self.app, self.g.address, self.token, "fail-1", self.dir).start()
        wait_for(lambda: self.g.executors(self.app), 30, "fail-1 to register")

    def tearDown(self) -> None:
        if self.g.proc is not None:
            self.g.proc.signal(signal.SIGCONT)
        self.ex.stop()
        self.g.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    def test_result_in_the_spool_survives_executor_kill9(self) -> None:
        """gnomond is frozen (SIGSTOP) so the result cannot be acknowledged;
        the executor is killed -9; its restart (same name and spool) must
        deliver the result, which replaces the provisional 504."""
        marker = os.path.join(self.dir, "handler-done")
        job = self.g.job(self.app, "shell", f"sleep 1; touch {marker}")
        run = self.g.trigger(job)[0]
        self.g.wait_run(run, lambda r: "start_time" in r, 30, "the start report")
        self.g.proc.signal(signal.SIGSTOP)
        wait_for(lambda: os.path.exists(marker), 20, "the handler to finish")
        # The result is spooled when the handler returns, microseconds after
        # the marker; this margin is the one sleep of the suite that is not a poll
        # (nothing outside the executor can observe its spool).
        time.sleep(1.0)
        self.ex.proc.signal(signal.SIGKILL)
        self.ex.proc.wait()
        self.g.proc.signal(signal.SIGCONT)
        self.ex.start()
        r = self.g.wait_run(run, lambda x: x["status"] == "RUN_STATUS_SUCCEEDED", 30,
                            "the spooled result to arrive")["run"]
        self.assertEqual(r["handle_code"], 200)
        self.assertEqual(self.ex.invocations_of(run), 1)

    def test_runs_resent_after_gnomond_kill9_are_not_executed_twice(self) -> None:
        jobs = [self.g.job(self.app, "slow", "1500") for _ in range(6)]
        runs = [self.g.trigger(j)[0] for j in jobs]
        # Kill gnomond while the runs are being dispatched/answered/run.
        self.g.kill9()
        self.g.start()
        for run in runs:
            r = self.g.wait_ended(run, 60)["run"]
            self.assertEqual(r["status"], "RUN_STATUS_SUCCEEDED", r)
        for run in runs:
            self.assertEqual(self.ex.invocations_of(run), 1, f"run {run} executed "
                             f"{self.ex.invocations_of(run)} times")
