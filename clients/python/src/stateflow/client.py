"""The client: a connection to one Stateflow server and its store API.

Every method is one request (``transitions`` one per page) to the routes of the server's HTTP
contract: ``/v1/store/…`` (the store), ``/v1/state/…`` (the state tools, :meth:`Client.tools`),
``/v1/watch`` (:meth:`Client.watch`) and the ladder routes (:meth:`Client.ladder`). Answers are
the server's JSON, parsed (the shapes of :mod:`stateflow.types`); failures are the exception
classes of :mod:`stateflow.errors`.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Dict, Iterator, List, Literal, Mapping, Optional, Sequence

from ._http import DEFAULT_TIMEOUT, Endpoint, RetryPolicy, Transport
from .discovery import PathLike, default_store_dir, find_server
from .errors import StateflowError, StoreUnavailableError
from .sessions import Ladder
from .tools import StateTools
from .types import (
    AuditReport,
    ExpectedRevision,
    JsonObject,
    MergeResult,
    PublishInput,
    PublishResult,
    Selection,
    ServerInfo,
    StoreView,
    StreamHead,
    Transition,
)
from .watch import OnServerStop, Watch

#: Transitions asked per page by :meth:`Client.transitions` (the server's most is 5,000).
DEFAULT_PAGE = 1000


class Client:
    """A connection to one ``stateflow serve``.

    Args:
        url: the server's base URL, e.g. ``http://127.0.0.1:7411``.
        token: the server token (from the store's discovery file): the store's owner, who sees
            every stream.
        api_key: an API key of a server started with ``--keys``: that key's user, who sees
            only the streams of its own ladder sessions.
        timeout: seconds one request may take before it fails with ``StoreUnavailableError``
            (``None``: no limit; audits have none). Default 60.
        retry: how idempotent calls are retried (:class:`~stateflow.RetryPolicy`: by default
            twice, after what ``Retry-After`` says or a backoff from 0.5 s).

    A client keeps its connections alive between calls; it is safe to share between threads.
    Close it (or use it as a context manager) to close them.

    Example::

        with Client("http://127.0.0.1:7411") as client:
            client.publish({"global": {"strategy": {"goal": "ship"}}}, expected={"global": "any"})
            print(client.state("global"))
    """

    def __init__(
        self,
        url: str,
        *,
        token: Optional[str] = None,
        api_key: Optional[str] = None,
        timeout: Optional[float] = DEFAULT_TIMEOUT,
        retry: RetryPolicy = RetryPolicy(),
    ) -> None:
        self._transport = Transport(Endpoint(url.rstrip("/"), token=token, api_key=api_key), timeout=timeout, retry=retry)
        self._store_dir: Optional[PathLike] = None

    @classmethod
    def discover(cls, store_dir: Optional[PathLike] = None, **options: Any) -> Client:
        """A client of the server that serves ``store_dir`` (default ``$STATEFLOW_DIR``, else
        ``./.stateflow``), found through its discovery file and proven to hold its token before
        the token is sent (:func:`~stateflow.find_server`). Its watches find the server again
        when it restarts, on whatever port. ``options`` are the constructor's.

        Raises:
            StoreUnavailableError: no live server serves the directory (``details.dir``).
        """
        directory = default_store_dir() if store_dir is None else store_dir
        found = find_server(directory)
        if found is None:
            raise StoreUnavailableError(
                f"No stateflow server serves {os.fspath(directory)}: start one (stateflow --dir {os.fspath(directory)} serve), or pass the server's URL.",
                {"dir": os.fspath(directory), "outcome": "not-sent"},
            )
        client = cls(found.url, token=found.token, **options)
        client._store_dir = directory
        return client

    @classmethod
    def from_env(cls, **options: Any) -> Client:
        """A client of ``$STATEFLOW_URL`` with ``$STATEFLOW_TOKEN`` (the server token) or
        ``$STATEFLOW_API_KEY``; without ``STATEFLOW_URL``, :meth:`discover` of
        ``$STATEFLOW_DIR`` (else ``./.stateflow``). ``options`` are the constructor's."""
        url = os.environ.get("STATEFLOW_URL")
        if not url:
            return cls.discover(**options)
        return cls(url, token=os.environ.get("STATEFLOW_TOKEN") or None, api_key=os.environ.get("STATEFLOW_API_KEY") or None, **options)

    @property
    def url(self) -> str:
        """The server's base URL."""
        return self._transport.endpoint.url

    @property
    def last_seq(self) -> int:
        """The highest seq any answer reported so far (it may lag other clients' writes until the next call)."""
        return self._transport.last_seq

    def close(self) -> None:
        """Close the kept-alive connections (watches close on their own)."""
        self._transport.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def server_info(self) -> ServerInfo:
        """``GET /v1/server``: ``version`` and ``lastSeq``; for the store's owner also ``pid`` and ``dir``."""
        info: ServerInfo = self._get("/v1/server")
        return info

    # The store: reads.

    def streams(self) -> List[StreamHead]:
        """Every stream with at least one revision, sorted by id (with API keys: the caller's)."""
        return list(self._get("/v1/store/streams")["streams"])

    def head(self, stream: str) -> StreamHead:
        """A stream's head (``rev`` 0 for a stream with no revision)."""
        head: StreamHead = self._get("/v1/store/head", stream=stream)
        return head

    def state(self, stream: str, rev: Optional[int] = None) -> JsonObject:
        """A stream's state now, or at revision ``rev``.

        Raises:
            RevisionNotFoundError: ``rev`` is above the head. HistoryNotRetainedError: it is below
                the retained origin. NotFoundError: with API keys, a stream that is not yours.
        """
        state: JsonObject = self._get("/v1/store/state", stream=stream, rev=rev)["state"]
        return state

    def view(self, streams: Sequence[str]) -> StoreView:
        """The revisions and states of several streams, captured at one seq."""
        view: StoreView = self._post("/v1/store/view", {"streams": list(streams)}, idempotent=True)
        return view

    def patch_at(self, stream: str, rev: int) -> JsonObject:
        """The net patch that produced revision ``rev`` (≥ 1) of a stream."""
        patch: JsonObject = self._get("/v1/store/patch", stream=stream, rev=rev)["patch"]
        return patch

    def states_at(self, streams: Sequence[str], seq: int) -> Dict[str, JsonObject]:
        """Each stream's state as of global transition ``seq``."""
        states: Dict[str, JsonObject] = self._post("/v1/store/states-at", {"streams": list(streams), "seq": seq}, idempotent=True)["states"]
        return states

    def diff(self, stream: str, from_rev: int, to_rev: int) -> JsonObject:
        """The patch that turns revision ``from_rev`` of a stream into revision ``to_rev``."""
        patch: JsonObject = self._get("/v1/store/diff", stream=stream, **{"from": from_rev, "to": to_rev})["patch"]
        return patch

    def transition(self, seq: int) -> Transition:
        """One transition by seq.

        Raises:
            TransitionNotFoundError: above the last seq (or, with API keys, none of your changes).
        """
        transition: Transition = self._get(f"/v1/store/transitions/{seq}")
        return transition

    def transitions(
        self,
        *,
        from_seq: Optional[int] = None,
        to_seq: Optional[int] = None,
        stream: Optional[str] = None,
        page_size: int = DEFAULT_PAGE,
    ) -> Iterator[Transition]:
        """The retained transitions with ``from_seq ≤ seq ≤ to_seq``, oldest first, optionally only
        those that changed ``stream``, fetched a page (``page_size``, at most 5,000) at a time as
        the iteration goes. ``to_seq`` defaults to the last seq when the first page is asked."""
        start, end = from_seq, to_seq
        while True:
            page = self._get("/v1/store/transitions", **{"from": start, "to": end, "stream": stream, "limit": page_size})
            end = page["to"]
            yield from page["transitions"]
            if page["next"] is None:
                return
            start = page["next"]

    # The store: writes.

    def publish(
        self,
        changes: Mapping[str, JsonObject],
        *,
        expected: Optional[Mapping[str, ExpectedRevision]] = None,
        id: Optional[str] = None,
        meta: Optional[JsonObject] = None,
        durability: Optional[Literal["buffered", "fsync"]] = None,
    ) -> PublishResult:
        """Publish one transition atomically: a patch per stream id, guarded by ``expected``
        revisions (CAS), idempotent under ``id`` (a repeated ``id`` answers ``"duplicate"`` with
        the transition accepted first). Retried after a retryable failure only with an ``id``.

        Raises:
            ConflictError: a stream is not at its expected revision (``stream``, ``expected``,
                ``actual``); nothing was published. PatchInvalidError, StreamInvalidError: bad
                input. ForbiddenError, NotFoundError: with API keys, a stream you may not write.
        """
        body = _publish_input(changes, expected, id, meta, durability)
        result: PublishResult = self._post("/v1/store/publish", body, idempotent=id is not None)
        return result

    def publish_many(self, inputs: Sequence[PublishInput]) -> List[PublishResult]:
        """Publish up to 1,000 inputs all or nothing, each its own transition, in one atomic write;
        the results in input order. Retried only when every input has an ``id``.

        Raises:
            as :meth:`publish`, for the first input that fails (nothing is published then).
        """
        idempotent = len(inputs) > 0 and all("id" in one for one in inputs)
        results: List[PublishResult] = self._post("/v1/store/publish-many", {"inputs": list(inputs)}, idempotent=idempotent)["results"]
        return results

    def fork(self, source: str, target: str, *, at: Optional[int] = None, expected: Optional[ExpectedRevision] = None, id: Optional[str] = None) -> PublishResult:
        """Set stream ``target`` to ``source``'s state at revision ``at`` (default its head) in one transition."""
        body = _members(required={"from": source, "to": target}, at=at, expected=expected, id=id)
        result: PublishResult = self._post("/v1/store/fork", body, idempotent=id is not None)
        return result

    def revert(self, stream: str, rev: int) -> PublishResult:
        """A new transition restoring a stream's state at revision ``rev`` (history is never rewritten)."""
        result: PublishResult = self._post("/v1/store/revert", {"stream": stream, "rev": rev}, idempotent=False)
        return result

    def merge(
        self,
        source: str,
        into: str,
        *,
        from_rev: Optional[int] = None,
        expected: Optional[ExpectedRevision] = None,
        resolve: Optional[Mapping[str, Any]] = None,
        prefer: Optional[Literal["ours", "theirs"]] = None,
        dry_run: bool = False,
        id: Optional[str] = None,
        meta: Optional[JsonObject] = None,
    ) -> MergeResult:
        """Three-way merge of stream ``source`` into stream ``into`` from their merge base: one
        transition on ``into``. ``resolve`` settles conflicts by path (``"ours"``, ``"theirs"`` or
        ``{"value": v}``), ``prefer`` every other one; ``dry_run`` answers the plan (``status``
        ``"preview"``) and publishes nothing.

        Raises:
            MergeConflictError: conflicts left open (``conflicts``, ``paths``); nothing was
                published. MergeUnrelatedError: the streams share no origin. ConflictError:
                ``into`` is not at ``expected``.
        """
        body = _members(
            required={"from": source, "into": into},
            fromRev=from_rev,
            expected=expected,
            resolve=None if resolve is None else dict(resolve),
            prefer=prefer,
            dryRun=True if dry_run else None,
            id=id,
            meta=meta,
        )
        result: MergeResult = self._post("/v1/store/merge", body, idempotent=id is not None or dry_run)
        return result

    def compact(self, stream: str, keep_revisions: int) -> Dict[str, int]:
        """Keep the newest ``keep_revisions`` revisions of a stream: ``{origin, deleted}``."""
        result: Dict[str, int] = self._post("/v1/store/compact", {"stream": stream, "keepRevisions": keep_revisions}, idempotent=False)
        return result

    def audit(self) -> AuditReport:
        """Replay and verify the whole store (the store's owner only; no time limit).

        Raises:
            ForbiddenError: an API-key user (the audit covers every user's streams).
        """
        report: AuditReport = self._transport.call("POST", "/v1/store/audit", idempotent=True, body={}, unbounded=True).body
        return report

    # The state tools, watch, ladders.

    def tools(self, selection: Selection) -> StateTools:
        """``read_state`` and ``patch_state`` on the owners of ``selection`` (``{"cwd": "/abs/dir",
        "mode": "active"}``, ``{"session": id, "mode": "active"}``, …)."""
        return StateTools(self._transport, selection)

    def watch(
        self,
        *,
        after: Optional[int] = None,
        streams: Optional[Sequence[str]] = None,
        on_server_stop: OnServerStop = "reconnect",
        retry_interval: float = 0.5,
        stall_timeout: float = 45.0,
        on_disconnect: Optional[Callable[[StateflowError], None]] = None,
    ) -> Watch:
        """Follow the store: every transition with seq > ``after`` (default: live only, from the
        server's last seq when the stream connects), the retained ones first, then live ones; only those
        that changed one of ``streams`` when given. Resumes after a dropped connection with no gap
        and no duplicate (:class:`~stateflow.watch.Watch`); ``on_server_stop="end"`` ends it when
        the server is stopped on purpose. A connection silent for ``stall_timeout`` seconds (the
        server's heartbeat comes every 15) counts as dropped."""
        return Watch(
            self._watch_transport,
            after=after,
            streams=None if streams is None else list(streams),
            on_server_stop=on_server_stop,
            retry_interval=retry_interval,
            stall_timeout=stall_timeout,
            on_disconnect=on_disconnect,
        )

    def ladder(self, name: str) -> Ladder:
        """The ladder ``@author/name`` (``author/name`` works too): its sessions and chat completions."""
        return Ladder(self._transport, name)

    # Internals.

    def _watch_transport(self) -> Transport:
        """The transport a watch connects with: for a discovered server, found again each time
        (a restarted server listens on another port, with another token)."""
        if self._store_dir is not None:
            found = find_server(self._store_dir)
            current = self._transport.endpoint
            if found is not None and (found.url, found.token) != (current.url, current.token):
                previous = self._transport
                self._transport = Transport(Endpoint(found.url, token=found.token), timeout=previous.timeout, retry=previous.retry)
                previous.close()
        return self._transport

    def _get(self, path: str, **query: Any) -> Any:
        return self._transport.call("GET", path, idempotent=True, query=query).body

    def _post(self, path: str, body: Any, *, idempotent: bool) -> Any:
        return self._transport.call("POST", path, idempotent=idempotent, body=body).body


def _publish_input(
    changes: Mapping[str, JsonObject],
    expected: Optional[Mapping[str, ExpectedRevision]],
    id: Optional[str],
    meta: Optional[JsonObject],
    durability: Optional[str],
) -> Dict[str, Any]:
    return _members(
        required={"changes": dict(changes)},
        expected=None if expected is None else dict(expected),
        id=id,
        meta=meta,
        durability=durability,
    )


def _members(required: Dict[str, Any], **optional: Any) -> Dict[str, Any]:
    """A request body: the required members, then every optional one that is not ``None``."""
    return {**required, **{name: value for name, value in optional.items() if value is not None}}
