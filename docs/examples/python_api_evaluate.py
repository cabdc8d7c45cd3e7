"""A whole evaluation from Python, on a polars DataFrame, sealed in a signed record.

The example of docs/python-api.md: respai.evaluate runs every block of the spec (the
battery and the group rules), and with out= signs the record respai evaluate writes.
"""

import json
import os
import tempfile
from importlib import resources
from pathlib import Path

import polars as pl

import respai
from respai.engine.frame_fingerprint import frame_fingerprint

work = Path(tempfile.mkdtemp())
os.environ["RESPAI_HOME"] = str(work / "keys")  # this example's key, not yours

sample = resources.files("respai") / "samples"
with (
    resources.as_file(sample / "loan_screen.yaml") as spec,
    resources.as_file(sample / "loan_screen.csv") as cases,
):
    df = pl.read_csv(cases)
    result = respai.evaluate(spec, df, out=work / "evidence", ledger=work / "ledger")

print("verdict:", result.verdict.value, "exit code:", result.exit_code)
for test in result.battery:
    value = "null" if test.value is None else f"{test.value:.4f}"
    print(f"  {test.key:<36} {value:>7}  {test.verdict.value}")

print("written:", sorted(p.name for p in (work / "evidence").iterdir()))
record = json.loads((work / "evidence" / "record.json").read_text())
print("payload type:", record["payloadType"])

# The record names the frame by the SHA-256 of its canonical Arrow IPC stream.
sealed = result.sealed.predicate["fingerprints"]["dataset"]
print(json.dumps({k: sealed[k] for k in ("name", "media_type", "canonical", "columns")}))
# Anyone holding the same data recomputes it, from pandas, polars or pyarrow alike.
again = frame_fingerprint(df.to_pandas(), sealed["columns"])
print("recomputed from pandas:", again["sha256"] == sealed["sha256"])

print(result.by_group(("sex", "age_band")).select("group", "count", "selection", "error"))
