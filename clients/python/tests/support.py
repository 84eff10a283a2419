"""Test support: a real ``stateflow serve`` (the built CLI) on a LevelDB store in a temp folder.

The server is the repository's built CLI, ``node packages/cli/dist/bin.js serve`` (``npm run
build`` first); ``STATEFLOW_NODE`` and ``STATEFLOW_CLI`` name another node or bin. Each
:class:`Serve` owns a temp folder (the store, a keys file) that :meth:`Serve.cleanup` removes.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import unittest
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from stateflow import Client

CLIENT_ROOT = Path(__file__).resolve().parent.parent
REPO_ROOT = CLIENT_ROOT.parent.parent
NODE = os.environ.get("STATEFLOW_NODE") or shutil.which("node")
CLI = Path(os.environ.get("STATEFLOW_CLI") or REPO_ROOT / "packages" / "cli" / "dist" / "bin.js")
#: The example ladders (``@demo/notes``) and the scripted demo model (root README).
LADDERS = REPO_ROOT / "packages" / "cli" / "examples" / "ladders"
DEMO_MODEL = REPO_ROOT / "packages" / "cli" / "examples" / "notes-model.jsonl"

#: Variables of the test's environment that would change which store or server a child uses.
_CLEARED = ("STATEFLOW_DIR", "STATEFLOW_STORE", "STATEFLOW_API_KEYS", "STATEFLOW_URL", "STATEFLOW_TOKEN", "STATEFLOW_API_KEY")


def child_env(**extra: str) -> Dict[str, str]:
    """The environment of a child process: without the variables above, plus ``extra``."""
    env = {name: value for name, value in os.environ.items() if name not in _CLEARED}
    env.update(OPENAI_BASE_URL="", OPENAI_API_KEY="")
    env.update(extra)
    return env


class Serve:
    """One ``stateflow serve`` process; ``args`` are its options after ``serve``.

    ``keys`` writes a keys file (``{key: user}``) and passes ``--keys``.
    """

    def __init__(self, *args: str, keys: Optional[Dict[str, str]] = None) -> None:
        if NODE is None:
            raise RuntimeError("node is not on PATH (set STATEFLOW_NODE): the tests start a real stateflow serve")
        if not CLI.exists():
            raise RuntimeError(f"{CLI} is missing: run npm run build in the repository first")
        self.root = Path(tempfile.mkdtemp(prefix="stateflow-python-"))
        self.store_dir = self.root / "store"
        self.args: List[str] = list(args)
        if keys is not None:
            (self.root / "keys.json").write_text(json.dumps(keys), encoding="utf-8")
            self.args += ["--keys", str(self.root / "keys.json")]
        self.url = ""
        self.output: List[str] = []
        self._process: Optional[subprocess.Popen[str]] = None
        self._pump: Optional[threading.Thread] = None

    def start(self, port: int = 0) -> Serve:
        """Start it on ``port`` (0: a free one) and wait until it serves."""
        command = [str(NODE), str(CLI), "--dir", str(self.store_dir), "serve", "--port", str(port), *self.args]
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=child_env(), text=True)
        self._process = process
        ready = threading.Event()
        found: Dict[str, str] = {}

        def pump() -> None:
            assert process.stdout is not None
            for line in process.stdout:
                self.output.append(line)
                match = re.match(r"stateflow serving on (\S+)", line)
                if match:
                    found["url"] = match.group(1)
                if line.startswith("stop with Ctrl-C"):
                    ready.set()
            ready.set()

        self._pump = threading.Thread(target=pump, daemon=True)
        self._pump.start()
        if not ready.wait(60) or "url" not in found or process.poll() is not None:
            self.kill()
            raise RuntimeError(f"stateflow serve did not start: {''.join(self.output)}")
        self.url = found["url"]
        return self

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1])

    @property
    def pid(self) -> int:
        assert self._process is not None
        return self._process.pid

    @property
    def token(self) -> str:
        """The server token, from its discovery file."""
        token: str = json.loads((self.store_dir / "stateflow-server.json").read_text(encoding="utf-8"))["token"]
        return token

    def client(self, **options: Any) -> Client:
        """A client of this server with its token (the store's owner), unless ``options`` say otherwise."""
        if "api_key" not in options:
            options.setdefault("token", self.token)
        return Client(self.url, **options)

    def kill(self) -> None:
        """SIGKILL: the server dies mid-whatever, as after a crash (its discovery file stays)."""
        self._end(signal.SIGKILL)

    def stop(self) -> None:
        """SIGTERM: the server stops on purpose (its watch streams get ``stopping``)."""
        self._end(signal.SIGTERM)

    def _end(self, signum: int) -> None:
        process = self._process
        if process is None:
            return
        if process.poll() is None:
            process.send_signal(signum)
        process.wait(30)
        if self._pump is not None:
            self._pump.join(10)
        if process.stdout is not None:
            process.stdout.close()
        self._process = None

    def cleanup(self) -> None:
        self.kill()
        shutil.rmtree(self.root, ignore_errors=True)


class ServedTestCase(unittest.TestCase):
    """A test class with one server (``serve_args`` are its options) and a client of it with
    its token, started before the class's first test and removed after its last."""

    serve_args: Tuple[str, ...] = ()
    serve_keys: Optional[Dict[str, str]] = None
    server: Serve
    client: Client

    @classmethod
    def setUpClass(cls) -> None:
        cls.server = Serve(*cls.serve_args, keys=cls.serve_keys).start()
        cls.client = cls.server.client()

    @classmethod
    def tearDownClass(cls) -> None:
        cls.client.close()
        cls.server.cleanup()


class SharedServer:
    """One server for a whole test module, and a client of it with its token::

        shared = SharedServer()
        setUpModule, tearDownModule = shared.start, shared.cleanup
    """

    def __init__(self, *args: str) -> None:
        self._args = args
        self.server: Serve
        self.client: Client

    def start(self) -> None:
        self.server = Serve(*self._args).start()
        self.client = self.server.client()

    def cleanup(self) -> None:
        self.client.close()
        self.server.cleanup()
