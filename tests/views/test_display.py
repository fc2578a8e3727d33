import pytest

from agentlab.views.display import steps_table
from agentlab.workflows import run_chain
from tests.workflows.test_chaining import _links


def test_steps_table_has_one_row_per_step_whose_tokens_add_up_to_the_runs(sim):
    run = run_chain(sim, "Which is warmer, Paris or Rome?", _links())
    table = steps_table(run)
    assert list(table["step"]) == ["chain/extract", "chain/fetch", "chain/write"]
    assert table["input tokens"].sum() == run.input_tokens and table.loc[1, "input tokens"] == 0  # fetch is code


def test_steps_table_cuts_a_long_error_to_70_characters(sim):
    table = steps_table(run_chain(sim, "Which is warmer, Paris or Rome?", _links(gate=lambda v: "x" * 200)))
    assert list(table["step"]) == ["chain/extract", "chain/extract/gate"] and list(table["error"].map(len)) == [0, 70]


PATTERNS = ("run_chain", "run_router", "run_sections", "run_vote", "run_orchestrator", "run_evaluator")


@pytest.mark.parametrize("name", PATTERNS)
def test_each_patterns_core_is_10_to_20_lines_read_from_its_module(name):
    import inspect

    import agentlab.workflows as wf
    from agentlab.views.display import core

    fn = getattr(wf, name)
    text = core(fn)
    header, *body = text.splitlines()
    assert header.startswith("# agentlab/workflows/") and f"{name}: the {len(body)} lines" in header
    assert 10 <= len(body) <= 20, f"{name}'s core is {len(body)} lines: the page shows 10-20"
    source = inspect.getsource(inspect.unwrap(fn))
    assert all(line.strip() in source for line in body), "every line shown is a line of the function that runs"


@pytest.mark.parametrize("folder", ["", "zh-CN/"])
def test_notebooks_04_and_04b_print_each_patterns_core_in_the_cell_that_runs_it(folder):
    import json

    from claims import NOTEBOOKS, said

    sentence = "所以你读到的就是实际运行的代码" if folder else "so what you read is the code that runs"
    code = {}
    for part, cell in (("04_five_patterns", 4), ("04b_patterns_that_plan", 2)):
        where = said(folder + part, cell, sentence)
        cells = json.loads((NOTEBOOKS / f"{folder}{part}.ipynb").read_text("utf-8"))["cells"]
        code.update({where: ["".join(c["source"]) for c in cells if c["cell_type"] == "code"]})
    for name in PATTERNS:
        assert any(f"print(core({name}))" in c and f"{name}(client" in c for cs in code.values() for c in cs), (
            list(code),
            name,
        )


def test_core_refuses_a_function_without_a_steps_block():
    from agentlab.views.display import core

    with pytest.raises(ValueError, match="give a workflow's run_\\* function"):
        core(test_core_refuses_a_function_without_a_steps_block)


def test_reveal_matches_a_text_guess_whatever_its_case_and_spaces(capsys):
    from agentlab.views.display import reveal

    reveal(" No", "no", "whether moving the answer changes the bill")
    assert "as you said" in capsys.readouterr().out
    reveal("yes", "no", "whether moving the answer changes the bill")
    assert "as you said" not in capsys.readouterr().out
    reveal(3.0, 3, "model calls")
    assert "as you said" in capsys.readouterr().out
