"""What the instructor gets besides the CSV: one Markdown feedback file per student, a class summary, a plot.

``write_reports(rows, exercises, possible, out_csv, languages)`` writes next to the CSV:

- ``<csv stem>-feedback/<student>.md``: points per exercise and every reason in full (the CSV's
  ``notes`` cell is cut); in Chinese for a student whose submission is the zh-CN edition;
- ``<csv stem>-summary.md``: mean, median, per-exercise distribution (how many students earned
  full, some, no points) and who is missing (no readable exercise module);
- ``<csv stem>-totals.png``: the distribution of totals (matplotlib, headless).
"""

from __future__ import annotations

import io
import statistics
from pathlib import Path

from agentlab.grading.report import fmt_points
from agentlab.grading.table import Row, write_file

_TEXT = {
    "en": {
        "title": "Feedback for {student}",
        "total": "Total: {earned}/{possible} points",
        "exercise": "exercise",
        "points": "points",
        "what": "What went wrong",
        "none": "Nothing: every graded test passed.",
    },
    "zh-CN": {
        "title": "{student} 的评分反馈",
        "total": "总分：{earned}/{possible} 分",
        "exercise": "练习",
        "points": "得分",
        "what": "失分原因",
        "none": "没有：所有评分测试都通过了。",
    },
}


def is_zh_cn(path: Path) -> bool:
    """True if a submission folder or zip holds the zh-CN edition (a ``zh-CN`` folder anywhere in it)."""
    import zipfile

    try:
        if path.is_dir():
            return any(p.name == "zh-CN" for p in path.rglob("zh-CN"))
        with zipfile.ZipFile(path) as zf:
            return any("zh-CN/" in n.replace("\\", "/") for n in zf.namelist())
    except (OSError, zipfile.BadZipFile):
        return False


def feedback_markdown(row: Row, exercises: list[str], possible: dict[str, float], language: str = "en") -> str:
    t = _TEXT.get(language, _TEXT["en"])
    lines = [
        f"# {t['title'].format(student=row.student)}",
        "",
        t["total"].format(earned=fmt_points(row.total), possible=fmt_points(row.possible)),
        "",
        f"| {t['exercise']} | {t['points']} |",
        "|---|---|",
    ]
    lines += [f"| {ex} | {fmt_points(row.points.get(ex, 0))}/{fmt_points(possible.get(ex, 0))} |" for ex in exercises]
    lines += ["", f"## {t['what']}", ""]
    reasons = [r for r in (row.feedback or row.notes).split("; ") if r]
    lines += [f"- {r}" for r in reasons] or [t["none"]]
    return "\n".join(lines) + "\n"


def class_summary(rows: list[Row], exercises: list[str], possible: dict[str, float]) -> str:
    totals = [r.total for r in rows]
    missing = [
        r.student
        for r in rows
        if r.notes.startswith(("no exNN", "no exercise", "cannot read"))
        or "no exNN_*.py exercise modules found" in r.notes
    ]
    lines = ["# Class summary", "", f"students: {len(rows)}"]
    if totals:
        lines += [
            f"mean: {statistics.mean(totals):.2f}",
            f"median: {fmt_points(statistics.median(totals))}",
            f"points possible: {fmt_points(rows[0].possible)}",
        ]
    lines += ["", "| exercise | possible | full | some | none | mean |", "|---|---|---|---|---|---|"]
    for ex in exercises:
        got = [r.points.get(ex, 0) for r in rows]
        full = sum(g >= possible.get(ex, 0) > 0 for g in got)
        none = sum(g == 0 for g in got)
        mean = statistics.mean(got) if got else 0
        lines.append(
            f"| {ex} | {fmt_points(possible.get(ex, 0))} | {full} | {len(got) - full - none} | {none} | {mean:.2f} |"
        )
    lines += ["", "missing (no readable exercise module): " + (", ".join(missing) if missing else "none")]
    return "\n".join(lines) + "\n"


def plot_totals(rows: list[Row], path: Path) -> Path | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    fig, ax = plt.subplots(figsize=(6, 3.5))
    possible = rows[0].possible if rows else 1
    ax.hist([r.total for r in rows], bins=min(20, max(5, len(rows))), range=(0, possible))
    ax.set_xlabel(f"total points (of {fmt_points(possible)})")
    ax.set_ylabel("students")
    ax.set_title("Distribution of totals")
    fig.tight_layout()
    png = io.BytesIO()
    fig.savefig(png, format="png", dpi=100)
    plt.close(fig)
    write_file(path, png.getvalue())
    return path


def write_reports(
    rows: list[Row], exercises: list[str], possible: dict[str, float], out_csv: Path, languages: dict[str, str]
) -> None:
    out_csv = Path(out_csv)
    folder = out_csv.with_name(out_csv.stem + "-feedback")
    if folder.is_symlink():  # not ours: the feedback never goes where a link points
        folder.unlink()
    folder.mkdir(exist_ok=True)
    for row in rows:
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in row.student) or "_"
        text = feedback_markdown(row, exercises, possible, languages.get(row.student, "en"))
        write_file(folder / f"{safe}.md", text.encode("utf-8"))
    write_file(out_csv.with_name(out_csv.stem + "-summary.md"), class_summary(rows, exercises, possible).encode())
    plot_totals(rows, out_csv.with_name(out_csv.stem + "-totals.png"))
