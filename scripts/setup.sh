#!/bin/sh
# setup.sh installs the system packages webacq needs on a fresh Debian (or
# Ubuntu) machine: Chromium for the browser tier, poppler-utils (pdftotext,
# which reads PDF text in a sandboxed subprocess), CA certificates for HTTPS,
# a basic font set for rendering, and jq for the README's examples. Packages already
# installed are skipped. It runs non-interactively and uses sudo when not
# run as root.
#
# Usage: scripts/setup.sh [extra-package ...]
set -eu

PACKAGES="ca-certificates chromium fonts-liberation poppler-utils"
# jq runs the README's examples, which make test runs (readme_test.go); the
# service does not need it.
PACKAGES="$PACKAGES jq"
# Node.js runs the MCP interoperability test (the official TypeScript SDK
# client). Many machines have it from elsewhere; take Debian's only if absent.
if ! command -v node >/dev/null 2>&1; then
	PACKAGES="$PACKAGES nodejs npm"
fi

if [ "$(id -u)" -eq 0 ]; then
	SUDO=""
elif command -v sudo >/dev/null 2>&1; then
	SUDO="sudo"
else
	echo "setup.sh: run as root or install sudo" >&2
	exit 1
fi

installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}

missing=""
for pkg in $PACKAGES "$@"; do
	if installed "$pkg"; then
		echo "setup.sh: $pkg is already installed"
	else
		missing="$missing $pkg"
	fi
done

if [ -z "$missing" ]; then
	echo "setup.sh: nothing to install"
	exit 0
fi

echo "setup.sh: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q
# shellcheck disable=SC2086 # the list is meant to split into words
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing

if command -v chromium >/dev/null 2>&1; then
	echo "setup.sh: $(chromium --version 2>/dev/null || echo chromium installed)"
fi
