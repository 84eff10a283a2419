"""Discovery of the local server through the store's discovery file, with the server proof: the
token goes out only to a process that proves it holds it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import threading
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import List, Tuple
from unittest import mock

from stateflow import DISCOVERY_FILE, Client, StateflowError, StoreUnavailableError, find_server, read_discovery, server_proof

from .support import ServedTestCase


def write_discovery(directory: Path, url: str, pid: int, token: str = "ab" * 32) -> None:
    record = {"url": url, "pid": pid, "token": token, "requireToken": False, "background": False, "idleTimeoutMs": None, "startedAt": "2026-01-01T00:00:00.000Z"}
    (directory / DISCOVERY_FILE).write_text(json.dumps(record), encoding="utf-8")


class ServedTest(ServedTestCase):
    def test_the_live_server_of_a_store_directory_is_found_and_its_token_works(self) -> None:
        found = find_server(self.server.store_dir)
        assert found is not None
        self.assertEqual((found.url, found.pid, found.token), (self.server.url, self.server.pid, self.server.token))
        with Client.discover(self.server.store_dir) as client:
            self.assertEqual(client.server_info()["pid"], self.server.pid)

    def test_from_env_takes_the_url_and_token_or_discovers_the_server_of_stateflow_dir(self) -> None:
        with mock.patch.dict(os.environ, {"STATEFLOW_URL": self.server.url, "STATEFLOW_TOKEN": self.server.token}):
            with Client.from_env() as client:
                self.assertEqual(client.server_info()["dir"], str(self.server.store_dir))
        with mock.patch.dict(os.environ, {"STATEFLOW_URL": "", "STATEFLOW_DIR": str(self.server.store_dir)}):
            with Client.from_env() as client:
                self.assertEqual((client.url, client.server_info()["pid"]), (self.server.url, self.server.pid))

    def test_server_proof_is_the_hmac_the_server_computes(self) -> None:
        nonce = "0" * 64
        with Client(self.server.url) as anonymous:
            answer = anonymous._transport.call("GET", "/v1/server/proof", idempotent=True, query={"nonce": nonce}).body
        # The Python client checks `proof`; `pidProof` (the nonce and the server's pid) is for clients that hold a discovery file's pid.
        self.assertEqual(answer["proof"], server_proof(self.server.token, nonce))
        self.assertRegex(answer["pidProof"], "^[0-9a-f]{64}$")


class StaleTest(unittest.TestCase):
    def setUp(self) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="stateflow-discovery-"))
        self.addCleanup(shutil.rmtree, self.dir, True)

    def test_no_file_or_a_foreign_file_is_no_server(self) -> None:
        self.assertIsNone(find_server(self.dir))
        (self.dir / DISCOVERY_FILE).write_text('{"url": "http://x", "pid": "7", "token": "t"}', encoding="utf-8")
        self.assertIsNone(read_discovery(self.dir))
        with self.assertRaises(StoreUnavailableError) as raised:
            Client.discover(self.dir)
        self.assertEqual(raised.exception.details, {"dir": str(self.dir), "outcome": "not-sent"})

    def test_a_file_whose_process_is_dead_is_removed(self) -> None:
        done = subprocess.run(["sh", "-c", "echo $$"], capture_output=True, text=True)
        write_discovery(self.dir, "http://127.0.0.1:9", int(done.stdout))
        self.assertIsNone(find_server(self.dir))
        self.assertFalse((self.dir / DISCOVERY_FILE).exists())

    def test_an_impostor_on_the_port_is_sent_only_a_nonce_and_is_ignored(self) -> None:
        received: List[Tuple[str, str]] = []

        class Impostor(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                received.append((self.path, json.dumps(dict(self.headers))))
                body = json.dumps({"proof": "f" * 64, "pid": os.getpid(), "version": "0", "lastSeq": 0}).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        impostor = ThreadingHTTPServer(("127.0.0.1", 0), Impostor)
        threading.Thread(target=impostor.serve_forever, daemon=True).start()
        self.addCleanup(impostor.server_close)
        self.addCleanup(impostor.shutdown)
        token = "cd" * 32
        url = f"http://127.0.0.1:{impostor.server_address[1]}"
        write_discovery(self.dir, url, os.getpid(), token)
        ignored: List[StateflowError] = []
        self.assertIsNone(find_server(self.dir, on_ignored=ignored.append))
        self.assertEqual([path.split("?")[0] for path, _ in received], ["/v1/server/proof"])
        self.assertTrue(all(token not in path and token not in headers for path, headers in received))
        self.assertEqual([(e.code, e.details) for e in ignored], [("STORE_UNAVAILABLE", {"url": url, "outcome": "not-sent", "reason": "server-unverified"})])
        self.assertIn("wrong HMAC", ignored[0].message)
        self.assertTrue((self.dir / DISCOVERY_FILE).exists())


if __name__ == "__main__":
    unittest.main()
