def run_loop(client, task, tools, model, max_turns=10):
    messages = [{"role": "user", "content": task}]
    return messages


def reprefill_per_turn(events):
    total = 0
    while True:  # forgot the stop condition
        total += 1
