"""The Python side of bench/python-client.mjs: one measurement with the tree's client, as JSON.

    python3 bench/python-client.py publish URL TOKEN STREAM COUNT WARMUP   # closed-loop publishes
    python3 bench/python-client.py watch URL TOKEN AFTER COUNT             # one watch iterator
"""

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "clients" / "python" / "src"))

from stateflow import Client  # noqa: E402


def publish(client: Client, stream: str, count: int, warmup: int) -> dict:
    for i in range(warmup):
        client.publish({stream: {"tactics": {"n": -1 - i}}})
    latencies = []
    started = time.perf_counter()
    for i in range(count):
        before = time.perf_counter()
        client.publish({stream: {"tactics": {"n": i}}})
        latencies.append((time.perf_counter() - before) * 1000)
    return {"seconds": time.perf_counter() - started, "latencies": latencies}


def watch(client: Client, after: int, count: int) -> dict:
    seen = 0
    last = after
    started = time.perf_counter()
    with client.watch(after=after) as transitions:
        for transition in transitions:
            if transition["seq"] != last + 1:
                raise SystemExit(f"the watch skipped from {last} to {transition['seq']}")
            last = transition["seq"]
            seen += 1
            if seen == count:
                break
    return {"seconds": time.perf_counter() - started, "seen": seen}


def main() -> None:
    mode, url, token = sys.argv[1:4]
    with Client(url, token=token) as client:
        if mode == "publish":
            result = publish(client, sys.argv[4], int(sys.argv[5]), int(sys.argv[6]))
        else:
            result = watch(client, int(sys.argv[4]), int(sys.argv[5]))
    print(json.dumps(result))


main()
