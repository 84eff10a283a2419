"""One HTTP request to a Stateflow server, and the translation of its outcome.

The standard library's ``http.client`` over kept-alive connections (one pool per client, safe to
share between threads): a JSON answer comes back parsed; an error answer
(``{"error": {code, message, details}}``) becomes the exception class of its code; a failed
connection becomes :class:`~stateflow.errors.StoreUnavailableError` with ``details.outcome``
``"not-sent"`` (refused: nothing happened) or ``"unknown"`` (the connection broke or timed out
after the request was sent: a write may have been applied).

Retries (:class:`RetryPolicy`) apply to calls the caller marks idempotent only: reads, and writes
that carry an idempotency ``id`` (the server answers a repeated ``id`` with the transition it
accepted the first time).
"""

from __future__ import annotations

import http.client
import json
import random
import select
import threading
import time
from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union
from urllib.parse import quote, urlencode, urlsplit

from ._version import __version__
from .errors import InputInvalidError, InternalError, StateflowError, StoreUnavailableError, error_class

#: A query parameter: a string or an integer, a list (the name repeats), or ``None`` (left out).
QueryValue = Union[str, int, Sequence[str], None]

#: Header of every store API answer: the store's last accepted seq.
LAST_SEQ_HEADER = "stateflow-last-seq"
#: Header of a ``patch_state`` answer: the seq of the transition it published (absent: no change).
TRANSITION_HEADER = "stateflow-transition"
#: Header carrying the server token.
TOKEN_HEADER = "x-stateflow-token"
#: Header naming the calling program for ``meta.writer.client``.
CLIENT_HEADER = "x-stateflow-client"

#: Default time one request may take, in seconds.
DEFAULT_TIMEOUT = 60.0

#: A kept-alive connection idle longer than this is not reused, in seconds: the server closes
#: idle connections after 72 s, and a request sent as it does so would be lost.
_IDLE_REUSE_LIMIT = 50.0

_USER_AGENT = f"stateflow-python/{__version__}"


@dataclass(frozen=True)
class Endpoint:
    """Where requests go and how they authenticate.

    Attributes:
        url: base URL, e.g. ``http://127.0.0.1:7411`` (a path prefix is kept).
        token: the server token (its discovery file's), sent as ``X-Stateflow-Token``: the
            store's owner.
        api_key: an API key of a server started with ``--keys``, sent as
            ``Authorization: Bearer <key>``.
    """

    url: str
    token: Optional[str] = None
    api_key: Optional[str] = None

    def headers(self) -> Dict[str, str]:
        """The request headers that authenticate this endpoint and name this client."""
        headers = {"user-agent": _USER_AGENT, CLIENT_HEADER: _USER_AGENT}
        if self.token is not None:
            headers[TOKEN_HEADER] = self.token
        if self.api_key is not None:
            headers["authorization"] = f"Bearer {self.api_key}"
        return headers


@dataclass(frozen=True)
class RetryPolicy:
    """How idempotent calls are retried after a retryable error.

    A call is retried when it is idempotent (a read, or a write with an idempotency ``id``) and
    its error is retryable (``error.retryable``: ``RATE_LIMITED``, ``STORE_UNAVAILABLE``,
    ``STORE_LOCKED``, ``STORE_IO``, ``REQUEST_TIMEOUT``, ``MODEL_UNAVAILABLE``), at most
    ``max_retries`` times. Before each retry it waits what the server's ``Retry-After`` says, or
    else ``backoff × 2^n`` seconds (n = 0, 1, …) with jitter (× 0.5–1), never longer than
    ``max_wait``; a ``Retry-After`` longer than ``max_wait`` is not waited for: the error is
    raised at once. Writes without an ``id`` are never retried (a retry could apply them twice).

    Attributes:
        max_retries: retries after the first attempt (0 disables retrying). Default 2.
        backoff: the first wait without ``Retry-After``, in seconds. Default 0.5.
        max_wait: the longest single wait, in seconds. Default 30.
    """

    max_retries: int = 2
    backoff: float = 0.5
    max_wait: float = 30.0

    def delay(self, retry: int, error: StateflowError) -> Optional[float]:
        """Seconds to wait before retry number ``retry`` (0-based) after ``error``; ``None``: raise it."""
        if retry >= self.max_retries or not error.retryable:
            return None
        if error.retry_after is not None:
            return error.retry_after if error.retry_after <= self.max_wait else None
        return min(self.max_wait, self.backoff * (2**retry)) * random.uniform(0.5, 1.0)


@dataclass
class Answer:
    """A successful answer: its status, its headers and its parsed JSON body."""

    status: int
    headers: http.client.HTTPMessage
    body: Any


class Transport:
    """Requests to one endpoint, over a pool of kept-alive connections (thread-safe)."""

    def __init__(self, endpoint: Endpoint, *, timeout: Optional[float] = DEFAULT_TIMEOUT, retry: RetryPolicy = RetryPolicy()) -> None:
        parts = urlsplit(endpoint.url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise InputInvalidError(f"The server URL {endpoint.url!r} is not an http:// or https:// URL with a host.", {"field": "url"})
        self.endpoint = endpoint
        self.timeout = timeout
        self.retry = retry
        self._https = parts.scheme == "https"
        self._host = parts.hostname
        self._port = parts.port
        self._prefix = parts.path.rstrip("/")
        self._idle: List[Tuple[http.client.HTTPConnection, float]] = []
        self._lock = threading.Lock()
        self._last_seq = 0

    @property
    def last_seq(self) -> int:
        """The highest seq any answer of this server reported (``Stateflow-Last-Seq``)."""
        return self._last_seq

    def call(
        self,
        method: str,
        path: str,
        *,
        idempotent: bool,
        query: Optional[Mapping[str, QueryValue]] = None,
        body: Any = None,
        headers: Optional[Mapping[str, str]] = None,
        unbounded: bool = False,
    ) -> Answer:
        """Send one request (retried as :class:`RetryPolicy` says when ``idempotent``).

        ``path`` is relative to the endpoint's URL (``/v1/store/head``); ``unbounded`` lifts the
        transport's time limit (an audit takes as long as the store is large).

        Raises:
            StateflowError: the class of the server's code for an error answer;
                ``StoreUnavailableError`` when the server cannot be reached.
        """
        retry = 0
        while True:
            try:
                return self._once(method, path, query, body, headers, None if unbounded else self.timeout)
            except StateflowError as error:
                wait = self.retry.delay(retry, error) if idempotent else None
                if wait is None:
                    raise
                time.sleep(wait)
                retry += 1

    def open_stream(
        self,
        method: str,
        path: str,
        *,
        query: Optional[Mapping[str, QueryValue]] = None,
        body: Any = None,
        headers: Optional[Mapping[str, str]] = None,
        timeout: Optional[float] = None,
    ) -> Tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
        """Open a streamed answer (Server-Sent Events) on a connection of its own, which the
        caller closes; ``timeout`` bounds each read (a silent stream raises ``socket.timeout``).

        Raises:
            StateflowError: as :meth:`call`, for an error answer or a failed connection.
        """
        conn = self._connect(self.timeout)
        response = self._send(conn, method, self._target(path, query), self._payload(body), headers)
        if response.status >= 400:
            try:
                text = response.read()
            except (OSError, http.client.HTTPException) as cause:
                conn.close()
                raise self._unreachable(cause, sent=True) from cause
            conn.close()
            raise self._answer_error(path, response, _parse(text))
        if conn.sock is not None:
            conn.sock.settimeout(timeout)
        return conn, response

    def close(self) -> None:
        """Close the idle connections (a later call opens new ones)."""
        with self._lock:
            idle, self._idle = self._idle, []
        for conn, _since in idle:
            conn.close()

    def _once(
        self,
        method: str,
        path: str,
        query: Optional[Mapping[str, QueryValue]],
        body: Any,
        headers: Optional[Mapping[str, str]],
        timeout: Optional[float],
    ) -> Answer:
        conn = self._acquire(timeout)
        response = self._send(conn, method, self._target(path, query), self._payload(body), headers)
        try:
            text = response.read()
        except (OSError, http.client.HTTPException) as cause:
            conn.close()
            raise self._unreachable(cause, sent=True) from cause
        if response.will_close:
            conn.close()
        else:
            with self._lock:
                self._idle.append((conn, time.monotonic()))
        seq = response.getheader(LAST_SEQ_HEADER)
        if seq is not None and seq.isdigit():
            with self._lock:
                self._last_seq = max(self._last_seq, int(seq))
        parsed = _parse(text)
        if response.status >= 400:
            raise self._answer_error(path, response, parsed)
        if parsed is _NOT_JSON:
            raise InternalError(f"The server at {self.endpoint.url} answered {path} with HTTP {response.status} and a body that is not JSON.", status=response.status)
        return Answer(response.status, response.msg, parsed)

    def _acquire(self, timeout: Optional[float]) -> http.client.HTTPConnection:
        """An idle connection still open (the server may have closed it meanwhile), or a new one."""
        now = time.monotonic()
        while True:
            with self._lock:
                if not self._idle:
                    break
                conn, since = self._idle.pop()
            if now - since < _IDLE_REUSE_LIMIT and conn.sock is not None and not _readable(conn):
                conn.sock.settimeout(timeout)
                return conn
            conn.close()
        return self._connect(timeout)

    def _connect(self, timeout: Optional[float]) -> http.client.HTTPConnection:
        """A new connection, connected: a refusal here means nothing was sent."""
        conn: http.client.HTTPConnection
        if self._https:
            conn = http.client.HTTPSConnection(self._host, self._port, timeout=timeout)
        else:
            conn = http.client.HTTPConnection(self._host, self._port, timeout=timeout)
        try:
            conn.connect()
        except OSError as cause:
            conn.close()
            raise self._unreachable(cause, sent=False) from cause
        return conn

    def _send(
        self,
        conn: http.client.HTTPConnection,
        method: str,
        target: str,
        payload: Optional[bytes],
        extra: Optional[Mapping[str, str]],
    ) -> http.client.HTTPResponse:
        headers = {"accept": "application/json", **self.endpoint.headers(), **(extra or {})}
        if payload is not None:
            headers["content-type"] = "application/json"
        try:
            conn.request(method, target, body=payload, headers=headers)
            return conn.getresponse()
        except (OSError, http.client.HTTPException) as cause:
            conn.close()
            raise self._unreachable(cause, sent=True) from cause

    def _target(self, path: str, query: Optional[Mapping[str, QueryValue]]) -> str:
        pairs: List[Tuple[str, str]] = []
        for name, value in (query or {}).items():
            if value is None:
                continue
            values = [value] if isinstance(value, (str, int)) else list(value)
            pairs.extend((name, str(one)) for one in values)
        return self._prefix + path + (f"?{urlencode(pairs, quote_via=quote)}" if pairs else "")

    def _payload(self, body: Any) -> Optional[bytes]:
        if body is None:
            return None
        try:
            return json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")
        except (TypeError, ValueError) as cause:
            raise InputInvalidError(f"The request body is not JSON: {cause}.", {"field": "body", "reason": "not-json"}) from cause

    def _unreachable(self, cause: BaseException, *, sent: bool) -> StoreUnavailableError:
        url = self.endpoint.url
        if not sent:
            message = f"The stateflow server at {url} refused the connection ({cause}); start it again (stateflow serve, or any stateflow mcp for this store)."
        else:
            why = "did not answer in time" if isinstance(cause, TimeoutError) or "timed out" in str(cause) else "closed the connection before answering"
            message = f"The stateflow server at {url} {why}; the request may or may not have been applied: read the state before retrying a write."
        return StoreUnavailableError(message, {"url": url, "outcome": "unknown" if sent else "not-sent"})

    def _answer_error(self, path: str, response: http.client.HTTPResponse, body: Any) -> StateflowError:
        return answer_error(self.endpoint.url, path, response.status, response.getheader("retry-after"), response.getheader("x-should-retry"), response.getheader("x-request-id"), body)


def answer_error(
    url: str,
    path: str,
    status: Optional[int],
    retry_after: Optional[str],
    should_retry: Optional[str],
    request_id: Optional[str],
    body: Any,
) -> StateflowError:
    """The exception an error answer carries: the class of its code, its message and details.

    A code this client does not know (a newer server's) is a :class:`StateflowError` with that
    ``code``, retryable as the answer's ``x-should-retry`` says.
    """
    error = body.get("error") if isinstance(body, dict) else None
    code = error.get("code") if isinstance(error, dict) else None
    wait = float(retry_after) if retry_after is not None and retry_after.strip().isdigit() else None
    if not isinstance(error, dict) or not isinstance(code, str):
        return InternalError(f"The server at {url} answered {path} with HTTP {status} and no Stateflow error body.", status=status, request_id=request_id)
    details = error.get("details")
    cls = error_class(code)
    exception = cls(str(error.get("message", code)), details if isinstance(details, dict) else {}, status=status, retry_after=wait, request_id=request_id)
    if cls is StateflowError:
        exception.code = code
        exception.retryable = should_retry == "true"
    return exception


_NOT_JSON = object()


def _parse(text: bytes) -> Any:
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return _NOT_JSON


def _readable(conn: http.client.HTTPConnection) -> bool:
    """Whether an idle connection has something to read: the server closed it (or broke the protocol)."""
    try:
        return bool(select.select([conn.sock], [], [], 0)[0])
    except (OSError, ValueError):
        return True


def segment(value: str) -> str:
    """``value`` as one path segment of a URL."""
    return quote(value, safe="")
