#!/usr/bin/env bash
# Install what taugen needs on a Debian machine: the system tools its genres call and the Python
# package. `scripts/setup.sh` for building; `scripts/setup.sh --test` adds the test and tau2 extras.
set -euo pipefail
cd "$(dirname "$0")/.."

# chromium (headless) and fonts-liberation render the web_screenshot genre's PNGs at build time; the
# reviewer report's browser test (tests/test_report.py) uses the same browser.
system_packages=(espeak-ng graphviz ffmpeg poppler-utils chromium fonts-liberation)
missing=()
for package in "${system_packages[@]}"; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ "${#missing[@]}" -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

extras=""
if [ "${1:-}" = "--test" ]; then
  extras="[test,tau2]"
fi
# litellm 1.82.7 and 1.82.8 were compromised releases; the constraint keeps them out whatever asks for litellm.
python3 -m pip install -q --disable-pip-version-check -c scripts/constraints.txt -e ".${extras}"
