"""The base of every Stateflow exception, and the typed accessors some codes add.

The classes themselves, one per error code, are generated from the error contract into
``errors.py``; this module holds what the contract cannot say: how an exception is built from an
answer, and the accessors of the details that callers branch on (a conflict's revisions, a merge's
conflicting paths, whether a write may have been applied).
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional

from .types import MergeConflict


class StateflowError(Exception):
    """A failure with a stable ``code``, as the server (or this client) reported it.

    Attributes:
        code: the error code (``"CONFLICT"``, ``"PATH_NOT_FOUND"``, ...).
        http_status: the status the contract gives the code.
        retryable: whether the same request, unchanged, can succeed later.
        message: what happened and what to do next, for a person.
        details: the server's details object (its shape depends on the code).
        status: the HTTP status received; ``None`` when no answer arrived.
        retry_after: seconds the server asked to wait (``Retry-After``), when it said.
        request_id: the server's ``x-request-id`` of the answer (its log names it).
    """

    code: str = "INTERNAL"
    http_status: int = 500
    retryable: bool = False

    def __init__(
        self,
        message: str,
        details: Optional[Mapping[str, Any]] = None,
        *,
        status: Optional[int] = None,
        retry_after: Optional[float] = None,
        request_id: Optional[str] = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.details: Dict[str, Any] = dict(details or {})
        self.status = status
        self.retry_after = retry_after
        self.request_id = request_id

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code!r}, status={self.status!r}, message={self.message!r}, details={self.details!r})"

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


class ConflictDetails:
    """``CONFLICT``: the stream whose head moved, the revision expected and the one found."""

    details: Dict[str, Any]

    @property
    def stream(self) -> Optional[str]:
        return self.details.get("stream")

    @property
    def expected(self) -> Any:
        """The expected revision (an integer, ``"none"`` or ``"any"``)."""
        return self.details.get("expected")

    @property
    def actual(self) -> Optional[int]:
        return self.details.get("actual")


class MergeConflictDetails:
    """``MERGE_CONFLICT``: every path both sides changed differently, with the three values."""

    details: Dict[str, Any]

    @property
    def conflicts(self) -> List[MergeConflict]:
        """Each ``{path, base, ours, theirs}`` (RFC 6901 pointers; ``None`` = absent)."""
        found = self.details.get("conflicts")
        return list(found) if isinstance(found, list) else []

    @property
    def paths(self) -> List[str]:
        """The conflicting paths (RFC 6901 pointers), in the server's order."""
        return [conflict["path"] for conflict in self.conflicts]


class UnavailableDetails:
    """``STORE_UNAVAILABLE``: whether a write may have been applied."""

    details: Dict[str, Any]

    @property
    def outcome(self) -> Optional[str]:
        """``"not-sent"`` (nothing changed) or ``"unknown"`` (a write may have been applied)."""
        return self.details.get("outcome")


class RateLimitDetails:
    """``RATE_LIMITED``: which limit, and how long to wait."""

    details: Dict[str, Any]

    @property
    def limit(self) -> Optional[str]:
        """``"requests"`` or ``"model-calls"``."""
        return self.details.get("limit")
