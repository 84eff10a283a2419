"""The build backend of the ``stateflow`` package (PEP 517, with PEP 660 editable installs).

Why a backend of our own: the client must install where only Python is, with no network. pip
builds a ``pyproject.toml`` project in an isolated environment into which it first installs the
backend named in ``build-system.requires``; offline there is nothing to install it from, and the
setuptools a venv may bring (Python 3.11's 65.5; none from 3.12 on) cannot build a wheel without
the ``wheel`` package, which no venv brings. This backend lives in the tree
(``backend-path``), needs nothing (``requires = []``) and uses only the standard library, so
``pip install ./clients/python`` works in any venv of Python 3.9 or later, offline.

It builds one pure-Python wheel (``py3-none-any``): the files of ``src/stateflow`` and a
``.dist-info`` with ``METADATA``, ``WHEEL`` and ``RECORD`` (the binary distribution format,
packaging.python.org "Binary distribution format"); an sdist of the sources; and an editable
wheel whose ``.pth`` file puts ``src`` on the path. Zip entries carry a fixed date, so the same
tree builds the same wheel.
"""

from __future__ import annotations

import base64
import hashlib
import io
import re
import tarfile
import zipfile
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "stateflow"
NAME = "stateflow"
SUMMARY = "Stateflow from Python: the store, the state tools, watch and ladder sessions of a stateflow server"
REQUIRES_PYTHON = ">=3.9"
#: The date of every zip entry (the earliest a zip can hold), for reproducible wheels.
_EPOCH = (1980, 1, 1, 0, 0, 0)

Files = List[Tuple[str, bytes]]


def _version() -> str:
    found = re.search(r'^__version__ = "([^"]+)"$', (PACKAGE / "_version.py").read_text(encoding="utf-8"), re.MULTILINE)
    if found is None:
        raise RuntimeError("src/stateflow/_version.py does not set __version__")
    return found.group(1)


def _metadata() -> bytes:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    headers = [
        "Metadata-Version: 2.1",
        f"Name: {NAME}",
        f"Version: {_version()}",
        f"Summary: {SUMMARY}",
        "License: MIT",
        f"Requires-Python: {REQUIRES_PYTHON}",
        "Classifier: Programming Language :: Python :: 3",
        "Classifier: Typing :: Typed",
        "Description-Content-Type: text/markdown",
    ]
    return ("\n".join(headers) + "\n\n" + readme).encode("utf-8")


def _dist_info(tag: str) -> Files:
    info = f"{NAME}-{_version()}.dist-info"
    wheel = f"Wheel-Version: 1.0\nGenerator: stateflow_build\nRoot-Is-Purelib: true\nTag: {tag}\n"
    return [(f"{info}/METADATA", _metadata()), (f"{info}/WHEEL", wheel.encode("ascii")), (f"{info}/top_level.txt", b"stateflow\n")]


def _sources() -> Files:
    files = [p for p in sorted(PACKAGE.rglob("*")) if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"]
    return [(f"stateflow/{p.relative_to(PACKAGE).as_posix()}", p.read_bytes()) for p in files]


def _write_wheel(directory: str, files: Files) -> str:
    name = f"{NAME}-{_version()}-py3-none-any.whl"
    record_name = f"{NAME}-{_version()}.dist-info/RECORD"
    records = []
    with zipfile.ZipFile(Path(directory) / name, "w", zipfile.ZIP_DEFLATED) as wheel:
        for arcname, data in files:
            _add(wheel, arcname, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
            records.append(f"{arcname},sha256={digest},{len(data)}")
        records.append(f"{record_name},,")
        _add(wheel, record_name, ("\n".join(records) + "\n").encode("utf-8"))
    return name


def _add(archive: zipfile.ZipFile, arcname: str, data: bytes) -> None:
    entry = zipfile.ZipInfo(arcname, date_time=_EPOCH)
    entry.external_attr = 0o644 << 16
    entry.compress_type = zipfile.ZIP_DEFLATED
    archive.writestr(entry, data)


def build_wheel(wheel_directory: str, config_settings: Optional[Dict[str, Any]] = None, metadata_directory: Optional[str] = None) -> str:
    """PEP 517: the wheel of the package; returns its file name."""
    return _write_wheel(wheel_directory, _sources() + _dist_info("py3-none-any"))


def build_editable(wheel_directory: str, config_settings: Optional[Dict[str, Any]] = None, metadata_directory: Optional[str] = None) -> str:
    """PEP 660: a wheel whose ``.pth`` file puts this tree's ``src`` on the path."""
    return _write_wheel(wheel_directory, [("stateflow.pth", f"{ROOT / 'src'}\n".encode("utf-8"))] + _dist_info("py3-none-any"))


def build_sdist(sdist_directory: str, config_settings: Optional[Dict[str, Any]] = None) -> str:
    """PEP 517: a ``.tar.gz`` of the sources, the backend and ``PKG-INFO``; returns its file name."""
    base = f"{NAME}-{_version()}"
    sources = [ROOT / "pyproject.toml", ROOT / "README.md", Path(__file__)] + [PACKAGE / name[len("stateflow/") :] for name, _ in _sources()]
    with tarfile.open(Path(sdist_directory) / f"{base}.tar.gz", "w:gz", format=tarfile.PAX_FORMAT) as sdist:
        for path in sources:
            sdist.add(path, arcname=f"{base}/{path.relative_to(ROOT).as_posix()}", recursive=False)
        info = tarfile.TarInfo(f"{base}/PKG-INFO")
        metadata = _metadata()
        info.size = len(metadata)
        info.mode = 0o644
        sdist.addfile(info, io.BytesIO(metadata))
    return f"{base}.tar.gz"
