#!/bin/sh
# Install the real servers the test suite starts: Virtuoso 7 (Debian virtuoso-opensource), graphviz, and
# Debian's Chromium with its WebDriver (the `serve` page is checked in a headless browser).
# Idempotent; run as root. tests/conftest.py runs it by itself (once per session) when they are missing and
# apt-get can run as root. The oxigraph server binary comes from PyPI (`pip install '.[test]'`).
set -eu
export DEBIAN_FRONTEND=noninteractive

need=""
command -v virtuoso-t >/dev/null 2>&1 && command -v isql-vt >/dev/null 2>&1 || need="$need virtuoso-opensource"
command -v dot >/dev/null 2>&1 || need="$need graphviz"
command -v chromium >/dev/null 2>&1 || need="$need chromium"
command -v chromedriver >/dev/null 2>&1 || need="$need chromium-driver"

if [ -n "$need" ]; then
    # The postinst asks for a DBA password. It cannot start the service in a container (policy-rc.d),
    # so the value is unused there; the tests run a private instance that always starts as dba/dba.
    echo "virtuoso-opensource-7 virtuoso-opensource-7/dba-password password dba" | debconf-set-selections
    echo "virtuoso-opensource-7 virtuoso-opensource-7/dba-password-again password dba" | debconf-set-selections
    apt-get update
    # shellcheck disable=SC2086
    apt-get install -y --no-install-recommends $need
fi

test -x "$(command -v virtuoso-t)" || { echo "virtuoso-t missing after install" >&2; exit 1; }
test -x "$(command -v isql-vt)" || { echo "isql-vt missing after install" >&2; exit 1; }
test -f /etc/virtuoso-opensource-7/virtuoso.ini || { echo "virtuoso.ini missing" >&2; exit 1; }
command -v dot >/dev/null 2>&1 || { echo "graphviz (dot) missing after install" >&2; exit 1; }
command -v chromium >/dev/null 2>&1 || { echo "chromium missing after install" >&2; exit 1; }
command -v chromedriver >/dev/null 2>&1 || { echo "chromedriver missing after install" >&2; exit 1; }

# The oxigraph server binary is not apt's: `pip install '.[test]'` brings it, before or after this script.
if command -v oxigraph >/dev/null 2>&1; then
    oxigraph --version
else
    echo "note: the oxigraph server binary is not on PATH yet; pip install '.[test]' brings it" >&2
fi
echo "servers ready: $(command -v virtuoso-t) $(command -v isql-vt) $(command -v dot) $(command -v chromium) $(command -v chromedriver)"
