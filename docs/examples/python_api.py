"""The group rules from Python, on a pandas DataFrame (the example of docs/python-api.md)."""

import json
from importlib import resources

import pandas as pd

from respai.run.group_rules import evaluate_fairness

# The bundled sample: 6,000 decided loan applications, one row per case.
with resources.as_file(resources.files("respai") / "samples" / "loan_screen.csv") as path:
    df = pd.read_csv(path)

# The same declaration as a spec file's fairness: block, written as a dict.
# No `cases:` key: the data comes from the DataFrame.
spec = {
    "name": "loan-screen",
    "label": "label",
    "prediction": "prediction",
    "probability": "score",
    "unit": "person_id",
    "attributes": {
        "sex": ["female", "male"],
        "age_band": ["under_30", "30_to_60", "over_60"],
    },
    "intersections": [["sex", "age_band"]],
    "rules": [
        {"id": "fnr-by-sex", "rate": "false_negative", "attribute": "sex", "max_group_gap": 0.05},
        {
            "id": "fnr-crossed",
            "rate": "false_negative",
            "attribute": ["sex", "age_band"],
            "max_group_gap": 0.10,
        },
    ],
}

result = evaluate_fairness(spec, df)

print("verdict:", result.verdict.value, "exit code:", result.exit_code)

for rule in result.rules:
    print(f"{rule.rule.id}: {rule.verdict.value} ({rule.reason_code})")

print("groups of the first rule:")
for g in result.rules[0].groups:
    print(
        f"  {g.label:<7} cases={g.cases} events={g.events} missing={g.missing} "
        f"rate={g.rate:.4f} interval=[{g.interval.lo:.4f}, {g.interval.hi:.4f}]"
    )

print("per-group table for sex (false negative rate over cases with a prediction, 95% Wilson):")
for row in result.tables["sex"]:
    fnr = row.metrics["false_negative"]  # the rate's name is the rules' name
    print(
        f"  {row.label:<7} count={row.count} false_negative={fnr.numerator}/{fnr.denominator} "
        f"= {fnr.value:.4f} [{fnr.interval.lo:.4f}, {fnr.interval.hi:.4f}]"
    )

# An intersection is looked up by its name or by its attributes.
crossed = result.tables[("sex", "age_band")]
print("intersection rows:", [row.label for row in crossed])

# Every count, rate and interval per group, as a DataFrame of the library you passed in.
frame = result.by_group("sex")
print(type(frame).__module__.split(".")[0], "frame with", len(frame.columns), "columns")
print(frame[["group", "count", "false_negative", "false_negative_lo", "false_negative_hi"]])

print(repr(result))

record = result.to_dict()
print("JSON keys:", ", ".join(record))
print("gap bounds of fnr-by-sex:", json.dumps(record["rules"][0]["gap_bounds"]))
