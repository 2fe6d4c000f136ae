"""The noxfile: torch's CPU build on Linux unless DLP_TORCH_INDEX names an index; one pass per call."""

from __future__ import annotations

import importlib.util

import pytest

from tests.conftest import ROOT


class RecordingSession:
    def __init__(self):
        self.installs: list[tuple[str, ...]] = []

    def install(self, *args):
        self.installs.append(args)

    def log(self, *args):
        pass


@pytest.fixture
def noxfile():
    spec = importlib.util.spec_from_file_location("dlp_noxfile", ROOT / "noxfile.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_torch_is_the_cpu_build_on_linux_unless_an_index_is_named(noxfile, monkeypatch):
    monkeypatch.delenv("DLP_TORCH_INDEX", raising=False)
    monkeypatch.setattr(noxfile.sys, "platform", "linux")
    plain = RecordingSession()
    noxfile.install_project(plain, "docs")
    assert plain.installs[0] == ("--index-url", noxfile.CPU_INDEX, "torch==2.13.0")
    assert plain.installs[1] == ("torch==2.13.0", "-e", ".[cases,native-stacks,docs]")
    assert all("--index-url" not in args for args in plain.installs[1:]), "the rest comes from pip's default"

    monkeypatch.setattr(noxfile.sys, "platform", "win32")
    windows = RecordingSession()
    noxfile.install_project(windows)
    assert windows.installs[0] == ("torch==2.13.0",), "PyPI's Windows and macOS builds are the CPU ones"

    monkeypatch.setattr(noxfile.sys, "platform", "linux")
    monkeypatch.setenv("DLP_TORCH_INDEX", "default")
    cuda = RecordingSession()
    noxfile.install_project(cuda)
    assert cuda.installs[0] == ("torch==2.13.0",), "default: pip's own index, the CUDA build on Linux"

    monkeypatch.setenv("DLP_TORCH_INDEX", "https://example.org/simple")
    named = RecordingSession()
    noxfile.install_project(named)
    assert named.installs[0] == ("--index-url", "https://example.org/simple", "torch==2.13.0")


def test_nox_alone_is_one_pass_whose_tests_come_first(noxfile):
    """`nox` with no arguments: the tests observe the matrix, then reproduce and verify take it."""
    sessions = noxfile.nox.options.sessions
    assert sessions.index("tests") < sessions.index("reproduce") < sessions.index("verify")
    assert noxfile.os.environ[noxfile.PASS_VARIABLE], "every session of one nox call shares a pass"


class TestsSession(RecordingSession):
    """A `tests` session whose pytest runs are recorded; the parts named in `failing` fail."""

    def __init__(self, noxfile, posargs, failing=()):
        super().__init__()
        self.failed = noxfile.nox.command.CommandFailed
        self.posargs, self.failing, self.runs, self.errors = list(posargs), failing, [], []

    def run(self, *args, success_codes=(0,)):
        self.runs.append(args)
        if any(tier in args for tier in self.failing):
            raise self.failed("Returned code 1")
        return True

    def error(self, message):
        self.errors.append(message)


def test_the_suite_runs_every_tier_once_the_waiting_ones_in_two_workers_first(noxfile):
    """The tiers of pyproject.toml's testpaths, each in one of the two parts: the waiting tiers in
    two pytest-xdist workers, then the busy ones in one process, which runs even where the first
    part failed; arguments that name tests run those alone."""
    import tomllib

    pytest_options = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]
    testpaths = pytest_options["ini_options"]["testpaths"]
    session = TestsSession(noxfile, ["-p", "no:cacheprovider"], failing=("tests/unit",))
    noxfile.tests(session)
    first, second = session.runs
    assert first[:4] == ("pytest", "-n", "2", "-p") and second[:3] == ("pytest", "-p", "no:cacheprovider")
    tiers = [*first[4:], *second[3:]]
    assert sorted(t for t in tiers if t.startswith("tests/") and t.count("/") == 1) == sorted(testpaths)
    assert set(second[3:]) >= {"tests/e2e", "tests/bench"}, "the matrix and the bench: not beside other tests"
    cgroup = "tests/harness/test_memory_cgroup.py"
    assert f"--ignore={cgroup}" in first and cgroup in second, "the OOM killer's tests: beside no other"
    assert session.errors and "tests/unit" in session.errors[0]
    alone = TestsSession(noxfile, ["tests/unit/test_noxfile.py", "-q"])
    noxfile.tests(alone)
    assert alone.runs == [("pytest", "tests/unit/test_noxfile.py", "-q")] and not alone.errors


class PipSession:
    """A nox session whose installs and runs are real pip commands of this interpreter, installing
    nothing (`--dry-run --ignore-installed`), under the pip configuration of the environment."""

    name = "reproduce"

    def __init__(self):
        self.errors: list[str] = []

    def log(self, *args):
        pass

    def install(self, *args):
        import subprocess
        import sys

        from nox.command import CommandFailed

        done = subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed",
                               "--quiet", *args], capture_output=True, text=True)  # fmt: skip
        self.pip_said = done.stdout + done.stderr
        if done.returncode != 0:
            raise CommandFailed(f"pip exited {done.returncode}")

    def run(self, program, *args, silent=False, success_codes=(0,)):
        import subprocess
        import sys

        assert program == "python" and silent
        done = subprocess.run([sys.executable, *args], capture_output=True, text=True)
        assert done.returncode in success_codes, done.stderr
        return done.stdout + done.stderr

    def error(self, message):
        self.errors.append(message)
        raise SystemExit(message)


@pytest.mark.parametrize("named", ["", "http://127.0.0.1:9/named/simple"])
def test_an_index_out_of_reach_is_named_with_what_to_set(noxfile, monkeypatch, tmp_path, named):
    """Behind a mirror that serves PyPI alone: a pip configuration whose index cannot be reached (a
    closed port), and torch's index out of reach too. pip fails (as observed: "No matching
    distribution found"), and the session says to set DLP_TORCH_INDEX=default."""
    config = tmp_path / "pip.conf"
    config.write_text("[global]\nindex-url = http://127.0.0.1:9/simple\nretries = 0\ntimeout = 5\n")
    monkeypatch.setenv("PIP_CONFIG_FILE", str(config))
    monkeypatch.setenv("DLP_TORCH_INDEX", named)
    monkeypatch.setattr(noxfile, "CPU_INDEX", "http://127.0.0.1:9/whl/cpu")  # the CPU index, out of reach
    monkeypatch.setattr(noxfile.sys, "platform", "linux")
    session = PipSession()
    with pytest.raises(SystemExit):
        noxfile.install_torch(session)
    assert "No matching distribution found" in session.pip_said
    (said,) = session.errors
    assert f"pip cannot reach {named or 'http://127.0.0.1:9/whl/cpu'}" in said
    assert ("the index DLP_TORCH_INDEX names" if named else "PyTorch's CPU-only index") in said
    assert "DLP_TORCH_INDEX=default pipx run nox -s reproduce" in said


def test_a_failure_with_the_index_in_reach_is_pips_own(noxfile, monkeypatch):
    """A failing install whose index answers (a version that does not exist) is left as pip said it."""
    from nox.command import CommandFailed

    monkeypatch.delenv("DLP_TORCH_INDEX", raising=False)
    monkeypatch.setattr(noxfile.sys, "platform", "linux")
    session = PipSession()
    monkeypatch.setattr(
        session, "install", lambda *args: (_ for _ in ()).throw(CommandFailed("no such torch"))
    )
    monkeypatch.setattr(noxfile, "index_reachable", lambda session, index: True)
    with pytest.raises(CommandFailed):
        noxfile.install_torch(session)
    assert session.errors == []
