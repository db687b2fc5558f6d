#!/usr/bin/env bash
# Compiles the Java walkthrough with plain javac (no build tool, no
# dependencies) and runs it against a running sandbankd.
#
# Usage: examples/java/run.sh BASE_URL CERT_PEM KEY_PEM
#   e.g. examples/java/run.sh http://127.0.0.1:7380 tpp/cert.pem tpp/key.pem
# Env:   OPERATOR_CERT_PEM and OPERATOR_KEY_PEM, an operator certificate and
#        its key (sandbankd cert new --operator --data FILE), for the batch
#        run and the sandbox clock; without them the walkthrough skips the
#        batch run and ends with the payment approved.
#        CA_CERT_PEM, the CA certificate an https BASE_URL is verified
#        against (sandbankd cert ca). RESPONSE_SIGNING=off, for a bank whose
#        responseSigning is off.
# Exit:  0 the whole walkthrough held; 1 it did not (the message says why,
#        a compile error included); 2 usage (one OPERATOR_ variable
#        without the other); 3 no JDK 17 or newer.
set -euo pipefail
if [ $# -ne 3 ]; then
  echo "usage: $0 BASE_URL CERT_PEM KEY_PEM" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)

if ! command -v javac >/dev/null || ! command -v java >/dev/null; then
  echo "$0: needs a JDK 17 or newer (javac and java); install it: apt-get install default-jdk-headless" >&2
  exit 3
fi
major=$(javac -version 2>&1 | sed -nE 's/^javac ([0-9]+).*/\1/p')
if [ -z "$major" ] || [ "$major" -lt 17 ]; then
  echo "$0: needs a JDK 17 or newer; this is $(javac -version 2>&1)" >&2
  exit 3
fi

build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
# The -XX flags only make the JVMs start faster; both run fine without.
fast=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC)
# The sources are UTF-8 whatever the locale says (a missing locale makes
# javac read them as ASCII).
if ! javac "${fast[@]/#/-J}" -encoding UTF-8 -d "$build" "$here"/src/sandbank/examples/*.java; then
  echo "$0: javac failed" >&2
  exit 1
fi
java "${fast[@]}" -Dfile.encoding=UTF-8 -Dstdout.encoding=UTF-8 -cp "$build" sandbank.examples.Walkthrough "$@"
