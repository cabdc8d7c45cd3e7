"""A local RFC 3161 time-stamping authority for tests: ``openssl ts -reply`` behind HTTP.

:func:`make_authority` writes a root CA and a TSA certificate (extended key usage
``timeStamping``, critical, as RFC 3161 section 2.3 requires) with ``cryptography``;
:class:`LocalAuthority` serves ``POST`` requests on 127.0.0.1 by piping each query to
``openssl ts -reply``. Nothing leaves the machine.
"""

from __future__ import annotations

import datetime as dt
import http.server
import shutil
import subprocess
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

__all__ = ["Authority", "LocalAuthority", "make_authority", "openssl"]


def openssl() -> str | None:
    """The ``openssl`` program, or ``None`` when it is not installed."""
    return shutil.which("openssl")


@dataclass(frozen=True)
class Authority:
    """The files of one local authority."""

    folder: Path
    ca_cert: Path
    tsa_cert: Path
    tsa_key: Path
    config: Path
    name: str


def _name(cn: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])


def _pem(cert: x509.Certificate) -> bytes:
    return cert.public_bytes(serialization.Encoding.PEM)


def make_authority(folder: Path, name: str = "Test TSA") -> Authority:
    """A root CA and a time-stamping certificate it issued, in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    now = dt.datetime.now(dt.UTC) - dt.timedelta(days=1)
    later = now + dt.timedelta(days=30)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (
        x509.CertificateBuilder()
        .subject_name(_name(f"{name} Root"))
        .issuer_name(_name(f"{name} Root"))
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now)
        .not_valid_after(later)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False),
            critical=True,
        )
        .sign(ca_key, hashes.SHA256())
    )
    tsa_key = ec.generate_private_key(ec.SECP256R1())
    tsa = (
        x509.CertificateBuilder()
        .subject_name(_name(name))
        .issuer_name(ca.subject)
        .public_key(tsa_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now)
        .not_valid_after(later)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(True, False, False, False, False, False, False, False, False),
            critical=True,
        )
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.TIME_STAMPING]), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    ca_cert, tsa_cert, key = folder / "ca.pem", folder / "tsa.pem", folder / "tsa.key"
    ca_cert.write_bytes(_pem(ca))
    tsa_cert.write_bytes(_pem(tsa))
    key.write_bytes(
        tsa_key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    (folder / "serial").write_text("01\n")
    config = folder / "tsa.cnf"
    config.write_text(
        "[ tsa ]\n"
        "default_tsa = tsa_config\n"
        "[ tsa_config ]\n"
        f"dir = {folder}\n"
        "serial = $dir/serial\n"
        f"signer_cert = {tsa_cert}\n"
        f"signer_key = {key}\n"
        "signer_digest = sha256\n"
        "default_policy = 1.2.3.4.1\n"
        "digests = sha256, sha384, sha512\n"
        "accuracy = secs:1\n"
        "ordering = no\n"
        "tsa_name = yes\n"
        "ess_cert_id_chain = no\n"
        "ess_cert_id_alg = sha256\n"
    )
    return Authority(folder, ca_cert, tsa_cert, key, config, name)


class LocalAuthority:
    """An HTTP time-stamping authority on 127.0.0.1, answering with ``openssl ts -reply``.

    Use as a context manager; :attr:`url` is where it listens. ``requests`` counts the
    queries answered.
    """

    def __init__(self, authority: Authority) -> None:
        self.authority = authority
        self.requests = 0
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                query = self.rfile.read(length)
                with tempfile.TemporaryDirectory() as tmp:
                    q, r = Path(tmp) / "q.tsq", Path(tmp) / "r.tsr"
                    q.write_bytes(query)
                    done = subprocess.run(
                        [
                            openssl() or "openssl",
                            "ts",
                            "-reply",
                            "-config",
                            str(owner.authority.config),
                            "-queryfile",
                            str(q),
                            "-out",
                            str(r),
                        ],
                        capture_output=True,
                        check=False,
                    )
                    body = r.read_bytes() if done.returncode == 0 and r.exists() else b""
                if not body:
                    self.send_response(500)
                    self.end_headers()
                    return
                owner.requests += 1
                self.send_response(200)
                self.send_header("Content-Type", "application/timestamp-reply")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                return

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        """The authority's address."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/tsa"

    def __enter__(self) -> LocalAuthority:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
