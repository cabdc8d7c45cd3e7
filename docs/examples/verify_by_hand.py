"""Check a respai record without respai, then recompute two of its numbers from its counts.

Only the ``cryptography`` and ``rfc8785`` packages are used, so this is what a third
party can run on a record and the signer's public key. Usage:

    python verify_by_hand.py RECORD.json PUBLIC_KEY.pem

Every failed check raises, so the script exits 1 at the first problem.
"""

import base64
import hashlib
import json
import sys

import rfc8785
from cryptography.hazmat.primitives.serialization import load_pem_public_key

GENESIS = "sha256:" + "0" * 64

with open(sys.argv[1], encoding="utf-8") as fh:
    envelope = json.load(fh)
with open(sys.argv[2], "rb") as fh:
    public_key = load_pem_public_key(fh.read())

# 1. The DSSE signature: Ed25519 over PAE(payloadType, payload), on the bytes received.
kind = envelope["payloadType"].encode("utf-8")
payload = base64.b64decode(envelope["payload"])
pae = b"DSSEv1 %d %b %d %b" % (len(kind), kind, len(payload), payload)
public_key.verify(base64.b64decode(envelope["signatures"][0]["sig"]), pae)  # raises if bad
header = pae[: len(pae) - len(payload)].decode("ascii")
print(f"signature: valid over PAE = {header!r} + the {len(payload)} payload bytes")

# 2. The payload is the RFC 8785 canonical form of itself.
statement = json.loads(payload)
assert rfc8785.dumps(statement) == payload, "the payload is not canonical JSON"
record = statement["predicate"]
print(f"canonical: yes; {statement['_type']}, predicateType {statement['predicateType']}")

# 3. Every record id, the chain and the run_end list.
records = record["records"]
for r in records:
    body = {k: v for k, v in r.items() if k != "record_id"}
    assert r["record_id"] == "sha256:" + hashlib.sha256(rfc8785.dumps(body)).hexdigest()
assert records[0]["prev_record_id"] == GENESIS or records[0]["seq"] > 0
for before, after in zip(records, records[1:]):
    assert after["prev_record_id"] == before["record_id"]
    assert after["seq"] == before["seq"] + 1
assert records[-1]["record_ids"] == [r["record_id"] for r in records[:-1]]
print(f"chain: {len(records)} record ids recomputed, each linked to the one before, "
      f"run_end lists the {len(records) - 1} before it")

# 4. Two numbers recomputed from the integer counts the record carries.
tests = {r["test_key"]: r for r in records if r["record_type"] == "test"}
o = record["counts"]["overall"]
correct, decided = o["tp"] + o["tn"], o["tp"] + o["tn"] + o["fp"] + o["fn"]
print(f"accuracy = (tp + tn) / (tp + tn + fp + fn) = ({o['tp']} + {o['tn']}) / {decided}"
      f" = {correct / decided!r}")
assert correct / decided == tests["accuracy"]["value"]
print(f"  record says {tests['accuracy']['value']!r}")

rates = {}
for g in record["counts"]["groupings"]["sex"]["groups"]:
    selected, decided = g["tp"] + g["fp"], g["tp"] + g["fp"] + g["tn"] + g["fn"]
    rates[" × ".join(g["key"])] = selected / decided
    print(f"selection rate {g['key'][0]}: (tp + fp) / (tp + fp + tn + fn) = {selected} / "
          f"{decided} = {selected / decided!r}")
ratio = min(rates.values()) / max(rates.values())
print(f"impact ratio by sex = min / max = {ratio!r}")
assert ratio == tests["impact_ratio:sex"]["value"]
print(f"  record says {tests['impact_ratio:sex']['value']!r}")
