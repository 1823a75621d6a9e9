#!/usr/bin/env bash
# Install what a fresh machine lacks to build and test cn: Debian packages (cmake, clang and
# libclang for the embedded llama.cpp engine; git; a JDK for the AI-loop walkthrough; pip for
# fetching the local model). With --test, also what the test suite drives: Chromium and
# chromedriver (the control room's browser tests), Dovecot and Python's aiosmtpd (the email
# sense's IMAP and SMTP servers), pytest (an AI loop's sensor in the toolchain tests). Idempotent:
# installs only what is missing.
set -euo pipefail
tests=false
[ "${1:-}" = "--test" ] && tests=true

missing=()
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
command -v cmake >/dev/null || missing+=(cmake)
command -v clang >/dev/null || missing+=(clang)
have_pkg libclang-dev || ls /usr/lib/llvm-*/lib/libclang.so >/dev/null 2>&1 || missing+=(libclang-dev)
command -v git >/dev/null || missing+=(git)
command -v javac >/dev/null || missing+=(default-jdk-headless)
command -v python3 >/dev/null || missing+=(python3)
python3 -m pip --version >/dev/null 2>&1 || missing+=(python3-pip)
command -v cc >/dev/null || missing+=(build-essential)
command -v strace >/dev/null || missing+=(strace)   # a test counts the files `cn run` opens
if $tests; then
  # The control room's browser tests drive headless Chromium over WebDriver.
  command -v chromium >/dev/null || missing+=(chromium)
  command -v chromedriver >/dev/null || missing+=(chromium-driver)
  command -v dovecot >/dev/null || missing+=(dovecot-imapd)   # the email sense's tests: a real IMAP server
  command -v faketime >/dev/null || missing+=(faketime)       # an injected clock for the idle-week test
  python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || missing+=(python3-venv)   # the MCP tests' venv
  # The AI-loop toolchain tests (crates/loops/tests/it/toolchains.rs): pytest as a sensor.
  { python3 -m pytest --version || /usr/bin/python3 -m pytest --version; } >/dev/null 2>&1 || missing+=(python3-pytest)
  command -v make >/dev/null || missing+=(make)
fi

if ((${#missing[@]})); then
  echo "==> installing Debian packages: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The email sense's tests send answers to a real SMTP server: Python's aiosmtpd.
if $tests && ! python3 -c 'import aiosmtpd' >/dev/null 2>&1; then
  echo "==> installing aiosmtpd (Python) for the email tests"
  python3 -m pip install --quiet aiosmtpd 2>/dev/null \
    || python3 -m pip install --quiet --break-system-packages aiosmtpd
fi

if ! command -v cargo >/dev/null; then
  echo "cn needs a Rust toolchain (cargo); install it with rustup, then run this again." >&2
  exit 1
fi
# The user's global git configuration is left alone: a hub carries its own identity in its
# repository config (`cn init` sets it). Tests and the demo commit in scratch repositories
# too; git's `EMAIL` fallback (test.sh, setup.sh) covers a machine with no identity at all.

# The MCP tests (crates/cn/tests/it/mcp_server.rs, mcp_daemon.rs, crates/mcp/tests/it/client.rs) use the official
# Python MCP client and the reference `mcp-server-time`, in a venv of their own; without it
# those tests fail.
venv="${CN_MCP_VENV:-$HOME/.cache/cn/mcp-venv}"
if $tests && { ! "$venv/bin/python" -c 'import mcp' >/dev/null 2>&1 || [ ! -x "$venv/bin/mcp-server-time" ]; }; then
  echo "==> installing the MCP test client and server into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q 'mcp==2.3.0' 'mcp-server-time==2026.10.19'
fi

# The fuzz targets (fuzz/, run by scripts/fuzz.sh in CI) are built and run by cargo-fuzz.
if $tests && ! cargo fuzz --version >/dev/null 2>&1; then
  echo "==> installing cargo-fuzz for the fuzz targets"
  cargo install cargo-fuzz --locked
fi
# The OpenTelemetry export test (crates/cn/tests/it/otel_export.rs) decodes what cn sends with the
# official `opentelemetry-proto` package, in the same venv.
if $tests && ! "$venv/bin/python" -c 'import opentelemetry.proto.collector.trace.v1.trace_service_pb2' >/dev/null 2>&1; then
  echo "==> installing the OTLP message types into $venv"
  [ -x "$venv/bin/pip" ] || python3 -m venv "$venv"
  "$venv/bin/pip" install -q 'opentelemetry-proto==1.45.2'
fi
