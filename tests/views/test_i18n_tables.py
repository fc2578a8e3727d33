"""Tables in the notebook's language: labels and text cells translated for display, the data untouched."""

import pandas as pd

from agentlab.views.i18n import frame


def _variants():
    return pd.DataFrame(
        [
            {"variant": "misspelt", "side": "workflow", "success": False, "why": "no note was saved", "model calls": 1},
            {
                "variant": "rain",
                "side": "workflow",
                "success": False,
                "why": "the note does not give tomorrow's forecast for Berlin",
                "model calls": 1,
            },
        ]
    ).set_index("variant")


def test_english_shows_the_frame_itself():
    df = _variants()
    assert frame(df, "en") is df


def test_chinese_translates_labels_and_text_and_leaves_numbers_and_the_original():
    df = _variants()
    shown = frame(df, "zh-CN")
    assert list(shown.columns) == ["一方", "成功", "原因", "模型调用"]
    assert shown.index.name == "变体" and list(shown.index) == ["拼错", "下雨"]  # as the variants figure names them
    assert list(shown["原因"]) == ["没有保存笔记", "笔记里没有 Berlin 明天的预报"]
    assert list(shown["模型调用"]) == [1, 1] and list(shown["成功"]) == [False, False]
    assert list(df.columns) == ["side", "success", "why", "model calls"], "the data the code reads stays English"


def test_unknown_text_and_multiindex_labels_pass_through():
    df = pd.DataFrame({("agent", "input tokens"): [3], ("agent", "something new"): [4]})
    shown = frame(df, "zh-CN")
    assert list(shown.columns) == [("agent", "输入 token"), ("agent", "something new")]


def test_only_a_table_that_opted_in_is_shown_translated_and_selections_keep_the_choice():
    from agentlab.views.i18n import SHOWN_IN_LANGUAGE

    df = _variants()
    assert not df.attrs.get(SHOWN_IN_LANGUAGE), "a table is shown as pandas shows it unless it opts in"
    df.attrs[SHOWN_IN_LANGUAGE] = True
    assert df[["why", "model calls"]].attrs.get(SHOWN_IN_LANGUAGE), "a column selection of it is shown translated too"
