"""The LL144 evidence pack: every file, the signed record, and reproducing the numbers."""

from __future__ import annotations

import hashlib
import json
import random
import re
import shutil
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from respai.ll144.seal import ll144_fingerprints, ll144_predicate
from respai.pack import MANIFEST, PACK_FILES, PackResult, build_pack, reproduce_pack
from respai.record import (
    KeyRing,
    engine_code_fingerprint,
    load_public_key,
    seal,
    validate_predicate,
    verify_envelope,
)
from respai.sealing import create_signing_key

BLOCK = {
    "kind": "selection",
    "selected": "advanced",
    "sex": "sex",
    "race": "race",
    "exclusion_justification": "Under 2% of applicants: too few to compare.",
}
AUDITOR = {
    "name": "A. Auditor",
    "organisation": "Independent Audits LLC",
    "independence_statement": "No involvement in building, selling or using the tool.",
}

PLAN = [  # sex, race, applicants, selected
    ("Male", "White", 120, 48),
    ("Female", "White", 110, 36),
    ("Male", "Asian", 60, 27),
    ("Female", "Asian", 55, 17),
    ("Male", "Black or African American", 50, 16),
    ("Female", "Black or African American", 52, 11),
    ("Male", "Hispanic or Latino", 40, 13),
    ("Female", "Hispanic or Latino", 38, 9),
    ("Female", "Native Hawaiian or Other Pacific Islander", 4, 1),
    ("", "White", 15, 5),
    ("Male", "", 12, 4),
]


def _people() -> list[tuple[str, str, str, int]]:
    rows: list[tuple[str, str, str, int]] = []
    for sex, race, n, k in PLAN:
        picks = [1] * k + [0] * (n - k)
        random.Random(len(rows)).shuffle(picks)
        rows += [(f"A{len(rows) + i:04d}", sex, race, picks[i]) for i in range(n)]
    return rows


def _single(folder: Path, ll: SimpleNamespace, *, auditor: bool = True) -> Path:
    ll.write_csv(folder / "decisions.csv", ["applicant_id", "sex", "race", "advanced"], _people())
    block = {**BLOCK, **({"auditor": AUDITOR} if auditor else {})}
    return Path(ll.write_spec(folder, block))


def _joined(folder: Path, ll: SimpleNamespace) -> Path:
    people = _people()
    ll.write_csv(
        folder / "decisions.csv", ["applicant_id", "advanced"], [(p[0], p[3]) for p in people]
    )
    # every 25th applicant has no self-ID row: unknown on both axes
    ll.write_csv(
        folder / "selfid.csv",
        ["applicant_id", "sex", "race"],
        [(p[0], p[1], p[2]) for i, p in enumerate(people) if i % 25],
    )
    return Path(
        ll.write_spec(
            folder, BLOCK, data={"demographics": "selfid.csv", "join_on": "applicant_id"}
        )
    )


@pytest.fixture(autouse=True)
def _keys(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RESPAI_HOME", str(tmp_path_factory.mktemp("keys")))


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, ll: SimpleNamespace) -> Iterator[PackResult]:
    """One single-file pack (with an auditor), built once for the read-only tests."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RESPAI_HOME", str(tmp_path_factory.mktemp("module-keys")))
        folder = tmp_path_factory.mktemp("built")
        spec = _single(folder, ll)
        yield build_pack(spec, folder / "out" / "pack", today=ll.TODAY)


@pytest.fixture
def copy(built: PackResult, tmp_path: Path) -> Path:
    """A private copy of the built pack, to tamper with."""
    target = tmp_path / "pack"
    shutil.copytree(built.out_dir, target)
    return target


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _predicate(pack: Path) -> dict[str, Any]:
    ring = KeyRing.from_public_key(load_public_key(pack / "public_key.pem"))
    report = verify_envelope((pack / "record.json").read_bytes(), ring)
    assert report.ok, report.to_json()
    assert report.predicate is not None
    return report.predicate


def _rewrite_json(path: Path, change: Callable[[Any], None]) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    change(doc)
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


# --- building -----------------------------------------------------------------------------


def test_the_pack_holds_every_listed_file_and_a_zip_of_them(built: PackResult) -> None:
    pack = built.out_dir
    expected = {*PACK_FILES, "inputs/spec.yaml", "inputs/decisions.csv"}
    on_disk = {p.relative_to(pack).as_posix() for p in pack.rglob("*") if p.is_file()}
    assert on_disk == expected
    assert set(built.files) == expected
    manifest = json.loads((pack / MANIFEST).read_text(encoding="utf-8"))
    assert manifest["kind"] == "respai.ll144.pack"
    listed = {f["path"]: f["sha256"] for f in manifest["files"]}
    assert set(listed) == expected - {MANIFEST}
    for name, digest in listed.items():
        assert _sha(pack / name) == digest, name
    assert built.manifest_sha256 == _sha(pack / MANIFEST)
    assert built.zip_path == pack.with_name("pack.zip")
    with zipfile.ZipFile(built.zip_path) as zf:
        assert set(zf.namelist()) == {f"pack/{n}" for n in expected}
        assert zf.read("pack/tables/ll144.json") == (pack / "tables/ll144.json").read_bytes()
    assert not [p for p in pack.parent.iterdir() if p.name.startswith(".")], "temp left over"


def test_the_inputs_are_exact_copies_with_sha256sums(built: PackResult) -> None:
    pack = built.out_dir
    spec = built.result.spec
    assert spec.path is not None and spec.data.cases is not None
    assert (pack / "inputs/spec.yaml").read_bytes() == Path(spec.path).read_bytes()
    assert (pack / "inputs/decisions.csv").read_bytes() == spec.data.cases.read_bytes()
    lines = (pack / "inputs/SHA256SUMS").read_text(encoding="utf-8").splitlines()
    assert lines == sorted(lines, key=lambda line: line.split("  ")[1])
    for line in lines:
        digest, name = line.split("  ")
        assert _sha(pack / "inputs" / name) == digest


def test_the_documents_say_what_the_audit_needs(built: PackResult) -> None:
    pack = built.out_dir
    scope = (pack / "scope.md").read_text(encoding="utf-8")
    for needle in (
        "Output type: **selection**",
        "`advanced`",
        "Decisions of 2025",
        "under 0.8",
        "one-sided Fisher exact test",
        "Holm-adjusted over every ordered pair of kept categories",
        "alpha 0.05",
        "80% power",
        "Audit date: 2026-11-30",
        "Distribution date of the tool: 2025-03-01",
        "Native Hawaiian or Other Pacific Islander",
        "Sign-off",
    ):
        assert needle in scope, needle
    exclusions = (pack / "exclusions.md").read_text(encoding="utf-8")
    assert "Native Hawaiian or Other Pacific Islander | 4 | 0.250 |" in exclusions
    assert "too few to compare" in exclusions
    independence = (pack / "independence.md").read_text(encoding="utf-8")
    assert "**RECORDED**" in independence and "A. Auditor" in independence
    assert "Independent Audits LLC" in independence and "NOT YET SIGNED" not in independence
    dates = json.loads((pack / "dates.json").read_text(encoding="utf-8"))
    assert dates["audit_date"] == "2026-11-30"
    assert dates["distribution_date"] == "2025-03-01"
    assert dates["use_date"] is None and dates["checked_on"] == "2026-12-01"
    assert dates["pack_created"].endswith("Z")
    engine = json.loads((pack / "engine.json").read_text(encoding="utf-8"))
    assert engine["engine"]["name"] == "respai-evidence-engine"
    assert set(engine["engine_code"]) >= {"sha256", "git_commit", "git_dirty", "version"}
    assert engine["python"]["version"] and engine["platform"]["machine"] is not None
    lock = [
        line
        for line in (pack / "environment.lock").read_text(encoding="utf-8").splitlines()
        if not line.startswith("#")
    ]
    assert lock and all("==" in line for line in lock)
    # sorted by the normalised name (jsonschema_rs sorts as jsonschema-rs)
    names = [re.sub(r"[-_.]+", "-", line.split("==")[0]).lower() for line in lock]
    assert names == sorted(names) and "click" in names and "respai" in names
    rec = json.loads((pack / "reconciliation.json").read_text(encoding="utf-8"))
    assert rec["applicants"] == sum(n for _, _, n, _ in PLAN)
    assert rec["copies"] == {"spec": "inputs/spec.yaml", "decisions": "inputs/decisions.csv"}
    cells = (pack / "tables/cells.csv").read_text(encoding="utf-8").splitlines()
    assert cells[0] == "sex,race,applicants,selected" and "Male,White,120,48" in cells
    for name in ("summary.html", "summary.md", "summary.csv"):
        assert (pack / "summary" / name).stat().st_size > 0


def test_the_record_verifies_and_validates(built: PackResult) -> None:
    predicate = _predicate(built.out_dir)
    assert validate_predicate(predicate) == []
    assert predicate["key_id"] == built.key_id
    records = predicate["records"]
    assert records[0]["record_type"] == "run_start" and records[-1]["record_type"] == "run_end"
    assert records[0]["spec"]["sha256"] == built.result.spec.sha256
    assert records[0]["interpretation"] and records[0]["dates"]["audit_date"] == "2026-11-30"
    tests = [r for r in records if r["record_type"] == "test"]
    assert tests and all(t["test_id"] == "ll144_impact_ratio" for t in tests)
    assert {t["verdict"] for t in tests} == {"MANUAL_REVIEW"}
    assert all(t["threshold"] is None and t["interval"] is None for t in tests)
    assert all(t["supports"] for t in tests)
    by_key = {t["test_key"]: t for t in tests}
    table = built.result.tables["sex_x_race"]
    women = by_key["ll144:sex_x_race:Black or African American Female"]
    assert women["value"] == table.row("Black or African American Female").impact_ratio
    assert women["details"]["finding"] and women["details"]["p_value_fisher_one_sided"]
    assert "power" in women["details"] and "n_for_power" in women["details"]
    excluded = by_key["ll144:race:Native Hawaiian or Other Pacific Islander"]
    assert excluded["value"] is None and "excluded" in excluded["undefined_reason"]
    assert "ll144:sex_x_race:Asian Female" in by_key
    assert "ll144:sex_x_race:Two or More Races Male" not in by_key  # no applicants
    fps = predicate["fingerprints"]
    assert fps["dataset"]["sha256"] == _sha(built.out_dir / "inputs/decisions.csv")
    assert fps["model"] is None and "demographics" not in fps
    assert predicate["counts"]["unknown"] == {"sex": 15, "race": 12, "sex_or_race": 27}
    assert any("no pass mark" in c for c in predicate["caveats"])
    assert any("Independence statement: recorded" in c for c in predicate["caveats"])
    signed = {f["path"] for f in predicate["pack"]["files"]}
    assert signed == set(built.files) - {"record.json", "public_key.pem", "report.html", MANIFEST}


def test_ll144_predicate_seals_on_its_own(built: PackResult, tmp_path: Path) -> None:
    sk = create_signing_key(tmp_path / "k")
    res = built.result
    predicate = ll144_predicate(
        res,
        key_id=sk.key_id,
        timestamp="2026-12-01T10:00:00Z",
        fingerprints=ll144_fingerprints(res, engine_code_fingerprint()),
        run_id="run-1",
    )
    envelope = seal(predicate, None, sk.key, sk.key_id)
    report = verify_envelope(envelope, KeyRing.from_public_key(sk.key.public_key()))
    assert report.ok and report.predicate is not None
    assert validate_predicate(report.predicate) == []
    assert report.predicate["run_id"] == "run-1" and "pack" not in report.predicate


# --- reproducing --------------------------------------------------------------------------


def test_an_untouched_pack_reproduces(built: PackResult, cli_run: Callable[..., Any]) -> None:
    run = cli_run("reproduce", str(built.out_dir), "--json")
    assert run.code == 0, run.err
    assert "IDENTICAL" in run.err
    doc = json.loads(run.out)
    assert doc["identical"] is True and doc["differences"] == []
    assert doc["record_verified"] is True and doc["values_compared"] > 300
    assert "$.spec.path" in doc["ignored_fields"]
    zipped = reproduce_pack(built.zip_path)
    assert zipped.identical and zipped.values_compared == doc["values_compared"]


def test_an_edited_data_row_is_a_hash_and_a_number_difference(
    copy: Path, cli_run: Callable[..., Any]
) -> None:
    data = copy / "inputs/decisions.csv"
    lines = data.read_bytes().split(b"\n")
    first = lines[1]  # A0000, a White man: flip his decision
    assert first.startswith(b"A0000,Male,White,")
    lines[1] = first[:-2] + (b"0\r" if first.endswith(b"1\r") else b"1\r")
    data.write_bytes(b"\n".join(lines))
    run = cli_run("reproduce", str(copy), "--json")
    assert run.code == 1, run.err
    assert "DIFFERENT" in run.err
    diffs = json.loads(run.out)["differences"]
    hashes = [d for d in diffs if d["kind"] == "hash"]
    assert any(
        d["where"] == "inputs/SHA256SUMS" and d["path"] == "inputs/decisions.csv" for d in hashes
    )
    assert any(
        d["where"] == "MANIFEST.json" and d["path"] == "inputs/decisions.csv" for d in hashes
    )
    numbers = {
        d["path"]: d for d in diffs if d["kind"] == "number" and d["where"] == "tables/ll144.json"
    }
    assert "$.tables.sex.rows[0].selected" in numbers
    moved = numbers["$.tables.sex.rows[0].selected"]
    assert abs(moved["old"] - moved["new"]) == 1
    assert "$.tables.sex.rows[0].rate" in numbers
    assert "tables/ll144.json $.tables.sex.rows[0].selected" in run.err


def test_an_edited_number_is_reported_with_its_path(copy: Path) -> None:
    target = copy / "tables/ll144.json"
    original = json.loads(target.read_text(encoding="utf-8"))["tables"]["sex"]["rows"][1]
    _rewrite_json(target, lambda d: d["tables"]["sex"]["rows"][1].update(impact_ratio=0.9))
    res = reproduce_pack(copy)
    assert res.exit_code == 1
    found = [d for d in res.differences if d.where == "tables/ll144.json"]
    assert [(d.path, d.old, d.new) for d in found] == [
        ("$.tables.sex.rows[1].impact_ratio", 0.9, original["impact_ratio"])
    ]
    assert any(d.kind == "hash" and d.path == "tables/ll144.json" for d in res.differences)


def test_ignored_run_time_fields_do_not_count(copy: Path) -> None:
    def move(doc: Any) -> None:
        doc["spec"]["path"] = "/somewhere/else/spec.yaml"
        doc["reconciliation"]["files"][0]["path"] = "/elsewhere/decisions.csv"

    _rewrite_json(copy / "tables/ll144.json", move)
    res = reproduce_pack(copy)
    assert [d.where for d in res.differences if d.kind != "hash"] == []


def test_a_tampered_record_fails_verification(copy: Path) -> None:
    envelope = json.loads((copy / "record.json").read_text(encoding="utf-8"))
    envelope["signatures"][0]["sig"] = "A" * len(envelope["signatures"][0]["sig"])
    (copy / "record.json").write_text(json.dumps(envelope), encoding="utf-8")
    res = reproduce_pack(copy)
    assert res.exit_code == 1 and not res.record_ok
    assert any(d.kind == "record" and d.path == "signature" for d in res.differences)


@pytest.mark.parametrize("name", ["exclusions.md", "inputs/decisions.csv", MANIFEST])
def test_a_missing_required_file_is_exit_2(
    copy: Path, name: str, cli_run: Callable[..., Any]
) -> None:
    (copy / name).unlink()
    run = cli_run("reproduce", str(copy))
    assert run.code == 2, run.err
    assert "respai: error:" in run.err


def test_a_folder_that_is_no_pack_is_exit_2(tmp_path: Path, cli_run: Callable[..., Any]) -> None:
    assert cli_run("reproduce", str(tmp_path)).code == 2
    assert cli_run("reproduce", str(tmp_path / "nope")).code == 2


# --- the command, the independence blank, two files -----------------------------------------


def test_no_auditor_gives_a_blank_statement_to_sign(
    tmp_path: Path, ll: SimpleNamespace, cli_run: Callable[..., Any]
) -> None:
    spec = _single(tmp_path, ll, auditor=False)
    run = cli_run("pack", str(spec), "--out", str(tmp_path / "p"))
    assert run.code == 0, run.err
    assert "a new one was created" in run.err  # RESPAI_HOME is empty
    assert "NOT YET SIGNED" in run.err and "MANIFEST.json sha256" in run.err
    text = (tmp_path / "p" / "independence.md").read_text(encoding="utf-8")
    assert "**NOT YET SIGNED**" in text
    for needle in (
        "Name: ___",
        "Date: ___",
        "Signature: ___",
        "1. The auditor",
        "2. The auditor",
        "3. The auditor",
        "financial interest",
    ):
        assert needle in text, needle
    predicate = _predicate(tmp_path / "p")
    assert predicate["records"][0]["independence_statement"] == "not_signed"
    assert any("NOT YET SIGNED" in c for c in predicate["caveats"])
    again = cli_run("pack", str(spec), "--out", str(tmp_path / "p"))  # replaces the pack
    assert again.code == 0 and "a new one was created" not in again.err


def test_a_pack_of_two_input_files_reproduces(tmp_path: Path, ll: SimpleNamespace) -> None:
    spec = _joined(tmp_path, ll)
    res = build_pack(spec, tmp_path / "two", today=ll.TODAY)
    pack = res.out_dir
    assert (pack / "inputs/selfid.csv").read_bytes() == (tmp_path / "selfid.csv").read_bytes()
    sums = (pack / "inputs/SHA256SUMS").read_text(encoding="utf-8")
    assert "  decisions.csv\n" in sums and "  selfid.csv\n" in sums and "  spec.yaml\n" in sums
    predicate = _predicate(pack)
    assert predicate["fingerprints"]["demographics"]["sha256"] == _sha(tmp_path / "selfid.csv")
    assert predicate["fingerprints"]["dataset"]["name"] == "decisions.csv"
    rec = json.loads((pack / "reconciliation.json").read_text(encoding="utf-8"))
    assert rec["decisions_without_self_id"] == 23 and rec["warning"]
    # the originals can go: the pack reruns from its own copies
    for name in ("selfid.csv", "decisions.csv", "spec.yaml"):
        (tmp_path / name).unlink()
    out = reproduce_pack(pack)
    assert out.identical, [d.line() for d in out.differences]
    (pack / "inputs/selfid.csv").write_text(
        "applicant_id,sex,race\nA0001,Male,White\n", encoding="utf-8"
    )
    broken = reproduce_pack(pack)
    assert broken.exit_code == 1
    assert any(d.path == "inputs/selfid.csv" for d in broken.differences)
    assert any(d.path == "$.reconciliation.demographic_rows" for d in broken.differences)


def test_an_existing_folder_that_is_no_pack_is_refused(
    tmp_path: Path, ll: SimpleNamespace, cli_run: Callable[..., Any]
) -> None:
    spec = _single(tmp_path, ll)
    keep = tmp_path / "keep"
    keep.mkdir()
    (keep / "notes.txt").write_text("mine", encoding="utf-8")
    run = cli_run("pack", str(spec), "--out", str(keep))
    assert run.code == 2 and "not an earlier respai evidence pack" in run.err
    assert [p.name for p in keep.iterdir()] == ["notes.txt"]
    assert not (tmp_path / "keep.zip").exists()


def test_help_texts(cli_run: Callable[..., Any]) -> None:
    assert "evidence pack" in cli_run("pack", "--help").out
    assert "Exit code 0 when every number" in cli_run("reproduce", "--help").out


def test_a_pack_under_umask_000_is_not_writable_by_others(
    tmp_path: Path, ll: SimpleNamespace
) -> None:
    import os
    import stat

    spec = _single(tmp_path, ll)
    old = os.umask(0)
    try:
        res = build_pack(spec, tmp_path / "out" / "pack", today=ll.TODAY)
    finally:
        os.umask(old)
    for path in [res.out_dir, *res.out_dir.rglob("*"), res.zip_path]:
        want = 0o755 if path.is_dir() else 0o644
        assert stat.S_IMODE(path.stat().st_mode) == want, path
