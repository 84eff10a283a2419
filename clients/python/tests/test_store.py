"""The store API through the client, against a real server: every method, its answers and the
exceptions of its failures."""

from __future__ import annotations

import unittest
from typing import Any, Dict, List

from stateflow import (
    ConflictError,
    HistoryNotRetainedError,
    MergeConflictError,
    PatchInvalidError,
    RevisionNotFoundError,
    StreamInvalidError,
    TransitionNotFoundError,
)

from .support import SharedServer

shared = SharedServer()
setUpModule, tearDownModule = shared.start, shared.cleanup


def publish_revisions(stream: str, values: List[Any]) -> None:
    for value in values:
        shared.client.publish({stream: {"tactics": {"v": value}}})


class PublishTest(unittest.TestCase):
    def test_publish_with_expected_and_id_is_accepted_once_then_answers_the_same_transition(self) -> None:
        first = shared.client.publish({"session:p1": {"tactics": {"next": "draft"}}}, expected={"session:p1": "none"}, id="p1-first")
        self.assertEqual(first["status"], "accepted")
        assert first["transition"] is not None
        self.assertEqual(first["transition"]["changes"], [{"stream": "session:p1", "rev": 1, "patch": {"tactics": {"next": "draft"}}}])
        self.assertEqual(first["transition"]["id"], "p1-first")
        again = shared.client.publish({"session:p1": {"tactics": {"next": "draft"}}}, expected={"session:p1": "none"}, id="p1-first")
        self.assertEqual(again["status"], "duplicate")
        assert again["transition"] is not None
        self.assertEqual(again["transition"]["seq"], first["transition"]["seq"])
        self.assertEqual(shared.client.head("session:p1")["rev"], 1)

    def test_a_stale_expected_revision_raises_conflict_with_the_revisions_and_publishes_nothing(self) -> None:
        shared.client.publish({"session:p2": {"tactics": {"n": 1}}})
        shared.client.publish({"session:p2": {"tactics": {"n": 2}}})
        with self.assertRaises(ConflictError) as raised:
            shared.client.publish({"session:p2": {"tactics": {"n": 3}}}, expected={"session:p2": 1})
        error = raised.exception
        self.assertEqual((error.code, error.status, error.retryable), ("CONFLICT", 409, False))
        self.assertEqual((error.stream, error.expected, error.actual), ("session:p2", 1, 2))
        self.assertEqual(shared.client.state("session:p2"), {"tactics": {"n": 2}})

    def test_a_patch_that_changes_nothing_is_a_noop(self) -> None:
        shared.client.publish({"session:p3": {"tactics": {"n": 1}}})
        self.assertEqual(shared.client.publish({"session:p3": {"tactics": {"n": 1}}}), {"status": "noop", "transition": None})

    def test_bad_input_raises_the_code_of_the_server(self) -> None:
        with self.assertRaises(PatchInvalidError) as raised:
            shared.client.publish({"session:p4": {"tactics": {"list": [1, None]}}})
        self.assertEqual(raised.exception.status, 400)
        self.assertEqual(raised.exception.details["reason"], "null-in-value")
        with self.assertRaises(StreamInvalidError):
            shared.client.publish({"session:bad\u0007id": {"a": 1}})

    def test_publish_many_is_all_or_nothing_with_results_in_input_order(self) -> None:
        results = shared.client.publish_many(
            [
                {"changes": {"session:m1": {"tactics": {"n": 1}}}, "id": "m-a"},
                {"changes": {"session:m2": {"tactics": {"n": 1}}}, "expected": {"session:m2": "none"}},
            ]
        )
        self.assertEqual([r["status"] for r in results], ["accepted", "accepted"])
        seqs = [r["transition"]["seq"] for r in results if r["transition"] is not None]
        self.assertEqual(seqs[1], seqs[0] + 1)
        with self.assertRaises(ConflictError):
            shared.client.publish_many(
                [
                    {"changes": {"session:m1": {"tactics": {"n": 2}}}},
                    {"changes": {"session:m2": {"tactics": {"n": 2}}}, "expected": {"session:m2": "none"}},
                ]
            )
        self.assertEqual(shared.client.state("session:m1"), {"tactics": {"n": 1}})


class ReadTest(unittest.TestCase):
    def test_state_now_and_at_a_revision_head_streams_view_patch_and_states_at(self) -> None:
        publish_revisions("session:r1", ["a", "b", "c"])
        self.assertEqual(shared.client.state("session:r1"), {"tactics": {"v": "c"}})
        self.assertEqual(shared.client.state("session:r1", rev=1), {"tactics": {"v": "a"}})
        self.assertEqual(shared.client.state("session:r1", rev=0), {})
        head = shared.client.head("session:r1")
        self.assertEqual((head["stream"], head["rev"], head["origin"]), ("session:r1", 3, 0))
        self.assertIn(head, shared.client.streams())
        self.assertEqual(shared.client.patch_at("session:r1", 2), {"tactics": {"v": "b"}})
        view = shared.client.view(["session:r1", "session:never"])
        self.assertEqual(view["streams"]["session:r1"], {"rev": 3, "state": {"tactics": {"v": "c"}}})
        self.assertEqual(view["streams"]["session:never"], {"rev": 0, "state": {}})
        self.assertEqual(shared.client.states_at(["session:r1"], head["seq"] - 1), {"session:r1": {"tactics": {"v": "b"}}})
        self.assertGreaterEqual(shared.client.last_seq, head["seq"])

    def test_a_revision_above_the_head_raises_revision_not_found(self) -> None:
        publish_revisions("session:r2", [1])
        with self.assertRaises(RevisionNotFoundError) as raised:
            shared.client.state("session:r2", rev=5)
        self.assertEqual(raised.exception.status, 404)
        self.assertEqual(raised.exception.details, {"stream": "session:r2", "rev": 5, "head": 1})

    def test_diff_between_two_revisions(self) -> None:
        shared.client.publish({"session:d1": {"tactics": {"a": 1, "b": 1}}})
        shared.client.publish({"session:d1": {"tactics": {"b": 2}}})
        shared.client.publish({"session:d1": {"tactics": {"a": None}}})
        self.assertEqual(shared.client.diff("session:d1", 1, 3), {"tactics": {"a": None, "b": 2}})
        self.assertEqual(shared.client.diff("session:d1", 3, 1), {"tactics": {"a": 1, "b": 1}})

    def test_transitions_page_lazily_with_range_and_stream(self) -> None:
        publish_revisions("session:t1", [1, 2, 3, 4, 5])
        mine = list(shared.client.transitions(stream="session:t1", page_size=2))
        self.assertEqual([t["changes"][0]["rev"] for t in mine], [1, 2, 3, 4, 5])
        first, last = mine[0]["seq"], mine[-1]["seq"]
        window = list(shared.client.transitions(from_seq=mine[1]["seq"], to_seq=mine[3]["seq"], stream="session:t1", page_size=1))
        self.assertEqual([t["seq"] for t in window], [t["seq"] for t in mine[1:4]])
        every = list(shared.client.transitions(from_seq=first, to_seq=last, page_size=2))
        self.assertEqual([t["seq"] for t in every], list(range(first, last + 1)))
        pages = shared.client.transitions(stream="session:t1", page_size=2)
        self.assertEqual(next(pages)["changes"][0]["rev"], 1)
        self.assertEqual(shared.client.transition(last), mine[-1])

    def test_a_transition_above_the_last_seq_raises_transition_not_found(self) -> None:
        with self.assertRaises(TransitionNotFoundError) as raised:
            shared.client.transition(shared.client.server_info()["lastSeq"] + 10)
        self.assertEqual(raised.exception.status, 404)


class HistoryTest(unittest.TestCase):
    def test_fork_then_revert(self) -> None:
        publish_revisions("session:f1", ["a", "b"])
        forked = shared.client.fork("session:f1", "session:f2", at=1)
        self.assertEqual(forked["status"], "accepted")
        self.assertEqual(shared.client.state("session:f2"), {"tactics": {"v": "a"}})
        reverted = shared.client.revert("session:f1", 1)
        self.assertEqual(reverted["status"], "accepted")
        self.assertEqual(shared.client.state("session:f1"), {"tactics": {"v": "a"}})
        self.assertEqual(shared.client.head("session:f1")["rev"], 3)

    def test_merge_raises_its_conflicts_with_their_paths_then_merges_when_resolved(self) -> None:
        shared.client.publish({"session:base": {"tactics": {"next": "plan", "owner": "ann"}}})
        shared.client.fork("session:base", "session:branch")
        shared.client.publish({"session:branch": {"tactics": {"next": "ship", "extra": 1}}})
        shared.client.publish({"session:base": {"tactics": {"next": "test"}}})
        with self.assertRaises(MergeConflictError) as raised:
            shared.client.merge("session:branch", "session:base")
        error = raised.exception
        self.assertEqual((error.code, error.status), ("MERGE_CONFLICT", 409))
        self.assertEqual(error.paths, ["/tactics/next"])
        self.assertEqual([(c["base"], c["ours"], c["theirs"]) for c in error.conflicts], [("plan", "test", "ship")])
        self.assertEqual(shared.client.state("session:base"), {"tactics": {"next": "test", "owner": "ann"}})
        preview = shared.client.merge("session:branch", "session:base", prefer="theirs", dry_run=True)
        self.assertEqual(preview["status"], "preview")
        merged = shared.client.merge("session:branch", "session:base", resolve={"/tactics/next": "ours"}, id="merge-1")
        self.assertEqual(merged["status"], "accepted")
        self.assertEqual(shared.client.state("session:base"), {"tactics": {"next": "test", "owner": "ann", "extra": 1}})

    def test_compact_then_a_read_before_the_origin_raises_history_not_retained(self) -> None:
        publish_revisions("session:c1", [1, 2, 3, 4])
        self.assertEqual(shared.client.compact("session:c1", 2), {"origin": 3, "deleted": 3})
        with self.assertRaises(HistoryNotRetainedError) as raised:
            shared.client.state("session:c1", rev=2)
        self.assertEqual((raised.exception.status, raised.exception.details["origin"]), (410, 3))
        self.assertEqual(shared.client.state("session:c1", rev=3), {"tactics": {"v": 3}})

    def test_audit_of_the_store_is_clean(self) -> None:
        publish_revisions("session:a1", [1])
        report = shared.client.audit()
        self.assertEqual(report["problems"], [])
        self.assertGreaterEqual(report["transitions"], 1)
        info: Dict[str, Any] = dict(shared.client.server_info())
        self.assertEqual(info["dir"], str(shared.server.store_dir))
        self.assertEqual(info["pid"], shared.server.pid)


if __name__ == "__main__":
    unittest.main()
