"""The Python executor's log lines: text by default, and with
GNOMON_LOG_FORMAT=json one JSON object per line (time, level, program,
message), as gnomon's C++ programs write them.

    PYTHONPATH=services/executor-sdk/python /usr/bin/python3 -m unittest \\
        discover -s services/executor-sdk/python/tests
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import unittest
from unittest import mock

from gnomon_executor import executor


class JsonLogsTest(unittest.TestCase):
    def line(self, env: dict) -> str:
        err = io.StringIO()
        with mock.patch.dict(os.environ, env, clear=False), contextlib.redirect_stderr(err):
            executor._stderr('run 7 said "hi"\nthen caf\u00e9')
        return err.getvalue()

    def test_text_by_default(self) -> None:
        out = self.line({"GNOMON_LOG_FORMAT": "text"})
        self.assertEqual(out, 'gnomon-executor: run 7 said "hi"\nthen caf\u00e9\n')

    def test_json_is_one_object_per_line(self) -> None:
        out = self.line({"GNOMON_LOG_FORMAT": "json"})
        self.assertTrue(out.endswith("\n"))
        self.assertEqual(out.count("\n"), 1)
        parsed = json.loads(out)
        self.assertEqual(parsed["level"], "INFO")
        self.assertEqual(parsed["program"], "gnomon-python-executor")
        self.assertEqual(parsed["message"], 'run 7 said "hi"\nthen caf\u00e9')
        self.assertRegex(parsed["time"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


if __name__ == "__main__":
    unittest.main()
