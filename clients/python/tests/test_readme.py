"""The first ``python`` example of the root README ("From Python") and of the client's README run
as printed, against a new store: once with ``STATEFLOW_URL`` and ``STATEFLOW_TOKEN``, once with
them unset, finding the server of ``STATEFLOW_DIR`` through its discovery file."""

from __future__ import annotations

import subprocess
import sys
import unittest

from .readme import CLIENT_README, ROOT_README, readme_block
from .support import CLIENT_ROOT, Serve, child_env

#: What each example prints (its comments say so too).
ROOT_OUTPUT = "{'tactics': {'next': 'review'}}\n{'value': 'ship'}\n"
CLIENT_OUTPUT = "{'tactics': {'next': 'review'}} {'tactics': {'next': 'draft'}}\nCONFLICT 1 2\n"
TOOLS_OUTPUT = (
    "{'value': 'draft'}\n"
    "{'meta': {'type': 'object', 'size': 1}, 'keys': {'memory': 'array'}}\n"
    "{'value': ['draft', ['corrected second']]}\n"
    "{'patch': {'[1]': 'corrected second'}}\n"
)


def run_example(code: str, **env: str) -> str:
    """Run ``code`` with this Python and the tree's sources; its stdout (the test fails on a non-zero exit)."""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=child_env(PYTHONPATH=str(CLIENT_ROOT / "src"), **env))
    if result.returncode != 0:
        raise AssertionError(f"the example exited with {result.returncode}: {result.stderr}")
    return result.stdout


class ReadmeExamplesTest(unittest.TestCase):
    def setUp(self) -> None:
        self.server = Serve().start()
        self.addCleanup(self.server.cleanup)

    def test_with_the_url_and_the_token(self) -> None:
        env = {"STATEFLOW_URL": self.server.url, "STATEFLOW_TOKEN": self.server.token}
        self.assertEqual(run_example(readme_block(ROOT_README, "python", "python"), **env), ROOT_OUTPUT)
        self.assertEqual(run_example(readme_block(CLIENT_README, "example", "python"), **env), CLIENT_OUTPUT)
        with self.server.client() as client:
            self.assertEqual(client.state("cwd:/home/me/project"), {"tactics": {"next": "ship"}})

    def test_the_state_tools_block_prints_what_its_comments_say(self) -> None:
        code = "from stateflow import Client\nclient = Client.from_env()\n" + readme_block(CLIENT_README, "tools", "python")
        self.assertEqual(run_example(code, STATEFLOW_URL=self.server.url, STATEFLOW_TOKEN=self.server.token), TOOLS_OUTPUT)

    def test_through_discovery_of_the_local_server(self) -> None:
        env = {"STATEFLOW_DIR": str(self.server.store_dir)}
        self.assertEqual(run_example(readme_block(ROOT_README, "python", "python"), **env), ROOT_OUTPUT)
        self.assertEqual(run_example(readme_block(CLIENT_README, "example", "python"), **env), CLIENT_OUTPUT)


if __name__ == "__main__":
    unittest.main()
