"""Finding the local server of a store directory, as the TypeScript client does.

Every ``stateflow serve`` of a store directory writes ``stateflow-server.json`` into it once it
holds the store and listens: ``{url, pid, token, requireToken, background, idleTimeoutMs,
startedAt}``, mode 0600, so only the store's owner can read the token. :func:`find_server`
trusts the file only when its process is alive, the process listening on its ``url`` proves it
holds the token, and then, asked with the token, ``GET /v1/server`` answers with the file's pid.

**The proof.** Before the token goes anywhere, :func:`verify_server` sends only a fresh random
nonce, ``GET /v1/server/proof?nonce=<64 hex>``, with no credential; the server answers
``HMAC-SHA256(token, "stateflow-server-proof:" + nonce)`` in hex, which only a holder of the
token can compute. After a crash another program may listen on the file's port (even with a
reused pid): it is sent neither the token nor any request.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional, Union

from ._http import Endpoint, Transport
from .errors import StateflowError, StoreUnavailableError

#: Name of the discovery file inside a store directory.
DISCOVERY_FILE = "stateflow-server.json"

#: How long the proof and the liveness check may each take, in seconds.
PROBE_TIMEOUT = 5.0

PathLike = Union[str, "os.PathLike[str]"]


@dataclass(frozen=True)
class ServerDiscovery:
    """The contents of a discovery file.

    Attributes:
        url: base URL the server listens on.
        pid: process id of the server.
        token: the server token (64 hex): the store's owner.
        require_token: whether the server refuses requests without the token.
        background: whether ``stateflow mcp`` started it.
        idle_timeout_ms: idle period after which it stops by itself, in ms (``None``: never).
        started_at: when it started (ISO 8601).
    """

    url: str
    pid: int
    token: str
    require_token: bool = False
    background: bool = False
    idle_timeout_ms: Optional[int] = None
    started_at: str = ""


def discovery_path(store_dir: PathLike) -> Path:
    """The path of the discovery file of ``store_dir``."""
    return Path(store_dir) / DISCOVERY_FILE


def default_store_dir() -> Path:
    """The store directory the ``stateflow`` command uses: ``$STATEFLOW_DIR``, else ``./.stateflow``."""
    return Path(os.environ.get("STATEFLOW_DIR") or ".stateflow")


def read_discovery(store_dir: PathLike) -> Optional[ServerDiscovery]:
    """The discovery file of ``store_dir``; ``None`` when there is none or it does not hold a
    discovery record (a half-written or foreign file counts as absent)."""
    try:
        value = json.loads(discovery_path(store_dir).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(value, dict):
        return None
    url, pid, token = value.get("url"), value.get("pid"), value.get("token")
    if not isinstance(url, str) or not isinstance(token, str) or type(pid) is not int:
        return None
    idle = value.get("idleTimeoutMs")
    started = value.get("startedAt")
    return ServerDiscovery(
        url=url,
        pid=pid,
        token=token,
        require_token=value.get("requireToken") is True,
        background=value.get("background") is True,
        idle_timeout_ms=idle if type(idle) is int else None,
        started_at=started if isinstance(started, str) else "",
    )


def process_alive(pid: int) -> bool:
    """Whether process ``pid`` exists (signal 0); a process of another user exists too."""
    try:
        os.kill(pid, 0)
    except PermissionError:
        return True
    except OSError:
        return False
    return True


def server_proof(token: str, nonce: str) -> str:
    """The proof of holding ``token`` for ``nonce``: ``HMAC-SHA256(token, "stateflow-server-proof:" + nonce)``, 64 hex."""
    return hmac.new(token.encode("utf-8"), f"stateflow-server-proof:{nonce}".encode("utf-8"), hashlib.sha256).hexdigest()


def verify_server(url: str, token: str) -> None:
    """Check that the server at ``url`` holds ``token``, sending it only a fresh nonce.

    Raises:
        StoreUnavailableError: ``{url, outcome: "not-sent"}`` when nothing answers, with
            ``reason: "server-unverified"`` when what answers does not prove it holds the token
            (the message says what it answered). Either way the token was not sent.
    """
    nonce = secrets.token_hex(32)
    anonymous = Transport(Endpoint(url), timeout=PROBE_TIMEOUT)
    try:
        answer = anonymous.call("GET", "/v1/server/proof", idempotent=False, query={"nonce": nonce}).body
    except StoreUnavailableError as error:
        raise StoreUnavailableError(f"{error.message} (the server was not sent its token).", {"url": url, "outcome": "not-sent"}) from error
    except StateflowError as error:
        raise _unverified(url, f"answered the proof with {error.code}: {error.message}") from error
    finally:
        anonymous.close()
    proof = answer.get("proof") if isinstance(answer, dict) else None
    if not isinstance(proof, str):
        raise _unverified(url, f"answered the proof without one ({json.dumps(answer)[:120]})")
    if not hmac.compare_digest(proof, server_proof(token, nonce)):
        raise _unverified(url, "answered the proof with a wrong HMAC: it does not hold the token")


def find_server(
    store_dir: Optional[PathLike] = None,
    *,
    on_ignored: Optional[Callable[[StateflowError], None]] = None,
) -> Optional[ServerDiscovery]:
    """The live server of ``store_dir`` (default :func:`default_store_dir`), or ``None``.

    A file whose process is dead is removed; one whose port refuses connections (a server still
    stopping), or whose port is held by a process that cannot prove it holds the token, or that
    answers as another pid, is ignored (``on_ignored`` is told why for the last two): the next
    server that takes the store replaces it.
    """
    directory = default_store_dir() if store_dir is None else Path(store_dir)
    found = read_discovery(directory)
    if found is None:
        return None
    if not process_alive(found.pid):
        _remove_discovery(directory, found.pid)
        return None
    try:
        verify_server(found.url, found.token)
        owner = Transport(Endpoint(found.url, token=found.token), timeout=PROBE_TIMEOUT)
        try:
            info = owner.call("GET", "/v1/server", idempotent=False).body
        finally:
            owner.close()
    except StateflowError as error:
        if isinstance(error, StoreUnavailableError) and error.details.get("reason") == "server-unverified" and on_ignored is not None:
            on_ignored(error)
        return None
    pid = info.get("pid") if isinstance(info, dict) else None
    if pid == found.pid:
        return found
    if on_ignored is not None:
        on_ignored(
            StoreUnavailableError(
                f"The server on {found.url} holds the token of the discovery file but answers as pid {pid}, not {found.pid}: the file is ignored.",
                {"url": found.url, "outcome": "not-sent", "reason": "server-unverified"},
            )
        )
    return None


def _remove_discovery(store_dir: Path, pid: int) -> None:
    """Remove the discovery file if it still names ``pid`` (a successor's file stays)."""
    current = read_discovery(store_dir)
    if current is not None and current.pid == pid:
        try:
            discovery_path(store_dir).unlink()
        except FileNotFoundError:
            pass


def _unverified(url: str, found: str) -> StoreUnavailableError:
    return StoreUnavailableError(
        f"The process listening on {url} is not the store's server: it {found}. It was sent neither the token nor the request; "
        "a stateflow server of this store writes a new discovery file when it starts.",
        {"url": url, "outcome": "not-sent", "reason": "server-unverified"},
    )
