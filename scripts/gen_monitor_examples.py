"""Regenerate the monitoring examples shown in docs/commands/monitor.md from real runs.

Two calls of ``respai monitor`` on generated batches (fixed seed) in a temporary folder:
the first adds two looks, the second continues the stream with three more, in which the
gap between the groups opens; a third call gives week 5 again and is refused. Writes
``docs/examples/monitor-help.txt``, ``monitor.yaml``, ``monitor.txt`` (both transcripts),
``monitor.json`` (the second call's ``--json``, with only the last of its five looks) and
``monitor-repeat.txt`` (the refusal). A second stream shows drift: six months of a credit
model's decisions in which women's false-negative rate rises from month 4
(``monitor-drift.yaml``, ``monitor-drift.txt``, ``monitor-status.txt``); the same six
months monitored one call a month in a ledger of their own, the sixth call with
``--out``, give the page's charts
(``monitor-drift-rates.svg``, ``monitor-drift-gap.svg``, each with the page's styles
inlined) and its per-look table (``monitor-drift-looks.txt``). ``--check`` compares
instead of writing (exit 1 on a difference).

    python scripts/gen_monitor_examples.py [--check]
"""

from __future__ import annotations

import json
import random
import re
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from examples_kit import run_respai, write_or_check

SPEC = """\
system: {name: loan-screen, version: "2.1"}
fairness:
  label: repaid
  prediction: approved
  attributes:
    sex: [female, male]
  rules:
    - {id: approval-gap, rate: selection, attribute: sex, max_group_gap: 0.10}
"""

# approval rates of (female, male) per week: equal at first, then a gap opens
WEEKS = [(0.40, 0.42), (0.41, 0.40), (0.30, 0.52), (0.28, 0.55), (0.27, 0.56)]


def _batch(path: Path, rates: tuple[float, float], rng: random.Random, n: int = 4000) -> None:
    rows = ["repaid,approved,sex"]
    for _ in range(n):
        sex = rng.choice(("female", "male"))
        rate = rates[0] if sex == "female" else rates[1]
        rows.append(f"{int(rng.random() < 0.6)},{int(rng.random() < rate)},{sex}")
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")


DRIFT_SPEC = """\
system: {name: credit-model, version: "3"}
fairness:
  label: defaulted
  prediction: flagged
  attributes:
    sex: [female, male]
  rules:
    - {id: fnr-gap, rate: false_negative, attribute: sex, max_group_gap: 0.10}
"""


def _month(path: Path, month: int, rng: random.Random, n: int = 1500) -> None:
    """1,500 cases, about half women and half defaulting; women's FNR 0.5, from month 4 0.7."""
    rows = ["defaulted,flagged,sex"]
    for _ in range(n):
        sex = rng.choice(("female", "male"))
        defaulted = int(rng.random() < 0.5)
        fnr = (0.7 if month >= 4 else 0.5) if sex == "female" else 0.48
        flagged = int(rng.random() >= fnr) if defaulted else int(rng.random() < 0.2)
        rows.append(f"{defaulted},{flagged},{sex}")
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")


def _drift(work: Path) -> dict[str, str]:
    """The drift stream: months 1-3, then 4-6 with --window 3, then --status."""
    (work / "credit.yaml").write_text(DRIFT_SPEC, encoding="utf-8")
    rng = random.Random(26)
    for month in range(1, 7):
        _month(work / f"month{month}.csv", month, rng)
    first = run_respai(work, "monitor", "credit.yaml", "month1.csv", "month2.csv", "month3.csv")
    second = run_respai(
        work, "monitor", "credit.yaml", "month4.csv", "month5.csv", "month6.csv", "--window", "3"
    )
    status = run_respai(work, "monitor", "--status", ".respai")
    if (first.returncode, second.returncode, status.returncode) != (3, 1, 0):
        raise SystemExit(
            f"unexpected drift exits {first.returncode}, {second.returncode}, "
            f"{status.returncode}: {second.stderr}{status.stderr}"
        )
    transcript = (
        f"$ respai monitor credit.yaml month1.csv month2.csv month3.csv\n{first.stderr}"
        f"$ echo $?\n{first.returncode}\n"
        f"$ respai monitor credit.yaml month4.csv month5.csv month6.csv --window 3\n"
        f"{second.stderr}$ echo $?\n{second.returncode}\n"
    )
    # the realistic use: one call per month, each continuing the stream in its ledger; the
    # sixth call's page draws all six looks (five of them copied from the earlier runs)
    for month in range(1, 7):
        paged = run_respai(
            work, "monitor", "credit.yaml", f"month{month}.csv", "--ledger", "monthly",
            "--out", f"page{month}",
        )  # fmt: skip
        if paged.returncode != (3 if month < 4 else 1):
            raise SystemExit(f"unexpected exit {paged.returncode}, month {month}: {paged.stderr}")
    return {
        **_page_parts((work / "page6" / "report.html").read_text(encoding="utf-8")),
        "monitor-drift.yaml": DRIFT_SPEC,
        "monitor-drift.txt": _stable(transcript),
        "monitor-status.txt": _stable(f"$ respai monitor --status .respai\n{status.stderr}"),
    }


#: The page's chart styles for a chart shown on its own (the report's CSS, variables resolved).
_SVG_STYLE = (
    "<style>text{font-family:system-ui,sans-serif;font-size:12px;fill:#1b1f24}"
    ".grid{stroke:#e6e9ed}.axis{stroke:#8c959f}.tick,.xtick{fill:#57606a;font-size:11px}"
    ".axis-title{fill:#57606a;font-weight:600}.s0{--series:#1f5fa8}.s1{--series:#c2410c}"
    ".point{fill:var(--series);stroke:#fff}.bar{stroke:var(--series);stroke-width:2}"
    ".band{fill:var(--series);fill-opacity:.16;stroke:var(--series);stroke-opacity:.45}"
    ".band.gap{--series:#1f3a5f}.limit{stroke:#b42318;stroke-width:1.5;stroke-dasharray:5 3}"
    ".limit-label,.alarm-label{fill:#b42318;font-size:11px;font-weight:600}"
    ".alarm{stroke:#b42318;stroke-width:2}"
    ".point.earlier{fill:#fff;stroke:var(--series);stroke-width:1.5}"
    ".bar.earlier{stroke-dasharray:3 2}</style>"
)


def _page_parts(html: str) -> dict[str, str]:
    """The monitoring page's two charts as SVG files and its per-look table in Markdown."""
    charts = re.findall(r"<svg viewBox=[^>]*data-series=.*?</svg>", html, flags=re.S)
    rates, gap = (re.sub(r"(<svg [^>]*>)", r"\1" + _SVG_STYLE, c, count=1) for c in charts)
    rows = ["| look | group | batch events / decided | batch rate [one-off interval] | "
            "cumulative rate [sequence] | verdict |", "|---|---|---|---|---|---|"]  # fmt: skip
    table = html[html.index('<table class="looks">') :]
    table = table[: table.index("</table>")]
    for earlier, row in re.findall(
        r'<tr( class="earlier")? data-record="[^"]*">(.*?)</tr>', table, flags=re.S
    ):
        cells = [re.sub(r"<[^>]+>", " ", c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row)]
        look, groups, counts, batch, cumulative, _change, verdict = (
            " ".join(c.split()) for c in cells
        )
        if earlier:  # the run id varies: the table says only that the look is copied
            verdict = re.sub(r" ?from earlier run \S+", "", verdict)
            look += " (earlier run)"
        names = groups.split(" ")
        n = len(names)
        split = [counts.split(" ")[i * 3 : i * 3 + 3] for i in range(n)]
        for i, name in enumerate(names):
            b = " ".join(batch.split(" ")[i * 3 : i * 3 + 3])
            c = " ".join(cumulative.split(" ")[i * 3 : i * 3 + 3])
            rows.append(
                f"| {look if i == 0 else ''} | {name} | {' '.join(split[i])} | {b} | {c} | "
                f"{verdict if i == 0 else ''} |"
            )
    return {
        "monitor-drift-rates.svg": rates + "\n",
        "monitor-drift-gap.svg": gap + "\n",
        "monitor-drift-looks.txt": "\n".join(rows) + "\n",
    }


def _stable(text: str) -> str:
    # key ids only: the criteria id is the same on every machine
    text = re.sub(r"(key id |key )sha256:[0-9a-f]{64}", r"\1sha256:<key id>", text)
    text = re.sub(r"respai-[0-9a-f]{12}\.key", "respai-<id>.key", text)
    text = re.sub(r'"sha256": "[0-9a-f]{64}"', '"sha256": "<sha256>"', text)
    return re.sub(r"/\S*/(keys|\.respai)", r"<work>/\1", text)


def generate() -> dict[str, str]:
    """The example files' contents, from two calls in a temporary folder."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "spec.yaml").write_text(SPEC, encoding="utf-8")
        rng = random.Random(2026)
        for week, rates in enumerate(WEEKS, start=1):
            _batch(work / f"week{week}.csv", rates, rng)
        first = run_respai(work, "monitor", "spec.yaml", "week1.csv", "week2.csv")
        second = run_respai(
            work, "monitor", "spec.yaml", "week3.csv", "week4.csv", "week5.csv", "--json"
        )
        again = run_respai(work, "monitor", "spec.yaml", "week5.csv")
        helped = run_respai(work, "monitor", "--help")
        if (first.returncode, second.returncode, again.returncode) != (0, 1, 2):
            raise SystemExit(
                f"unexpected exits {first.returncode}, {second.returncode}, "
                f"{again.returncode}: {second.stderr}{again.stderr}"
            )
        transcript = (
            f"$ respai monitor spec.yaml week1.csv week2.csv\n{first.stderr}$ echo $?\n"
            f"{first.returncode}\n"
            f"$ respai monitor spec.yaml week3.csv week4.csv week5.csv\n{second.stderr}"
            f"$ echo $?\n{second.returncode}\n"
        )
        drift = _drift(work)
        full = json.loads(second.stdout)
        full["looks"] = full["looks"][-1:]  # the page shows the last look of five
        return {
            "monitor-help.txt": f"$ respai monitor --help\n{helped.stdout}",
            "monitor.yaml": SPEC,
            "monitor.txt": _stable(transcript),
            "monitor.json": _stable(json.dumps(full, indent=2, ensure_ascii=False)) + "\n",
            "monitor-repeat.txt": _stable(
                f"$ respai monitor spec.yaml week5.csv\n{again.stderr}$ echo $?\n"
                f"{again.returncode}\n"
            ),
            **drift,
        }


if __name__ == "__main__":
    sys.exit(write_or_check(generate(), __file__))
