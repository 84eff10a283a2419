"""The state tools through the client: ``read_state`` and ``patch_state`` with the seed's request
and response shapes (tool input plus selection in; exactly the tool's output back)."""

from __future__ import annotations

import unittest

from stateflow import IndexOutOfRangeError, InputInvalidError, OwnerNotSelectedError, PatchInvalidError, PathNotFoundError, PathSyntaxError

from .support import SharedServer

shared = SharedServer()
setUpModule, tearDownModule = shared.start, shared.cleanup

DANGLING = (
    "The requested value is unavailable in the selected state. These current values reference that path, "
    "not a verified new location. Use this evidence if relevant to the task."
)


class PatchStateTest(unittest.TestCase):
    def test_patch_state_answers_state_updates_and_names_its_transition(self) -> None:
        tools = shared.client.tools({"cwd": "/work/project", "mode": "active"})
        result = tools.patch_state({"tactics": {"next": "draft"}, "lazy": {"memory": ["first thought", "second thought"]}})
        self.assertEqual(result, {"state_updates": {"effective": [{"path": "tactics.next", "value": "draft"}], "selectors": {"cwd": "cwd[1]"}}})
        self.assertEqual(tools.last_transition, shared.client.head("cwd:/work/project")["seq"])
        corrected = tools.patch_state({"lazy": {"memory": {"[1]": "corrected second thought"}}})
        self.assertEqual(corrected["state_updates"]["effective"], [])
        self.assertEqual(shared.client.state("cwd:/work/project")["lazy"], {"memory": ["first thought", "corrected second thought"]})
        self.assertIsNone(tools.patch_state({"tactics": {"next": "draft"}})["state_updates"].get("selectors"))
        self.assertIsNone(tools.last_transition)

    def test_a_failing_patch_raises_its_code_and_publishes_nothing(self) -> None:
        tools = shared.client.tools({"cwd": "/work/failing", "mode": "active"})
        tools.patch_state({"lazy": {"memory": ["a"]}})
        with self.assertRaises(PatchInvalidError) as raised:
            tools.patch_state({"tactics": {"next": "x"}, "lazy": {"memory": {"[3]": "b"}}})
        self.assertEqual((raised.exception.status, raised.exception.details["at"]), (400, "/lazy/memory/[3]"))
        with self.assertRaises(InputInvalidError):
            tools.patch_state({})
        with self.assertRaises(OwnerNotSelectedError):
            tools.patch_state({"session": {"tactics": {"next": "x"}}})
        self.assertEqual(shared.client.state("cwd:/work/failing"), {"lazy": {"memory": ["a"]}})


class ReadStateTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.tools = shared.client.tools({"cwd": "/work/reads", "mode": "active"})
        cls.tools.patch_state({"tactics": {"next": "draft"}, "lazy": {"memory": ["one", "two", "three"], "rules": {"ranges": "half-open"}}})
        cls.tools.patch_state({"tactics": {"next": "review"}})

    def test_one_path_with_each_projection(self) -> None:
        self.assertEqual(self.tools.read_state("tactics.next"), {"value": "review"})
        self.assertEqual(self.tools.read_state("cwd[1].tactics.next"), {"value": "draft"})
        self.assertEqual(self.tools.read_state("lazy.memory[0:2]"), {"value": ["one", "two"]})
        self.assertEqual(self.tools.read_state("lazy", projection="keys"), {"meta": {"type": "object", "size": 2}, "keys": {"memory": "array", "rules": "object"}})
        self.assertEqual(self.tools.read_state("lazy.memory", projection="keys"), {"meta": {"type": "array", "length": 3}, "keys": []})
        self.assertEqual(self.tools.read_state("tactics", projection="patch"), {"patch": {"next": "review"}})

    def test_several_paths_answer_positional_lists(self) -> None:
        self.assertEqual(self.tools.read_state(paths=["tactics.next", "lazy.rules", "tactics.next"]), {"value": ["review", {"ranges": "half-open"}, "review"]})
        self.assertEqual(
            self.tools.read_state(paths=["lazy.memory", "lazy.rules"], projection="keys"),
            {"meta": [{"type": "array", "length": 3}, {"type": "object", "size": 1}], "keys": [[], {"ranges": "string"}]},
        )

    def test_a_missing_value_that_a_reference_points_to_answers_the_sentinel(self) -> None:
        tools = shared.client.tools({"cwd": "/work/refs", "mode": "active"})
        tools.patch_state({"tactics": {"note": {"$ref": "lazy.plan"}}})
        self.assertEqual(tools.read_state("lazy.plan"), {"value": None, "hint": [{"type": "dangling-reference", "message": DANGLING, "paths": ["tactics.note"]}]})
        with self.assertRaises(PathNotFoundError):
            tools.read_state("lazy.other")
        with self.assertRaises(IndexOutOfRangeError):
            self.tools.read_state("lazy.memory[3]")

    def test_a_bad_path_fails_the_whole_read_with_its_column(self) -> None:
        with self.assertRaises(PathSyntaxError) as raised:
            self.tools.read_state(paths=["tactics.next", "lazy.memory[-1]"])
        self.assertEqual(raised.exception.details["path"], "lazy.memory[-1]")
        self.assertEqual(raised.exception.status, 400)
        with self.assertRaises(InputInvalidError) as local:
            self.tools.read_state("a", paths=["b"])
        self.assertIsNone(local.exception.status)


if __name__ == "__main__":
    unittest.main()
