"""A TPP's whole path through Sandbank, signed with sandbank_signer.py:
a consent with automated SCA, accounts, balances and paged transactions, a
payment with its SCA, a batch run and the settled payment. Every response's
signature is verified with the bank's certificate.

The batch run and the sandbox clock are the operator's: they are signed
with the operator certificate in OPERATOR_CERT_PEM and OPERATOR_KEY_PEM
(sandbankd cert new --operator --name NAME --out DIR --data FILE), and
everything else with the TPP's. Without those two the walkthrough says that
it skips the batch run and ends with the payment approved.

An https BASE_URL (the bank's HTTPS listener) is verified against the CA
certificate in CA_CERT_PEM, the bank's test CA (sandbankd cert ca, or
GET /v1/sandbox/ca-certificate); without it, against the system's CAs.
RESPONSE_SIGNING=off says the bank's setting responseSigning is off: its
responses carry no Signature, and only their Digest and X-Request-ID are
checked (rsa and ecdsa, or nothing, verify every signature).

Usage: [OPERATOR_CERT_PEM=... OPERATOR_KEY_PEM=...] [CA_CERT_PEM=...] [RESPONSE_SIGNING=off]
       python3 walkthrough.py BASE_URL CERT_PEM KEY_PEM
Exits 0 when every answer was what the contract says, 1 otherwise, 2 for a
usage error.
"""

import json
import os
import sys
import time
from decimal import Decimal
from urllib.parse import parse_qs, urlsplit

import requests

from sandbank_signer import ResponseVerifier, SandbankAuth, SignatureError, Signer

NATIONAL_ID = "13039319955"            # Test Testperson 1 of the known state
DEBTOR_IBAN = "NO3815030123457"        # their Brukskonto
CREDITOR_IBAN = "NO3015030234569"      # Test Testperson 2's Brukskonto
AMOUNT = "100.30"
REDIRECT_URI = "https://tpp.example/callback"
PSU_IP_ADDRESS = "192.0.2.10"
PAGE_LIMIT = 5
NDCT = "/v1/payments/norwegian-domestic-credit-transfers"
SKIPPED = ("skipped: steps 6 (batch run) and 7 (settled payment): a batch run and the sandbox clock are "
           "the operator's, not a TPP's; set OPERATOR_CERT_PEM and OPERATOR_KEY_PEM to an operator certificate "
           "and its key (sandbankd cert new --operator --name NAME --out DIR --data FILE) to run them")


class Failure(Exception):
    """An answer that is not what the contract says."""


class Bank:
    """Sends signed requests and checks every answer's signature and status.
    A request signs with the TPP's certificate, or with the operator's when
    it concerns every TPP (operator=True)."""

    def __init__(self, base_url: str, signer: Signer, operator: Signer = None, ca_cert: str = None):
        self.base = base_url
        self.session = requests.Session()
        self.session.auth = SandbankAuth(signer)
        # The CA of an https base URL, instead of the system's. Given with
        # each request: requests lets REQUESTS_CA_BUNDLE override a
        # session's own.
        self.verify = ca_cert or True
        self.operator = SandbankAuth(operator) if operator else None
        self.verifier = None
        self.requests = 0
        self.verified = 0

    def call(self, method, target, expect, body=None, headers=None, operator=False):
        """Sends one signed request and returns the response; its JSON body,
        when there is one, is in response.data."""
        headers = dict(headers or {})
        data = None
        if body is not None:
            data = json.dumps(body).encode("utf-8")  # the exact bytes that are hashed and sent
            headers["Content-Type"] = "application/json"
        self.requests += 1
        auth = self.operator if operator else None  # None: the session's, the TPP's
        r = self.session.request(method, self.base + target, data=data, headers=headers, auth=auth,
                                 verify=self.verify, timeout=20)
        if self.verifier is not None:
            try:
                self.verifier.verify(r.headers, r.content, r.request.headers["X-Request-ID"])
            except SignatureError as e:
                raise Failure(f"{method} {target}: {e}") from e
            self.verified += 1
        if r.status_code != expect:
            raise Failure(f"{method} {target}: expected {expect}, the bank answered {r.status_code}: {r.text}")
        r.data = r.json() if r.headers.get("Content-Type", "").startswith("application/json") else None
        return r


def check(condition, what, data):
    """Stops the walkthrough unless condition holds."""
    if not condition:
        raise Failure(f"{what}; the bank answered: {json.dumps(data)}")


def sca_authorisation_id(sca_redirect: str) -> str:
    """The authorisation id is the path segment after /sca/ in scaRedirect;
    a query or further segments are not part of it."""
    parts = urlsplit(sca_redirect).path.split("/")
    if "sca" not in parts or parts.index("sca") + 1 >= len(parts) or not parts[parts.index("sca") + 1]:
        raise Failure(f"scaRedirect {sca_redirect} has no /sca/<authorisationId>")
    return parts[parts.index("sca") + 1]


def approve(bank, sca_redirect):
    """Automated SCA: the PSU approves at once. Returns the psu-id of the
    redirect the PSU would be sent to."""
    auth = sca_authorisation_id(sca_redirect)
    r = bank.call("POST", f"/v1/sandbox/sca/{auth}", 200, {"nationalId": NATIONAL_ID, "decision": "approve"})
    redirect = (r.data or {}).get("redirect", "")
    psu_id = parse_qs(urlsplit(redirect).query).get("psu-id", [""])[0]
    check(redirect.startswith(REDIRECT_URI) and psu_id, "the automated SCA answers a redirect with a psu-id", r.data)
    return psu_id


def closing_booked(balances):
    for b in balances:
        if b.get("balanceType") == "closingBooked":
            return Decimal(b["balanceAmount"]["amount"])
    raise Failure(f"no closingBooked balance in {json.dumps(balances)}")


def walkthrough(base_url, cert_path, key_path, operator_cert_path=None, operator_key_path=None,
                ca_cert_path=None, signed_responses=True):
    started = time.monotonic()
    # 1. The certificate and key, and the operator's when there is one.
    with open(cert_path, "rb") as c, open(key_path, "rb") as k:
        signer = Signer(c.read(), k.read())
    print(f"1. certificate {cert_path}")
    print(f"   keyId {signer.key_id}")
    operator = None
    if operator_cert_path:
        with open(operator_cert_path, "rb") as c, open(operator_key_path, "rb") as k:
            operator = Signer(c.read(), k.read())
        print(f"   operator certificate {operator_cert_path}, for the batch run and the sandbox clock")
        print(f"   keyId {operator.key_id}")
    if ca_cert_path:
        print(f"   HTTPS verified against the CA certificate {ca_cert_path}")
    bank = Bank(base_url, signer, operator, ca_cert_path)
    r = bank.call("GET", "/v1/sandbox/bank-certificate", 200)
    bank.verifier = ResponseVerifier(r.content, signed_responses)
    try:  # the first answer, checked once the certificate is in hand
        bank.verifier.verify(r.headers, r.content, r.request.headers["X-Request-ID"])
    except SignatureError as e:
        raise Failure(f"GET /v1/sandbox/bank-certificate: {e}") from e
    bank.verified += 1
    if signed_responses:
        print(f"   bank certificate SN={bank.verifier.cert.serial_number:X}: every response's signature is verified")
    else:
        print("   RESPONSE_SIGNING=off: the bank signs no response; every response's Digest and X-Request-ID are checked")
    verified = "response signatures verified" if signed_responses else "unsigned responses checked (Digest, X-Request-ID)"

    # 2. A consent; it answers with the SCA page.
    session = f"python-{int(time.time())}"
    r = bank.call("POST", "/v1/consents", 201,
                  headers={"TPP-Redirect-URI": REDIRECT_URI, "TPP-Session-ID": session})
    href = ((r.data or {}).get("_links", {}).get("scaRedirect") or {}).get("href", "")
    check("/sca/" in href, "POST /v1/consents answers a scaRedirect", r.data)
    print(f"2. consent: 201, scaRedirect {href}")

    # 3. Automated SCA in place of the PSU's browser.
    psu_id = approve(bank, href)
    print(f"3. SCA approved by {NATIONAL_ID}: psu-id {psu_id}")
    psu = {"PSU-ID": psu_id, "TPP-Session-ID": session, "PSU-IP-Address": PSU_IP_ADDRESS}

    # 4. Accounts, balances and transactions, page by page.
    r = bank.call("GET", "/v1/accounts?withBalance=true", 200, headers=psu)
    accounts = {a.get("iban"): a for a in (r.data or {}).get("accounts", [])}
    check(DEBTOR_IBAN in accounts, f"GET /v1/accounts lists {DEBTOR_IBAN}", r.data)
    account = accounts[DEBTOR_IBAN]
    account_id = account["resourceId"]
    print("4. accounts: " + ", ".join(f"{a.get('name')} {iban}" for iban, a in accounts.items()))
    r = bank.call("GET", f"/v1/accounts/{account_id}/balances", 200, headers=psu)
    before = closing_booked((r.data or {}).get("balances", []))
    print(f"   balances of {DEBTOR_IBAN}: closingBooked {before} NOK")
    target = f"/v1/accounts/{account_id}/transactions?limit={PAGE_LIMIT}"
    seen = set()
    for page in (1, 2):
        r = bank.call("GET", target, 200, headers=psu)
        transactions = (r.data or {}).get("transactions", {})
        booked = transactions.get("booked", [])
        check(0 < len(booked) <= PAGE_LIMIT, f"page {page} of transactions has 1 to {PAGE_LIMIT} booked items", r.data)
        ids = {t["transactionId"] for t in booked}
        check(not ids & seen, f"page {page} of transactions repeats no item of the page before", r.data)
        seen |= ids
        print(f"   transactions page {page}: {len(booked)} booked, {booked[0]['bookingDate']} to {booked[-1]['bookingDate']}")
        if page == 1:
            target = (transactions.get("_links", {}).get("next") or {}).get("href", "")
            check(target.startswith("/v1/"), "the first page links to the next", r.data)

    # 5. A payment; its creation starts its SCA, which the PSU approves.
    payment = {
        "instructedAmount": {"amount": AMOUNT, "currency": "NOK"},
        "debtorAccount": {"iban": DEBTOR_IBAN},
        "creditorAccount": {"iban": CREDITOR_IBAN},
        "creditorName": "Test Testperson 2",
        "remittanceInformationUnstructured": "Python example",
    }
    r = bank.call("POST", f"{NDCT}?allowLogicalDuplicate=true", 201, payment,
                  headers={"TPP-Redirect-URI": REDIRECT_URI, **psu})
    links = (r.data or {}).get("_links", {})
    check(r.data.get("transactionStatus") == "RCVD" and "scaRedirect" in links and "scaStatus" in links,
          "the payment is RCVD with a scaRedirect and a scaStatus", r.data)
    payment_id = r.data["paymentId"]
    approve(bank, links["scaRedirect"]["href"])
    r = bank.call("GET", links["scaStatus"]["href"], 200)
    check(r.data.get("scaStatus") == "FINALISED", "the payment's SCA is FINALISED", r.data)
    r = bank.call("GET", f"{NDCT}/{payment_id}/status", 200)
    status = r.data.get("transactionStatus")
    # ACSC: a bank in batchMode immediate settles a due payment when it is approved.
    check(status in ("ACTC", "ACCP", "ACSC"), "the approved payment is ACTC, ACCP or ACSC", r.data)
    print(f"5. payment {payment_id} of {AMOUNT} NOK to {CREDITOR_IBAN}: RCVD, SCA FINALISED, {status}")

    if status != "ACSC" and bank.operator is None:
        print(SKIPPED)
        print(f"The walkthrough held up to the batch run: {bank.requests} requests, {bank.verified} {verified}, "
              f"{time.monotonic() - started:.1f} s; payment {payment_id} is {status} and waits for a batch run.")
        return

    # 6. A batch run, the operator's. ACCP: today (sandbox clock,
    # Europe/Oslo) is not a banking day, so the sandbox clock moves to the
    # execution date, before that day's first batch run, and back to the
    # real clock at the end.
    moved = False
    try:
        if status == "ACSC":
            print("6. no batch run needed: the bank settled the payment when it was approved (batchMode immediate)")
        else:
            if status == "ACCP":
                day = bank.call("GET", f"{NDCT}/{payment_id}", 200).data.get("requestedExecutionDate", "")
                r = bank.call("PUT", "/v1/sandbox/clock", 200, {"now": f"{day}T03:00:00Z"}, operator=True)
                moved = True
                check(r.data.get("now", "").startswith(day), f"the sandbox clock moves to {day}", r.data)
                print(f"6. today is not a banking day: the operator moves the sandbox clock to {r.data['now']}")
            r = bank.call("POST", "/v1/sandbox/batch-runs", 200, operator=True)
            check(r.data.get("errors") == [], "the batch run has no errors", r.data)
            print(f"{'  ' if moved else '6.'} the operator's batch run {r.data.get('runId')}: {json.dumps(r.data.get('counts'))}")

        # 7. The payment is settled and the balance moved.
        r = bank.call("GET", f"{NDCT}/{payment_id}/status", 200)
        check(r.data.get("transactionStatus") == "ACSC", "the payment is ACSC", r.data)
        r = bank.call("GET", f"/v1/accounts/{account_id}/balances", 200, headers=psu)
        after = closing_booked(r.data.get("balances", []))
        check(after <= before - Decimal(AMOUNT), f"closingBooked fell by at least {AMOUNT} NOK from {before}", r.data)
        print(f"7. payment {payment_id}: ACSC; closingBooked {before} -> {after} NOK")
    finally:
        if moved:
            r = bank.call("PUT", "/v1/sandbox/clock", 200, {"offsetSeconds": 0}, operator=True)
            print(f"   the operator sets the sandbox clock back on the real clock: {r.data.get('now')}")
    print(f"The walkthrough held: {bank.requests} requests, {bank.verified} {verified}, "
          f"{time.monotonic() - started:.1f} s.")


def main(argv):
    if len(argv) != 4:
        print("usage: walkthrough.py BASE_URL CERT_PEM KEY_PEM", file=sys.stderr)
        return 2
    operator_cert = os.environ.get("OPERATOR_CERT_PEM", "")
    operator_key = os.environ.get("OPERATOR_KEY_PEM", "")
    if bool(operator_cert) != bool(operator_key):
        print("walkthrough.py: set both OPERATOR_CERT_PEM and OPERATOR_KEY_PEM, or neither; only "
              + ("OPERATOR_CERT_PEM" if operator_cert else "OPERATOR_KEY_PEM") + " is set", file=sys.stderr)
        return 2
    response_signing = os.environ.get("RESPONSE_SIGNING", "")
    if response_signing not in ("", "rsa", "ecdsa", "off"):
        print(f"walkthrough.py: RESPONSE_SIGNING is {response_signing!r}; write rsa, ecdsa or off, "
              "as the bank's setting responseSigning", file=sys.stderr)
        return 2
    base = argv[1].rstrip("/")
    base = base[:-3] if base.endswith("/v1") else base
    try:
        walkthrough(base, argv[2], argv[3], operator_cert or None, operator_key or None,
                    os.environ.get("CA_CERT_PEM") or None, response_signing != "off")
    except (Failure, SignatureError, ValueError, OSError, requests.RequestException) as e:
        print(f"FAILED: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
