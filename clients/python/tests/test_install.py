"""The package installs into a fresh venv from the tree without network, as the root README's
install line says, and its README example runs from that venv."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from .readme import CLIENT_README, ROOT_README, readme_block
from .support import REPO_ROOT, Serve, child_env
from .test_readme import CLIENT_OUTPUT


def offline_env(venv: Path, **extra: str) -> dict:
    """The venv first on PATH, and pip with no index and no configuration: nothing to download
    from, so an install that needed the network fails."""
    env = {name: value for name, value in child_env(**extra).items() if not name.startswith("PIP_") and name not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}", VIRTUAL_ENV=str(venv), PIP_CONFIG_FILE=os.devnull, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    return env


class InstallTest(unittest.TestCase):
    def setUp(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="stateflow-venv-"))
        self.addCleanup(shutil.rmtree, self.root, True)

    def test_the_readme_install_line_installs_it_offline_into_a_fresh_venv_where_the_example_runs(self) -> None:
        venv = self.root / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
        # The line as printed, with the venv's own pip (as an activated venv runs it). It runs
        # without a shell on purpose: a shell's startup files (pyenv's, say) may put another
        # pip first on PATH, which would install into that Python instead.
        words = shlex.split(readme_block(ROOT_README, "python-install", "sh"))
        self.assertEqual(words[0], "pip", words)
        install = subprocess.run([str(venv / "bin" / "pip"), *words[1:]], cwd=REPO_ROOT, env=offline_env(venv), capture_output=True, text=True, timeout=300)
        self.assertEqual(install.returncode, 0, install.stdout + install.stderr)
        python = str(venv / "bin" / "python")
        where = subprocess.run(
            [python, "-c", "import stateflow, pathlib; p = pathlib.Path(stateflow.__file__).parent; print(p); print((p / 'py.typed').exists())"],
            cwd=self.root,
            env=offline_env(venv),
            capture_output=True,
            text=True,
            timeout=60,
        )
        self.assertEqual(where.returncode, 0, where.stderr)
        location, typed = where.stdout.split()
        self.assertTrue(Path(location).is_relative_to(venv), location)
        self.assertEqual(typed, "True")

        server = Serve().start()
        self.addCleanup(server.cleanup)
        env = offline_env(venv, STATEFLOW_URL=server.url, STATEFLOW_TOKEN=server.token)
        example = subprocess.run([python, "-c", readme_block(CLIENT_README, "example", "python")], cwd=self.root, env=env, capture_output=True, text=True, timeout=120)
        self.assertEqual(example.returncode, 0, example.stderr)
        self.assertEqual(example.stdout, CLIENT_OUTPUT)


if __name__ == "__main__":
    unittest.main()
