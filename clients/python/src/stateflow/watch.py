"""Following the store as it changes: ``GET /v1/watch`` as an iterator of transitions.

The server sends Server-Sent Events: a ``ready`` event naming the seq the stream starts after,
then one ``transition`` event per accepted transition with ``id:`` = its seq, a heartbeat
comment every 15 s, and ``stopping`` when it is stopped on purpose. A :class:`Watch` remembers the
last seq it yielded; when the connection drops (the server killed, restarted, a network blip,
a stream silent for ``stall_timeout``) it connects again with ``Last-Event-ID`` = that seq, so the
iteration sees every visible transition once, in seq order, with no gap and no duplicate.
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
from typing import Callable, Iterator, List, Literal, Optional

from ._closing import ClosingIterator
from ._http import Transport
from ._sse import read_events
from .errors import StateflowError, StoreUnavailableError
from .types import Transition

#: What a watch does when the server says it is stopping.
OnServerStop = Literal["reconnect", "end"]


class Watch(ClosingIterator[Transition]):
    """An iterator of transitions that resumes after a dropped connection.

    Made by :meth:`stateflow.Client.watch`. Iterate it (``for transition in watch``); end it with
    :meth:`close` (from any thread) or by leaving its ``with`` block. ``position`` is the seq the
    next connection resumes after.

    Errors the server answers (401, 403, a start beyond the store's last seq: 404
    ``TRANSITION_NOT_FOUND``) end the iteration with their exception; lost connections are
    retried every ``retry_interval`` seconds until the watch is closed (``on_disconnect`` is told
    each time, and may raise to end the iteration with its own exception).
    """

    def __init__(
        self,
        resolve: Callable[[], Transport],
        *,
        after: Optional[int],
        streams: Optional[List[str]],
        on_server_stop: OnServerStop,
        retry_interval: float,
        stall_timeout: float,
        on_disconnect: Optional[Callable[[StateflowError], None]],
    ) -> None:
        self.position: Optional[int] = after
        self._resolve = resolve
        self._streams = streams
        self._on_server_stop = on_server_stop
        self._retry_interval = retry_interval
        self._stall_timeout = stall_timeout
        self._on_disconnect = on_disconnect
        self._closed = threading.Event()
        self._conn: Optional[http.client.HTTPConnection] = None
        self._items = self._follow()

    def close(self) -> None:
        """End the watch: the iteration stops (a blocked ``next`` returns at once)."""
        self._closed.set()
        conn = self._conn
        if conn is not None and conn.sock is not None:
            try:
                conn.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def _follow(self) -> Iterator[Transition]:
        while not self._closed.is_set():
            try:
                stopping = yield from self._connection()
                if self._closed.is_set() or (stopping and self._on_server_stop == "end"):
                    return
                lost = StoreUnavailableError(
                    "The watch stream ended: the server stopped." if stopping else "The watch stream ended.",
                    {"outcome": "not-sent"},
                )
            except StoreUnavailableError as error:
                lost = error
            if self._closed.is_set():
                return
            if self._on_disconnect is not None:
                self._on_disconnect(lost)
            self._closed.wait(self._retry_interval)

    def _connection(self) -> Iterator[Transition]:
        """The transitions of one connection; returns whether the server said it is stopping.

        Raises:
            StoreUnavailableError: the connection failed or broke.
            StateflowError: the server refused the watch (not retried).
        """
        transport = self._resolve()
        headers = {"accept": "text/event-stream"}
        if self.position is not None:
            headers["last-event-id"] = str(self.position)
        conn, response = transport.open_stream("GET", "/v1/watch", query={"stream": self._streams}, headers=headers, timeout=self._stall_timeout)
        self._conn = conn
        stopping = False
        try:
            if self._closed.is_set():
                return False
            for event in read_events(response):
                if event.event == "transition":
                    transition: Transition = json.loads(event.data)
                    if self.position is not None and transition["seq"] <= self.position:
                        continue
                    self.position = transition["seq"]
                    yield transition
                    if self._closed.is_set():
                        return False
                elif event.event == "ready" and self.position is None:
                    # Where the stream starts, so a reconnect before the first transition resumes
                    # there rather than at the server's last seq of that moment.
                    self.position = json.loads(event.data)["from"]
                elif event.event == "stopping":
                    stopping = True
        except (OSError, http.client.HTTPException) as cause:
            if self._closed.is_set():
                return False
            raise StoreUnavailableError(f"The watch stream of {transport.endpoint.url} broke ({cause or type(cause).__name__}).", {"url": transport.endpoint.url, "outcome": "unknown"}) from cause
        finally:
            self._conn = None
            conn.close()
        return stopping
