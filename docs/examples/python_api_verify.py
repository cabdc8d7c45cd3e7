"""Checking a signed record and a ledger from Python (docs/python-api.md).

It writes one sealed run to a temporary folder first, then verifies the record with the
public key beside it and the whole ledger with the key folder's keys.json.
"""

import os
import tempfile
from importlib import resources
from pathlib import Path

import respai
from respai.ledger import list_runs, verify_ledger
from respai.record import KeyRing, load_public_key, verify_envelope

work = Path(tempfile.mkdtemp())
os.environ["RESPAI_HOME"] = str(work / "keys")  # this example's key, not yours

with resources.as_file(resources.files("respai") / "samples" / "loan_screen.yaml") as spec:
    result = respai.evaluate(spec, out=work / "evidence", ledger=work / "ledger")

# One record: the public key written beside it, or a keys.json with validity windows.
ring = KeyRing.from_public_key(load_public_key(work / "evidence" / "public_key.pem"))
report = verify_envelope((work / "evidence" / "record.json").read_text(), ring)
print("record verifies:", report.ok)
for check in report.checks:
    print(f"  {'ok' if check.ok else 'FAIL'}  {check.name}")

# The ledger: every run chained, every checkpoint signed.
ledger = verify_ledger(work / "ledger", KeyRing.load(work / "keys" / "keys.json"))
print("ledger verifies:", ledger.ok, "runs:", len(list_runs(work / "ledger")))
