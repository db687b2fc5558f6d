#!/usr/bin/env bash
# Runs the Node.js walkthrough against a running sandbankd.
#
# Usage: examples/node/run.sh BASE_URL CERT_PEM KEY_PEM
#   e.g. examples/node/run.sh http://127.0.0.1:7380 tpp/cert.pem tpp/key.pem
# Env:   OPERATOR_CERT_PEM and OPERATOR_KEY_PEM, an operator certificate and
#        its key (sandbankd cert new --operator --data FILE), for the batch
#        run and the sandbox clock; without them the walkthrough skips the
#        batch run and ends with the payment approved.
#        CA_CERT_PEM, the CA certificate an https BASE_URL is verified
#        against (sandbankd cert ca); handed to Node as NODE_EXTRA_CA_CERTS.
#        RESPONSE_SIGNING=off, for a bank whose responseSigning is off.
# Exit:  0 the whole walkthrough held; 1 it did not (the message says why);
#        2 usage (one OPERATOR_ variable without the other); 3 no Node.js
#        18 or newer.
set -euo pipefail
if [ $# -ne 3 ]; then
  echo "usage: $0 BASE_URL CERT_PEM KEY_PEM" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)

# Node 18 is the oldest with fetch built in (and Debian 12's nodejs);
# Node 20 or newer is what the example is written and tested for.
if ! command -v node >/dev/null; then
  echo "$0: needs Node.js 18 or newer (20+ recommended); install it: apt-get install nodejs" >&2
  exit 3
fi
major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 18 ]; then
  echo "$0: needs Node.js 18 or newer (20+ recommended) for its built-in fetch; this is $(node --version)" >&2
  exit 3
fi
if [ -n "${CA_CERT_PEM:-}" ]; then
  export NODE_EXTRA_CA_CERTS=$CA_CERT_PEM
fi
# --no-warnings: Node 18 calls fetch experimental on every run.
exec node --no-warnings "$here/walkthrough.mjs" "$@"
