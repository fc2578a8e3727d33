def answer_tool_calls(content, tools)
    return {"role": "user", "content": []}
