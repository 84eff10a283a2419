"""Watch through the client: the retained transitions then live ones, each once and in seq order,
across a server killed and started again (on its port, or through discovery on another one)."""

from __future__ import annotations

import itertools
import threading
import time
import unittest
from typing import List, Optional

from stateflow import Client, StateflowError, TransitionNotFoundError, Watch
from stateflow.types import Transition

from .support import Serve, ServedTestCase


class Collector(threading.Thread):
    """Iterates a watch in the background, keeping what it yields and how it ended."""

    def __init__(self, watch: Watch) -> None:
        super().__init__(daemon=True)
        self.watch = watch
        self.seen: List[Transition] = []
        self.error: Optional[BaseException] = None
        self.ended = False
        self._changed = threading.Condition()
        self.start()

    def run(self) -> None:
        try:
            for transition in self.watch:
                with self._changed:
                    self.seen.append(transition)
                    self._changed.notify_all()
        except BaseException as error:  # the test asserts on it
            self.error = error
        finally:
            with self._changed:
                self.ended = True
                self._changed.notify_all()

    def wait_for(self, count: int, timeout: float = 60.0) -> List[int]:
        """The seqs seen once at least ``count`` arrived (fails the test after ``timeout`` s)."""
        with self._changed:
            self._changed.wait_for(lambda: len(self.seen) >= count or self.ended, timeout)
        if len(self.seen) < count:
            raise AssertionError(f"the watch yielded {len(self.seen)} transitions of {count} (error: {self.error!r})")
        return [t["seq"] for t in self.seen]

    def wait_end(self, timeout: float = 30.0) -> None:
        self.join(timeout)
        if self.is_alive():
            raise AssertionError("the watch did not end")


_written = itertools.count()


def publish(client: Client, stream: str, count: int) -> List[int]:
    """Publish ``count`` transitions (each a new value) on ``stream``; their seqs."""
    seqs = []
    for _ in range(count):
        result = client.publish({stream: {"tactics": {"n": next(_written)}}})
        assert result["transition"] is not None
        seqs.append(result["transition"]["seq"])
    return seqs


class WatchTest(ServedTestCase):
    def test_from_a_seq_it_yields_the_retained_transitions_then_the_live_ones_once_in_order(self) -> None:
        before = publish(self.client, "session:w1", 3)
        collector = Collector(self.client.watch(after=before[0] - 1))
        self.assertEqual(collector.wait_for(3), before)
        after = publish(self.client, "session:w1", 2)
        self.assertEqual(collector.wait_for(5), before + after)
        collector.watch.close()
        collector.wait_end()
        self.assertIsNone(collector.error)
        self.assertEqual(collector.watch.position, after[-1])

    def test_streams_keep_only_the_transitions_that_changed_them(self) -> None:
        start = self.client.server_info()["lastSeq"]
        publish(self.client, "session:w2", 1)
        mine = publish(self.client, "session:w3", 2)
        with self.client.watch(after=start, streams=["session:w3"]) as watch:
            collector = Collector(watch)
            self.assertEqual(collector.wait_for(2), mine)
        collector.wait_end()

    def test_without_after_it_starts_live(self) -> None:
        earlier = publish(self.client, "session:w4", 1)[0]
        collector = Collector(self.client.watch(streams=["session:w4"]))
        deadline = time.monotonic() + 30
        while not collector.seen and time.monotonic() < deadline:
            publish(self.client, "session:w4", 1)
            time.sleep(0.1)
        collector.watch.close()
        collector.wait_end()
        self.assertGreater(collector.seen[0]["seq"], earlier)

    def test_close_from_another_thread_ends_a_waiting_iteration(self) -> None:
        collector = Collector(self.client.watch(after=self.client.server_info()["lastSeq"]))
        time.sleep(0.3)
        started = time.monotonic()
        collector.watch.close()
        collector.wait_end(5)
        self.assertLess(time.monotonic() - started, 5)
        self.assertEqual((collector.seen, collector.error), ([], None))

    def test_a_start_beyond_the_last_seq_raises_transition_not_found(self) -> None:
        watch = self.client.watch(after=self.client.server_info()["lastSeq"] + 100)
        with self.assertRaises(TransitionNotFoundError) as raised:
            next(watch)
        self.assertEqual(raised.exception.status, 404)


class ResumeTest(unittest.TestCase):
    def setUp(self) -> None:
        self.server = Serve().start()
        self.addCleanup(self.server.cleanup)

    def test_after_the_server_is_killed_and_started_again_it_resumes_with_no_gap_and_no_duplicate(self) -> None:
        client = self.server.client()
        self.addCleanup(client.close)
        drops: List[StateflowError] = []
        collector = Collector(client.watch(after=0, retry_interval=0.1, on_disconnect=drops.append))
        first = publish(client, "session:r", 3)
        self.assertEqual(collector.wait_for(3), first)
        self.server.kill()
        self.server.start(self.server.port)
        with self.server.client() as again:
            second = publish(again, "session:r", 3)
        self.assertEqual(collector.wait_for(6), first + second)
        self.assertEqual(first + second, list(range(1, 7)))
        self.assertGreaterEqual(len(drops), 1)
        self.assertEqual(drops[0].code, "STORE_UNAVAILABLE")
        collector.watch.close()
        collector.wait_end()
        self.assertEqual(len(collector.seen), 6)

    def test_a_discovered_client_finds_the_restarted_server_on_its_new_port(self) -> None:
        client = Client.discover(self.server.store_dir)
        self.addCleanup(client.close)
        collector = Collector(client.watch(after=0, retry_interval=0.1))
        first = publish(client, "session:d", 2)
        self.assertEqual(collector.wait_for(2), first)
        old_port = self.server.port
        self.server.kill()
        self.server.start(0)
        self.assertNotEqual(self.server.port, old_port)
        with self.server.client() as again:
            second = publish(again, "session:d", 2)
        self.assertEqual(collector.wait_for(4), first + second)
        self.assertEqual(client.url, self.server.url)
        collector.watch.close()
        collector.wait_end()

    def test_on_server_stop_end_ends_the_iteration_when_the_server_is_stopped(self) -> None:
        client = self.server.client()
        self.addCleanup(client.close)
        collector = Collector(client.watch(after=0, on_server_stop="end"))
        publish(client, "session:s", 1)
        collector.wait_for(1)
        self.server.stop()
        collector.wait_end()
        self.assertIsNone(collector.error)
        self.assertEqual(len(collector.seen), 1)


if __name__ == "__main__":
    unittest.main()
