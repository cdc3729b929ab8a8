#!/usr/bin/env bash
# Installs the Debian bookworm packages harness needs to build and test, and nothing that is
# already there. Run as root (or with sudo available). Safe to run again.
set -euo pipefail

packages=(
  g++ cmake ninja-build git pkg-config
  libboost1.81-dev libboost-json1.81-dev libboost-filesystem1.81-dev
  libsqlite3-dev libfmt-dev libyaml-cpp-dev libmd4c-dev libcli11-dev catch2
  python3 # the example project the demo builds is a small Python app
)
if [[ "${1:-}" == "--test" ]]; then
  # Test-only tools: sqlite3 shell for inspection, Node/npm for the MCP clients, Chromium for UI checks,
  # strace to hold a run inside a write for the kill test, ssh-keygen to sign a commit.
  packages+=(sqlite3 nodejs npm chromium iproute2 procps python3-yaml strace openssh-client)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    # A binary already on PATH from elsewhere (e.g. a newer node) is good enough.
    case "$p" in
      nodejs) command -v node >/dev/null && continue ;;
      npm) command -v npm >/dev/null && continue ;;
    esac
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "install-deps: all packages present"
fi
