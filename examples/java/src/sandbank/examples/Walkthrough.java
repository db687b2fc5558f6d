package sandbank.examples;

import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A TPP's whole path through Sandbank, signed with Signer: a consent with
 * automated SCA, accounts, balances and paged transactions, a payment with
 * its SCA, a batch run and the settled payment. Every response's signature
 * is verified with the bank's certificate.
 *
 * <p>The batch run and the sandbox clock are the operator's: they are signed
 * with the operator certificate in OPERATOR_CERT_PEM and OPERATOR_KEY_PEM
 * (sandbankd cert new --operator --name NAME --out DIR --data FILE), and
 * everything else with the TPP's. Without those two the walkthrough says
 * that it skips the batch run and ends with the payment approved.
 *
 * <p>An https BASE_URL (the bank's HTTPS listener) is verified against the
 * CA certificate in CA_CERT_PEM, the bank's test CA (sandbankd cert ca, or
 * GET /v1/sandbox/ca-certificate); without it, against the JDK's CAs.
 * RESPONSE_SIGNING=off says the bank's setting responseSigning is off: its
 * responses carry no Signature, and only their Digest and X-Request-ID are
 * checked (rsa and ecdsa, or nothing, verify every signature).
 *
 * <p>Usage: [OPERATOR_CERT_PEM=... OPERATOR_KEY_PEM=...] [CA_CERT_PEM=...]
 * [RESPONSE_SIGNING=off] java sandbank.examples.Walkthrough BASE_URL
 * CERT_PEM KEY_PEM. Exits 0 when every answer was what the contract says, 1
 * otherwise, 2 for a usage error.
 */
public final class Walkthrough {
    static final String NATIONAL_ID = "13039319955";       // Test Testperson 1 of the known state
    static final String DEBTOR_IBAN = "NO3815030123457";   // their Brukskonto
    static final String CREDITOR_IBAN = "NO3015030234569"; // Test Testperson 2's Brukskonto
    static final String AMOUNT = "100.30";
    static final String REDIRECT_URI = "https://tpp.example/callback";
    static final String PSU_IP_ADDRESS = "192.0.2.10";
    static final int PAGE_LIMIT = 5;
    static final String NDCT = "/v1/payments/norwegian-domestic-credit-transfers";
    static final String SKIPPED = "skipped: steps 6 (batch run) and 7 (settled payment): a batch run and the sandbox clock are "
            + "the operator's, not a TPP's; set OPERATOR_CERT_PEM and OPERATOR_KEY_PEM to an operator certificate "
            + "and its key (sandbankd cert new --operator --name NAME --out DIR --data FILE) to run them";

    /** An answer that is not what the contract says. */
    static final class Failure extends Exception {
        private static final long serialVersionUID = 1L;

        Failure(String message) {
            super(message);
        }
    }

    /** One answer: status, headers, the exact body and, for JSON, the parsed body. */
    record Answer(int status, HttpHeaders headers, byte[] body, String requestId, Object data) {
    }

    private final String base;
    private final Signer signer;
    private final Signer operator; // null: no operator certificate
    private final HttpClient client;
    private final boolean signedResponses;
    private ResponseVerifier verifier;
    private int requests;
    private int verified;

    /**
     * caCert is the PEM file of the CA an https base URL is verified
     * against, or null for the JDK's; signedResponses is false when the
     * bank's responseSigning is off.
     */
    Walkthrough(String base, Signer signer, Signer operator, Path caCert, boolean signedResponses) throws IOException, GeneralSecurityException {
        this.base = base;
        this.signer = signer;
        this.operator = operator;
        this.signedResponses = signedResponses;
        // HTTP/1.1: for http:// URLs HttpClient would otherwise ask to upgrade to HTTP/2.
        HttpClient.Builder builder = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10));
        if (caCert != null) {
            builder.sslContext(trusting(caCert));
        }
        this.client = builder.build();
    }

    /** A TLS context that trusts the CA certificates of a PEM file, and no other. */
    static SSLContext trusting(Path caCert) throws IOException, GeneralSecurityException {
        KeyStore trusted = KeyStore.getInstance(KeyStore.getDefaultType());
        trusted.load(null, null);
        try (InputStream in = Files.newInputStream(caCert)) {
            int n = 0;
            for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                trusted.setCertificateEntry("ca-" + n++, c);
            }
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trusted);
        SSLContext tls = SSLContext.getInstance("TLS");
        tls.init(null, tmf.getTrustManagers(), null);
        return tls;
    }

    /** Sends one request signed with the TPP's certificate and checks the answer's signature and status. */
    Answer call(String method, String target, int expect, Object json, Map<String, String> extra)
            throws IOException, InterruptedException, GeneralSecurityException, Failure {
        return call(signer, method, target, expect, json, extra);
    }

    /** As call, signed with the operator's certificate: for what concerns every TPP. */
    Answer callAsOperator(String method, String target, int expect, Object json)
            throws IOException, InterruptedException, GeneralSecurityException, Failure {
        return call(operator, method, target, expect, json, Map.of());
    }

    private Answer call(Signer by, String method, String target, int expect, Object json, Map<String, String> extra)
            throws IOException, InterruptedException, GeneralSecurityException, Failure {
        Map<String, String> headers = Signer.headers();
        headers.putAll(extra);
        byte[] body = null;
        if (json != null) {
            body = Json.write(json).getBytes(StandardCharsets.UTF_8); // the exact bytes that are hashed and sent
            headers.put("Content-Type", "application/json");
        }
        requests++;
        HttpResponse<byte[]> r = by.send(client, URI.create(base + target), method, headers, body);
        String requestId = headers.get("X-Request-ID");
        if (verifier != null) {
            try {
                verifier.verify(r.headers(), r.body(), requestId);
            } catch (ResponseVerifier.SignatureException e) {
                throw new Failure(method + " " + target + ": " + e.getMessage());
            }
            verified++;
        }
        String text = new String(r.body(), StandardCharsets.UTF_8);
        if (r.statusCode() != expect) {
            throw new Failure(method + " " + target + ": expected " + expect + ", the bank answered " + r.statusCode() + ": " + text);
        }
        boolean isJson = r.headers().firstValue("Content-Type").orElse("").startsWith("application/json");
        return new Answer(r.statusCode(), r.headers(), r.body(), requestId, isJson ? Json.parse(text) : null);
    }

    Answer call(String method, String target, int expect) throws Exception {
        return call(method, target, expect, null, Map.of());
    }

    /** Stops the walkthrough unless condition holds. */
    static void check(boolean condition, String what, Object data) throws Failure {
        if (!condition) {
            throw new Failure(what + "; the bank answered: " + Json.write(data));
        }
    }

    /**
     * The authorisation id is the path segment after /sca/ in scaRedirect; a
     * query or further segments are not part of it.
     */
    static String scaAuthorisationId(String scaRedirect) throws Failure {
        List<String> parts = List.of(URI.create(scaRedirect).getRawPath().split("/"));
        int at = parts.indexOf("sca");
        if (at < 0 || at + 1 >= parts.size() || parts.get(at + 1).isEmpty()) {
            throw new Failure("scaRedirect " + scaRedirect + " has no /sca/<authorisationId>");
        }
        return parts.get(at + 1);
    }

    /** A query parameter of a URL, or "". */
    static String queryParameter(String url, String name) {
        String query = URI.create(url).getRawQuery();
        for (String pair : query == null ? new String[0] : query.split("&")) {
            String[] kv = pair.split("=", 2);
            if (URLDecoder.decode(kv[0], StandardCharsets.UTF_8).equals(name) && kv.length == 2) {
                return URLDecoder.decode(kv[1], StandardCharsets.UTF_8);
            }
        }
        return "";
    }

    /** Automated SCA: the PSU approves at once. Returns the psu-id of the redirect the PSU would be sent to. */
    String approve(String scaRedirect) throws Exception {
        String auth = scaAuthorisationId(scaRedirect);
        Answer r = call("POST", "/v1/sandbox/sca/" + auth, 200, Map.of("nationalId", NATIONAL_ID, "decision", "approve"), Map.of());
        String redirect = Json.str(r.data(), "redirect");
        String psuId = redirect.isEmpty() ? "" : queryParameter(redirect, "psu-id");
        check(redirect.startsWith(REDIRECT_URI) && !psuId.isEmpty(), "the automated SCA answers a redirect with a psu-id", r.data());
        return psuId;
    }

    static BigDecimal closingBooked(Object data) throws Failure {
        for (Object b : Json.list(data, "balances")) {
            if (Json.str(b, "balanceType").equals("closingBooked")) {
                return new BigDecimal(Json.str(b, "balanceAmount", "amount"));
            }
        }
        throw new Failure("no closingBooked balance in " + Json.write(data));
    }

    void run(String certPath, String operatorCertPath, String caCertPath) throws Exception {
        long started = System.nanoTime();
        // 1. The certificate and key (loaded in main), the operator's when
        // there is one, and the bank's certificate.
        System.out.println("1. certificate " + certPath);
        System.out.println("   keyId " + signer.keyId());
        if (operator != null) {
            System.out.println("   operator certificate " + operatorCertPath + ", for the batch run and the sandbox clock");
            System.out.println("   keyId " + operator.keyId());
        }
        if (!caCertPath.isEmpty()) {
            System.out.println("   HTTPS verified against the CA certificate " + caCertPath);
        }
        Answer r = call("GET", "/v1/sandbox/bank-certificate", 200);
        verifier = new ResponseVerifier(Signer.certificate(r.body()), signedResponses);
        try { // the first answer, checked once the certificate is in hand
            verifier.verify(r.headers(), r.body(), r.requestId());
        } catch (ResponseVerifier.SignatureException e) {
            throw new Failure("GET /v1/sandbox/bank-certificate: " + e.getMessage());
        }
        verified++;
        if (signedResponses) {
            System.out.println("   bank certificate SN=" + verifier.certificate().getSerialNumber().toString(16).toUpperCase()
                    + ": every response's signature is verified");
        } else {
            System.out.println("   RESPONSE_SIGNING=off: the bank signs no response; every response's Digest and X-Request-ID are checked");
        }
        String checked = signedResponses ? "response signatures verified" : "unsigned responses checked (Digest, X-Request-ID)";

        // 2. A consent; it answers with the SCA page.
        String session = "java-" + System.currentTimeMillis() / 1000;
        r = call("POST", "/v1/consents", 201, null, Map.of("TPP-Redirect-URI", REDIRECT_URI, "TPP-Session-ID", session));
        String href = Json.str(r.data(), "_links", "scaRedirect", "href");
        check(href.contains("/sca/"), "POST /v1/consents answers a scaRedirect", r.data());
        System.out.println("2. consent: 201, scaRedirect " + href);

        // 3. Automated SCA in place of the PSU's browser.
        String psuId = approve(href);
        System.out.println("3. SCA approved by " + NATIONAL_ID + ": psu-id " + psuId);
        Map<String, String> psu = Map.of("PSU-ID", psuId, "TPP-Session-ID", session, "PSU-IP-Address", PSU_IP_ADDRESS);

        // 4. Accounts, balances and transactions, page by page.
        r = call("GET", "/v1/accounts?withBalance=true", 200, null, psu);
        String accountId = "";
        List<String> names = new ArrayList<>();
        for (Object a : Json.list(r.data(), "accounts")) {
            names.add(Json.str(a, "name") + " " + Json.str(a, "iban"));
            if (Json.str(a, "iban").equals(DEBTOR_IBAN)) {
                accountId = Json.str(a, "resourceId");
            }
        }
        check(!accountId.isEmpty(), "GET /v1/accounts lists " + DEBTOR_IBAN, r.data());
        System.out.println("4. accounts: " + String.join(", ", names));
        r = call("GET", "/v1/accounts/" + accountId + "/balances", 200, null, psu);
        BigDecimal before = closingBooked(r.data());
        System.out.println("   balances of " + DEBTOR_IBAN + ": closingBooked " + before + " NOK");
        String target = "/v1/accounts/" + accountId + "/transactions?limit=" + PAGE_LIMIT;
        Set<String> seen = new HashSet<>();
        for (int page = 1; page <= 2; page++) {
            r = call("GET", target, 200, null, psu);
            List<?> booked = Json.list(r.data(), "transactions", "booked");
            check(!booked.isEmpty() && booked.size() <= PAGE_LIMIT, "page " + page + " of transactions has 1 to " + PAGE_LIMIT + " booked items", r.data());
            for (Object t : booked) {
                check(seen.add(Json.str(t, "transactionId")), "page " + page + " of transactions repeats no item of the page before", r.data());
            }
            System.out.println("   transactions page " + page + ": " + booked.size() + " booked, "
                    + Json.str(booked.get(0), "bookingDate") + " to " + Json.str(booked.get(booked.size() - 1), "bookingDate"));
            if (page == 1) {
                target = Json.str(r.data(), "transactions", "_links", "next", "href");
                check(target.startsWith("/v1/"), "the first page links to the next", r.data());
            }
        }

        // 5. A payment; its creation starts its SCA, which the PSU approves.
        Map<String, Object> payment = new LinkedHashMap<>();
        payment.put("instructedAmount", Map.of("amount", AMOUNT, "currency", "NOK"));
        payment.put("debtorAccount", Map.of("iban", DEBTOR_IBAN));
        payment.put("creditorAccount", Map.of("iban", CREDITOR_IBAN));
        payment.put("creditorName", "Test Testperson 2");
        payment.put("remittanceInformationUnstructured", "Java example");
        Map<String, String> headers = new LinkedHashMap<>(psu);
        headers.put("TPP-Redirect-URI", REDIRECT_URI);
        r = call("POST", NDCT + "?allowLogicalDuplicate=true", 201, payment, headers);
        String scaRedirect = Json.str(r.data(), "_links", "scaRedirect", "href");
        String scaStatus = Json.str(r.data(), "_links", "scaStatus", "href");
        check(Json.str(r.data(), "transactionStatus").equals("RCVD") && !scaRedirect.isEmpty() && !scaStatus.isEmpty(),
                "the payment is RCVD with a scaRedirect and a scaStatus", r.data());
        String paymentId = Json.str(r.data(), "paymentId");
        approve(scaRedirect);
        r = call("GET", scaStatus, 200);
        check(Json.str(r.data(), "scaStatus").equals("FINALISED"), "the payment's SCA is FINALISED", r.data());
        r = call("GET", NDCT + "/" + paymentId + "/status", 200);
        String status = Json.str(r.data(), "transactionStatus");
        // ACSC: a bank in batchMode immediate settles a due payment when it is approved.
        check(List.of("ACTC", "ACCP", "ACSC").contains(status), "the approved payment is ACTC, ACCP or ACSC", r.data());
        System.out.println("5. payment " + paymentId + " of " + AMOUNT + " NOK to " + CREDITOR_IBAN + ": RCVD, SCA FINALISED, " + status);

        if (!status.equals("ACSC") && operator == null) {
            System.out.println(SKIPPED);
            System.out.printf("The walkthrough held up to the batch run: %d requests, %d %s, %.1f s; "
                    + "payment %s is %s and waits for a batch run.%n",
                    requests, verified, checked, (System.nanoTime() - started) / 1e9, paymentId, status);
            return;
        }

        // 6. A batch run, the operator's. ACCP: today (sandbox clock,
        // Europe/Oslo) is not a banking day, so the sandbox clock moves to
        // the execution date, before that day's first batch run, and back
        // to the real clock at the end.
        boolean moved = false;
        try {
            if (status.equals("ACSC")) {
                System.out.println("6. no batch run needed: the bank settled the payment when it was approved (batchMode immediate)");
            } else {
                if (status.equals("ACCP")) {
                    String day = Json.str(call("GET", NDCT + "/" + paymentId, 200).data(), "requestedExecutionDate");
                    r = callAsOperator("PUT", "/v1/sandbox/clock", 200, Map.of("now", day + "T03:00:00Z"));
                    moved = true;
                    check(Json.str(r.data(), "now").startsWith(day), "the sandbox clock moves to " + day, r.data());
                    System.out.println("6. today is not a banking day: the operator moves the sandbox clock to " + Json.str(r.data(), "now"));
                }
                r = callAsOperator("POST", "/v1/sandbox/batch-runs", 200, null);
                check(Json.at(r.data(), "errors") instanceof List<?> errors && errors.isEmpty(), "the batch run has no errors", r.data());
                System.out.println((moved ? "  " : "6.") + " the operator's batch run " + Json.str(r.data(), "runId") + ": "
                        + Json.write(Json.at(r.data(), "counts")));
            }

            // 7. The payment is settled and the balance moved.
            r = call("GET", NDCT + "/" + paymentId + "/status", 200);
            check(Json.str(r.data(), "transactionStatus").equals("ACSC"), "the payment is ACSC", r.data());
            r = call("GET", "/v1/accounts/" + accountId + "/balances", 200, null, psu);
            BigDecimal after = closingBooked(r.data());
            check(after.compareTo(before.subtract(new BigDecimal(AMOUNT))) <= 0,
                    "closingBooked fell by at least " + AMOUNT + " NOK from " + before, r.data());
            System.out.println("7. payment " + paymentId + ": ACSC; closingBooked " + before + " -> " + after + " NOK");
        } finally {
            if (moved) {
                r = callAsOperator("PUT", "/v1/sandbox/clock", 200, Map.of("offsetSeconds", 0));
                System.out.println("   the operator sets the sandbox clock back on the real clock: " + Json.str(r.data(), "now"));
            }
        }
        System.out.printf("The walkthrough held: %d requests, %d %s, %.1f s.%n",
                requests, verified, checked, (System.nanoTime() - started) / 1e9);
    }

    public static void main(String[] args) {
        if (args.length != 3) {
            System.err.println("usage: java sandbank.examples.Walkthrough BASE_URL CERT_PEM KEY_PEM");
            System.exit(2);
        }
        String operatorCert = System.getenv().getOrDefault("OPERATOR_CERT_PEM", "");
        String operatorKey = System.getenv().getOrDefault("OPERATOR_KEY_PEM", "");
        if (operatorCert.isEmpty() != operatorKey.isEmpty()) {
            System.err.println("Walkthrough: set both OPERATOR_CERT_PEM and OPERATOR_KEY_PEM, or neither; only "
                    + (operatorCert.isEmpty() ? "OPERATOR_KEY_PEM" : "OPERATOR_CERT_PEM") + " is set");
            System.exit(2);
        }
        String caCert = System.getenv().getOrDefault("CA_CERT_PEM", "");
        String responseSigning = System.getenv().getOrDefault("RESPONSE_SIGNING", "");
        if (!List.of("", "rsa", "ecdsa", "off").contains(responseSigning)) {
            System.err.println("Walkthrough: RESPONSE_SIGNING is \"" + responseSigning
                    + "\"; write rsa, ecdsa or off, as the bank's setting responseSigning");
            System.exit(2);
        }
        String base = args[0].replaceAll("/+$", "").replaceAll("/v1$", "");
        try {
            Signer signer = Signer.load(Path.of(args[1]), Path.of(args[2]));
            Signer operator = operatorCert.isEmpty() ? null : Signer.load(Path.of(operatorCert), Path.of(operatorKey));
            new Walkthrough(base, signer, operator, caCert.isEmpty() ? null : Path.of(caCert), !responseSigning.equals("off"))
                    .run(args[1], operatorCert, caCert);
        } catch (Failure | ResponseVerifier.SignatureException | GeneralSecurityException e) {
            System.err.println("FAILED: " + e.getMessage());
            System.exit(1);
        } catch (Exception e) {
            System.err.println("FAILED: " + e);
            System.exit(1);
        }
    }
}
