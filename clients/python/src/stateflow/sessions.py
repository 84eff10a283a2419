"""Ladder sessions and chat completions (the sessions API and the OpenAI-compatible route).

A ladder ``@author/name`` is served at ``/v1/author/name/…``: its sessions (each with its own
slates, which persist between calls) and ``chat/completions``, OpenAI's protocol plus a
``stateflow`` member naming the session, the slate revision and the transition the call wrote.
The official ``openai`` package works against the same route: :meth:`Ladder.openai_options`
gives its ``base_url`` and ``api_key``, and the session goes in the ``X-Session-Id`` header.
"""

from __future__ import annotations

import http.client
import json
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

from ._closing import ClosingIterator
from ._http import Transport, answer_error, segment
from ._sse import read_events
from .errors import InputInvalidError, StoreUnavailableError
from .types import ChatCompletion, ChatCompletionChunk, ChatMessage, CreatedSession, JsonObject, Session


class Ladder:
    """One served ladder (made by :meth:`stateflow.Client.ladder`).

    Attributes:
        name: ``@author/name``.
    """

    def __init__(self, transport: Transport, name: str) -> None:
        author, _, ladder = name.lstrip("@").partition("/")
        if not author or not ladder or "/" in ladder:
            raise InputInvalidError(f"A ladder is named @author/name, got {name!r}.", {"field": "ladder"})
        self._transport = transport
        self.name = f"@{author}/{ladder}"
        self._base = f"/v1/{segment(author)}/{segment(ladder)}"

    def create_session(self, name: Optional[str] = None) -> CreatedSession:
        """Create a session (its declared slate files initialised): ``{id, ladder, createdAt}``."""
        created: CreatedSession = self._transport.call("POST", f"{self._base}/sessions", idempotent=False, body={} if name is None else {"name": name}).body
        return created

    def sessions(self) -> List[Session]:
        """Your sessions of this ladder."""
        return list(self._transport.call("GET", f"{self._base}/sessions", idempotent=True).body["data"])

    def session(self, session_id: str) -> Session:
        """One of your sessions.

        Raises:
            SessionNotFoundError: no such session (or another user's).
        """
        session: Session = self._transport.call("GET", f"{self._base}/sessions/{segment(session_id)}", idempotent=True).body
        return session

    def close_session(self, session_id: str) -> Session:
        """Close a session: later calls answer ``SessionClosedError``; its state stays readable
        for the server's retention period."""
        session: Session = self._transport.call("POST", f"{self._base}/sessions/{segment(session_id)}/close", idempotent=False).body
        return session

    def chat(self, messages: Sequence[ChatMessage], *, model: str, session: Optional[str] = None, if_match: Optional[int] = None) -> ChatCompletion:
        """Run the ladder on a conversation (``POST …/chat/completions``): the ``chat.completion``.
        Not retried: a call runs the ladder and may write its session's slates.

        Args:
            messages: the conversation; the last user message is the ladder's ``input.context``.
            model: the upstream model to ask (the server's ``--model`` overrides it).
            session: a session id: the ladder runs on its slates and its writes persist.
            if_match: run only if the session's slate stream is at this revision (else ``ConflictError``).

        Raises:
            SessionNotFoundError, SessionClosedError, SessionPausedError, ConflictError,
                ModelFailedError, ModelUnavailableError, RateLimitedError (``retry_after``).
        """
        body, headers = self._chat_request(messages, model, session, if_match)
        completion: ChatCompletion = self._transport.call("POST", f"{self._base}/chat/completions", idempotent=False, body=body, headers=headers).body
        return completion

    def chat_stream(
        self,
        messages: Sequence[ChatMessage],
        *,
        model: str,
        session: Optional[str] = None,
        if_match: Optional[int] = None,
        include_usage: bool = False,
    ) -> ChatStream:
        """As :meth:`chat`, streamed (``stream: true``): a :class:`ChatStream` of the
        ``chat.completion.chunk``s as they arrive; with ``include_usage`` a last chunk carries the
        ``usage``. Failures before the first chunk raise from this call, later ones from the
        iteration."""
        body, headers = self._chat_request(messages, model, session, if_match)
        body["stream"] = True
        if include_usage:
            body["stream_options"] = {"include_usage": True}
        headers["accept"] = "text/event-stream"
        path = f"{self._base}/chat/completions"
        conn, response = self._transport.open_stream("POST", path, body=body, headers=headers, timeout=self._transport.timeout)
        return ChatStream(conn, response, self._transport.endpoint.url, path)

    def _chat_request(self, messages: Sequence[ChatMessage], model: str, session: Optional[str], if_match: Optional[int]) -> Tuple[Dict[str, Any], Dict[str, str]]:
        headers: Dict[str, str] = {}
        if session is not None:
            headers["x-session-id"] = session
        if if_match is not None:
            headers["if-match"] = f'"{if_match}"'
        return {"model": model, "messages": list(messages)}, headers

    def openai_options(self) -> Dict[str, str]:
        """``base_url`` and ``api_key`` for the official ``openai`` client of this ladder:
        ``OpenAI(**ladder.openai_options())``. The key is this client's API key or server token
        (the server takes either as ``Authorization: Bearer``), else ``"local"`` (a keyless
        server needs none; the ``openai`` client wants one)."""
        endpoint = self._transport.endpoint
        return {"base_url": f"{endpoint.url}{self._base}", "api_key": endpoint.api_key or endpoint.token or "local"}


class ChatStream(ClosingIterator[ChatCompletionChunk]):
    """The chunks of a streamed completion, as they arrive.

    Made by :meth:`Ladder.chat_stream`. The role delta, content deltas (or one ``refusal`` delta for an aborted run), a chunk with
    ``finish_reason`` and the ``stateflow`` member (also kept as :attr:`stateflow`), with
    ``include_usage`` a last chunk with the ``usage`` and no choices. A failure after the first
    chunk raises the exception of its code from the iteration.
    """

    def __init__(self, conn: http.client.HTTPConnection, response: http.client.HTTPResponse, url: str, path: str) -> None:
        self.stateflow: Optional[JsonObject] = None
        self._conn = conn
        self._url = url
        self._path = path
        self._items = self._read(response)

    def close(self) -> None:
        """Stop reading (the call itself runs to its end on the server and records what it wrote)."""
        self._conn.close()

    def text(self) -> str:
        """Read the rest of the stream; the content it carried, joined."""
        return "".join(choice.get("delta", {}).get("content") or "" for chunk in self for choice in chunk.get("choices", []))

    def _read(self, response: http.client.HTTPResponse) -> Iterator[ChatCompletionChunk]:
        try:
            for event in read_events(response):
                if event.data == "[DONE]":
                    return
                chunk = json.loads(event.data)
                if isinstance(chunk, dict) and "error" in chunk:
                    raise answer_error(self._url, self._path, None, None, None, None, chunk)
                if isinstance(chunk, dict) and isinstance(chunk.get("stateflow"), dict):
                    self.stateflow = chunk["stateflow"]
                yield chunk
        except (OSError, http.client.HTTPException) as cause:
            raise StoreUnavailableError(f"The completion stream of {self._url} broke ({cause}); the call itself runs to its end on the server.", {"url": self._url, "outcome": "unknown"}) from cause
        finally:
            self._conn.close()
        raise StoreUnavailableError(f"The completion stream of {self._url} ended before [DONE].", {"url": self._url, "outcome": "unknown"})
