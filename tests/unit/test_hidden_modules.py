"""What the emulated Windows profile hides (harness/boot/dlp_windows.py): `resource` and `fcntl` are
missing for the script and its own modules, as on Windows, but not for an installed package, whose
Linux build runs here (psutil's imports `resource`; its Windows build never does)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from harness.profiles import PROFILES
from harness.run.launch import BOOT_DIR

SCRIPT = """
def script_import(statement):
    try:
        exec(statement, {"__file__": __file__})
        return "imported"
    except ModuleNotFoundError as exc:
        return str(exc)

print("before:", script_import("import resource"))
import uses_resource  # an installed package's Linux build
print("package:", uses_resource.SOFT > 0)
print("after:", script_import("import resource"))
print("from:", script_import("from resource import getrlimit"))
import helper  # the script's own module, beside it
print("own module:", helper.FOUND)
"""


def test_hidden_from_the_script_and_its_modules_not_from_an_installed_package(tmp_path):
    site = tmp_path / "venv" / "lib" / "site-packages"
    site.mkdir(parents=True)
    (site / "uses_resource.py").write_text(
        "import resource\nSOFT = resource.getrlimit(resource.RLIMIT_NOFILE)[0]\n"
    )
    project = tmp_path / "project"
    project.mkdir()
    (project / "helper.py").write_text(
        "try:\n    import fcntl\n    FOUND = 'fcntl'\nexcept ImportError as exc:\n    FOUND = str(exc)\n"
    )
    (project / "train.py").write_text(textwrap.dedent(SCRIPT))
    env = {
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": f"{BOOT_DIR}:{site}",
        **PROFILES["windows-emulated"].environment(),
    }
    completed = subprocess.run(
        [sys.executable, "train.py"], cwd=project, env=env, capture_output=True, text=True, timeout=60
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.splitlines() == [
        "before: No module named 'resource'",
        "package: True",
        "after: No module named 'resource'",
        "from: No module named 'resource'",
        "own module: No module named 'fcntl'",
    ], completed.stderr
