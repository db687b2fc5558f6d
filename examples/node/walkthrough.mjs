// A TPP's whole path through Sandbank, signed with signer.mjs: a consent
// with automated SCA, accounts, balances and paged transactions, a payment
// with its SCA, a batch run and the settled payment. Every response's
// signature is verified with the bank's certificate.
//
// The batch run and the sandbox clock are the operator's: they are signed
// with the operator certificate in OPERATOR_CERT_PEM and OPERATOR_KEY_PEM
// (sandbankd cert new --operator --name NAME --out DIR --data FILE), and
// everything else with the TPP's. Without those two the walkthrough says
// that it skips the batch run and ends with the payment approved.
//
// An https BASE_URL (the bank's HTTPS listener) is verified against the CA
// certificate in CA_CERT_PEM, the bank's test CA (sandbankd cert ca, or
// GET /v1/sandbox/ca-certificate); without it, against the system's CAs.
// Node reads extra CAs only at start, from NODE_EXTRA_CA_CERTS: run.sh sets
// it to CA_CERT_PEM. RESPONSE_SIGNING=off says the bank's setting
// responseSigning is off: its responses carry no Signature, and only their
// Digest and X-Request-ID are checked (rsa and ecdsa, or nothing, verify
// every signature).
//
// Usage: [OPERATOR_CERT_PEM=... OPERATOR_KEY_PEM=...] [NODE_EXTRA_CA_CERTS=... CA_CERT_PEM=...]
//        [RESPONSE_SIGNING=off] node walkthrough.mjs BASE_URL CERT_PEM KEY_PEM
// Exits 0 when every answer was what the contract says, 1 otherwise, 2 for
// a usage error.

import { readFileSync } from 'node:fs';
import { ResponseVerifier, SignatureError, Signer, signedFetch } from './signer.mjs';

const NATIONAL_ID = '13039319955';       // Test Testperson 1 of the known state
const DEBTOR_IBAN = 'NO3815030123457';   // their Brukskonto
const CREDITOR_IBAN = 'NO3015030234569'; // Test Testperson 2's Brukskonto
const AMOUNT = '100.30';
const REDIRECT_URI = 'https://tpp.example/callback';
const PSU_IP_ADDRESS = '192.0.2.10';
const PAGE_LIMIT = 5;
const NDCT = '/v1/payments/norwegian-domestic-credit-transfers';
const SKIPPED = "skipped: steps 6 (batch run) and 7 (settled payment): a batch run and the sandbox clock are "
  + "the operator's, not a TPP's; set OPERATOR_CERT_PEM and OPERATOR_KEY_PEM to an operator certificate "
  + 'and its key (sandbankd cert new --operator --name NAME --out DIR --data FILE) to run them';

// An answer that is not what the contract says.
class Failure extends Error {}

// Sends signed requests and checks every answer's signature and status. A
// request signs with the TPP's certificate, or with the operator's when it
// concerns every TPP ({ operator: true }).
class Bank {
  constructor(baseUrl, signer, operator = null) {
    this.base = baseUrl;
    this.signer = signer;
    this.operator = operator;
    this.verifier = null;
    this.requests = 0;
    this.verified = 0;
  }

  // Sends one signed request; returns { status, headers, body, data }, data
  // being the parsed JSON body when there is one.
  async call(method, target, expect, json, headers = {}, { operator = false } = {}) {
    let body;
    if (json !== undefined) {
      body = Buffer.from(JSON.stringify(json), 'utf8'); // the exact bytes that are hashed and sent
      headers = { ...headers, 'Content-Type': 'application/json' };
    }
    this.requests++;
    const signer = operator ? this.operator : this.signer;
    const { response, body: raw, requestId } = await signedFetch(signer, this.base + target, { method, headers, body });
    if (this.verifier) {
      try {
        this.verifier.verify(response.headers, raw, requestId);
      } catch (e) {
        if (e instanceof SignatureError) throw new Failure(`${method} ${target}: ${e.message}`);
        throw e;
      }
      this.verified++;
    }
    if (response.status !== expect) {
      throw new Failure(`${method} ${target}: expected ${expect}, the bank answered ${response.status}: ${raw.toString('utf8')}`);
    }
    const isJson = (response.headers.get('content-type') || '').startsWith('application/json');
    return { status: response.status, headers: response.headers, body: raw, requestId, data: isJson ? JSON.parse(raw.toString('utf8')) : null };
  }
}

// Stops the walkthrough unless condition holds.
function check(condition, what, data) {
  if (!condition) throw new Failure(`${what}; the bank answered: ${JSON.stringify(data)}`);
}

// The authorisation id is the path segment after /sca/ in scaRedirect; a
// query or further segments are not part of it.
function scaAuthorisationId(scaRedirect) {
  const parts = new URL(scaRedirect).pathname.split('/');
  const at = parts.indexOf('sca');
  if (at < 0 || !parts[at + 1]) throw new Failure(`scaRedirect ${scaRedirect} has no /sca/<authorisationId>`);
  return parts[at + 1];
}

// Automated SCA: the PSU approves at once. Returns the psu-id of the
// redirect the PSU would be sent to.
async function approve(bank, scaRedirect) {
  const auth = scaAuthorisationId(scaRedirect);
  const r = await bank.call('POST', `/v1/sandbox/sca/${auth}`, 200, { nationalId: NATIONAL_ID, decision: 'approve' });
  const redirect = r.data?.redirect ?? '';
  const psuId = redirect ? new URL(redirect).searchParams.get('psu-id') : null;
  check(redirect.startsWith(REDIRECT_URI) && psuId, 'the automated SCA answers a redirect with a psu-id', r.data);
  return psuId;
}

// Amounts are decimal strings; compare them in hundredths (NOK has two).
function cents(amount) {
  const [whole, fraction = ''] = amount.replace('-', '').split('.');
  const value = BigInt(whole) * 100n + BigInt((fraction + '00').slice(0, 2));
  return amount.startsWith('-') ? -value : value;
}

function closingBooked(balances = []) {
  const b = balances.find((x) => x.balanceType === 'closingBooked');
  if (!b) throw new Failure(`no closingBooked balance in ${JSON.stringify(balances)}`);
  return b.balanceAmount.amount;
}

async function walkthrough(baseUrl, certPath, keyPath, operatorCertPath, operatorKeyPath, caCertPath, signedResponses) {
  const started = Date.now();
  // 1. The certificate and key, and the operator's when there is one.
  const signer = new Signer(readFileSync(certPath), readFileSync(keyPath));
  console.log(`1. certificate ${certPath}`);
  console.log(`   keyId ${signer.keyId}`);
  let operator = null;
  if (operatorCertPath) {
    operator = new Signer(readFileSync(operatorCertPath), readFileSync(operatorKeyPath));
    console.log(`   operator certificate ${operatorCertPath}, for the batch run and the sandbox clock`);
    console.log(`   keyId ${operator.keyId}`);
  }
  if (caCertPath) console.log(`   HTTPS verified against the CA certificate ${caCertPath}`);
  const bank = new Bank(baseUrl, signer, operator);
  let r = await bank.call('GET', '/v1/sandbox/bank-certificate', 200);
  bank.verifier = new ResponseVerifier(r.body, { signed: signedResponses });
  try { // the first answer, checked once the certificate is in hand
    bank.verifier.verify(r.headers, r.body, r.requestId);
  } catch (e) {
    throw new Failure(`GET /v1/sandbox/bank-certificate: ${e.message}`);
  }
  bank.verified++;
  if (signedResponses) {
    console.log(`   bank certificate SN=${bank.verifier.cert.serialNumber}: every response's signature is verified`);
  } else {
    console.log("   RESPONSE_SIGNING=off: the bank signs no response; every response's Digest and X-Request-ID are checked");
  }
  const verified = signedResponses ? 'response signatures verified' : 'unsigned responses checked (Digest, X-Request-ID)';

  // 2. A consent; it answers with the SCA page.
  const session = `node-${Math.floor(Date.now() / 1000)}`;
  r = await bank.call('POST', '/v1/consents', 201, undefined, { 'TPP-Redirect-URI': REDIRECT_URI, 'TPP-Session-ID': session });
  const href = r.data?._links?.scaRedirect?.href ?? '';
  check(href.includes('/sca/'), 'POST /v1/consents answers a scaRedirect', r.data);
  console.log(`2. consent: 201, scaRedirect ${href}`);

  // 3. Automated SCA in place of the PSU's browser.
  const psuId = await approve(bank, href);
  console.log(`3. SCA approved by ${NATIONAL_ID}: psu-id ${psuId}`);
  const psu = { 'PSU-ID': psuId, 'TPP-Session-ID': session, 'PSU-IP-Address': PSU_IP_ADDRESS };

  // 4. Accounts, balances and transactions, page by page.
  r = await bank.call('GET', '/v1/accounts?withBalance=true', 200, undefined, psu);
  const accounts = r.data?.accounts ?? [];
  const account = accounts.find((a) => a.iban === DEBTOR_IBAN);
  check(account, `GET /v1/accounts lists ${DEBTOR_IBAN}`, r.data);
  const accountId = account.resourceId;
  console.log(`4. accounts: ${accounts.map((a) => `${a.name} ${a.iban}`).join(', ')}`);
  r = await bank.call('GET', `/v1/accounts/${accountId}/balances`, 200, undefined, psu);
  const before = closingBooked(r.data?.balances);
  console.log(`   balances of ${DEBTOR_IBAN}: closingBooked ${before} NOK`);
  let target = `/v1/accounts/${accountId}/transactions?limit=${PAGE_LIMIT}`;
  const seen = new Set();
  for (const page of [1, 2]) {
    r = await bank.call('GET', target, 200, undefined, psu);
    const transactions = r.data?.transactions ?? {};
    const booked = transactions.booked ?? [];
    check(booked.length > 0 && booked.length <= PAGE_LIMIT, `page ${page} of transactions has 1 to ${PAGE_LIMIT} booked items`, r.data);
    check(booked.every((t) => !seen.has(t.transactionId)), `page ${page} of transactions repeats no item of the page before`, r.data);
    booked.forEach((t) => seen.add(t.transactionId));
    console.log(`   transactions page ${page}: ${booked.length} booked, ${booked[0].bookingDate} to ${booked[booked.length - 1].bookingDate}`);
    if (page === 1) {
      target = transactions._links?.next?.href ?? '';
      check(target.startsWith('/v1/'), 'the first page links to the next', r.data);
    }
  }

  // 5. A payment; its creation starts its SCA, which the PSU approves.
  const payment = {
    instructedAmount: { amount: AMOUNT, currency: 'NOK' },
    debtorAccount: { iban: DEBTOR_IBAN },
    creditorAccount: { iban: CREDITOR_IBAN },
    creditorName: 'Test Testperson 2',
    remittanceInformationUnstructured: 'Node example',
  };
  r = await bank.call('POST', `${NDCT}?allowLogicalDuplicate=true`, 201, payment, { 'TPP-Redirect-URI': REDIRECT_URI, ...psu });
  const links = r.data?._links ?? {};
  check(r.data?.transactionStatus === 'RCVD' && links.scaRedirect && links.scaStatus,
    'the payment is RCVD with a scaRedirect and a scaStatus', r.data);
  const paymentId = r.data.paymentId;
  await approve(bank, links.scaRedirect.href);
  r = await bank.call('GET', links.scaStatus.href, 200);
  check(r.data?.scaStatus === 'FINALISED', "the payment's SCA is FINALISED", r.data);
  r = await bank.call('GET', `${NDCT}/${paymentId}/status`, 200);
  const status = r.data?.transactionStatus;
  // ACSC: a bank in batchMode immediate settles a due payment when it is approved.
  check(['ACTC', 'ACCP', 'ACSC'].includes(status), 'the approved payment is ACTC, ACCP or ACSC', r.data);
  console.log(`5. payment ${paymentId} of ${AMOUNT} NOK to ${CREDITOR_IBAN}: RCVD, SCA FINALISED, ${status}`);

  if (status !== 'ACSC' && !bank.operator) {
    console.log(SKIPPED);
    console.log(`The walkthrough held up to the batch run: ${bank.requests} requests, ${bank.verified} ${verified}, `
      + `${((Date.now() - started) / 1000).toFixed(1)} s; payment ${paymentId} is ${status} and waits for a batch run.`);
    return;
  }

  // 6. A batch run, the operator's. ACCP: today (sandbox clock,
  // Europe/Oslo) is not a banking day, so the sandbox clock moves to the
  // execution date, before that day's first batch run, and back to the
  // real clock at the end.
  const asOperator = { operator: true };
  let moved = false;
  try {
    if (status === 'ACSC') {
      console.log('6. no batch run needed: the bank settled the payment when it was approved (batchMode immediate)');
    } else {
      if (status === 'ACCP') {
        const day = (await bank.call('GET', `${NDCT}/${paymentId}`, 200)).data?.requestedExecutionDate ?? '';
        r = await bank.call('PUT', '/v1/sandbox/clock', 200, { now: `${day}T03:00:00Z` }, {}, asOperator);
        moved = true;
        check((r.data?.now ?? '').startsWith(day), `the sandbox clock moves to ${day}`, r.data);
        console.log(`6. today is not a banking day: the operator moves the sandbox clock to ${r.data.now}`);
      }
      r = await bank.call('POST', '/v1/sandbox/batch-runs', 200, undefined, {}, asOperator);
      check(Array.isArray(r.data?.errors) && r.data.errors.length === 0, 'the batch run has no errors', r.data);
      console.log(`${moved ? '  ' : '6.'} the operator's batch run ${r.data.runId}: ${JSON.stringify(r.data.counts)}`);
    }

    // 7. The payment is settled and the balance moved.
    r = await bank.call('GET', `${NDCT}/${paymentId}/status`, 200);
    check(r.data?.transactionStatus === 'ACSC', 'the payment is ACSC', r.data);
    r = await bank.call('GET', `/v1/accounts/${accountId}/balances`, 200, undefined, psu);
    const after = closingBooked(r.data?.balances);
    check(cents(after) <= cents(before) - cents(AMOUNT), `closingBooked fell by at least ${AMOUNT} NOK from ${before}`, r.data);
    console.log(`7. payment ${paymentId}: ACSC; closingBooked ${before} -> ${after} NOK`);
  } finally {
    if (moved) {
      r = await bank.call('PUT', '/v1/sandbox/clock', 200, { offsetSeconds: 0 }, {}, asOperator);
      console.log(`   the operator sets the sandbox clock back on the real clock: ${r.data?.now}`);
    }
  }
  console.log(`The walkthrough held: ${bank.requests} requests, ${bank.verified} ${verified}, ${((Date.now() - started) / 1000).toFixed(1)} s.`);
}

const args = process.argv.slice(2);
if (args.length !== 3) {
  console.error('usage: node walkthrough.mjs BASE_URL CERT_PEM KEY_PEM');
  process.exit(2);
}
const operatorCert = process.env.OPERATOR_CERT_PEM ?? '';
const operatorKey = process.env.OPERATOR_KEY_PEM ?? '';
if (!operatorCert !== !operatorKey) {
  console.error(`walkthrough.mjs: set both OPERATOR_CERT_PEM and OPERATOR_KEY_PEM, or neither; only ${operatorCert ? 'OPERATOR_CERT_PEM' : 'OPERATOR_KEY_PEM'} is set`);
  process.exit(2);
}
const caCert = process.env.CA_CERT_PEM ?? '';
if (caCert && process.env.NODE_EXTRA_CA_CERTS !== caCert) {
  console.error('walkthrough.mjs: CA_CERT_PEM is set, but Node trusts it only as NODE_EXTRA_CA_CERTS, read at start; run run.sh, which sets it, or set NODE_EXTRA_CA_CERTS to the same file');
  process.exit(2);
}
const responseSigning = process.env.RESPONSE_SIGNING ?? '';
if (!['', 'rsa', 'ecdsa', 'off'].includes(responseSigning)) {
  console.error(`walkthrough.mjs: RESPONSE_SIGNING is ${JSON.stringify(responseSigning)}; write rsa, ecdsa or off, as the bank's setting responseSigning`);
  process.exit(2);
}
const base = args[0].replace(/\/+$/, '').replace(/\/v1$/, '');
try {
  await walkthrough(base, args[1], args[2], operatorCert, operatorKey, caCert, responseSigning !== 'off');
} catch (e) {
  // A Failure or SignatureError says what went wrong; fetch puts the
  // network error (e.g. ECONNREFUSED) in cause.
  console.error(`FAILED: ${e.message ?? e}${e.cause ? `: ${e.cause.message ?? e.cause}` : ''}`);
  process.exit(1);
}
