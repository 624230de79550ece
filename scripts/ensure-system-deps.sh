#!/bin/sh
# Install the Debian packages Scorpion needs, only when something is missing.
#
#   scripts/ensure-system-deps.sh venv   Python >= 3.11 able to make a virtual environment
#                                        (Debian ships `venv` apart, in python3-venv)
#   scripts/ensure-system-deps.sh test   what the test suite runs besides Python: Chromium
#                                        (/usr/bin/chromium, browser tests), docker-compose
#                                        (validates docker-compose.yml) and caddy (proxy test)
#   scripts/ensure-system-deps.sh instr  valgrind (make bench-instr counts instructions with it)
#
# Idempotent and quick: when everything is present it only looks, and never runs
# `apt-get update`. When something is missing it uses apt-get as root, sudo otherwise, and
# stops with a clear message when neither is possible. PYTHON names the interpreter
# (default python3), as in the Makefile; CHROMIUM the browser the tests drive (default
# /usr/bin/chromium, only changed by tests/test_system_deps.py).
set -eu

PYTHON="${PYTHON:-python3}"
CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"
missing=""

need() { # need PACKAGE: remember a package to install (once)
    case " $missing " in *" $1 "*) ;; *) missing="${missing:+$missing }$1" ;; esac
}

check_venv() {
    if ! command -v "$PYTHON" >/dev/null 2>&1; then
        echo "ensure-system-deps: $PYTHON not found; Scorpion needs Python 3.11 or newer." >&2
        exit 1
    fi
    if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
        echo "ensure-system-deps: $PYTHON is Python $("$PYTHON" -c 'import platform; print(platform.python_version())');" \
            "Scorpion needs 3.11 or newer (set PYTHON=python3.11 or newer)." >&2
        exit 1
    fi
    # `python3 -m venv` needs ensurepip, which Debian packages as python3.X-venv.
    if ! "$PYTHON" -c 'import ensurepip, venv' >/dev/null 2>&1; then
        ver="$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
        if [ "$ver" = "$(/usr/bin/python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)" ]; then
            need python3-venv
        else
            need "python$ver-venv"
        fi
    fi
}

check_test() {
    [ -x "$CHROMIUM" ] || need chromium
    command -v docker-compose >/dev/null 2>&1 || need docker-compose
    command -v caddy >/dev/null 2>&1 || need caddy
}

check_instr() {
    command -v valgrind >/dev/null 2>&1 || need valgrind
}

[ "$#" -gt 0 ] || set -- venv test
for what in "$@"; do
    case "$what" in
        venv) check_venv ;;
        test) check_test ;;
        instr) check_instr ;;
        *) echo "usage: $0 [venv] [test] [instr]" >&2; exit 2 ;;
    esac
done

[ -n "$missing" ] || exit 0

if ! command -v apt-get >/dev/null 2>&1; then
    echo "ensure-system-deps: missing system packages: $missing" >&2
    echo "This is not a Debian-like system (no apt-get): install their equivalents yourself." >&2
    exit 1
fi

if [ "$(id -u)" -eq 0 ]; then
    as_root=""
elif command -v sudo >/dev/null 2>&1 && { sudo -n true 2>/dev/null || [ -t 0 ]; }; then
    as_root="sudo"
    echo "ensure-system-deps: installing $missing with sudo (it may ask for your password)." >&2
else
    echo "ensure-system-deps: missing system packages: $missing" >&2
    echo "Installing them needs root, and sudo is not available here. As root, run:" >&2
    echo "    apt-get update && apt-get install -y --no-install-recommends $missing" >&2
    exit 1
fi

echo "ensure-system-deps: installing $missing" >&2
# Wait for another apt or dpkg run (e.g. unattended upgrades) instead of failing at once.
lock="-o DPkg::Lock::Timeout=600"
# shellcheck disable=SC2086 # $as_root, $lock and $missing are word lists on purpose
$as_root env DEBIAN_FRONTEND=noninteractive apt-get $lock update -q
# shellcheck disable=SC2086
$as_root env DEBIAN_FRONTEND=noninteractive apt-get $lock install -y -q \
    --no-install-recommends $missing

# Believe only what is now on the machine.
missing=""
for what in "$@"; do
    case "$what" in venv) check_venv ;; test) check_test ;; instr) check_instr ;; esac
done
if [ -n "$missing" ]; then
    echo "ensure-system-deps: still missing after apt-get install: $missing" >&2
    exit 1
fi
