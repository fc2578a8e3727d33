"""The instructor's commands on the ledger: add a class from a CSV, see its spend, change budgets, revoke, export."""

from __future__ import annotations

import csv
import json
import stat
from pathlib import Path

import pytest

from agentlab.cli import main
from agentlab.gateway.cli import DAY_USD, TERM_USD
from agentlab.gateway.store import Store, hash_token, utc_now


def _class_csv(tmp_path, text="name,term_usd\nann,\nbob,5\n"):
    path = tmp_path / "class.csv"
    path.write_text(text, encoding="utf-8")
    return path


def test_add_prints_each_token_once_and_keeps_only_its_hash(tmp_path, capsys):
    db = tmp_path / "l.sqlite"
    assert main(["gateway", "add", "--db", str(db), str(_class_csv(tmp_path))]) == 0
    out = capsys.readouterr()
    tokens = dict(line.split(",") for line in out.out.splitlines())
    assert set(tokens) == {"ann", "bob"} and "shown this once" in out.err
    store = Store(db)
    assert store.student(tokens["bob"]).term_usd == 5 and store.student(tokens["ann"]).term_usd == TERM_USD
    assert store.student(tokens["ann"]).day_usd == DAY_USD
    dump = "\n".join(store._db.iterdump())
    assert tokens["ann"] not in dump and hash_token(tokens["ann"]) in dump


def test_add_can_write_a_private_file_per_student_instead(tmp_path, capsys):
    out_dir = tmp_path / "tokens"
    assert main(["gateway", "add", "--db", str(tmp_path / "l.sqlite"), str(_class_csv(tmp_path)),
                 "--tokens-dir", str(out_dir)]) == 0  # fmt: skip
    assert "agentlab-gw-" not in capsys.readouterr().out
    ann = out_dir / "ann.env"
    assert ann.read_text().startswith("ANTHROPIC_API_KEY=agentlab-gw-")
    assert stat.S_IMODE(ann.stat().st_mode) == 0o600


@pytest.mark.parametrize(
    "text, says",
    [
        ("student\nann\n", "needs a header line with a 'name' column"),
        ("name\nann\nbad/name\n", "line 3: student name 'bad/name'"),
        ("name,day_usd\nann,lots\n", "line 2: could not convert string to float: 'lots'"),
        ("name,expires\nann,next week\n", "line 2: time data 'next week'"),
        ("name\nann\nann\n", "line 3: student 'ann' is already in"),
        (
            "name\nbad name\n",
            "line 2: student name 'bad name': use letters, digits, '.', '_' or '-' (it names a file) "
            "(no student was added)",
        ),
    ],
)
def test_a_bad_class_list_names_the_line_the_value_and_the_fix(tmp_path, capsys, text, says):
    assert main(["gateway", "add", "--db", str(tmp_path / "l.sqlite"), str(_class_csv(tmp_path, text))]) == 2
    assert says in capsys.readouterr().err


def test_spend_budget_revoke_and_export(tmp_path, capsys):
    db = tmp_path / "l.sqlite"
    main(["gateway", "add", "--db", str(db), str(_class_csv(tmp_path))])
    token = capsys.readouterr().out.splitlines()[0].split(",")[1]
    store = Store(db)
    row = store.reserve(store.student(token), "/v1/messages", "claude-haiku-4-5", 0.01, utc_now())
    store.settle(row, 200, 0.004, {"input": 100, "output": 20}, 0.5)
    assert main(["gateway", "budget", "--db", str(db), "ann", "--day-usd", "0.05"]) == 0
    assert main(["gateway", "budget", "--db", str(db), "--class-usd", "30"]) == 0
    assert main(["gateway", "spend", "--db", str(db), "--png", str(tmp_path / "spend.png")]) == 0
    table = capsys.readouterr().out
    assert (
        "0.0040" in table.splitlines()[1]
        and "0.05" in table.splitlines()[1]
        and (tmp_path / "spend.png").stat().st_size
    )
    assert Store(db).class_usd() == 30
    assert main(["gateway", "revoke", "--db", str(db), "ann"]) == 0 and Store(db).student(token).revoked
    assert main(["gateway", "export", "--db", str(db), str(tmp_path / "ledger.csv")]) == 0
    (exported,) = list(csv.DictReader(open(tmp_path / "ledger.csv")))
    assert exported["student"] == "ann" and float(exported["usd"]) == 0.004 and exported["input_tokens"] == "100"


def test_commands_on_a_missing_ledger_or_student_say_what_to_do(tmp_path, capsys):
    assert main(["gateway", "spend", "--db", str(tmp_path / "none.sqlite")]) == 2
    assert "agentlab gateway add --db" in capsys.readouterr().err
    Store(tmp_path / "l.sqlite")
    assert main(["gateway", "revoke", "--db", str(tmp_path / "l.sqlite"), "zoe"]) == 2
    assert "no student 'zoe'" in capsys.readouterr().err


def test_serve_without_a_key_or_a_ledger_refuses_to_start_and_says_how(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("AGENTLAB_GATEWAY_KEY", raising=False)
    assert main(["gateway", "serve", "--db", str(tmp_path / "misspelt.sqlite")]) == 2
    assert "no ledger there" in capsys.readouterr().err and not (tmp_path / "misspelt.sqlite").exists()
    Store(tmp_path / "l.sqlite")
    assert main(["gateway", "serve", "--db", str(tmp_path / "l.sqlite")]) == 2
    assert "set AGENTLAB_GATEWAY_KEY" in capsys.readouterr().err
    monkeypatch.setenv("AGENTLAB_GATEWAY_KEY", "sk-ant-api03-not-a-real-key-0000")
    assert main(["gateway", "serve", "--db", str(tmp_path / "l.sqlite"), "--upstream", "api.anthropic.com"]) == 2
    assert "give anthropic, sim, or a base URL" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["gateway", "serve", "--db", str(tmp_path / "l.sqlite"), "--rpm", "0"])
    assert "--rpm '0': give a whole number" in capsys.readouterr().err


def test_a_budget_change_for_an_unknown_student_changes_nothing_and_a_bare_one_is_refused(tmp_path, capsys):
    db = tmp_path / "l.sqlite"
    Store(db)
    assert main(["gateway", "budget", "--db", str(db), "zoe", "--day-usd", "1", "--class-usd", "5"]) == 2
    assert "no student 'zoe'" in capsys.readouterr().err and Store(db).class_usd() is None
    assert main(["gateway", "budget", "--db", str(db), "zoe"]) == 2
    assert "name a student with --day-usd" in capsys.readouterr().err
    assert main(["gateway", "budget", "--db", str(db), "--class-usd", "5"]) == 0 and Store(db).class_usd() == 5
    assert main(["gateway", "budget", "--db", str(db), "--no-class-usd"]) == 0 and Store(db).class_usd() is None


def test_files_that_are_not_what_they_should_be_get_a_line_not_a_traceback(tmp_path, capsys):
    latin = tmp_path / "latin.csv"
    latin.write_bytes("name\nJosé\n".encode("latin-1"))
    assert main(["gateway", "add", "--db", str(tmp_path / "l.sqlite"), str(latin)]) == 2
    assert "not UTF-8 text" in capsys.readouterr().err
    assert main(["gateway", "spend", "--db", str(latin)]) == 2
    assert "file is not a database" in capsys.readouterr().err
    assert main(["gateway", "add", "--db", str(tmp_path / "no" / "l.sqlite"), str(_class_csv(tmp_path))]) == 2
    assert "unable to open database file" in capsys.readouterr().err


def test_the_default_budgets_cover_the_whole_course_live():
    table = json.loads((Path(__file__).parents[2] / "agentlab/data/live_costs.json").read_text("utf-8"))
    course = sum(r["usd"] for r in table["notebooks"])
    assert DAY_USD >= 2 * course and TERM_USD >= 8 * course, (course, DAY_USD, TERM_USD)


def test_the_gateway_page_states_the_defaults_and_the_course_cost_the_code_and_table_give():
    root = Path(__file__).parents[2]
    table = json.loads((root / "agentlab/data/live_costs.json").read_text("utf-8"))
    course = f"{sum(r['usd'] for r in table['notebooks']):.2f}"
    en, zh = ((root / f"docs/{lang}/gateway.md").read_text("utf-8") for lang in ("en", "zh-CN"))
    assert f"${DAY_USD:.2f} a UTC day and ${TERM_USD:.2f} a term" in en and f"about ${course}" in en
    assert f"每个 UTC 日 {DAY_USD:.2f} 美元，整个学期 {TERM_USD:.2f} 美元" in zh and f"大约\n  {course} 美元" in zh
    from agentlab.gateway.app import RPM
    from agentlab.gateway.budget import INPUT_MARGIN

    assert f"default {RPM}" in en and f"默认 {RPM}" in zh
    assert f"times {INPUT_MARGIN:g}" in en and f"乘以 {INPUT_MARGIN:g}" in zh
    from agentlab.gateway.app import MAX_BODY_BYTES, TIMEOUT_S
    from agentlab.gateway.budget import BYTES_PER_TOKEN_FLOOR
    from agentlab.sim.asgi import BODY_TIMEOUT_S, HEADER_TIMEOUT_S, MAX_CONNECTIONS

    assert f"one token per {BYTES_PER_TOKEN_FLOOR} bytes" in en and f"每 {BYTES_PER_TOKEN_FLOOR} 个字节" in zh
    mb = MAX_BODY_BYTES // 2**20
    assert f"body over {mb} MB" in en and f"超过 {mb} MB" in zh
    assert f"within {TIMEOUT_S / 60:g} minutes" in en and f"{TIMEOUT_S / 60:g} 分钟内" in zh
    assert f"within\n  {HEADER_TIMEOUT_S:g} s, or its body within {BODY_TIMEOUT_S:g} s" in en
    assert f"{HEADER_TIMEOUT_S:g} 秒内" in zh and f"{BODY_TIMEOUT_S:g} 秒内" in zh
    assert f"at most {MAX_CONNECTIONS:,} are open" in en and f"最多 {MAX_CONNECTIONS:,} 个连接" in zh
