"""gRPC channels, credentials metadata, backoff and address resolution."""
from __future__ import annotations

import random
import socket
import threading
from typing import List, Optional, Sequence, Tuple

import grpc

APP_KEY = "x-gnomon-app"
TOKEN_KEY = "x-gnomon-access-token"
REFUSALS = (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED,
            grpc.StatusCode.INVALID_ARGUMENT)


def metadata(app: str, token: str) -> Sequence[Tuple[str, str]]:
    """The credentials every stream carries."""
    return ((APP_KEY, app), (TOKEN_KEY, token))


def dial(target: str, tls_ca: str = "", server_name: str = "") -> grpc.Channel:
    """A plaintext channel, or TLS verified against the PEM roots in tls_ca
    (for server_name when given)."""
    options = [("grpc.max_receive_message_length", 64 << 20),
               ("grpc.initial_reconnect_backoff_ms", 100),
               ("grpc.max_reconnect_backoff_ms", 1000)]
    if not tls_ca:
        return grpc.insecure_channel(target, options=options)
    with open(tls_ca, "rb") as f:
        creds = grpc.ssl_channel_credentials(root_certificates=f.read())
    if server_name:
        options.append(("grpc.ssl_target_name_override", server_name))
    return grpc.secure_channel(target, creds, options=options)


class Backoff:
    """Jittered exponential backoff: a random delay up to a bound that starts
    at `initial` and doubles to `maximum`; reset after progress."""

    def __init__(self, initial: float, maximum: float):
        self._initial, self._max = initial, maximum
        self._bound = initial

    def reset(self) -> None:
        self._bound = self._initial

    def next(self) -> float:
        delay = random.uniform(0, self._bound)
        self._bound = min(self._bound * 2, self._max)
        return delay


def split_host_port(endpoint: str) -> Optional[Tuple[str, str]]:
    colon = endpoint.rfind(":")
    bracket = endpoint.rfind("]")
    if colon < 0 or (bracket >= 0 and colon < bracket):
        return None
    host, port = endpoint[:colon], endpoint[colon + 1:]
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return (host, port) if host and port else None


def resolve(endpoint: str) -> List[str]:
    """All addresses of host:port, the IPv4 ones if there are any, sorted."""
    hp = split_host_port(endpoint)
    if hp is None:
        raise ValueError(f'scheduler endpoint "{endpoint}" is not host:port')
    v4, v6 = set(), set()
    for family, _, _, _, addr in socket.getaddrinfo(hp[0], hp[1], type=socket.SOCK_STREAM):
        if family == socket.AF_INET:
            v4.add(f"{addr[0]}:{addr[1]}")
        elif family == socket.AF_INET6:
            v6.add(f"[{addr[0]}]:{addr[1]}")
    return sorted(v4 or v6)


def wait(cond: threading.Condition, seconds: float, stop: "callable") -> None:  # type: ignore
    """Waits up to `seconds` on cond (held) unless stop() becomes true."""
    import time
    end = time.monotonic() + seconds
    while not stop():
        left = end - time.monotonic()
        if left <= 0:
            return
        cond.wait(left)
