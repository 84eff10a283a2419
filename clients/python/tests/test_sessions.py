"""Ladder sessions and chat completions through the client: the demo ladder ``@demo/notes`` with
the scripted demo model (its six outputs answer exactly three chat calls, root README "Things to
know"), streamed and not."""

from __future__ import annotations

import importlib.util
import json
import threading
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from stateflow import Client, ConflictError, ModelFailedError, SessionClosedError, SessionNotFoundError

from .support import DEMO_MODEL, LADDERS, Serve, ServedTestCase


#: The demo ladder with the scripted demo model.
DEMO_ARGS = ("--ladders", str(LADDERS), "--model", f"scripted:{DEMO_MODEL}")


class DemoLadderTest(unittest.TestCase):
    """The three chat calls the demo model answers, in its order, then a fourth it cannot."""

    def setUp(self) -> None:
        self.server = Serve(*DEMO_ARGS).start()
        self.addCleanup(self.server.cleanup)
        self.client = self.server.client()
        self.addCleanup(self.client.close)

    def test_a_session_answers_a_completion_then_a_stream_of_chunks_and_remembers_both_calls(self) -> None:
        ladder = self.client.ladder("@demo/notes")
        created = ladder.create_session("release planning")
        self.assertRegex(created["id"], r"^sess_[0-9a-f]{32}$")
        self.assertEqual(created["ladder"], "@demo/notes")
        session = created["id"]
        self.assertEqual((ladder.session(session)["status"], ladder.session(session)["rev"]), ("created", 1))

        completion = ladder.chat([{"role": "user", "content": "When do we ship?"}], model="scripted", session=session)
        self.assertEqual(completion["object"], "chat.completion")
        self.assertEqual(completion["choices"][0]["message"]["content"], "We ship on Friday.")
        self.assertEqual((completion["stateflow"]["session"], completion["stateflow"]["rev"]), (session, 2))

        with self.assertRaises(ConflictError) as stale:
            ladder.chat([{"role": "user", "content": "What did I ask?"}], model="scripted", session=session, if_match=1)
        self.assertEqual(stale.exception.details, {"stream": f"slate:@demo/notes:{session}", "expected": 1, "actual": 2})

        stream = ladder.chat_stream([{"role": "user", "content": "What did I ask?"}], model="scripted", session=session, if_match=2, include_usage=True)
        chunks = list(stream)
        self.assertTrue(all(chunk["object"] == "chat.completion.chunk" for chunk in chunks))
        self.assertEqual(chunks[0]["choices"][0]["delta"], {"role": "assistant", "content": ""})
        text = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks if c["choices"])
        self.assertEqual(text, "You asked when we ship: Friday.")
        finish = [c for c in chunks if c["choices"] and c["choices"][0]["finish_reason"] == "stop"]
        self.assertEqual(len(finish), 1)
        self.assertEqual(finish[0]["stateflow"]["rev"], 3)
        self.assertEqual(stream.stateflow, finish[0]["stateflow"])
        self.assertEqual(chunks[-1]["choices"], [])
        self.assertGreater(chunks[-1]["usage"]["total_tokens"], 0)

        listed = ladder.sessions()
        self.assertEqual([(s["id"], s["status"], s["rev"]) for s in listed], [(session, "active", 3)])
        history = self.client.state(f"slate:@demo/notes:{session}")
        self.assertIn("Q: What did I ask? A: When we ship.", str(history))

        other = ladder.create_session()
        third = ladder.chat_stream([{"role": "user", "content": "When do we ship?"}], model="scripted", session=other["id"])
        self.assertEqual(third.text(), "We ship on Friday.")
        with self.assertRaises(ModelFailedError) as exhausted:
            ladder.chat_stream([{"role": "user", "content": "And then?"}], model="scripted", session=other["id"])
        self.assertEqual((exhausted.exception.status, exhausted.exception.retryable), (502, False))


class SessionLifecycleTest(ServedTestCase):
    serve_args = DEMO_ARGS

    def test_a_closed_session_refuses_calls_and_stays_readable(self) -> None:
        ladder = self.client.ladder("demo/notes")
        session = ladder.create_session()["id"]
        closed = ladder.close_session(session)
        self.assertEqual(closed["status"], "closed")
        self.assertEqual(ladder.session(session)["status"], "closed")
        with self.assertRaises(SessionClosedError) as raised:
            ladder.chat([{"role": "user", "content": "hi"}], model="scripted", session=session)
        self.assertEqual((raised.exception.status, raised.exception.details["status"]), (410, "closed"))

    def test_an_unknown_session_raises_session_not_found(self) -> None:
        with self.assertRaises(SessionNotFoundError) as raised:
            self.client.ladder("@demo/notes").session("sess_" + "0" * 32)
        self.assertEqual(raised.exception.status, 404)

    def test_openai_options_name_the_ladder_and_the_credential(self) -> None:
        options = self.client.ladder("@demo/notes").openai_options()
        self.assertEqual(options, {"base_url": f"{self.server.url}/v1/demo/notes", "api_key": self.server.token})
        self.assertEqual(Client(self.server.url).ladder("@demo/notes").openai_options()["api_key"], "local")

    @unittest.skipUnless(importlib.util.find_spec("openai") is not None, "the openai package is not installed")
    def test_the_official_openai_client_runs_beside_it(self) -> None:
        from openai import OpenAI

        ladder = self.client.ladder("@demo/notes")
        session = ladder.create_session()["id"]
        openai = OpenAI(**ladder.openai_options())
        self.assertEqual([model.id for model in openai.models.list()], ["@demo/notes"])
        stream = openai.chat.completions.create(
            model="scripted", messages=[{"role": "user", "content": "When do we ship?"}], stream=True, extra_headers={"X-Session-Id": session}
        )
        self.assertEqual("".join(chunk.choices[0].delta.content or "" for chunk in stream if chunk.choices), "We ship on Friday.")
        self.assertEqual(ladder.session(session)["rev"], 2)

class MidStreamErrorTest(unittest.TestCase):
    """A failure after the first chunk arrives as one ``{"error": …}`` event and the stream ends
    without ``[DONE]`` (server README "Streaming"); a loopback server sends exactly that."""

    def test_it_raises_the_class_of_its_code_from_the_iteration(self) -> None:
        chunk = {"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": "m", "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}]}
        error = {"error": {"code": "MODEL_FAILED", "type": "api_error", "message": "node 1 failed", "details": {"step": "reply"}}}

        class Failing(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers["content-length"]))
                body = f"data: {json.dumps(chunk)}\n\ndata: {json.dumps(error)}\n\n".encode()
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Failing)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        stream = Client(f"http://127.0.0.1:{server.server_address[1]}").ladder("@demo/notes").chat_stream([{"role": "user", "content": "hi"}], model="m")
        self.assertEqual(next(stream)["id"], "c1")
        with self.assertRaises(ModelFailedError) as raised:
            next(stream)
        self.assertEqual((raised.exception.status, raised.exception.details, raised.exception.message), (None, {"step": "reply"}, "node 1 failed"))


if __name__ == "__main__":
    unittest.main()
