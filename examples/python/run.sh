#!/usr/bin/env bash
# Runs the Python walkthrough against a running sandbankd.
#
# Usage: examples/python/run.sh BASE_URL CERT_PEM KEY_PEM
#   e.g. examples/python/run.sh http://127.0.0.1:7380 tpp/cert.pem tpp/key.pem
# Env:   OPERATOR_CERT_PEM and OPERATOR_KEY_PEM, an operator certificate and
#        its key (sandbankd cert new --operator --data FILE), for the batch
#        run and the sandbox clock; without them the walkthrough skips the
#        batch run and ends with the payment approved.
#        CA_CERT_PEM, the CA certificate an https BASE_URL is verified
#        against (sandbankd cert ca). RESPONSE_SIGNING=off, for a bank whose
#        responseSigning is off.
# Exit:  0 the whole walkthrough held; 1 it did not (the message says why);
#        2 usage (one OPERATOR_ variable without the other); 3 no Python 3
#        with requests and cryptography.
set -euo pipefail
if [ $# -ne 3 ]; then
  echo "usage: $0 BASE_URL CERT_PEM KEY_PEM" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)

# An interpreter that has both modules: Debian's /usr/bin/python3 first
# (python3-requests and python3-cryptography install for it), then the
# python3 on PATH (a pyenv or virtualenv one with pip-installed modules).
python=""
for candidate in /usr/bin/python3 "$(command -v python3 || true)"; do
  if [ -n "$candidate" ] && [ -x "$candidate" ] &&
    "$candidate" -c 'import requests, cryptography' >/dev/null 2>&1; then
    python=$candidate
    break
  fi
done
if [ -z "$python" ]; then
  echo "$0: no python3 here has both requests and cryptography; install them:" >&2
  echo "  apt-get install python3-requests python3-cryptography   (Debian, for /usr/bin/python3)" >&2
  echo "  or: python3 -m pip install requests cryptography" >&2
  exit 3
fi
# -B: write no __pycache__ next to the example.
exec "$python" -B "$here/walkthrough.py" "$@"
