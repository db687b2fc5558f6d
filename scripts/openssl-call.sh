#!/usr/bin/env bash
# Sign one request by hand with the openssl command line and send it with
# curl: the way to check a TPP's own signing code against Sandbank.
#
# Usage: CERT=tpp/cert.pem KEY=tpp/key.pem scripts/openssl-call.sh METHOD PATH [BODY_FILE]
# Env:   URL (default http://127.0.0.1:7380)
#        PSU_ID, PSU_CORPORATE_ID, TPP_REDIRECT_URI: sent and signed when set
#        TPP_SESSION_ID, PSU_IP_ADDRESS, X_ACCEPT_FIX: sent when set
#        KEYID_SERIAL, KEYID_CA: the keyId's serial and issuer DN, instead of
#          the certificate's as openssl prints them (to try other forms)
set -euo pipefail
if [ $# -lt 2 ] || [ -z "${CERT:-}" ] || [ -z "${KEY:-}" ]; then
  echo "usage: CERT=cert.pem KEY=key.pem $0 METHOD PATH [BODY_FILE]" >&2
  exit 2
fi
method=$1 path=$2 body=${3:-}
url=${URL:-http://127.0.0.1:7380}

request_id=$(openssl rand -hex 16)
date=$(LC_ALL=C date -u '+%a, %d %b %Y %H:%M:%S GMT')
# keyId: the certificate's serial in hex and its issuer as an RFC 2253 DN.
# The DN goes in as openssl prints it: its backslashes are its own.
serial=${KEYID_SERIAL:-$(openssl x509 -in "$CERT" -noout -serial | cut -d= -f2)}
issuer=${KEYID_CA:-$(openssl x509 -in "$CERT" -noout -issuer -nameopt RFC2253 | sed 's/^issuer=//')}
cert_b64=$(openssl x509 -in "$CERT" -outform DER | openssl base64 -A)
target="$(printf '%s' "$method" | tr '[:upper:]' '[:lower:]') $path"

headers=(-H "Date: $date" -H "TPP-Signature-Certificate: $cert_b64")
signed="(request-target) date"
signing=$(printf '(request-target): %s\ndate: %s' "$target" "$date")
# sign NAME VALUE adds a header to the request and to the signing string.
sign() {
  headers+=(-H "$1: $2")
  signed="$signed $(printf '%s' "$1" | tr '[:upper:]' '[:lower:]')"
  signing=$(printf '%s\n%s: %s' "$signing" "$(printf '%s' "$1" | tr '[:upper:]' '[:lower:]')" "$2")
}
if [ -n "$body" ]; then
  sign Digest "SHA-256=$(openssl dgst -sha256 -binary "$body" | openssl base64 -A)"
  headers+=(-H "Content-Type: application/json" --data-binary "@$body")
fi
sign X-Request-ID "$request_id"
if [ -n "${PSU_ID:-}" ]; then sign PSU-ID "$PSU_ID"; fi
if [ -n "${PSU_CORPORATE_ID:-}" ]; then sign PSU-Corporate-ID "$PSU_CORPORATE_ID"; fi
if [ -n "${TPP_REDIRECT_URI:-}" ]; then sign TPP-Redirect-URI "$TPP_REDIRECT_URI"; fi
if [ -n "${TPP_SESSION_ID:-}" ]; then headers+=(-H "TPP-Session-ID: $TPP_SESSION_ID"); fi
if [ -n "${PSU_IP_ADDRESS:-}" ]; then headers+=(-H "PSU-IP-Address: $PSU_IP_ADDRESS"); fi
if [ -n "${X_ACCEPT_FIX:-}" ]; then headers+=(-H "x-accept-fix: $X_ACCEPT_FIX"); fi
# The signature: RSA PKCS#1 v1.5 with SHA-256 over the signing string,
# which has no trailing newline.
signature=$(printf '%s' "$signing" | openssl dgst -sha256 -sign "$KEY" | openssl base64 -A)
headers+=(-H "Signature: keyId=\"SN=$serial,CA=$issuer\",algorithm=\"rsa-sha256\",headers=\"$signed\",signature=\"$signature\"")

exec curl -sS -i -X "$method" "${headers[@]}" "$url$path"
