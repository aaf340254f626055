"""The durable result spool: report items kept until acknowledged.

An sqlite3 database ``spool.db`` in the spool directory (or ``:memory:``
without one). Each item is committed before it can be sent, so a result
survives the process dying before its acknowledgement; it is deleted only
when acknowledged. The run ids of reported results are also kept (the last
``remembered`` of them) so that a restarted executor still answers those runs
"already accepted" if gnomond sends them again.
"""
from __future__ import annotations

import os
import sqlite3
import threading
from collections import OrderedDict
from typing import Any, Callable, List, Tuple


class Spool:
    """Ordered, durable items: ``append`` -> ``next_after`` -> ``remove``.

    Thread-safe. Items are protobuf ``ReportItem``s; the spool only needs
    ``SerializeToString`` and a parser (``parse``) to read them back.
    """

    def __init__(self, directory: str, parse: Callable[[bytes], Any], remembered: int = 100_000):
        self._lock = threading.Lock()
        self.durable = bool(directory)
        if directory:
            os.makedirs(directory, exist_ok=True)
            path = os.path.join(directory, "spool.db")
        else:
            path = ":memory:"
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("CREATE TABLE IF NOT EXISTS items (id INTEGER PRIMARY KEY AUTOINCREMENT,"
                         " data BLOB NOT NULL)")
        self._db.execute("CREATE TABLE IF NOT EXISTS results (seq INTEGER PRIMARY KEY "
                         "AUTOINCREMENT, run_id INTEGER NOT NULL)")
        self._remembered = remembered
        self._items: "OrderedDict[int, Any]" = OrderedDict()
        for rid, data in self._db.execute("SELECT id, data FROM items ORDER BY id"):
            self._items[rid] = parse(data)
        self.recovered = len(self._items)

    def recovered_result_runs(self) -> List[int]:
        """Run ids of the results this spool holds or held (most recent last)."""
        with self._lock:
            return [r for (r,) in self._db.execute("SELECT run_id FROM results ORDER BY seq")]

    def append(self, item: Any) -> int:
        """Stores an item durably; returns its spool id."""
        data = item.SerializeToString()
        with self._lock:
            cur = self._db.cursor()
            cur.execute("BEGIN")
            cur.execute("INSERT INTO items (data) VALUES (?)", (data,))
            rid = cur.lastrowid
            if item.WhichOneof("item") == "result":
                cur.execute("INSERT INTO results (run_id) VALUES (?)", (item.result.run_id,))
                cur.execute("DELETE FROM results WHERE seq <= (SELECT MAX(seq) FROM results) - ?",
                            (self._remembered,))
            cur.execute("COMMIT")
            self._items[rid] = item
            return rid

    def remove(self, rid: int) -> None:
        with self._lock:
            if self._items.pop(rid, None) is not None:
                self._db.execute("DELETE FROM items WHERE id = ?", (rid,))

    def after(self, cursor: int, limit: int) -> List[Tuple[int, Any]]:
        """Up to ``limit`` items with ids above ``cursor``, in order."""
        out: List[Tuple[int, Any]] = []
        with self._lock:
            for rid, item in self._items.items():  # unacknowledged items only
                if rid > cursor:
                    out.append((rid, item))
                    if len(out) >= limit:
                        break
        return out

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)

    def close(self) -> None:
        with self._lock:
            self._db.close()
