"""Workflow outputs and inputs in the Python executor: Context.set_output and
its limit, inputs and workflow_run_id reaching the handler, the output of a
killed run, and the output carried by the reported (spooled) result.

    PYTHONPATH=services/executor-sdk/python /usr/bin/python3 -m unittest \\
        discover -s services/executor-sdk/python/tests

The stubs are generated from proto/ into a temporary directory (or taken
from GNOMON_PY_STUBS).
"""
from __future__ import annotations

import shutil
import tempfile
import threading
import unittest
from typing import Dict, List, Optional

from gnomon_executor import stubs
from gnomon_executor.reporter import Reporter
from gnomon_executor.runs import KILLED, MAX_OUTPUT_BYTES, RunManager
from gnomon_executor.spool import Spool

PB = None
_STUBS_DIR: Optional[str] = None
WAIT = 30.0


def setUpModule() -> None:
    global PB, _STUBS_DIR
    import os
    given = os.environ.get("GNOMON_PY_STUBS", "")
    if not given:
        _STUBS_DIR = tempfile.mkdtemp(prefix="gnomon-py-test-stubs-")
        stubs.generate(stubs._DEFAULT_PROTO_DIR, _STUBS_DIR)
    PB = stubs.load(given or _STUBS_DIR)


def tearDownModule() -> None:
    if _STUBS_DIR:
        shutil.rmtree(_STUBS_DIR, ignore_errors=True)


class RecordingSink:
    """Records results (code, message, output) by run id; waits for them."""

    def __init__(self) -> None:
        self._cv = threading.Condition()
        self.results: Dict[int, tuple] = {}

    def started(self, run_id: int, start: float, receipt: bytes = b"") -> None:
        pass

    def line(self, run_id: int, number: int, when: float, text: str) -> None:
        pass

    def finished(self, run_id: int, code: int, message: str, start: float, end: float,
                 output: str = "") -> None:
        with self._cv:
            self.results[run_id] = (code, message, output)
            self._cv.notify_all()

    def result(self, run_id: int) -> tuple:
        with self._cv:
            if not self._cv.wait_for(lambda: run_id in self.results, WAIT):
                raise AssertionError(f"no result for run {run_id}")
            return self.results[run_id]


def request(run_id: int, handler: str, workflow_run_id: int = 0, inputs=()):
    r = PB.executor.RunRequest(run_id=run_id, job_id=run_id, shard_total=1,
                               workflow_run_id=workflow_run_id)
    r.bean.handler = handler
    for node, output in inputs:
        r.inputs.add(node=node, output=output)
    return r


class WorkflowIoTest(unittest.TestCase):
    def manager(self, handlers) -> RunManager:
        m = RunManager(handlers, self.sink, max_concurrent=2, max_queued=10,
                       max_queued_per_job=10, remembered=100, cancel_grace=5.0)
        self.addCleanup(m.shutdown, 0.0)
        return m

    def setUp(self) -> None:
        self.sink = RecordingSink()

    def test_the_last_output_set_reaches_the_result(self) -> None:
        def count(ctx) -> None:
            ctx.set_output("first")
            ctx.set_output("rows=42")

        m = self.manager({"count": count, "quiet": lambda ctx: None})
        self.assertTrue(m.submit(request(1, "count")).accepted)
        self.assertTrue(m.submit(request(2, "quiet")).accepted)
        self.assertEqual(self.sink.result(1), (200, "", "rows=42"))
        self.assertEqual(self.sink.result(2), (200, "", ""))

    def test_an_output_over_the_limit_raises_and_the_one_before_is_kept(self) -> None:
        errors: List[Exception] = []
        at_limit = "\u00e9" * 2048  # 4096 bytes in UTF-8

        def big(ctx) -> None:
            ctx.set_output("a" * MAX_OUTPUT_BYTES)
            ctx.set_output(at_limit)
            for value in ("x" * (MAX_OUTPUT_BYTES + 1), "x" * 4095 + "\u00e9", "\ud800"):
                try:
                    ctx.set_output(value)
                except ValueError as e:
                    errors.append(e)

        m = self.manager({"big": big})
        self.assertTrue(m.submit(request(1, "big")).accepted)
        self.assertEqual(self.sink.result(1), (200, "", at_limit))
        self.assertEqual(len(errors), 3, errors)
        self.assertEqual(str(errors[0]),
                         "output is 4097 bytes in UTF-8, longer than the limit of 4096 bytes")
        self.assertEqual(str(errors[1]),
                         "output is 4097 bytes in UTF-8, longer than the limit of 4096 bytes")
        self.assertIn("not valid UTF-8", str(errors[2]))

    def test_the_run_requests_inputs_reach_the_context(self) -> None:
        seen: Dict[int, tuple] = {}

        def node(ctx) -> None:
            seen[ctx.run_id] = (ctx.workflow_run_id, dict(ctx.inputs))

        m = self.manager({"node": node})
        inputs = [("extract", "2024-05-01"), ("count", "1\n2\n"), ("empty", "")]
        self.assertTrue(m.submit(request(1, "node", 77, inputs)).accepted)
        self.sink.result(1)
        self.assertEqual(seen[1], (77, {"extract": "2024-05-01", "count": "1\n2\n", "empty": ""}))
        self.assertTrue(m.submit(request(2, "node")).accepted)  # a run of no workflow
        self.sink.result(2)
        self.assertEqual(seen[2], (0, {}))

    def test_a_killed_run_reports_the_output_set_until_then(self) -> None:
        set_ = threading.Event()

        def partial(ctx) -> None:
            ctx.set_output("rows=10")
            set_.set()
            ctx.wait_cancelled(WAIT)

        m = self.manager({"partial": partial})
        self.assertTrue(m.submit(request(1, "partial")).accepted)
        self.assertTrue(set_.wait(WAIT))
        self.assertTrue(m.kill(1, "by test"))
        code, _, output = self.sink.result(1)
        self.assertEqual((code, output), (KILLED, "rows=10"))

    def test_the_reported_result_carries_the_output_through_the_spool(self) -> None:
        directory = tempfile.mkdtemp(prefix="gnomon-py-test-spool-")
        self.addCleanup(shutil.rmtree, directory, True)
        spool = Spool(directory, PB.log.ReportItem.FromString)
        reporter = Reporter(PB, spool, [], None, "test-executor", None, None, lambda m: None)
        output = "\U0001F600" * 1024  # 4096 bytes
        reporter.finished(9, 500, "boom", 1.0, 2.0, output)
        spool.close()
        reopened = Spool(directory, PB.log.ReportItem.FromString)
        self.addCleanup(reopened.close)
        items = [item for _, item in reopened.after(0, 10)]
        self.assertEqual(len(items), 1)
        self.assertEqual(items[0].result.run_id, 9)
        self.assertEqual(items[0].result.handle_code, 500)
        self.assertEqual(items[0].result.output, output)


if __name__ == "__main__":
    unittest.main()
