"""The state tools from Python: ``read_state`` and ``patch_state`` through the state API.

``POST /v1/state/read`` and ``POST /v1/state/patch`` take the tool's input plus the owner
selection and answer exactly the tool's output, so the shapes are the tools' own:

- ``read_state(path=…)`` or ``read_state(paths=[…])`` with ``projection`` ``"value"``
  (default), ``"keys"`` or ``"patch"`` answers ``{"value": …}``, ``{"meta": …, "keys": …}`` or
  ``{"patch": …}``; with ``paths`` each member holds a positional list. A missing value that
  current references still point to answers the sentinel ``{"value": None, "hint": […]}``.
- ``patch_state(patch)`` applies one recursive semantic patch (objects merge, scalars and arrays
  replace, ``None`` deletes a key, ``"[N]"`` addresses an existing array element) atomically and
  answers ``{"state_updates": {"effective": […], "cascaded"?: […], "selectors"?: {…}}}``.

A failing call raises the exception of its code (``PathSyntaxError``, ``PathNotFoundError``,
``PatchInvalidError``, ``OwnerNotSelectedError``, …) and publishes nothing.
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Sequence

from ._http import TRANSITION_HEADER, Transport
from .errors import InputInvalidError
from .types import JsonObject, PatchStateResult, Projection, ReadStateResult, Selection


class StateTools:
    """``read_state`` / ``patch_state`` on one selection of owners (made by :meth:`stateflow.Client.tools`).

    Attributes:
        selection: the owners: any of ``global`` (``True``), ``cwd`` (absolute directory),
            ``session`` (a session id; with API keys, one of yours), and ``mode``.
        last_transition: the seq of the transition the last ``patch_state`` of this object
            published (``None`` before one, or when it changed nothing).
    """

    def __init__(self, transport: Transport, selection: Selection) -> None:
        self._transport = transport
        self.selection: Selection = selection
        self.last_transition: Optional[int] = None

    def read_state(self, path: Optional[str] = None, *, paths: Optional[Sequence[str]] = None, projection: Optional[Projection] = None) -> ReadStateResult:
        """Read one ``path`` or several ``paths`` (one captured view, results in request order).

        Raises:
            InputInvalidError: neither or both of ``path`` and ``paths``. PathSyntaxError,
                PathNotFoundError, PathKindError, IndexOutOfRangeError, OwnerNotSelectedError,
                RevisionNotFoundError, HistoryNotRetainedError, ResponseTooLargeError.
        """
        if (path is None) == (paths is None):
            raise InputInvalidError("read_state takes exactly one of path and paths.", {"field": "path"})
        body: Dict[str, Any] = {"selection": dict(self.selection)}
        if path is not None:
            body["path"] = path
        else:
            body["paths"] = list(paths or [])
        if projection is not None:
            body["projection"] = projection
        result: ReadStateResult = self._transport.call("POST", "/v1/state/read", idempotent=True, body=body).body
        return result

    def patch_state(self, patch: JsonObject) -> PatchStateResult:
        """Apply one recursive semantic patch to the selected owners, all or nothing. Not retried
        (a retry could apply it twice); sets :attr:`last_transition`.

        Raises:
            PatchInvalidError, OwnerNotSelectedError, InputInvalidError, IndexOutOfRangeError:
                bad input. ConflictError: other writers kept moving the heads (after the server's
                own re-evaluations). SessionClosedError: the selected session is closed.
        """
        answer = self._transport.call("POST", "/v1/state/patch", idempotent=False, body={"selection": dict(self.selection), "patch": patch})
        seq = answer.headers.get(TRANSITION_HEADER)
        self.last_transition = int(seq) if seq is not None and seq.isdigit() else None
        result: PatchStateResult = answer.body
        return result
