"""Stateflow from Python: the store, the state tools, watch and ladder sessions of a running
``stateflow serve``, over HTTP, with the standard library alone.

    from stateflow import Client

    client = Client.from_env()   # $STATEFLOW_URL and $STATEFLOW_TOKEN, or the local server of $STATEFLOW_DIR
    client.publish({"global": {"tactics": {"next": "review"}}})
    print(client.state("global"))
"""

from ._http import RetryPolicy
from ._version import __version__
from .client import Client
from .discovery import DISCOVERY_FILE, ServerDiscovery, find_server, read_discovery, server_proof, verify_server
from .errors import *  # noqa: F401,F403 - one class per error code, listed in errors.__all__
from .errors import __all__ as _error_names
from .sessions import ChatStream, Ladder
from .tools import StateTools
from .watch import Watch

__all__ = [
    "__version__",
    "Client",
    "RetryPolicy",
    "StateTools",
    "Watch",
    "Ladder",
    "ChatStream",
    "DISCOVERY_FILE",
    "ServerDiscovery",
    "find_server",
    "read_discovery",
    "server_proof",
    "verify_server",
    *_error_names,
]
