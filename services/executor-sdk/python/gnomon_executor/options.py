"""Executor options, from code or from the GNOMON_* environment."""
from __future__ import annotations

import os
import socket
from dataclasses import dataclass, field
from typing import Dict, List

from . import channels


def split_endpoints(text: str) -> List[str]:
    """"a:1, b:2" -> ["a:1", "b:2"]."""
    return [p.strip() for p in text.split(",") if p.strip()]


@dataclass
class Options:
    """Everything an :class:`~gnomon_executor.executor.Executor` needs.

    ``scheduler_endpoints`` empty means the registry endpoints (one gnomond
    running every role); ``log_endpoints`` empty likewise. ``spool_dir``
    empty keeps unacknowledged results in memory only.
    """

    app_name: str = "sample"
    access_token: str = ""
    registry_endpoints: List[str] = field(default_factory=lambda: ["127.0.0.1:7070"])
    scheduler_endpoints: List[str] = field(default_factory=list)
    log_endpoints: List[str] = field(default_factory=list)
    executor_name: str = ""
    spool_dir: str = ""
    tls_ca: str = ""           # PEM roots verifying gnomond; with tls_cert, TLS
    tls_cert: str = ""         # PEM client certificate (mutual TLS), with tls_key
    tls_key: str = ""
    tls_server_name: str = ""  # name gnomond's certificate carries; empty: host dialled
    version: str = "gnomon-python-executor/0.1"
    labels: Dict[str, str] = field(default_factory=dict)
    max_concurrent_runs: int = 16
    max_queued_runs: int = 65536
    max_queued_runs_per_job: int = 256
    remembered_runs: int = 100_000
    cancel_grace: float = 2.0          # seconds a cancelled handler may take
    shutdown_flush_timeout: float = 5.0
    resolve_interval: float = 5.0
    reconnect_initial: float = 0.1
    reconnect_max: float = 5.0

    @property
    def name(self) -> str:
        return self.executor_name or f"{socket.gethostname()}:{os.getpid()}"

    @property
    def schedulers(self) -> List[str]:
        return self.scheduler_endpoints or self.registry_endpoints

    @property
    def log_services(self) -> List[str]:
        return self.log_endpoints or self.registry_endpoints

    @property
    def tls(self) -> channels.Tls:
        """The TLS settings every channel uses (plaintext without tls_ca and tls_cert)."""
        return channels.Tls(self.tls_ca, self.tls_cert, self.tls_key, self.tls_server_name)

    @classmethod
    def from_env(cls, env: Dict[str, str] | None = None) -> "Options":
        """Reads GNOMON_APP, GNOMON_ACCESS_TOKEN, GNOMON_REGISTRY,
        GNOMON_SCHEDULERS, GNOMON_LOG_SERVICE, GNOMON_EXECUTOR_NAME,
        GNOMON_SPOOL_DIR, GNOMON_TLS_CA, GNOMON_TLS_CERT, GNOMON_TLS_KEY,
        GNOMON_TLS_SERVER_NAME (unset ones keep the defaults). Raises
        ValueError naming the variable when GNOMON_TLS_CERT is set without
        GNOMON_TLS_KEY or the other way round."""
        e = os.environ if env is None else env
        o = cls()
        o.app_name = e.get("GNOMON_APP") or o.app_name
        o.access_token = e.get("GNOMON_ACCESS_TOKEN", "")
        if e.get("GNOMON_REGISTRY"):
            o.registry_endpoints = split_endpoints(e["GNOMON_REGISTRY"])
        o.scheduler_endpoints = split_endpoints(e.get("GNOMON_SCHEDULERS", ""))
        o.log_endpoints = split_endpoints(e.get("GNOMON_LOG_SERVICE", ""))
        o.executor_name = e.get("GNOMON_EXECUTOR_NAME", "")
        o.spool_dir = e.get("GNOMON_SPOOL_DIR", "")
        o.tls_ca = e.get("GNOMON_TLS_CA", "")
        o.tls_cert = e.get("GNOMON_TLS_CERT", "")
        o.tls_key = e.get("GNOMON_TLS_KEY", "")
        o.tls_server_name = e.get("GNOMON_TLS_SERVER_NAME", "")
        for given, missing in (("GNOMON_TLS_CERT", "GNOMON_TLS_KEY"),
                               ("GNOMON_TLS_KEY", "GNOMON_TLS_CERT")):
            if e.get(given) and not e.get(missing):
                raise ValueError(f"{given} is set but {missing} is not: a client certificate "
                                 "needs both its certificate file and its key file")
        return o
