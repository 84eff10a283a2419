"""The README blocks the tests run as printed: the fence between ``<!-- NAME:begin … -->`` and
``<!-- NAME:end -->`` (the convention of the repository's other README tests)."""

from __future__ import annotations

import re
from pathlib import Path

from .support import CLIENT_ROOT, REPO_ROOT

ROOT_README = REPO_ROOT / "README.md"
CLIENT_README = CLIENT_ROOT / "README.md"


def readme_block(readme: Path, name: str, language: str) -> str:
    """The code of block ``name`` of ``readme``.

    Raises:
        AssertionError: the README has no such block.
    """
    text = readme.read_text(encoding="utf-8")
    found = re.search(rf"<!-- {name}:begin[^>]*-->\s*```{language}\n([\s\S]*?)```\s*<!-- {name}:end -->", text)
    if found is None:
        raise AssertionError(f"{readme} has no {name} block (a ```{language} fence between <!-- {name}:begin --> and <!-- {name}:end -->)")
    return found.group(1)
