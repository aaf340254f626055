"""Runs the script of the helm test Pod <fullname>-test-tls offline, used by helm_test.sh.

  tls_test_pod.py RENDERED_TLS_ON.yaml RENDERED_TLS_OFF.yaml

The script's bash runs as it would in the Pod, against local listeners: a
TLS listener serving the chart's generated certificate, a plaintext HTTP
listener and a closed port stand in for the Services' HTTP and metrics
ports, and a stand-in gnomonctl on PATH answers (exit 0) over TLS when
given --ca and in plaintext only when told to. The test must pass when
every endpoint is TLS only, and fail, naming the endpoint, when one answers
in plaintext or cannot be reached; rendered with tls.enabled=false it must
fail. Prints one line per failure.
"""
import base64
import os
import re
import socket
import socketserver
import ssl
import subprocess
import sys
import tempfile
import threading

import yaml

FULL = "g-gnomon"
failures = []


def load(path):
    objs = [d for d in yaml.safe_load_all(open(path)) if d]
    pod = next(o for o in objs if o["kind"] == "Pod" and o["metadata"]["name"] == f"{FULL}-test-tls")
    c = pod["spec"]["containers"][0]
    return objs, c["command"] + c["args"]


class Quiet(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        pass


def serve(handler):
    server = Quiet(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def tls_listener(cert_pem, key_pem, tmp):
    for name, data in (("tls.crt", cert_pem), ("tls.key", key_pem)):
        with open(os.path.join(tmp, name), "wb") as f:
            f.write(data)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(os.path.join(tmp, "tls.crt"), os.path.join(tmp, "tls.key"))

    class Handler(socketserver.BaseRequestHandler):
        def handle(self):
            with ctx.wrap_socket(self.request, server_side=True) as s:  # a plaintext client fails here
                s.recv(1024)
                s.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")

    return serve(Handler)


def plaintext_listener():
    class Handler(socketserver.StreamRequestHandler):
        def handle(self):
            self.rfile.readline()
            self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")

    return serve(Handler)


def closed_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def run(name, cmd, tmp, ports, plaintext_grpc=False, expect_ok=True, expect=()):
    """Runs the script with its http checks pointed at 127.0.0.1:ports[i] (cycled)."""
    script = cmd[-1]
    it = iter(range(10000))

    def point(m):
        return f"{m.group(1)}http 127.0.0.1 {ports[next(it) % len(ports)]} {m.group(4)}"

    script = re.sub(r"^(\s*)http (\S+) (\S+) (\S+)$", point, script, flags=re.M)
    env = dict(os.environ, PATH=f"{tmp}/bin:{os.environ['PATH']}", FAKE_PLAINTEXT_GRPC="1" if plaintext_grpc else "0",
               FAKE_LOG=f"{tmp}/calls-{name}")
    out = subprocess.run(cmd[:-1] + [script], capture_output=True, text=True, env=env, timeout=120)
    text = out.stdout + out.stderr
    if (out.returncode == 0) != expect_ok:
        failures.append(f"{name}: exit {out.returncode}, want {'0' if expect_ok else 'non-zero'}:\n{text}")
    for e in expect:
        if e not in text:
            failures.append(f"{name}: output lacks {e!r}:\n{text}")
    return open(env["FAKE_LOG"]).read().splitlines() if os.path.exists(env["FAKE_LOG"]) else []


def main():
    on_objs, on_cmd = load(sys.argv[1])
    _, off_cmd = load(sys.argv[2])
    tls = next(o for o in on_objs if o["kind"] == "Secret" and o["metadata"]["name"] == f"{FULL}-tls")
    with tempfile.TemporaryDirectory() as tmp:
        os.mkdir(f"{tmp}/bin")
        # Answers over TLS (flags --ca) always; in plaintext only when told to.
        with open(f"{tmp}/bin/gnomonctl", "w") as f:
            f.write('#!/bin/bash\necho "$*" >>"$FAKE_LOG"\n'
                    'case " $* " in *" --ca="*) echo SERVING; exit 0;; esac\n'
                    '[ "$FAKE_PLAINTEXT_GRPC" = 1 ] && { echo SERVING; exit 0; }\n'
                    'echo "UNAVAILABLE: connection closed" >&2; exit 14\n')
        os.chmod(f"{tmp}/bin/gnomonctl", 0o755)
        secure = tls_listener(base64.b64decode(tls["data"]["tls.crt"]), base64.b64decode(tls["data"]["tls.key"]), tmp)
        plain = plaintext_listener()
        tls_port, plain_port = secure.server_address[1], plain.server_address[1]

        calls = run("all TLS", on_cmd, tmp, [tls_port])
        tls_calls = [c for c in calls if "--ca=" in c]
        plain_calls = [c for c in calls if "--ca=" not in c]
        if not tls_calls or len(tls_calls) != len(plain_calls):
            failures.append(f"all TLS: gnomonctl calls over TLS {len(tls_calls)}, in plaintext {len(plain_calls)}")
        for c in tls_calls:
            host = re.search(r"--server=([^: ]+)", c).group(1)
            if f"--tls-server-name={host}" not in c or "--ca=/etc/gnomon/tls/ca.crt" not in c:
                failures.append(f"all TLS: TLS call does not verify {host} against ca.crt: {c}")
        for c in plain_calls:
            if any(f in c for f in ("--ca", "--cert", "--key", "--tls")):
                failures.append(f"all TLS: the plaintext call has TLS flags: {c}")
        run("plaintext HTTP", on_cmd, tmp, [tls_port, plain_port], expect_ok=False,
            expect=["answers HTTP in plaintext"])
        run("plaintext gRPC", on_cmd, tmp, [tls_port], plaintext_grpc=True, expect_ok=False,
            expect=["answers gRPC in plaintext"])
        run("port closed", on_cmd, tmp, [tls_port, closed_port()], expect_ok=False, expect=["cannot connect"])
        run("tls.enabled=false", off_cmd, tmp, [plain_port], plaintext_grpc=True, expect_ok=False,
            expect=["answers gRPC in plaintext", "answers HTTP in plaintext", "tls.enabled is false"])
        secure.shutdown()
        plain.shutdown()
    for f in failures:
        print(f"FAIL {f}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
