"""RFC 3161 timestamps: a local authority stamps signed runs; verify checks them offline.

The authority is ``openssl ts -reply`` behind HTTP on 127.0.0.1 (``conftest.py``); the
tokens are checked by ``rfc3161-client``, the same library sigstore-python uses.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from tests.plan.helpers import write_cases, write_spec
from tests.timestamp.authority import LocalAuthority
from tests.timestamp.conftest import ca

import respai.record
import respai.record.keys
from respai.cli import main
from respai.record.timestamp import (
    CLOCK_TOLERANCE,
    SIDECAR,
    TimestampError,
    check_tokens,
    clock_finding,
    load_trusted,
    request_token,
    sidecar,
)


def _evaluate(spec: Path, out: Path, *more: str) -> int:
    return main(["evaluate", str(spec), "--out", str(out), "-q", *more])


def _verify(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, dict[str, Any]]:
    code = main(["verify", *args, "--keys", "keys/keys.json", "--json"])
    captured = capsys.readouterr()
    return code, captured.err, json.loads(captured.out)


def test_a_token_verifies_over_its_bytes_only(authority: LocalAuthority, stranger) -> None:
    message = b"the record's canonical bytes\n"
    token = request_token(authority.url, message)
    doc = sidecar(message, [(authority.url, token)])
    assert doc["sha256"] == hashlib.sha256(message).hexdigest()
    (good,) = check_tokens(doc, message, load_trusted([ca(authority)]))
    assert good.ok is True and good.name == "Test TSA"
    assert good.time is not None
    assert abs(good.time - dt.datetime.now(dt.UTC)) < dt.timedelta(minutes=1)
    assert good.detail.startswith("existed no later than ")
    (edited,) = check_tokens(doc, message + b" ", load_trusted([ca(authority)]))
    assert edited.ok is False and "changed after it was stamped" in edited.detail
    (wrong,) = check_tokens(doc, message, load_trusted([ca(stranger)]))
    assert wrong.ok is False and "--tsa-cert" in wrong.detail
    (unchecked,) = check_tokens(doc, message, None)
    assert unchecked.ok is None and unchecked.time == good.time
    # a token whose signature bytes were altered fails (the last bytes are the signature)
    altered = bytearray(token)
    altered[-3] ^= 0x01
    forged = sidecar(message, [(authority.url, bytes(altered))])
    (bad,) = check_tokens(forged, message, load_trusted([ca(authority)]))
    assert bad.ok is False and "the token was altered" in bad.detail


def test_a_sidecar_that_is_not_one_fails_the_check(
    authority: LocalAuthority, tmp_path: Path, capsys
) -> None:
    spec = write_spec(tmp_path)
    write_cases(tmp_path)
    out = tmp_path / "out"
    _evaluate(spec, out, "--no-ledger", "--timestamp", authority.url)
    capsys.readouterr()
    (out / SIDECAR).write_text('{"format": "something else", "tokens": []}')
    code, err, payload = _verify(capsys, str(out / "record.json"))
    assert code == 1 and payload["failed"] == ["timestamp"]
    assert "is not a respai-timestamps/1 sidecar" in err


def test_an_unreachable_or_bad_authority_gives_no_token(closed_url: str) -> None:
    with pytest.raises(TimestampError, match="could not be reached"):
        request_token(closed_url, b"x", timeout=2)
    with pytest.raises(TimestampError, match="not an http"):
        request_token("ftp://127.0.0.1/tsa", b"x")


def test_evaluate_with_a_timestamp_verifies_with_the_tsa_cert(
    authority: LocalAuthority, tmp_path: Path, capsys
) -> None:
    spec = write_spec(tmp_path)
    write_cases(tmp_path)
    out = tmp_path / "out"
    before = authority.requests
    assert _evaluate(spec, out, "--timestamp", authority.url) in (0, 1, 3)
    assert authority.requests == before + 2  # the run, then its checkpoint
    capsys.readouterr()
    doc = json.loads((out / SIDECAR).read_text())
    (run_file,) = sorted(Path(".respai/runs").iterdir())
    # the message is the ledger's run file, byte for byte; the ledger keeps the tokens too
    assert doc["sha256"] == hashlib.sha256(run_file.read_bytes()).hexdigest()
    kept = Path(".respai/timestamps/runs") / run_file.name
    assert kept.read_bytes() == (out / SIDECAR).read_bytes()
    # and the checkpoint the run made is stamped over its exact bytes
    stamped = json.loads(Path(".respai/timestamps/checkpoints/1.json").read_text())
    assert stamped["message"] == "checkpoint-file"
    checkpoint = Path(".respai/checkpoints/1.txt").read_bytes()
    assert stamped["sha256"] == hashlib.sha256(checkpoint).hexdigest()

    code, err, payload = _verify(capsys, str(out / "record.json"))
    assert code == 0, err
    assert "note  timestamp: says it existed no later than" in err
    assert "not checked" in err and payload["timestamps"][0]["ok"] is None

    code, err, payload = _verify(
        capsys, str(out / "record.json"), "--tsa-cert", str(ca(authority))
    )
    assert code == 0, err
    assert "ok    timestamp: existed no later than" in err and "(authority Test TSA)" in err
    assert "ok    clock:" in err
    assert [c["name"] for c in payload["checks"]][-2:] == ["timestamp", "clock"]

    # the HTML report embeds the same envelope: the same tokens bind it
    code, err, _ = _verify(capsys, str(out / "report.html"), "--tsa-cert", str(ca(authority)))
    assert code == 0, err
    code, err, payload = _verify(capsys, "--ledger", ".respai", "--tsa-cert", str(ca(authority)))
    assert code == 0, err
    assert payload["timestamps"]["ok"] and len(payload["timestamps"]["runs"]) == 1
    # the ledger's copy of the run is checked with the ledger's copy of its tokens
    code, run_err, _ = _verify(capsys, str(run_file), "--tsa-cert", str(ca(authority)))
    assert code == 0 and "ok    timestamp: existed no later than" in run_err
    assert [c["checkpoint"] for c in payload["timestamps"]["checkpoints"]] == ["checkpoints/1.txt"]
    assert "ok    timestamp: checkpoints/1.txt existed no later than" in err
    # a checkpoint's token over other bytes fails (here: the next checkpoint's tokens)
    assert _evaluate(spec, out, "--timestamp", authority.url) in (0, 1, 3)
    capsys.readouterr()
    stamps = Path(".respai/timestamps/checkpoints")
    shutil.copy(stamps / "2.json", stamps / "1.json")
    code, err, payload = _verify(capsys, "--ledger", ".respai", "--tsa-cert", str(ca(authority)))
    assert code == 1
    (problem,) = payload["timestamps"]["problems"]
    assert problem.startswith("checkpoints/1.txt: the token is over other bytes")


def test_a_record_other_than_the_stamped_one_fails_its_token(
    authority: LocalAuthority, stranger, tmp_path: Path, capsys
) -> None:
    spec = write_spec(tmp_path)
    write_cases(tmp_path)
    first, second = tmp_path / "first", tmp_path / "second"
    _evaluate(spec, first, "--timestamp", authority.url)
    _evaluate(spec, second, "--no-ledger")
    capsys.readouterr()
    # a validly signed record, beside the tokens of another: only the token check fails
    shutil.copy(first / SIDECAR, second / SIDECAR)
    code, err, payload = _verify(
        capsys, str(second / "record.json"), "--tsa-cert", str(ca(authority))
    )
    assert code == 1
    assert payload["failed"] == ["timestamp"]
    assert "changed after it was stamped" in err
    # an edited record fails its signature and its token
    record = first / "record.json"
    envelope = json.loads(record.read_text())
    envelope["signatures"][0]["keyid"] = "edited"
    record.write_text(json.dumps(envelope))
    code, _, payload = _verify(capsys, str(record), "--tsa-cert", str(ca(authority)))
    assert code == 1 and "timestamp" in payload["failed"]
    # the right record, the wrong authority's root
    code, err, payload = _verify(
        capsys, str(second / "record.json"), "--tsa-cert", str(ca(stranger))
    )
    assert code == 1 and "does not chain to a --tsa-cert certificate" in err
    # --tsa-cert on a record with no tokens: the check asked for cannot pass
    (second / SIDECAR).unlink()
    code, err, payload = _verify(
        capsys, str(second / "record.json"), "--tsa-cert", str(ca(authority))
    )
    assert code == 1 and payload["failed"] == ["timestamp"]


def test_an_unreachable_authority_fails_the_run_and_writes_nothing(
    authority: LocalAuthority, closed_url: str, tmp_path: Path, capsys
) -> None:
    spec = write_spec(tmp_path)
    write_cases(tmp_path)
    out = tmp_path / "out"
    code = _evaluate(spec, out, "--timestamp", authority.url, "--timestamp", closed_url)
    err = capsys.readouterr().err
    assert code == 2
    assert closed_url in err and "Nothing was written" in err
    assert not out.exists() and not Path(".respai").exists()
    assert not Path("keys").exists()  # the key made for the run is taken back too
    # with an earlier ledger, the ledger is left as it was
    assert _evaluate(spec, out, "--timestamp", authority.url) in (0, 1, 3)
    held = sorted(p.relative_to(".respai").as_posix() for p in Path(".respai").rglob("*"))
    record = (out / "record.json").read_bytes()
    assert _evaluate(spec, out, "--timestamp", closed_url) == 2
    assert sorted(p.relative_to(".respai").as_posix() for p in Path(".respai").rglob("*")) == held
    assert (out / "record.json").read_bytes() == record


def test_the_timestamp_urls_come_from_the_environment(
    authority: LocalAuthority, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = write_spec(tmp_path)
    write_cases(tmp_path)
    monkeypatch.setenv("RESPAI_TIMESTAMP", authority.url)
    _evaluate(spec, tmp_path / "out")
    assert json.loads((tmp_path / "out" / SIDECAR).read_text())["tokens"][0]["authority"] == (
        authority.url
    )
    assert main(["evaluate", str(spec), "--timestamp", "tsa.example", "--out", "x"]) == 2
    assert not Path("x").exists()


def _set_clock_back(monkeypatch: pytest.MonkeyPatch, days: int) -> None:
    """The signer's clock, days behind (as faketime does to the whole machine)."""
    real = respai.record.times.now_utc

    def behind() -> dt.datetime:
        return real() - dt.timedelta(days=days)

    monkeypatch.setattr(respai.record, "now_utc", behind)
    monkeypatch.setattr(respai.record.keys, "now_utc", behind)


def test_a_backdated_plan_is_flagged(
    authority: LocalAuthority, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    spec = write_spec(tmp_path)
    write_cases(tmp_path)
    trust = ["--tsa-cert", str(ca(authority))]
    with monkeypatch.context() as m:  # the key was made on the machine whose clock is back
        _set_clock_back(m, 300)
        assert main(["keys", "new"]) == 0
    # an honest run on the data, then a plan signed with the clock 300 days behind
    assert _evaluate(spec, tmp_path / "peek", "--timestamp", authority.url) in (0, 1, 3)
    with monkeypatch.context() as m:
        _set_clock_back(m, 300)
        code = main(
            [
                "plan",
                str(spec),
                "--out",
                str(tmp_path / "plan"),
                "--timestamp",
                authority.url,
                "--json",
            ]
        )
        assert code == 0
        plan_id = json.loads(capsys.readouterr().out)["plan_id"]
    assert (tmp_path / "plan" / SIDECAR).is_file()
    assert _evaluate(spec, tmp_path / "held", "--plan", plan_id, "--timestamp", authority.url) in (
        0,
        1,
        3,
    )
    capsys.readouterr()
    # the plan alone: its signature holds, its clock does not
    code, err, payload = _verify(capsys, str(tmp_path / "plan" / "plan.json"), *trust)
    assert code == 1 and payload["failed"] == ["clock"]
    assert "the signer's clock was set back" in err and "299 days later" in err
    # without --tsa-cert nothing contradicts it
    code, err, _ = _verify(capsys, str(tmp_path / "plan" / "plan.json"))
    assert code == 0
    # the ledger: the plan's clock is named
    code, err, payload = _verify(capsys, "--ledger", ".respai", *trust)
    assert code == 1
    assert any("set back" in p for p in payload["timestamps"]["problems"])


def test_a_plan_stamped_after_its_run_is_a_problem(
    authority: LocalAuthority, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    import respai.ledger.stamps as stamps
    from respai.record.timestamp import TokenCheck

    spec = write_spec(tmp_path)
    write_cases(tmp_path)
    assert main(["plan", str(spec), "--timestamp", authority.url, "--json"]) == 0
    plan_id = json.loads(capsys.readouterr().out)["plan_id"]
    assert _evaluate(spec, tmp_path / "held", "--plan", plan_id, "--timestamp", authority.url) in (
        0,
        1,
        3,
    )
    capsys.readouterr()
    code, err, _ = _verify(capsys, "--ledger", ".respai", "--tsa-cert", str(ca(authority)))
    assert code == 0, err
    # the authority's times as if the plan had been stamped a day after the run
    plan_file, run_file = sorted(Path(".respai/runs").iterdir())
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    real = stamps.check_tokens

    def shifted(doc: Any, message: bytes, trusted: Any) -> list[TokenCheck]:
        got = real(doc, message, trusted)
        later = (
            hashlib.sha256(message).hexdigest()
            == hashlib.sha256(plan_file.read_bytes()).hexdigest()
        )
        return [
            TokenCheck(
                c.authority, c.name, now + dt.timedelta(days=1 if later else 0), c.ok, c.detail
            )
            for c in got
        ]

    monkeypatch.setattr(stamps, "check_tokens", shifted)
    monkeypatch.setattr(stamps, "clock_finding", lambda *a, **k: None)
    found = stamps.check_ledger_stamps(Path(".respai"), load_trusted([ca(authority)]))
    (problem,) = found.problems
    assert problem.startswith("plan_after_run:") and run_file.name in problem


@pytest.mark.parametrize(
    ("stated_minus_stamped", "flagged"),
    [
        (dt.timedelta(0), None),
        (CLOCK_TOLERANCE, None),
        (-CLOCK_TOLERANCE, None),
        (CLOCK_TOLERANCE + dt.timedelta(seconds=1), "ahead"),
        (-CLOCK_TOLERANCE - dt.timedelta(seconds=1), "set back"),
        (dt.timedelta(days=-300), "300 days later"),
    ],
)
def test_the_clock_tolerance_is_five_minutes_either_way(
    stated_minus_stamped: dt.timedelta, flagged: str | None
) -> None:
    stamped = dt.datetime(2026, 12, 5, 12, tzinfo=dt.UTC)
    found = clock_finding(stamped + stated_minus_stamped, stamped)
    assert (found is None) if flagged is None else (found is not None and flagged in found)
    assert dt.timedelta(minutes=5) == CLOCK_TOLERANCE


def test_openssl_agrees_that_the_token_is_over_the_ledger_run_file(
    authority: LocalAuthority, tmp_path: Path
) -> None:
    """An independent verifier (``openssl ts -verify``) accepts the kept token."""
    import base64
    import subprocess

    from tests.timestamp.authority import openssl

    spec = write_spec(tmp_path)
    write_cases(tmp_path)
    _evaluate(spec, tmp_path / "out", "--timestamp", authority.url)
    (run_file,) = sorted(Path(".respai/runs").iterdir())
    doc = json.loads((tmp_path / "out" / SIDECAR).read_text())
    token = tmp_path / "token.tsr"
    token.write_bytes(base64.b64decode(doc["tokens"][0]["response"]))
    digest = hashlib.sha256(run_file.read_bytes()).hexdigest()
    done = subprocess.run(
        [
            *(openssl() or "openssl", "ts", "-verify", "-digest", digest),
            *("-in", str(token), "-CAfile", str(ca(authority))),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and "Verification: OK" in done.stdout
