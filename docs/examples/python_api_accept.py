"""A gate from Python: accept named verdicts, and read a rule's largest gap.

The example of docs/python-api.md: respai.evaluate(..., accept=...) lets MANUAL_REVIEW or
INSUFFICIENT_EVIDENCE through as `respai evaluate --accept` does (never FAIL), and a gap
rule's bounds read as the terminal shows them.
"""

from importlib import resources

import respai

# the bundled sample's data, gated on two rules by sex and two battery tests
gate = {
    "fairness": {
        "cases": str(resources.files("respai") / "samples" / "loan_screen.csv"),
        "label": "label",
        "prediction": "prediction",
        "favorable": 1,
        "attributes": {"sex": ["female", "male"]},
        "rules": [
            {
                "id": "fnr-by-sex",
                "rate": "false_negative",
                "attribute": "sex",
                "max_group_gap": 0.05,
            },
            {
                "id": "selection-by-sex",
                "rate": "selection",
                "attribute": "sex",
                "max_group_gap": 0.15,
            },
        ],
    },
    "evaluation": {"tests": ["accuracy", "perturbation_stability"]},
}

plain = respai.evaluate(gate)
print("verdicts:", sorted({v.value for v in plain.verdicts}))
print("exit code:", plain.exit_code)
for accept in (["MANUAL_REVIEW"], ["MANUAL_REVIEW", "INSUFFICIENT_EVIDENCE"]):
    result = respai.evaluate(gate, accept=accept)
    print(f"accept={accept}: verdict {result.verdict.value}, exit code {result.exit_code}")
try:
    respai.evaluate(gate, accept=["FAIL"])
except respai.InputError as exc:
    print("accept=['FAIL']:", exc)

for rule in plain.fairness.to_dict()["rules"]:
    print(rule["id"], "largest_gap:", rule["largest_gap"], "gap_bounds:", rule["gap_bounds"])
