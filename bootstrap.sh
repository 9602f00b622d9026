#!/usr/bin/env bash
# One command from a fresh Debian / Raspberry Pi OS machine to a running board or a green test suite.
#
#   ./bootstrap.sh serve [ARGS...]   install what is missing, then start the board service
#                                    (simulated camera and emulated LED firmware when no hardware)
#   ./bootstrap.sh test  [ARGS...]   install what is missing (test tools too), then run the whole suite
#
# Safe to run again: installed apt packages and an up-to-date .venv are skipped.
set -euo pipefail
cd "$(dirname "$0")"

# Debian packages, by purpose:
#   python3-venv python3-dev       the virtual environment (build headers for any wheel that compiles)
#   libgl1 libglib2.0-0            OpenCV's shared-library needs
#   gcc-avr avr-libc binutils-avr  the LED firmware (ATmega328P)
#   simavr libsimavr-dev libelf-dev pkg-config gcc make   the emulated LED board (`--sim`, tests)
#   sqlite3                         to inspect the game journal by hand
RUN_PACKAGES="python3 python3-venv python3-dev libgl1 libglib2.0-0 gcc make pkg-config \
gcc-avr avr-libc binutils-avr simavr libsimavr-dev libelf-dev sqlite3"
#   chromium chromium-driver        browser tests of the web page;  clang: the firmware fuzzer
TEST_PACKAGES="chromium chromium-driver clang"
#   libclang-rt-14-dev             libFuzzer and sanitizer runtimes for clang (`make -C firmware fuzz`)
TEST_PACKAGES="$TEST_PACKAGES libclang-rt-14-dev"

missing_packages() {
    local missing=()
    for pkg in "$@"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
    done
    echo "${missing[@]:-}"
}

apt_install() {
    local missing
    missing=$(missing_packages "$@")
    [ -z "$missing" ] && return 0
    echo "bootstrap: installing Debian packages: $missing" >&2
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
}

python_env() {
    local extras="$1"
    local stamp=".venv/.installed-$extras"
    if [ ! -x .venv/bin/python ]; then
        echo "bootstrap: creating .venv" >&2
        python3 -m venv .venv
    fi
    if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
        echo "bootstrap: installing Python packages ($extras)" >&2
        .venv/bin/python -m pip install -q --upgrade pip >/dev/null
        .venv/bin/python -m pip install -q -e ".[$extras]"
        touch "$stamp"
    fi
}

cmd="${1:-}"
[ $# -gt 0 ] && shift
case "$cmd" in
    serve)
        # shellcheck disable=SC2086
        apt_install $RUN_PACKAGES
        python_env run
        exec .venv/bin/takboard serve "$@"
        ;;
    test)
        # shellcheck disable=SC2086
        apt_install $RUN_PACKAGES $TEST_PACKAGES
        python_env test
        exec .venv/bin/python -m pytest "$@"
        ;;
    *)
        echo "usage: ./bootstrap.sh serve [ARGS...] | ./bootstrap.sh test [PYTEST ARGS...]" >&2
        exit 2
        ;;
esac
