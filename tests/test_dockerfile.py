"""The deployment frame: Dockerfile directives, Streamlit config, pinned requirements.

The Docker engine isn't available everywhere the tests run, so the Dockerfile is
checked statically: parsed into instructions and held to the project's rules.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs, with continuation lines joined and comments dropped."""
    result: list[tuple[str, str]] = []
    buffer = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not buffer and (not line or line.startswith("#")):
            continue
        if buffer and line.startswith("#"):
            continue  # comment inside a continued instruction
        if line.endswith("\\"):
            buffer += line[:-1] + " "
            continue
        buffer += line
        keyword, _, args = buffer.strip().partition(" ")
        result.append((keyword.upper(), args.strip()))
        buffer = ""
    if buffer.strip():
        keyword, _, args = buffer.strip().partition(" ")
        result.append((keyword.upper(), args.strip()))
    return result


def _env(instructions: list[tuple[str, str]]) -> dict[str, str]:
    env: dict[str, str] = {}
    for keyword, args in instructions:
        if keyword == "ENV":
            for key, value in re.findall(r"([A-Za-z_][A-Za-z0-9_]*)=(\"[^\"]*\"|\S+)", args):
                env[key] = value.strip('"')
    return env


def _exec_form(args: str) -> list[str]:
    value = json.loads(args)
    assert isinstance(value, list) and all(isinstance(v, str) for v in value)
    return value


@pytest.fixture(scope="module")
def dockerfile() -> list[tuple[str, str]]:
    return _instructions((ROOT / "Dockerfile").read_text(encoding="utf-8"))


def test_slim_python_base(dockerfile: list[tuple[str, str]]) -> None:
    bases = [args for keyword, args in dockerfile if keyword == "FROM"]
    assert bases, "no FROM"
    assert re.fullmatch(r"python:3\.11(\.\d+)?-slim(-\w+)?", bases[-1].split()[0]), bases[-1]


def test_runs_as_non_root_user(dockerfile: list[tuple[str, str]]) -> None:
    users = [args.split(":")[0] for keyword, args in dockerfile if keyword == "USER"]
    assert users, "no USER: the container would run as root"
    assert users[-1] not in {"root", "0"}
    last_user = max(i for i, (keyword, _) in enumerate(dockerfile) if keyword == "USER")
    cmd = max(i for i, (keyword, _) in enumerate(dockerfile) if keyword == "CMD")
    assert last_user < cmd


def test_exposes_streamlit_port(dockerfile: list[tuple[str, str]]) -> None:
    exposed = " ".join(args for keyword, args in dockerfile if keyword == "EXPOSE").split()
    assert "8501" in exposed or "8501/tcp" in exposed


def test_healthcheck_hits_streamlit_health_endpoint(dockerfile: list[tuple[str, str]]) -> None:
    checks = [args for keyword, args in dockerfile if keyword == "HEALTHCHECK"]
    assert len(checks) == 1
    assert "/_stcore/health" in checks[0]
    assert "8501" in checks[0]
    assert "curl" not in checks[0] and "wget" not in checks[0], "not in python:3.11-slim"


def test_volume_holds_the_sqlite_file(dockerfile: list[tuple[str, str]]) -> None:
    volumes: list[str] = []
    for keyword, args in dockerfile:
        if keyword == "VOLUME":
            volumes += _exec_form(args) if args.startswith("[") else args.split()
    assert volumes, "no VOLUME"
    db_path = _env(dockerfile).get("SIGBOARD_DB_PATH", "")
    assert any(db_path.startswith(v.rstrip("/") + "/") for v in volumes), (db_path, volumes)


def test_streamlit_settings(dockerfile: list[tuple[str, str]]) -> None:
    env = _env(dockerfile)
    cmd = " ".join(_exec_form(next(args for keyword, args in dockerfile if keyword == "CMD")))
    headless = env.get("STREAMLIT_SERVER_HEADLESS") == "true" or "--server.headless=true" in cmd
    no_stats = (env.get("STREAMLIT_BROWSER_GATHER_USAGE_STATS") == "false"
                or "--browser.gatherUsageStats=false" in cmd)
    assert headless
    assert no_stats
    assert int(env["STREAMLIT_SERVER_MAX_UPLOAD_SIZE"]) > 0
    assert cmd.startswith("sigboard serve")  # `streamlit run app/server.py` with app/streamlit.toml
    assert "--server.port=8501" in cmd or env.get("STREAMLIT_SERVER_PORT") == "8501"


def test_database_url_comes_from_the_environment(dockerfile: list[tuple[str, str]]) -> None:
    env = _env(dockerfile)
    assert "SIGBOARD_DB_URL" not in env, "the database URL must come from `docker run -e`"
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert "SIGBOARD_DB_URL" in text, "document SIGBOARD_DB_URL in the Dockerfile"


def test_project_bytecode_compiled_at_build(dockerfile: list[tuple[str, str]]) -> None:
    """Issue #19: a fresh server must not compile the project on its first page."""
    runs = [(i, args) for i, (keyword, args) in enumerate(dockerfile) if keyword == "RUN"
            and re.search(r"python3? -m compileall\b", args)]
    assert runs, "no RUN python -m compileall"
    index, args = runs[-1]
    for package in ("engine", "app"):
        assert re.search(rf"(^|\s){package}/?(\s|$)", args.split("compileall", 1)[1]), package
    copies = [i for i, (keyword, args) in enumerate(dockerfile) if keyword == "COPY"
              and args.split()[0].rstrip("/") in ("engine", "app")]
    assert copies and max(copies) < index, "compile after the project is copied"
    last_user = max(i for i, (keyword, _) in enumerate(dockerfile) if keyword == "USER")
    assert index < last_user, "compile as root, before switching to the unprivileged user"


def test_copied_paths_exist(dockerfile: list[tuple[str, str]]) -> None:
    for keyword, args in dockerfile:
        if keyword != "COPY":
            continue
        parts = [p for p in args.split() if not p.startswith("--")]
        for source in parts[:-1]:
            assert (ROOT / source).exists(), f"COPY {source}: missing in the repository"
    assert (ROOT / "app" / "main.py").is_file() and (ROOT / "app" / "server.py").is_file()


def test_dockerignore_keeps_local_state_out() -> None:
    patterns = {line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()}
    for required in (".git", ".venv", "var", "*.db", ".streamlit/secrets.toml"):
        assert required in patterns, required


def test_streamlit_config() -> None:
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["server"]["headless"] is True
    assert config["server"]["maxUploadSize"] == 50
    assert config["browser"]["gatherUsageStats"] is False


_PIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*(\[[A-Za-z0-9._,-]+\])?==[A-Za-z0-9.+!_-]+")


@pytest.mark.parametrize("name", ["requirements.txt", "requirements-test.txt"])
def test_requirements_are_pinned(name: str) -> None:
    lines = [line.split("#", 1)[0].strip()
             for line in (ROOT / name).read_text(encoding="utf-8").splitlines()]
    requirements = [line for line in lines if line]
    assert requirements
    for line in requirements:
        if name == "requirements-test.txt" and line == "-r requirements.txt":
            continue
        assert _PIN.fullmatch(line), f"{name}: not pinned as name==version: {line!r}"


def _bash_blocks(markdown: str) -> list[str]:
    return [block.strip() for block in re.findall(r"```bash\n(.*?)```", markdown, flags=re.S)]


def test_readme_two_commands_match_the_repository() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = _bash_blocks(readme)
    run_app, run_tests = blocks[0], blocks[1]
    assert "\n" not in run_app, "the first command must be a single line"
    for part in ("python3 -m venv .venv", "pip install -r requirements.txt -e .",
                 ".venv/bin/sigboard serve", "--server.address 127.0.0.1"):
        assert part in run_app, part
    assert run_tests == "./scripts/test.sh"
    script = ROOT / "scripts" / "test.sh"
    assert script.is_file() and script.stat().st_mode & 0o111, "scripts/test.sh not executable"
    ci = ROOT / ".ci" / "run"
    assert ci.stat().st_mode & 0o111, ".ci/run not executable"
    assert "scripts/test.sh" in ci.read_text(encoding="utf-8")
    for image in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", readme):
        assert (ROOT / image).is_file(), f"README image missing: {image}"


def test_kernels_compiled_at_build_into_the_users_cache(
        dockerfile: list[tuple[str, str]]) -> None:
    """Issue #27 item 3: `sigboard warm` at build, into a NUMBA_CACHE_DIR the unprivileged
    user owns (Numba uses a cache folder only where it can write; elsewhere it compiles
    again), after the package is installed and before USER."""
    env = _env(dockerfile)
    cache = env.get("NUMBA_CACHE_DIR", "")
    assert cache.startswith("/"), "NUMBA_CACHE_DIR: an absolute folder of the image"
    runs = [(i, args) for i, (keyword, args) in enumerate(dockerfile)
            if keyword == "RUN" and "sigboard warm" in args]
    assert runs, "no RUN sigboard warm"
    index, args = runs[-1]
    assert re.search(rf"chown -R \S*sigboard\S* {re.escape(cache)}", args), args
    installs = [i for i, (keyword, a) in enumerate(dockerfile)
                if keyword == "RUN" and "pip install" in a and "-e ." in a]
    assert installs and max(installs) < index, "warm once sigboard is installed"
    last_user = max(i for i, (keyword, _) in enumerate(dockerfile) if keyword == "USER")
    assert index < last_user
