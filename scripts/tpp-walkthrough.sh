#!/usr/bin/env bash
# The curl and openssl path of docs/TPP-GUIDE.md, end to end: a consent with
# automated SCA, accounts and transactions, a payment, a signing basket, a
# batch run and the sandbox clock. Every request is signed with the openssl
# command line and sent with curl; the script stops at the first answer that
# is not what the guide says.
#
# Usage: CERT=tpp/cert.pem KEY=tpp/key.pem scripts/tpp-walkthrough.sh
# Env:   BANK (default http://127.0.0.1:7380); OPERATOR_CERT_PEM and
#        OPERATOR_KEY_PEM, an operator certificate and its key (sandbankd cert
#        new --operator --data FILE, or the bank's --operator-cert-out), for
#        the operator's part: the batch run and the sandbox clock. Without
#        them the script says that it skips that part, and the payments stay
#        approved (ACTC or ACCP) instead of settled (ACSC).
# Needs: openssl, curl, jq; a running bank that accepts the certificate (trust
#        mode any takes a self-signed one) with the known state's customer
#        13039319955. It pays 3 600.30 NOK from that customer's Brukskonto,
#        moves the sandbox clock when today is not a banking day, and sets it
#        back to the real clock at the end. POST /v1/sandbox/initialize resets
#        the data.
set -euo pipefail
if [ -z "${CERT:-}" ] || [ -z "${KEY:-}" ]; then
  echo "usage: CERT=cert.pem KEY=key.pem $0" >&2
  exit 2
fi
for tool in openssl curl jq; do
  command -v "$tool" >/dev/null || { echo "$0 needs $tool" >&2; exit 2; }
done
BANK=${BANK:-http://127.0.0.1:7380}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# psd2 METHOD PATH [@BODY_FILE] ['Name: value']...
# Signs with $CERT and $KEY and sends to $BANK. Every extra header is signed.
# SHOW=1 prints the signing string to standard error.
psd2() {
  local method=$1 target=$2; shift 2
  local id date names signing digest name serial issuer sig arg
  local -a send=()
  id=$(openssl rand -hex 16)
  date=$(LC_ALL=C date -u '+%a, %d %b %Y %H:%M:%S GMT')
  names="(request-target) date x-request-id"
  signing="(request-target): $(printf '%s' "$method" | tr '[:upper:]' '[:lower:]') $target"$'\n'"date: $date"$'\n'"x-request-id: $id"
  send=(-H "Date: $date" -H "X-Request-ID: $id")
  for arg in "$@"; do
    if [ "${arg#@}" != "$arg" ]; then            # @file: the body
      digest="SHA-256=$(openssl dgst -sha256 -binary "${arg#@}" | openssl base64 -A)"
      names="$names digest"
      signing="$signing"$'\n'"digest: $digest"
      send+=(-H "Digest: $digest" -H "Content-Type: application/json" --data-binary "$arg")
    else                                         # 'Name: value': a header
      name=$(printf '%s' "${arg%%:*}" | tr '[:upper:]' '[:lower:]')
      names="$names $name"
      signing="$signing"$'\n'"$name: ${arg#*: }"
      send+=(-H "$arg")
    fi
  done
  serial=$(openssl x509 -in "$CERT" -noout -serial | cut -d= -f2)
  issuer=$(openssl x509 -in "$CERT" -noout -issuer -nameopt RFC2253 | sed 's/^issuer=//')
  sig=$(printf '%s' "$signing" | openssl dgst -sha256 -sign "$KEY" | openssl base64 -A)
  if [ -n "${SHOW:-}" ]; then printf '%s\n\n' "$signing" >&2; fi
  curl -sS -X "$method" "${send[@]}" \
    -H "TPP-Signature-Certificate: $(openssl x509 -in "$CERT" -outform DER | openssl base64 -A)" \
    -H "Signature: keyId=\"SN=$serial,CA=$issuer\",algorithm=\"rsa-sha256\",headers=\"$names\",signature=\"$sig\"" \
    "$BANK$target"
  echo
}

# operator METHOD PATH [@BODY_FILE] ['Name: value']...
# As psd2, signed with the operator's certificate: what concerns every TPP.
operator() {
  CERT=$OPERATOR_CERT_PEM KEY=$OPERATOR_KEY_PEM psd2 "$@"
}

# expect JSON JQ_FILTER WHAT: stops unless the filter holds on JSON.
expect() {
  if ! jq -e "$2" >/dev/null <<<"$1"; then
    echo "FAILED: $3; the bank answered:" >&2
    echo "$1" >&2
    exit 1
  fi
  echo "ok: $3"
}

redirect='https://tpp.example/callback'
session="walkthrough-$(openssl rand -hex 4)"
ndct=/v1/payments/norwegian-domestic-credit-transfers
echo '{"nationalId": "13039319955", "decision": "approve"}' >"$work/sca.json"

# 3. A consent, approved with the automated SCA endpoint.
out=$(psd2 POST /v1/consents "TPP-Redirect-URI: $redirect" "TPP-Session-ID: $session")
expect "$out" '._links.scaRedirect.href | test("/sca/")' "POST /v1/consents answers a scaRedirect"
auth=$(jq -r .authorisationId <<<"$out")
out=$(psd2 POST "/v1/sandbox/sca/$auth" "@$work/sca.json")
expect "$out" '.redirect | test("[?&]psu-id=")' "the automated SCA redirects with a psu-id"
psu_id=$(jq -r .redirect <<<"$out" | sed -E 's/.*[?&]psu-id=([^&]*).*/\1/')
psu=("PSU-ID: $psu_id" "TPP-Session-ID: $session" "PSU-IP-Address: 192.0.2.10")

# 4. Accounts and transactions.
out=$(psd2 GET '/v1/accounts?withBalance=true' "${psu[@]}")
expect "$out" '[.accounts[].iban] | index("NO3815030123457") != null' "GET /v1/accounts lists Brukskonto NO3815030123457"
account=$(jq -r '.accounts[] | select(.iban == "NO3815030123457") | .resourceId' <<<"$out")
before=$(jq -r '.accounts[] | select(.iban == "NO3815030123457") | .balances[] | select(.balanceType == "closingBooked") | .balanceAmount.amount' <<<"$out")
out=$(psd2 GET "/v1/accounts/$account/transactions?bookingStatus=both&limit=3" "${psu[@]}")
expect "$out" '.transactions.booked | length > 0' "GET .../transactions lists booked transactions"

# 5. A payment; its creation starts the SCA.
cat >"$work/ndct.json" <<'JSON'
{"instructedAmount": {"amount": "100.30", "currency": "NOK"},
 "debtorAccount": {"iban": "NO3815030123457"},
 "creditorAccount": {"iban": "NO3015030234569"},
 "creditorName": "Test Testperson 2",
 "remittanceInformationUnstructured": "Middag"}
JSON
pay=("TPP-Redirect-URI: $redirect" "TPP-Session-ID: $session")
out=$(psd2 POST "$ndct?allowLogicalDuplicate=true" "@$work/ndct.json" "${pay[@]}")
expect "$out" '.transactionStatus == "RCVD" and (._links.scaRedirect.href | test("/sca/"))' "the payment is RCVD with a scaRedirect"
payment=$(jq -r .paymentId <<<"$out")
sca_status=$(jq -r ._links.scaStatus.href <<<"$out")
out=$(psd2 POST "/v1/sandbox/sca/${sca_status##*/}" "@$work/sca.json")
expect "$out" '.redirect | test("[?&]psu-id=")' "the PSU approves the payment"
out=$(psd2 GET "$sca_status")
expect "$out" '.scaStatus == "FINALISED"' "the payment's SCA is FINALISED"
out=$(psd2 GET "$ndct/$payment/status")
# ACSC: a bank in batchMode immediate settles a payment due today when it
# is approved.
expect "$out" '.transactionStatus == "ACTC" or .transactionStatus == "ACCP" or .transactionStatus == "ACSC"' "the payment is $(jq -r .transactionStatus <<<"$out")"
payments=("$payment")

# 6. Two payments in a signing basket, approved with one SCA.
ids=()
for amount in 1500 2000; do
  jq --arg a "$amount" '.instructedAmount.amount = $a | .remittanceInformationUnstructured = "Basket \($a)"' \
    "$work/ndct.json" >"$work/p.json"
  out=$(psd2 POST "$ndct?allowLogicalDuplicate=true" "@$work/p.json" "${pay[@]}")
  expect "$out" '.transactionStatus == "RCVD"' "payment of $amount NOK created"
  ids+=("$(jq -r .paymentId <<<"$out")")
done
jq -n --arg a "${ids[0]}" --arg b "${ids[1]}" '{paymentIds: [$a, $b]}' >"$work/basket.json"
out=$(psd2 POST /v1/signing-baskets "@$work/basket.json")
expect "$out" '.transactionStatus == "RCVD"' "the signing basket is RCVD"
basket=$(jq -r .basketId <<<"$out")
out=$(psd2 POST "/v1/signing-baskets/$basket/authorisations" "${pay[@]}" "${psu[0]}" "${psu[2]}" 'x-accept-fix: longer-names')
expect "$out" '.scaStatus == "RECEIVED"' "the basket's authorisation started"
out=$(psd2 POST "/v1/sandbox/sca/$(jq -r .authorisationId <<<"$out")" "@$work/sca.json")
expect "$out" '.redirect | test("[?&]psu-id=")' "the PSU approves the basket"
out=$(psd2 GET "/v1/signing-baskets/$basket/status")
expect "$out" '.transactionStatus == "ACTC"' "the basket is ACTC"
payments+=("${ids[@]}")

# 7. The operator's part: a batch run; when the payments wait for a later
# banking day (ACCP), the sandbox clock moves to that day, before its first
# batch run.
if [ -z "${OPERATOR_CERT_PEM:-}" ] || [ -z "${OPERATOR_KEY_PEM:-}" ]; then
  echo "skipped: the batch run and the sandbox clock are the operator's; set OPERATOR_CERT_PEM and OPERATOR_KEY_PEM (sandbankd cert new --operator --data FILE) to settle the payments"
  echo "The walkthrough ran clean; its payments are approved and wait for a batch run."
  exit 0
fi
out=$(operator POST /v1/sandbox/batch-runs)
expect "$out" '.errors == []' "batch run now: $(jq -c .counts <<<"$out")"
status=$(psd2 GET "$ndct/$payment/status" | jq -r .transactionStatus)
if [ "$status" = ACCP ]; then
  day=$(psd2 GET "$ndct/$payment" | jq -r .requestedExecutionDate)
  jq -n --arg now "${day}T03:00:00Z" '{now: $now}' >"$work/clock.json"
  out=$(operator PUT /v1/sandbox/clock "@$work/clock.json")
  expect "$out" ".now | startswith(\"$day\")" "the sandbox clock is at $(jq -r .now <<<"$out")"
  out=$(operator POST /v1/sandbox/batch-runs)
  expect "$out" '.errors == []' "batch run now: $(jq -c .counts <<<"$out")"
fi
for p in "${payments[@]}"; do
  out=$(psd2 GET "$ndct/$p/status")
  expect "$out" '.transactionStatus == "ACSC"' "payment $p is ACSC"
done
out=$(psd2 GET "/v1/accounts/$account/balances" "${psu[@]}")
after=$(jq -r '.balances[] | select(.balanceType == "closingBooked") | .balanceAmount.amount' <<<"$out")
expect "$out" "($after * 100 | round) <= (($before - 3600.30) * 100 | round)" "closingBooked moved from $before to $after NOK"
echo '{"offsetSeconds": 0}' >"$work/clock.json"
out=$(operator PUT /v1/sandbox/clock "@$work/clock.json")
expect "$out" '.offsetSeconds == 0' "the sandbox clock is back on the real clock"
echo "The walkthrough ran clean."
