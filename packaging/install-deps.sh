#!/usr/bin/env bash
# Installs every build and test dependency of patchwitness from the distribution's
# packages (Debian 12 / Ubuntu 22.04+). Idempotent: packages already present are skipped.
# Works as root or through sudo.
set -euo pipefail

packages=(
  # toolchain
  build-essential cmake ninja-build pkg-config ccache clang-format git
  # the fuzz targets (tests/fuzz): clang (libFuzzer's runtime below)
  clang
  # Qt 6 (the product flavour)
  qt6-base-dev qt6-base-dev-tools libgl-dev libxkbcommon-dev
  # Qt 5.15 flavour with KSyntaxHighlighting (Debian 12 ships it only for Qt 5)
  qtbase5-dev qtbase5-dev-tools libkf5syntaxhighlighting-dev
  # engine libraries
  libgit2-dev nlohmann-json3-dev libtomlplusplus-dev zlib1g-dev
  # Python/pytest for the extractor and test runs
  python3 python3-pytest python3-hypothesis python3-pytest-xdist python3-pytest-timeout
  python3-pytest-forked
  # the tests' venvs with pytest 8.x and the newest release (tests/support/pytest_lines.py)
  python3-venv python3-pip
  # optional evidence: diff-coverage attribution (coverage), the four-cell `clock` cell (freezegun)
  python3-coverage python3-freezegun
  # sandbox, headless display, fonts for screenshots
  bubblewrap xvfb xauth fonts-dejavu-core
)

# KF6SyntaxHighlighting, where the distribution has it (not Debian 12).
if apt-cache show libkf6syntaxhighlighting-dev >/dev/null 2>&1; then
  packages+=(libkf6syntaxhighlighting-dev)
fi

# libFuzzer and the sanitizer runtimes of the distribution's clang: their own package
# (libclang-rt-14-dev on Debian 12), or part of clang where there is none.
llvm=$(apt-cache depends clang 2>/dev/null | sed -n 's/.*Depends: clang-\([0-9][0-9]*\)$/\1/p' | head -n 1)
if [ -n "$llvm" ] && apt-cache show "libclang-rt-$llvm-dev" >/dev/null 2>&1; then
  packages+=("libclang-rt-$llvm-dev")
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi

echo "install-deps: installing ${#missing[@]} package(s): ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "install-deps: done"
