"""Signs requests to Sandbank's PSD2 API and verifies the bank's signed
responses (Berlin Group NextGenPSD2 1.3 with the cavage HTTP signature
draft; Sandbank's docs/TPP-GUIDE.md, section 2, gives the rules).

Copy this file into your code base. It needs `cryptography`; `SandbankAuth`
plugs it into `requests`:

    signer = Signer(open("cert.pem", "rb").read(), open("key.pem", "rb").read())
    session = requests.Session()
    session.auth = SandbankAuth(signer)
    response = session.get(bank + "/v1/accounts", headers={"PSU-ID": psu_id})
    verifier.verify(response.headers, response.content, response.request.headers["X-Request-ID"])
"""

import base64
import email.utils
import hashlib
import uuid

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa

# The headers signed whenever a request carries them, in signing order.
# The bank requires x-request-id always, digest whenever there is a body,
# and psu-id, psu-corporate-id, tpp-redirect-uri and date whenever they are
# sent; (request-target) is optional but binds the method, path and query.
SIGNED_HEADERS = ["(request-target)", "date", "digest", "x-request-id",
                  "psu-id", "psu-corporate-id", "tpp-redirect-uri"]

# The algorithm this client signs with: RSA PKCS#1 v1.5 over SHA-256.
SIGNING_ALGORITHM = "rsa-sha256"


class SignatureError(Exception):
    """A response whose Digest or Signature does not hold."""


def digest(body: bytes) -> str:
    """The Digest header of a body: SHA-256 over the exact bytes sent, in
    base64. Hash the bytes you hand to the HTTP client, never a dict you
    serialise again later."""
    return "SHA-256=" + base64.b64encode(hashlib.sha256(body).digest()).decode("ascii")


def signing_string(lines):
    """The signing string: "name: value" per signed header, names in lower
    case, in the order of the headers list, joined by "\\n" with no trailing
    newline."""
    return "\n".join(f"{name}: {value}" for name, value in lines)


def mime_encode(value: str) -> str:
    """RFC 2047: a header value that is not ASCII is sent as one encoded
    word, =?utf-8?B?<base64 of the UTF-8 bytes>?=.

    When it is needed: the Signature header holds the keyId, and the keyId
    holds the issuer DN as `cryptography` writes it, with letters such as
    æ, ø and å as they are (CN=Tromsø CA). HTTP header values are bytes:
    requests refuses characters above U+00FF and sends the others as
    Latin-1, which the bank would not read as the issuer's UTF-8. The bank
    decodes an encoded Signature value (utf-8, iso-8859-1 or us-ascii). The
    bank's own test CA is ASCII, so its keyId goes out as it is."""
    if value.isascii():
        return value
    return "=?utf-8?B?" + base64.b64encode(value.encode("utf-8")).decode("ascii") + "?="


class Signer:
    """Signs requests with a TPP certificate and its RSA key."""

    def __init__(self, cert_pem: bytes, key_pem: bytes):
        self.cert = x509.load_pem_x509_certificate(cert_pem)
        self.key = serialization.load_pem_private_key(key_pem, password=None)
        if not isinstance(self.key, rsa.RSAPrivateKey):
            raise ValueError("the key is not an RSA key; the bank verifies rsa-sha256 signatures")
        if self.key.public_key().public_numbers() != self.cert.public_key().public_numbers():
            raise ValueError("the key does not belong to the certificate")
        # keyId: the certificate's serial in hexadecimal (not decimal) and
        # its issuer DN in RFC 4514 (RFC 2253) form. cryptography writes the
        # organizationIdentifier of the bank's test CA as 2.5.4.97=NTRNO-...;
        # the bank accepts a dotted OID as well as the name.
        self.key_id = f"SN={self.cert.serial_number:X},CA={self.cert.issuer.rfc4514_string()}"
        # TPP-Signature-Certificate: the certificate as base64 DER, one line.
        self.certificate_header = base64.b64encode(
            self.cert.public_bytes(serialization.Encoding.DER)).decode("ascii")

    def sign(self, method: str, target: str, headers, body: bytes = b""):
        """Adds X-Request-ID (unless set), Date, Digest (with a body),
        TPP-Signature-Certificate and Signature to headers, a dict-like
        object with case-insensitive names (requests' headers are).

        target is the path and query exactly as they go on the request line,
        e.g. /v1/accounts?withBalance=true."""
        if not headers.get("X-Request-ID"):
            headers["X-Request-ID"] = str(uuid.uuid4())  # any unique string
        # Date in IMF-fixdate form; signed, since the bank requires a Date
        # that is sent to be signed.
        headers["Date"] = email.utils.formatdate(usegmt=True)
        if body:
            headers["Digest"] = digest(body)
        lines = []
        for name in SIGNED_HEADERS:
            if name == "(request-target)":
                # The method in lower case, a space, the path with its query.
                lines.append((name, f"{method.lower()} {target}"))
            elif headers.get(name) is not None:
                value = headers[name]
                if not value.isascii():
                    # The bank signs header values as it receives them and
                    # decodes only the Signature header: keep the others
                    # ASCII (percent-encode a redirect URI).
                    raise ValueError(f"the {name} header is not ASCII; percent-encode it")
                lines.append((name, value))
        signature = self.key.sign(signing_string(lines).encode("utf-8"),
                                  padding.PKCS1v15(), hashes.SHA256())
        headers["TPP-Signature-Certificate"] = self.certificate_header
        # The keyId goes between the quotes as it is: the backslashes of an
        # escaped DN (O=Bank\, Inc) are the DN's own, not doubled, and
        # RFC 4514 escapes every double quote of a DN.
        headers["Signature"] = mime_encode(
            f'keyId="{self.key_id}",'
            f'algorithm="{SIGNING_ALGORITHM}",'
            f'headers="{" ".join(name for name, _ in lines)}",'
            f'signature="{base64.b64encode(signature).decode("ascii")}"')
        return headers


try:
    import requests

    class SandbankAuth(requests.auth.AuthBase):
        """Signs every request of a requests.Session. requests calls it on
        the prepared request, after the body and URL are final, so it signs
        the bytes and the request line that are sent."""

        def __init__(self, signer: Signer):
            self.signer = signer

        def __call__(self, r):
            body = r.body or b""
            if isinstance(body, str):
                body = body.encode("utf-8")
                r.body = body
            self.signer.sign(r.method, r.path_url, r.headers, body)
            return r
except ImportError:  # the signer itself needs only cryptography
    pass


# The algorithms the bank may sign its responses with, and how to verify
# each: rsa-sha256 (the default) and ecdsa-sha256 (the bank's setting
# responseSigning ecdsa, with an ECDSA P-256 bank certificate). A new
# algorithm is one more entry here; anything else is refused.
def _verify_rsa_sha256(public_key, signature: bytes, data: bytes):
    if not isinstance(public_key, rsa.RSAPublicKey):
        raise SignatureError("rsa-sha256 needs an RSA bank certificate")
    public_key.verify(signature, data, padding.PKCS1v15(), hashes.SHA256())


def _verify_ecdsa_sha256(public_key, signature: bytes, data: bytes):
    if not isinstance(public_key, ec.EllipticCurvePublicKey):
        raise SignatureError("ecdsa-sha256 needs an ECDSA bank certificate")
    # The signature is the ASN.1 DER of (r, s), as cryptography expects.
    public_key.verify(signature, data, ec.ECDSA(hashes.SHA256()))


RESPONSE_ALGORITHMS = {"rsa-sha256": _verify_rsa_sha256, "ecdsa-sha256": _verify_ecdsa_sha256}

# The headers the bank's response signature must cover.
RESPONSE_SIGNED_HEADERS = ["date", "digest", "x-request-id"]


def parse_signature(value: str) -> dict:
    """Parses a Signature header: name="value" pairs separated by commas,
    values quoted with backslash escapes."""
    params, i = {}, 0
    while i < len(value):
        while i < len(value) and value[i] in " ,":
            i += 1
        if i == len(value):
            break
        eq = value.find("=", i)
        if eq < 0 or eq + 1 >= len(value) or value[eq + 1] != '"':
            raise SignatureError(f"the Signature header is malformed near {value[i:i + 24]!r}")
        name, i, out = value[i:eq].strip().lower(), eq + 2, []
        while i < len(value) and value[i] != '"':
            if value[i] == "\\" and i + 1 < len(value):
                i += 1
            out.append(value[i])
            i += 1
        if i == len(value):
            raise SignatureError(f"the Signature header's {name} has no closing quote")
        params[name] = "".join(out)
        i += 1
    return params


class ResponseVerifier:
    """Verifies the bank's response signatures with its certificate
    (GET /v1/sandbox/bank-certificate).

    signed=False is for a Sandbank whose setting responseSigning is off (a
    load test): its responses carry no Signature, so a response without one
    passes on its Digest and X-Request-ID alone (one with a Signature is
    still verified). A real bank signs every response: keep the default."""

    def __init__(self, bank_cert_pem: bytes, signed: bool = True):
        self.cert = x509.load_pem_x509_certificate(bank_cert_pem)
        self.signed = signed

    def verify(self, headers, body: bytes, request_id: str):
        """Checks one response: headers is a case-insensitive mapping
        (requests' response.headers), body the exact bytes received and
        request_id the X-Request-ID the request carried. Raises
        SignatureError."""
        want = digest(body)
        if headers.get("Digest") != want:
            raise SignatureError(f"the response Digest {headers.get('Digest')!r} does not match the body, whose digest is {want}")
        if headers.get("X-Request-ID") != request_id:
            raise SignatureError(f"the response X-Request-ID {headers.get('X-Request-ID')!r} is not the request's {request_id!r}")
        if not headers.get("Signature"):
            if not self.signed:
                return  # responseSigning off: the Digest and X-Request-ID above are all there is
            raise SignatureError("the response has no Signature header")
        p = parse_signature(headers["Signature"])
        for name in ("keyid", "algorithm", "headers", "signature"):
            if name not in p:
                raise SignatureError(f"the response Signature lacks {name}")
        serial = p["keyid"].split(",", 1)[0]
        if not serial.upper().startswith("SN=") or int(serial[3:], 16) != self.cert.serial_number:
            raise SignatureError(f"the response keyId {p['keyid']!r} does not name the bank certificate (SN={self.cert.serial_number:X})")
        verify = RESPONSE_ALGORITHMS.get(p["algorithm"].lower())
        if verify is None:
            raise SignatureError(f"the response is signed with algorithm {p['algorithm']!r}, which this client does not know "
                                 f"(it knows {', '.join(RESPONSE_ALGORITHMS)})")
        names = p["headers"].lower().split()
        for name in RESPONSE_SIGNED_HEADERS:
            if name not in names:
                raise SignatureError(f"the response signature does not cover {name}")
        lines = []
        for name in names:
            if headers.get(name) is None:
                raise SignatureError(f"the response signature lists {name}, but the response has no {name} header")
            lines.append((name, headers[name]))  # requests joins repeated headers with ", "
        try:
            verify(self.cert.public_key(), base64.b64decode(p["signature"], validate=True),
                   signing_string(lines).encode("utf-8"))
        except (InvalidSignature, ValueError) as e:
            raise SignatureError("the response signature does not verify with the bank certificate") from e
