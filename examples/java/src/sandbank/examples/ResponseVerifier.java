package sandbank.examples;

import java.math.BigInteger;
import java.net.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Verifies the bank's response signatures: every response carries Date,
 * Digest and a Signature over "date digest x-request-id" made with the
 * bank's certificate (GET /v1/sandbox/bank-certificate).
 */
public final class ResponseVerifier {
    /** A response whose Digest or Signature does not hold. */
    public static final class SignatureException extends Exception {
        private static final long serialVersionUID = 1L;

        public SignatureException(String message) {
            super(message);
        }
    }

    /** Verifies a signature over data with the bank certificate's key. */
    @FunctionalInterface
    interface Algorithm {
        boolean verify(PublicKey key, byte[] signature, byte[] data) throws GeneralSecurityException, SignatureException;
    }

    /**
     * The algorithms the bank may sign its responses with, and how to verify
     * each: rsa-sha256 (the default) and ecdsa-sha256 (the bank's setting
     * responseSigning ecdsa, with an ECDSA P-256 bank certificate). A new
     * algorithm is one more entry here; anything else is refused.
     */
    static final Map<String, Algorithm> ALGORITHMS = Map.of(
            "rsa-sha256", (key, signature, data) -> {
                if (!(key instanceof RSAPublicKey)) {
                    throw new SignatureException("rsa-sha256 needs an RSA bank certificate");
                }
                Signature rsa = Signature.getInstance("SHA256withRSA"); // RSA PKCS#1 v1.5 over SHA-256
                rsa.initVerify(key);
                rsa.update(data);
                return rsa.verify(signature);
            },
            "ecdsa-sha256", (key, signature, data) -> {
                if (!(key instanceof ECPublicKey)) {
                    throw new SignatureException("ecdsa-sha256 needs an ECDSA bank certificate");
                }
                Signature ecdsa = Signature.getInstance("SHA256withECDSA"); // the signature is the ASN.1 DER of (r, s)
                ecdsa.initVerify(key);
                ecdsa.update(data);
                return ecdsa.verify(signature);
            });

    /** The headers the bank's response signature must cover. */
    static final List<String> SIGNED_HEADERS = List.of("date", "digest", "x-request-id");

    private final X509Certificate bankCert;
    private final boolean signed;

    public ResponseVerifier(X509Certificate bankCert) {
        this(bankCert, true);
    }

    /**
     * signed false is for a Sandbank whose setting responseSigning is off (a
     * load test): its responses carry no Signature, so a response without
     * one passes on its Digest and X-Request-ID alone (one with a Signature
     * is still verified). A real bank signs every response: keep it true.
     */
    public ResponseVerifier(X509Certificate bankCert, boolean signed) {
        this.bankCert = bankCert;
        this.signed = signed;
    }

    public X509Certificate certificate() {
        return bankCert;
    }

    /**
     * Parses a Signature header: name="value" pairs separated by commas,
     * values quoted with backslash escapes.
     */
    static Map<String, String> parseSignature(String value) throws SignatureException {
        Map<String, String> params = new HashMap<>();
        int i = 0;
        while (i < value.length()) {
            while (i < value.length() && (value.charAt(i) == ' ' || value.charAt(i) == ',')) {
                i++;
            }
            if (i == value.length()) {
                break;
            }
            int eq = value.indexOf('=', i);
            if (eq < 0 || eq + 1 >= value.length() || value.charAt(eq + 1) != '"') {
                throw new SignatureException("the Signature header is malformed near \"" + value.substring(i, Math.min(value.length(), i + 24)) + "\"");
            }
            String name = value.substring(i, eq).trim().toLowerCase(Locale.ROOT);
            StringBuilder out = new StringBuilder();
            for (i = eq + 2; i < value.length() && value.charAt(i) != '"'; i++) {
                if (value.charAt(i) == '\\' && i + 1 < value.length()) {
                    i++;
                }
                out.append(value.charAt(i));
            }
            if (i == value.length()) {
                throw new SignatureException("the Signature header's " + name + " has no closing quote");
            }
            params.put(name, out.toString());
            i++;
        }
        return params;
    }

    /** One header's value; repeated headers are joined with ", ", as the bank does. Null when absent. */
    private static String header(HttpHeaders headers, String name) {
        List<String> values = headers.allValues(name);
        return values.isEmpty() ? null : String.join(", ", values);
    }

    /**
     * Checks one response: its headers, the exact body bytes received and
     * the X-Request-ID the request carried.
     */
    public void verify(HttpHeaders headers, byte[] body, String requestId) throws SignatureException {
        String want = Signer.digest(body);
        if (!want.equals(header(headers, "digest"))) {
            throw new SignatureException("the response Digest \"" + header(headers, "digest") + "\" does not match the body, whose digest is " + want);
        }
        if (!requestId.equals(header(headers, "x-request-id"))) {
            throw new SignatureException("the response X-Request-ID \"" + header(headers, "x-request-id") + "\" is not the request's \"" + requestId + "\"");
        }
        String signatureHeader = header(headers, "signature");
        if (signatureHeader == null) {
            if (!signed) {
                return; // responseSigning off: the Digest and X-Request-ID above are all there is
            }
            throw new SignatureException("the response has no Signature header");
        }
        Map<String, String> p = parseSignature(signatureHeader);
        for (String name : List.of("keyid", "algorithm", "headers", "signature")) {
            if (!p.containsKey(name)) {
                throw new SignatureException("the response Signature lacks " + name);
            }
        }
        String serial = p.get("keyid").split(",", 2)[0];
        if (!serial.matches("(?i)SN=[0-9a-f]+") || !new BigInteger(serial.substring(3), 16).equals(bankCert.getSerialNumber())) {
            throw new SignatureException("the response keyId \"" + p.get("keyid") + "\" does not name the bank certificate (SN="
                    + bankCert.getSerialNumber().toString(16).toUpperCase(Locale.ROOT) + ")");
        }
        Algorithm algorithm = ALGORITHMS.get(p.get("algorithm").toLowerCase(Locale.ROOT));
        if (algorithm == null) {
            throw new SignatureException("the response is signed with algorithm \"" + p.get("algorithm")
                    + "\", which this client does not know (it knows " + String.join(", ", ALGORITHMS.keySet()) + ")");
        }
        List<String> names = Arrays.stream(p.get("headers").toLowerCase(Locale.ROOT).split(" ")).filter(s -> !s.isEmpty()).toList();
        for (String name : SIGNED_HEADERS) {
            if (!names.contains(name)) {
                throw new SignatureException("the response signature does not cover " + name);
            }
        }
        List<String[]> lines = new ArrayList<>();
        for (String name : names) {
            String value = header(headers, name);
            if (value == null) {
                throw new SignatureException("the response signature lists " + name + ", but the response has no " + name + " header");
            }
            lines.add(new String[] {name, value});
        }
        boolean ok;
        try {
            ok = algorithm.verify(bankCert.getPublicKey(), Base64.getDecoder().decode(p.get("signature")),
                    Signer.signingString(lines).getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            ok = false;
        }
        if (!ok) {
            throw new SignatureException("the response signature does not verify with the bank certificate");
        }
    }
}
