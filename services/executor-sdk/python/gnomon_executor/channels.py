"""gRPC channels, credentials metadata, backoff and address resolution."""
from __future__ import annotations

import random
import socket
import ssl
import threading
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

import grpc

APP_KEY = "x-gnomon-app"
TOKEN_KEY = "x-gnomon-access-token"
REFUSALS = (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.PERMISSION_DENIED,
            grpc.StatusCode.INVALID_ARGUMENT)


def metadata(app: str, token: str) -> Sequence[Tuple[str, str]]:
    """The credentials every stream carries."""
    return ((APP_KEY, app), (TOKEN_KEY, token))


@dataclass(frozen=True)
class Tls:
    """TLS for every channel the executor opens, from PEM files (the C++
    SDK's TlsOptions). Empty ``ca`` and ``cert`` means plaintext.

    ``ca``: roots verifying gnomond's certificate (empty: gRPC's default
    roots). ``cert``, ``key``: an optional client certificate chain and its
    key, presented to gnomond for mutual TLS (both or neither).
    ``server_name``: the name gnomond's certificate must carry; empty: the
    host dialled (for a scheduler endpoint resolved to addresses, the
    configured name, not the address). The files are read at every dial, so
    rotated files apply from the next connection.
    """

    ca: str = ""
    cert: str = ""
    key: str = ""
    server_name: str = ""

    @property
    def enabled(self) -> bool:
        return bool(self.ca or self.cert)

    def check(self) -> None:
        """Raises ValueError naming the option or file if a client certificate
        lacks its key (or a key its certificate), a file cannot be read or is
        not PEM, or the key does not match the certificate."""
        if bool(self.cert) != bool(self.key):
            raise ValueError("tls: a client certificate needs both its certificate file "
                             f"(tls_cert={self.cert!r}) and its key file (tls_key={self.key!r})")
        if self.server_name == "*":
            raise ValueError('tls: server name "*" (verify the chain only) is not supported by '
                             "the Python executor; name what gnomond's certificate carries")
        if not self.enabled:
            return
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        if self.ca:
            _read(self.ca)
            try:
                ctx.load_verify_locations(cafile=self.ca)
            except ssl.SSLError as e:
                raise ValueError(f"tls: no PEM certificate in {self.ca}: {e}") from None
        if self.cert:
            _read(self.cert)
            _read(self.key)
            try:
                # An encrypted key fails here rather than prompting for a password.
                ctx.load_cert_chain(self.cert, self.key, password=lambda: b"")
            except ssl.SSLError as e:
                raise ValueError(f"tls: the key in {self.key} does not match the certificate "
                                 f"in {self.cert}, or one of them is not PEM: {e}") from None


_last_read: Dict[str, bytes] = {}
_last_read_lock = threading.Lock()


def _read(path: str) -> bytes:
    """The file's contents; if it cannot be read now (mid-rotation), what it
    last held; ValueError naming it if it never could be read."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        with _last_read_lock:
            if path in _last_read:
                return _last_read[path]
        raise ValueError(f"tls: cannot read {path}: {e.strerror}") from None
    with _last_read_lock:
        _last_read[path] = data
    return data


def dial(target: str, tls: Optional[Tls] = None, verify_name: str = "") -> grpc.Channel:
    """A plaintext channel, or TLS (tls.enabled): gnomond's certificate
    verified against tls.ca (gRPC's default roots without one) for
    tls.server_name if set, else `verify_name` if given, else the host
    dialled; tls.cert and tls.key presented as the client certificate."""
    options = [("grpc.max_receive_message_length", 64 << 20),
               ("grpc.initial_reconnect_backoff_ms", 100),
               ("grpc.max_reconnect_backoff_ms", 1000)]
    if tls is None or not tls.enabled:
        return grpc.insecure_channel(target, options=options)
    creds = grpc.ssl_channel_credentials(
        root_certificates=_read(tls.ca) if tls.ca else None,
        private_key=_read(tls.key) if tls.cert else None,
        certificate_chain=_read(tls.cert) if tls.cert else None)
    name = tls.server_name or verify_name
    if name:
        options.append(("grpc.ssl_target_name_override", name))
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
