"""Errors: every code of the contract has its class (the generated file agrees with
``ERROR_FACTS``), each answer status maps to its exception, and retries go as documented."""

from __future__ import annotations

import json
import socket
import subprocess
import time
import unittest

from stateflow import (
    ERROR_CLASSES,
    Client,
    ConflictError,
    ForbiddenError,
    NotFoundError,
    RateLimitedError,
    RetryPolicy,
    StateflowError,
    StoreUnavailableError,
    UnauthorizedError,
)
from stateflow._http import answer_error

from .support import CLIENT_ROOT, LADDERS, NODE, REPO_ROOT, Serve, ServedTestCase

KEYS = {"key-alice": "alice", "key-carol": "carol"}


def node(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(NODE), *args], cwd=REPO_ROOT, capture_output=True, text=True, timeout=60)


class GeneratedTest(unittest.TestCase):
    def test_the_generated_file_is_what_the_contract_generates(self) -> None:
        run = node(str(CLIENT_ROOT / "scripts" / "generate-errors.mjs"), "--check")
        self.assertEqual(run.returncode, 0, run.stderr)

    def test_every_code_of_error_facts_has_a_class_with_its_status_and_retryable(self) -> None:
        run = node("--input-type=module", "-e", "import { ERROR_FACTS } from '@stateflow/core/errors'; console.log(JSON.stringify(ERROR_FACTS))")
        self.assertEqual(run.returncode, 0, run.stderr)
        facts = json.loads(run.stdout)
        self.assertEqual(list(ERROR_CLASSES), list(facts))
        for code, fact in facts.items():
            cls = ERROR_CLASSES[code]
            self.assertTrue(issubclass(cls, StateflowError))
            self.assertEqual((cls.code, cls.http_status, cls.retryable), (code, fact["httpStatus"], fact["retryable"]), code)
            self.assertIn(fact["meaning"].split()[0], cls.__doc__ or "")

    def test_a_code_this_client_does_not_know_keeps_its_code_and_the_servers_retry_advice(self) -> None:
        body = {"error": {"code": "NEW_CODE", "message": "from a newer server", "details": {"a": 1}}}
        error = answer_error("http://x", "/v1/y", 503, "2", "true", "req-1", body)
        self.assertIs(type(error), StateflowError)
        self.assertEqual((error.code, error.status, error.retryable, error.retry_after, error.request_id, error.details), ("NEW_CODE", 503, True, 2.0, "req-1", {"a": 1}))
        plain = answer_error("http://x", "/v1/y", 502, None, None, None, "<html>")
        self.assertEqual((plain.code, plain.status), ("INTERNAL", 502))


class RetryPolicyTest(unittest.TestCase):
    def test_it_waits_what_retry_after_says_backs_off_otherwise_and_stops(self) -> None:
        policy = RetryPolicy(max_retries=2, backoff=0.5, max_wait=10)
        limited = RateLimitedError("over", {}, retry_after=3)
        self.assertEqual(policy.delay(0, limited), 3)
        self.assertIsNone(policy.delay(2, limited))
        self.assertIsNone(policy.delay(0, RateLimitedError("over", {}, retry_after=11)))
        self.assertIsNone(policy.delay(0, ConflictError("stale", {})))
        waits = [policy.delay(n, StoreUnavailableError("down", {})) for n in (0, 1)]
        self.assertTrue(0.25 <= (waits[0] or 0) <= 0.5 and 0.5 <= (waits[1] or 0) <= 1.0, waits)

    def test_a_refused_connection_is_store_unavailable_not_sent_retried_for_reads(self) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        client = Client(f"http://127.0.0.1:{port}", retry=RetryPolicy(max_retries=2, backoff=0.2))
        started = time.monotonic()
        with self.assertRaises(StoreUnavailableError) as raised:
            client.head("global")
        self.assertGreaterEqual(time.monotonic() - started, 0.2)
        self.assertEqual((raised.exception.status, raised.exception.outcome, raised.exception.retryable), (None, "not-sent", True))
        started = time.monotonic()
        with self.assertRaises(StoreUnavailableError):
            client.publish({"global": {"a": 1}})
        self.assertLess(time.monotonic() - started, 0.1)


class StatusTest(ServedTestCase):
    """401, 403, 404 and 409 from a server with API keys, each its exception."""

    serve_args = ("--ladders", str(LADDERS))
    serve_keys = KEYS

    def test_each_status_raises_its_class_with_code_details_and_retryable(self) -> None:
        with Client(self.server.url) as anonymous, Client(self.server.url, api_key="key-alice") as alice:
            session = alice.ladder("@demo/notes").create_session()["id"]
            alice.publish({f"session:{session}": {"tactics": {"next": "a"}}})
            cases = [
                (lambda: anonymous.streams(), UnauthorizedError, 401, {}),
                (lambda: alice.audit(), ForbiddenError, 403, {"route": "POST /v1/store/audit", "access": "owner"}),
                (lambda: alice.state("global"), NotFoundError, 404, {"stream": "global"}),
                (
                    lambda: alice.publish({f"session:{session}": {"tactics": {"next": "b"}}}, expected={f"session:{session}": 0}),
                    ConflictError,
                    409,
                    {"stream": f"session:{session}", "expected": 0, "actual": 1},
                ),
            ]
            for call, cls, status, details in cases:
                with self.subTest(cls.__name__), self.assertRaises(cls) as raised:
                    call()
                self.assertEqual((raised.exception.status, raised.exception.http_status, raised.exception.retryable), (status, status, False))
                self.assertEqual(raised.exception.details, details)
                self.assertIsInstance(raised.exception.request_id, str)


class RateLimitTest(unittest.TestCase):
    """429 with ``Retry-After``: raised at once without retries, waited for on idempotent calls,
    never retried for a publish without an ``id``."""

    def setUp(self) -> None:
        self.server = Serve("--ladders", str(LADDERS), "--rate-limit", "4/2s", keys=KEYS).start()
        self.addCleanup(self.server.cleanup)

    def exhaust(self, client: Client) -> RateLimitedError:
        """Spend the key's requests of this window; the 429 that follows."""
        for _ in range(10):
            try:
                client.server_info()
            except RateLimitedError as error:
                return error
        raise AssertionError("the key was never rate limited")

    def test_a_429_maps_to_rate_limited_and_idempotent_calls_wait_for_retry_after(self) -> None:
        once = Client(self.server.url, api_key="key-carol", retry=RetryPolicy(max_retries=0))
        patient = Client(self.server.url, api_key="key-carol", retry=RetryPolicy(max_retries=3, max_wait=5))
        self.addCleanup(once.close)
        self.addCleanup(patient.close)
        stream = f"session:{once.ladder('@demo/notes').create_session()['id']}"
        error = self.exhaust(once)
        self.assertEqual((error.status, error.retryable, error.limit), (429, True, "requests"))
        assert error.retry_after is not None
        self.assertTrue(1 <= error.retry_after <= 2, error.retry_after)

        started = time.monotonic()
        with self.assertRaises(RateLimitedError):
            patient.publish({stream: {"tactics": {"n": 1}}})
        self.assertLess(time.monotonic() - started, 0.5)
        started = time.monotonic()
        self.assertEqual(patient.head(stream)["rev"], 0)
        self.assertGreaterEqual(time.monotonic() - started, 0.9)

        self.exhaust(once)
        started = time.monotonic()
        self.assertEqual(patient.publish({stream: {"tactics": {"n": 2}}}, id="carol-1")["status"], "accepted")
        self.assertGreaterEqual(time.monotonic() - started, 0.9)
        self.assertEqual(patient.state(stream), {"tactics": {"n": 2}})

if __name__ == "__main__":
    unittest.main()
