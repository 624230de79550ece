"""scripts/ensure-system-deps.sh, which `make test` runs first, driven with stand-in commands:
it leaves a complete machine alone (no apt-get at all), installs exactly what is missing when it
may, and says what to run when it may not."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "ensure-system-deps.sh"

# apt-get stand-in: logs its arguments; on "install" it creates the commands it was asked for
# (unless FAKE_APT_BROKEN is set), as the real packages would.
FAKE_APT = """#!/bin/sh
PATH="$PATH:/usr/bin:/bin"
echo "$@" >> "$FAKE_LOG"
[ -n "${FAKE_APT_BROKEN:-}" ] && exit 0
for arg in "$@"; do
    case "$arg" in
        chromium) touch "$FAKE_BIN/chromium"; chmod +x "$FAKE_BIN/chromium" ;;
        docker-compose|caddy|valgrind)
            printf '#!/bin/sh\\n' > "$FAKE_BIN/$arg"; chmod +x "$FAKE_BIN/$arg" ;;
    esac
done
"""


def _machine(tmp_path: Path, *, uid: int, present: tuple[str, ...]) -> dict[str, str]:
    """A PATH of stand-ins: `id` answering ``uid``, apt-get, env, and the ``present`` tools."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "id").write_text(f"#!/bin/sh\necho {uid}\n")
    (bin_dir / "apt-get").write_text(FAKE_APT)
    for tool in present:
        (bin_dir / tool).write_text("#!/bin/sh\n")
    for exe in bin_dir.iterdir():
        exe.chmod(0o755)
    (bin_dir / "env").symlink_to("/usr/bin/env")
    return {
        "PATH": str(bin_dir),
        "FAKE_BIN": str(bin_dir),
        "FAKE_LOG": str(tmp_path / "apt.log"),
        "CHROMIUM": str(bin_dir / "chromium"),
    }


def _run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["/bin/sh", str(SCRIPT), *args],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=30,
    )


def _apt_calls(env: dict[str, str]) -> list[str]:
    log = Path(env["FAKE_LOG"])
    return log.read_text().splitlines() if log.exists() else []


def test_a_complete_machine_is_left_alone(tmp_path: Path) -> None:
    env = _machine(tmp_path, uid=1000, present=("chromium", "docker-compose", "caddy"))
    result = _run(env, "test")
    assert result.returncode == 0, result.stderr
    assert result.stderr == "" and _apt_calls(env) == []  # not even apt-get update


def test_root_installs_exactly_what_is_missing(tmp_path: Path) -> None:
    env = _machine(tmp_path, uid=0, present=("docker-compose",))
    result = _run(env, "test")
    assert result.returncode == 0, result.stderr
    update, install = _apt_calls(env)
    assert update.split()[-2:] == ["update", "-q"]
    assert install.split()[-2:] == ["chromium", "caddy"] and "-y" in install.split()
    assert _run(env, "test").returncode == 0 and len(_apt_calls(env)) == 2  # now idempotent


def test_without_root_or_sudo_it_says_what_to_run(tmp_path: Path) -> None:
    env = _machine(tmp_path, uid=1000, present=("chromium", "caddy"))
    result = _run(env, "test")
    assert result.returncode == 1
    assert "missing system packages: docker-compose" in result.stderr
    assert "apt-get install -y --no-install-recommends docker-compose" in result.stderr
    assert _apt_calls(env) == []


def test_an_install_that_did_not_help_fails(tmp_path: Path) -> None:
    env = {**_machine(tmp_path, uid=0, present=()), "FAKE_APT_BROKEN": "1"}
    result = _run(env, "test")
    assert result.returncode == 1
    assert "still missing after apt-get install: chromium docker-compose caddy" in result.stderr


def test_an_unknown_request_is_a_usage_error(tmp_path: Path) -> None:
    result = _run({**os.environ}, "everything")
    assert result.returncode == 2 and "usage:" in result.stderr


def test_instr_installs_valgrind_for_the_instruction_benchmark(tmp_path: Path) -> None:
    env = _machine(tmp_path, uid=0, present=("chromium", "docker-compose", "caddy"))
    assert _run(env, "test").returncode == 0 and _apt_calls(env) == []
    result = _run(env, "test", "instr")
    assert result.returncode == 0, result.stderr
    update, install = _apt_calls(env)
    assert install.split()[-1] == "valgrind"
    assert _run(env, "instr").returncode == 0 and len(_apt_calls(env)) == 2
