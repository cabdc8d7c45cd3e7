"""Local time-stamping authorities on 127.0.0.1 for the timestamp tests (nothing leaves)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.timestamp.authority import Authority, LocalAuthority, make_authority, openssl


@pytest.fixture(scope="module")
def authority(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalAuthority]:
    """A local authority (``openssl ts -reply``), listening for the module's tests."""
    if openssl() is None:
        if os.environ.get("CI"):
            pytest.fail("openssl is not installed, but CI must run the timestamp tests")
        pytest.skip("openssl is not installed")
    made = make_authority(tmp_path_factory.mktemp("tsa"))
    with LocalAuthority(made) as served:
        yield served


@pytest.fixture(scope="module")
def stranger(tmp_path_factory: pytest.TempPathFactory) -> Authority:
    """Another authority's files (never served): its root is the wrong --tsa-cert."""
    return make_authority(tmp_path_factory.mktemp("other"), "Other TSA")


@pytest.fixture
def closed_url() -> str:
    """An address on 127.0.0.1 where nothing listens."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/tsa"


def ca(a: LocalAuthority | Authority) -> Path:
    """The root certificate of an authority."""
    return (a.authority if isinstance(a, LocalAuthority) else a).ca_cert
