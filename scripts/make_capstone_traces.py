"""Regenerate the capstone's shipped traces (agentlab/data/traces/*.jsonl) from the simulator.

    .venv/bin/python scripts/make_capstone_traces.py            # rewrite them
    .venv/bin/python scripts/make_capstone_traces.py --check    # exit 1 if a fresh recording differs

The simulator is deterministic and traces carry no wall-clock time, so a rerun gives the same bytes;
tests/experiments/test_capstone_traces.py checks that. Notes the runs save go to a temporary folder.
"""

from __future__ import annotations

import argparse
import sys
import tempfile

from agentlab.experiments.capstone import TRACES, record_all


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare a fresh recording with the shipped traces")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="agentlab-capstone-") as tmp:
        fresh = record_all(tmp)
        differ = [
            name
            for name, path in fresh.items()
            if not (TRACES / path.name).exists() or (TRACES / path.name).read_bytes() != path.read_bytes()
        ]
        if args.check:
            print("traces up to date" if not differ else f"traces differ from a fresh recording: {differ}")
            return 1 if differ else 0
        TRACES.mkdir(parents=True, exist_ok=True)
        for name, path in fresh.items():
            (TRACES / path.name).write_bytes(path.read_bytes())
            print(f"wrote {TRACES / path.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
