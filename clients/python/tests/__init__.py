"""The client's tests, against a real ``stateflow serve`` (``python3 -m unittest`` in clients/python).

They test the tree's sources (``src`` is put first on the path), except ``test_install``, which
installs the package into a fresh venv and runs it from there.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))
