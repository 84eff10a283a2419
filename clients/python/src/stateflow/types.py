"""The shapes the server sends and takes, as ``TypedDict``s with the wire's member names.

They describe plain ``dict``s: answers are the server's JSON, parsed, with nothing renamed
(``lastSeq``, ``prevHash``, ``createdAt``), so what the HTTP reference says of a member holds
here as written. States, patches and values are JSON: ``dict``, ``list``, ``str``, ``int``,
``float``, ``bool`` (``None`` only where a shape says so: in a patch, ``None`` deletes a key).
"""

from __future__ import annotations

from typing import Any, Dict, List, Literal, Optional, TypedDict, Union

#: A JSON value.
JsonValue = Any
#: A JSON object: a stream's state, a patch, metadata.
JsonObject = Dict[str, Any]
#: An expected revision: an integer, ``"none"`` (the stream has no revision) or ``"any"``.
ExpectedRevision = Union[int, Literal["none", "any"]]


class StreamHead(TypedDict):
    """A stream's head: its revision, the seq of its last transition, its retained origin."""

    stream: str
    rev: int
    seq: int
    origin: int


class StreamChange(TypedDict):
    """One stream changed by a transition: its new revision and the net patch that made it."""

    stream: str
    rev: int
    patch: JsonObject


class _TransitionRequired(TypedDict):
    seq: int
    time: str
    changes: List[StreamChange]


class Transition(_TransitionRequired, total=False):
    """One accepted transition. ``prevHash``/``hash`` are absent only when a server with API keys
    shows a transition with some of its changes left out (they hash the whole body)."""

    id: str
    meta: JsonObject
    prevHash: str
    hash: str


class _PublishInputRequired(TypedDict):
    changes: Dict[str, JsonObject]


class PublishInput(_PublishInputRequired, total=False):
    """One publication for :meth:`stateflow.Client.publish_many`: a patch per stream id, expected
    revisions per stream id, an idempotency ``id``, ``meta``, ``durability``."""

    expected: Dict[str, ExpectedRevision]
    id: str
    meta: JsonObject
    durability: Literal["buffered", "fsync"]


class PublishResult(TypedDict):
    """``status``: ``"accepted"`` (with the new transition), ``"duplicate"`` (the ``id`` was
    accepted before: that transition, or its pruned stub) or ``"noop"`` (``transition`` None)."""

    status: Literal["accepted", "duplicate", "noop"]
    transition: Optional[Transition]


class _MergeConflictRequired(TypedDict):
    path: str
    base: JsonValue
    ours: JsonValue
    theirs: JsonValue


class MergeConflict(_MergeConflictRequired, total=False):
    """A path both sides changed differently since the merge base (``None``: absent there)."""

    resolution: Union[Literal["ours", "theirs"], Dict[str, JsonValue]]


#: What a merge answers: ``status`` (``accepted``, ``noop``, ``preview``, ``duplicate``),
#: ``transition``, and but for a duplicate the plan: ``from``, ``fromRev``, ``into``, ``intoRev``,
#: ``base`` ``{stream, rev}``, ``patch`` (the net patch on ``into``), ``conflicts``.
MergeResult = TypedDict(
    "MergeResult",
    {
        "status": Literal["accepted", "noop", "preview", "duplicate"],
        "transition": Optional[Transition],
        "from": str,
        "fromRev": int,
        "into": str,
        "intoRev": int,
        "base": Dict[str, Any],
        "patch": JsonObject,
        "conflicts": List[MergeConflict],
    },
    total=False,
)


class AuditProblem(TypedDict, total=False):
    code: str
    stream: str
    key: str
    detail: str


class AuditReport(TypedDict):
    """What an audit verified, and every problem it found (empty when the store is clean)."""

    transitions: int
    streams: int
    checkpoints: int
    problems: List[AuditProblem]


class StreamView(TypedDict):
    rev: int
    state: JsonObject


class StoreView(TypedDict):
    """Several streams' revisions and states, captured at one ``seq``."""

    seq: int
    streams: Dict[str, StreamView]


class _ServerInfoRequired(TypedDict):
    version: str
    lastSeq: int


class ServerInfo(_ServerInfoRequired, total=False):
    """``GET /v1/server``: ``pid`` and ``dir`` only for the store's owner."""

    pid: int
    dir: str


#: The owners a state tools call works on: any of ``global`` (``True``), ``cwd`` (an absolute
#: directory), ``session`` (a session id), and the ``mode`` (``"active"`` or ``"passive"``).
Selection = TypedDict(
    "Selection",
    {"global": bool, "cwd": str, "session": str, "mode": Literal["active", "passive"]},
    total=False,
)

#: ``read_state``'s projections.
Projection = Literal["value", "keys", "patch"]

#: A ``read_state`` answer, exactly the tool's output: ``{"value": ...}``, ``{"meta": ...,
#: "keys": ...}`` or ``{"patch": ...}`` for one path, the same members holding positional lists
#: for ``paths``, or the dangling-reference sentinel ``{"value": None, "hint": [...]}``.
ReadStateResult = Dict[str, Any]


class _StateUpdatesRequired(TypedDict):
    effective: List[Dict[str, Any]]


class StateUpdates(_StateUpdatesRequired, total=False):
    """``effective``: each changed hot path's final effective value (``{path, value}``) or
    ``{path, deleted: True}``; ``cascaded``: what intent ownership cleared; ``selectors``: per
    changed scope the historical selector that reads it as the call left it (``cwd[12]``)."""

    cascaded: List[str]
    selectors: Dict[str, str]


class PatchStateResult(TypedDict):
    """A ``patch_state`` answer, exactly the tool's output."""

    state_updates: StateUpdates


class CreatedSession(TypedDict):
    id: str
    ladder: str
    createdAt: str


class _SessionRequired(TypedDict):
    id: str
    ladder: str
    name: str
    status: Literal["created", "active", "paused", "closed", "expired"]
    createdAt: str
    lastUsedAt: str
    rev: int


class Session(_SessionRequired, total=False):
    """A ladder session; ``rev`` is its slate stream's revision (for ``if_match``)."""

    closedAt: str
    expiredAt: str
    purgedAt: str
    execution: JsonObject


class _ChatMessageRequired(TypedDict):
    role: Literal["system", "developer", "user", "assistant", "tool", "function"]


class ChatMessage(_ChatMessageRequired, total=False):
    """One message of a conversation (OpenAI's shape; text content only)."""

    content: Union[str, List[Dict[str, str]], None]


#: A ``chat.completion`` (OpenAI's shape) plus its ``stateflow`` member ``{session, ladder, rev,
#: transition, evicted, refused, aborted}``.
ChatCompletion = Dict[str, Any]
#: One ``chat.completion.chunk`` of a streamed completion; the one with ``finish_reason`` also
#: carries the ``stateflow`` member.
ChatCompletionChunk = Dict[str, Any]
