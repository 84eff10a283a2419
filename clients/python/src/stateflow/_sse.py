"""Server-Sent Events, read from a streamed answer (the watch stream, streamed completions).

The subset of the event-stream format the server writes (WHATWG HTML "Server-sent events"):
``field: value`` lines ending in LF or CRLF, ``event``, ``data`` (several lines join with LF) and
``id``; comment lines (``:``, the heartbeat) are skipped; a blank line dispatches an event that
has data. Lines are split from large reads rather than read one by one: one event costs one
``split`` share and one ``decode``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, List, Optional, Protocol


class _Readable(Protocol):
    def read1(self, size: int = ...) -> bytes: ...


@dataclass
class Event:
    """One dispatched event: its type (``"message"`` when the stream named none), its data, and
    its own ``id:`` (``None`` when it has none)."""

    event: str
    data: str
    id: Optional[str]


#: Bytes asked for per read of the stream.
_READ_SIZE = 65536


def read_events(stream: _Readable) -> Iterator[Event]:
    """The events of ``stream`` until it ends."""
    rest = b""
    kind = ""
    data: List[str] = []
    last_id: Optional[str] = None
    while True:
        chunk = stream.read1(_READ_SIZE)
        if not chunk:
            return
        lines = (rest + chunk).split(b"\n")
        rest = lines.pop()
        for raw in lines:
            line = raw[:-1] if raw.endswith(b"\r") else raw
            if not line:
                if data:
                    yield Event(kind or "message", "\n".join(data), last_id)
                kind, data, last_id = "", [], None
                continue
            if line.startswith(b":"):
                continue
            name, _, value = line.partition(b":")
            if value.startswith(b" "):
                value = value[1:]
            if name == b"data":
                data.append(value.decode("utf-8"))
            elif name == b"event":
                kind = value.decode("utf-8")
            elif name == b"id":
                last_id = value.decode("utf-8")
