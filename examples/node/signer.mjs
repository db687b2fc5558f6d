// Signs requests to Sandbank's PSD2 API and verifies the bank's signed
// responses (Berlin Group NextGenPSD2 1.3 with the cavage HTTP signature
// draft; Sandbank's docs/TPP-GUIDE.md, section 2, gives the rules).
//
// Copy this file into your code base. It needs only Node's crypto module;
// signedFetch sends a signed request with the built-in fetch:
//
//   const signer = new Signer(readFileSync('cert.pem'), readFileSync('key.pem'));
//   const { response, body } = await signedFetch(signer, bank + '/v1/accounts', {
//     headers: { 'PSU-ID': psuId } });
//   verifier.verify(response.headers, body, response.requestId);

import { X509Certificate, createHash, createPrivateKey, randomUUID, sign, verify } from 'node:crypto';

// The headers signed whenever a request carries them, in signing order.
// The bank requires x-request-id always, digest whenever there is a body,
// and psu-id, psu-corporate-id, tpp-redirect-uri and date whenever they are
// sent; (request-target) is optional but binds the method, path and query.
export const SIGNED_HEADERS = ['(request-target)', 'date', 'digest', 'x-request-id',
  'psu-id', 'psu-corporate-id', 'tpp-redirect-uri'];

// The algorithm this client signs with: RSA PKCS#1 v1.5 over SHA-256.
export const SIGNING_ALGORITHM = 'rsa-sha256';

export class SignatureError extends Error {}

const isAscii = (s) => /^[\x00-\x7f]*$/.test(s);

// The Digest header of a body: SHA-256 over the exact bytes sent, in
// base64. Hash the Buffer you hand to fetch, never an object you serialise
// again later.
export function digest(body) {
  return 'SHA-256=' + createHash('sha256').update(body).digest('base64');
}

// The signing string: "name: value" per signed header, names in lower
// case, in the order of the headers list, joined by "\n" with no trailing
// newline.
export function signingString(lines) {
  return lines.map(([name, value]) => `${name}: ${value}`).join('\n');
}

// RFC 2047: a header value that is not ASCII is sent as one encoded word,
// =?utf-8?B?<base64 of the UTF-8 bytes>?=.
//
// When it is needed: the Signature header holds the keyId, and the keyId
// holds the issuer DN with letters such as æ, ø and å as they are
// (CN=Tromsø CA). HTTP header values are bytes: fetch refuses characters
// above U+00FF and sends the others as Latin-1, which the bank would not
// read as the issuer's UTF-8. The bank decodes an encoded Signature value
// (utf-8, iso-8859-1 or us-ascii). The bank's own test CA is ASCII, so its
// keyId goes out as it is.
export function mimeEncode(value) {
  if (isAscii(value)) return value;
  return '=?utf-8?B?' + Buffer.from(value, 'utf8').toString('base64') + '?=';
}

// The issuer DN in RFC 4514 (RFC 2253) form. X509Certificate.issuer has
// one RDN per line, most significant first (C=NO first), and the attributes
// of a multi-valued RDN joined by " + ". OpenSSL, which writes it, already
// escapes the values per RFC 2253 (\, \+ \" \\ \< \> \; a leading \# or
// space, a trailing space, control characters as \XX) and leaves other
// characters such as ø as they are. So the RDNs are put in RFC 4514 order,
// least significant first, joined by ",", and a multi-valued RDN's
// separator becomes "+"; the values stay as they are. For the bank's test
// CA: organizationIdentifier=NTRNO-999999999,CN=Sandbank Sandbox CA,
// O=Sandbank Sandbox,C=NO.
export function issuerRfc4514(cert) {
  return cert.issuer.split('\n').reverse().map((rdn) => {
    const attributes = [];
    let current = '';
    for (let i = 0; i < rdn.length; i++) {
      if (rdn[i] === '\\' && i + 1 < rdn.length) {     // an escaped character: keep both
        current += rdn[i] + rdn[i + 1];
        i++;
      } else if (rdn[i] === '+') {                      // " + " between attributes
        attributes.push(current);
        current = '';
      } else {
        current += rdn[i];
      }
    }
    attributes.push(current);
    // Drop the separator's spaces: one before and one after each "+".
    return attributes.map((a, i) => {
      let out = a;
      if (i > 0 && out.startsWith(' ')) out = out.slice(1);
      if (i < attributes.length - 1 && out.endsWith(' ')) out = out.slice(0, -1);
      return out;
    }).join('+');
  }).join(',');
}

export class Signer {
  constructor(certPem, keyPem) {
    this.cert = new X509Certificate(certPem);
    this.key = createPrivateKey(keyPem);
    if (this.key.asymmetricKeyType !== 'rsa') {
      throw new Error('the key is not an RSA key; the bank verifies rsa-sha256 signatures');
    }
    if (!this.cert.checkPrivateKey(this.key)) {
      throw new Error('the key does not belong to the certificate');
    }
    // keyId: the certificate's serial in hexadecimal (serialNumber is hex
    // already) and its issuer DN in RFC 4514 form.
    this.keyId = `SN=${this.cert.serialNumber},CA=${issuerRfc4514(this.cert)}`;
    // TPP-Signature-Certificate: the certificate as base64 DER, one line.
    this.certificateHeader = this.cert.raw.toString('base64');
  }

  // Adds X-Request-ID (unless set), Date, Digest (with a body),
  // TPP-Signature-Certificate and Signature to headers, a Headers object.
  // target is the path and query exactly as they go on the request line,
  // e.g. /v1/accounts?withBalance=true; body a Buffer or undefined.
  sign(method, target, headers, body) {
    if (!headers.get('x-request-id')) headers.set('X-Request-ID', randomUUID()); // any unique string
    // Date in IMF-fixdate form; signed, since the bank requires a Date that
    // is sent to be signed.
    headers.set('Date', new Date().toUTCString());
    if (body && body.length > 0) headers.set('Digest', digest(body));
    const lines = [];
    for (const name of SIGNED_HEADERS) {
      if (name === '(request-target)') {
        // The method in lower case, a space, the path with its query.
        lines.push([name, `${method.toLowerCase()} ${target}`]);
      } else if (headers.has(name)) {
        const value = headers.get(name);
        if (!isAscii(value)) {
          // The bank signs header values as it receives them and decodes
          // only the Signature header: keep the others ASCII (percent-encode
          // a redirect URI).
          throw new Error(`the ${name} header is not ASCII; percent-encode it`);
        }
        lines.push([name, value]);
      }
    }
    const signature = sign('sha256', Buffer.from(signingString(lines), 'utf8'), this.key); // PKCS#1 v1.5 for RSA
    headers.set('TPP-Signature-Certificate', this.certificateHeader);
    // The keyId goes between the quotes as it is: the backslashes of an
    // escaped DN (O=Bank\, Inc) are the DN's own, not doubled, and RFC 4514
    // escapes every double quote of a DN.
    headers.set('Signature', mimeEncode(
      `keyId="${this.keyId}",algorithm="${SIGNING_ALGORITHM}",` +
      `headers="${lines.map(([name]) => name).join(' ')}",signature="${signature.toString('base64')}"`));
    return headers;
  }
}

// Sends a signed request with fetch. body is a Buffer (sent and hashed as
// it is) or undefined. Returns { response, body: Buffer, requestId }.
export async function signedFetch(signer, url, { method = 'GET', headers = {}, body, timeoutMs = 20000 } = {}) {
  const u = new URL(url);
  const h = new Headers(headers);
  signer.sign(method, u.pathname + u.search, h, body);
  const response = await fetch(u, { method, headers: h, body, signal: AbortSignal.timeout(timeoutMs) });
  return { response, body: Buffer.from(await response.arrayBuffer()), requestId: h.get('x-request-id') };
}

// The algorithms the bank may sign its responses with, and how to verify
// each: rsa-sha256 (the default) and ecdsa-sha256 (the bank's setting
// responseSigning ecdsa, with an ECDSA P-256 bank certificate). A new
// algorithm is one more entry here; anything else is refused.
export const RESPONSE_ALGORITHMS = {
  'rsa-sha256': (publicKey, signature, data) => {
    if (publicKey.asymmetricKeyType !== 'rsa') throw new SignatureError('rsa-sha256 needs an RSA bank certificate');
    return verify('sha256', data, publicKey, signature); // PKCS#1 v1.5 for RSA
  },
  'ecdsa-sha256': (publicKey, signature, data) => {
    if (publicKey.asymmetricKeyType !== 'ec') throw new SignatureError('ecdsa-sha256 needs an ECDSA bank certificate');
    // The signature is the ASN.1 DER of (r, s), node's default encoding.
    return verify('sha256', data, { key: publicKey, dsaEncoding: 'der' }, signature);
  },
};

// The headers the bank's response signature must cover.
export const RESPONSE_SIGNED_HEADERS = ['date', 'digest', 'x-request-id'];

// Parses a Signature header: name="value" pairs separated by commas, values
// quoted with backslash escapes.
export function parseSignature(value) {
  const params = {};
  let i = 0;
  while (i < value.length) {
    while (i < value.length && (value[i] === ' ' || value[i] === ',')) i++;
    if (i === value.length) break;
    const eq = value.indexOf('=', i);
    if (eq < 0 || value[eq + 1] !== '"') {
      throw new SignatureError(`the Signature header is malformed near ${JSON.stringify(value.slice(i, i + 24))}`);
    }
    const name = value.slice(i, eq).trim().toLowerCase();
    let out = '';
    for (i = eq + 2; i < value.length && value[i] !== '"'; i++) {
      if (value[i] === '\\' && i + 1 < value.length) i++;
      out += value[i];
    }
    if (i === value.length) throw new SignatureError(`the Signature header's ${name} has no closing quote`);
    params[name] = out;
    i++;
  }
  return params;
}

export class ResponseVerifier {
  // bankCertPem: the bank's certificate (GET /v1/sandbox/bank-certificate).
  // signed: false is for a Sandbank whose setting responseSigning is off (a
  // load test): its responses carry no Signature, so a response without
  // one passes on its Digest and X-Request-ID alone (one with a Signature
  // is still verified). A real bank signs every response: keep the default.
  constructor(bankCertPem, { signed = true } = {}) {
    this.cert = new X509Certificate(bankCertPem);
    this.signed = signed;
  }

  // Checks one response: headers is the response's Headers, body the exact
  // bytes received (a Buffer) and requestId the X-Request-ID the request
  // carried. Throws SignatureError.
  verify(headers, body, requestId) {
    const want = digest(body);
    if (headers.get('digest') !== want) {
      throw new SignatureError(`the response Digest ${JSON.stringify(headers.get('digest'))} does not match the body, whose digest is ${want}`);
    }
    if (headers.get('x-request-id') !== requestId) {
      throw new SignatureError(`the response X-Request-ID ${JSON.stringify(headers.get('x-request-id'))} is not the request's ${JSON.stringify(requestId)}`);
    }
    if (!headers.get('signature')) {
      if (!this.signed) return; // responseSigning off: the Digest and X-Request-ID above are all there is
      throw new SignatureError('the response has no Signature header');
    }
    const p = parseSignature(headers.get('signature'));
    for (const name of ['keyid', 'algorithm', 'headers', 'signature']) {
      if (!(name in p)) throw new SignatureError(`the response Signature lacks ${name}`);
    }
    const serial = p.keyid.split(',')[0];
    if (!/^SN=[0-9a-f]+$/i.test(serial) || BigInt('0x' + serial.slice(3)) !== BigInt('0x' + this.cert.serialNumber)) {
      throw new SignatureError(`the response keyId ${JSON.stringify(p.keyid)} does not name the bank certificate (SN=${this.cert.serialNumber})`);
    }
    const check = RESPONSE_ALGORITHMS[p.algorithm.toLowerCase()];
    if (!check) {
      throw new SignatureError(`the response is signed with algorithm ${JSON.stringify(p.algorithm)}, which this client does not know (it knows ${Object.keys(RESPONSE_ALGORITHMS).join(', ')})`);
    }
    const names = p.headers.toLowerCase().split(' ').filter(Boolean);
    for (const name of RESPONSE_SIGNED_HEADERS) {
      if (!names.includes(name)) throw new SignatureError(`the response signature does not cover ${name}`);
    }
    const lines = names.map((name) => {
      // Headers.get joins repeated headers with ", ", as the bank does.
      if (!headers.has(name)) throw new SignatureError(`the response signature lists ${name}, but the response has no ${name} header`);
      return [name, headers.get(name)];
    });
    if (!check(this.cert.publicKey, Buffer.from(p.signature, 'base64'), Buffer.from(signingString(lines), 'utf8'))) {
      throw new SignatureError('the response signature does not verify with the bank certificate');
    }
  }
}
