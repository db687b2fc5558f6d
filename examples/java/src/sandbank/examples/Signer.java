package sandbank.examples;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import javax.security.auth.x500.X500Principal;

/**
 * Signs requests to Sandbank's PSD2 API (Berlin Group NextGenPSD2 1.3 with
 * the cavage HTTP signature draft; Sandbank's docs/TPP-GUIDE.md, section 2,
 * gives the rules). Copy this class, and
 * ResponseVerifier for the bank's signed responses, into your code base;
 * they need only java.security and java.net.http.
 *
 * <pre>
 * Signer signer = Signer.load(Path.of("cert.pem"), Path.of("key.pem"));
 * Map&lt;String, String&gt; headers = Signer.headers();
 * headers.put("PSU-ID", psuId);
 * HttpResponse&lt;byte[]&gt; response = signer.send(client, URI.create(bank + "/v1/accounts"), "GET", headers, null);
 * verifier.verify(response.headers(), response.body(), headers.get("X-Request-ID"));
 * </pre>
 */
public final class Signer {
    /**
     * The headers signed whenever a request carries them, in signing order.
     * The bank requires x-request-id always, digest whenever there is a
     * body, and psu-id, psu-corporate-id, tpp-redirect-uri and date whenever
     * they are sent; (request-target) is optional but binds the method, path
     * and query.
     */
    public static final List<String> SIGNED_HEADERS = List.of("(request-target)", "date", "digest", "x-request-id",
            "psu-id", "psu-corporate-id", "tpp-redirect-uri");

    /** The algorithm this client signs with: RSA PKCS#1 v1.5 over SHA-256. */
    public static final String SIGNING_ALGORITHM = "rsa-sha256";

    /** The Date header's form, IMF-fixdate: Tue, 03 Nov 2026 07:05:09 GMT (two-digit day, English names). */
    private static final DateTimeFormatter IMF_FIXDATE =
            DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.ROOT);

    private final X509Certificate cert;
    private final PrivateKey key;
    private final String keyId;
    private final String certificateHeader;

    public Signer(X509Certificate cert, PrivateKey key) throws GeneralSecurityException {
        if (!(cert.getPublicKey() instanceof RSAPublicKey pub)) {
            throw new GeneralSecurityException("the certificate's key is not RSA; the bank verifies rsa-sha256 signatures");
        }
        if (!(key instanceof RSAPrivateCrtKey priv) || !priv.getModulus().equals(pub.getModulus())) {
            throw new GeneralSecurityException("the key does not belong to the certificate");
        }
        this.cert = cert;
        this.key = key;
        // keyId: the certificate's serial in hexadecimal (BigInteger's
        // toString() is decimal, which the bank refuses) and its issuer DN in
        // RFC 2253 form. Java writes the organizationIdentifier of the bank's
        // test CA, an OID it has no name for, as 2.5.4.97=#130f... (the
        // value's DER in hex); the bank accepts that form.
        this.keyId = "SN=" + cert.getSerialNumber().toString(16).toUpperCase(Locale.ROOT)
                + ",CA=" + cert.getIssuerX500Principal().getName(X500Principal.RFC2253);
        // TPP-Signature-Certificate: the certificate as base64 DER, one line.
        this.certificateHeader = Base64.getEncoder().encodeToString(cert.getEncoded());
    }

    /** Loads a PEM certificate and a PEM PKCS#8 key ("BEGIN PRIVATE KEY", as sandbankd cert new writes it). */
    public static Signer load(java.nio.file.Path certPem, java.nio.file.Path keyPem) throws IOException, GeneralSecurityException {
        X509Certificate cert;
        try (InputStream in = java.nio.file.Files.newInputStream(certPem)) {
            cert = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
        String pem = java.nio.file.Files.readString(keyPem, StandardCharsets.US_ASCII);
        if (!pem.contains("-----BEGIN PRIVATE KEY-----")) {
            throw new GeneralSecurityException(keyPem + " is not a PKCS#8 key (BEGIN PRIVATE KEY); convert it: "
                    + "openssl pkcs8 -topk8 -nocrypt -in " + keyPem + " -out key-pkcs8.pem");
        }
        String base64 = pem.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
        PrivateKey key = KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(Base64.getDecoder().decode(base64)));
        return new Signer(cert, key);
    }

    public String keyId() {
        return keyId;
    }

    public X509Certificate certificate() {
        return cert;
    }

    /** A header map whose names are case-insensitive, as HTTP's are. */
    public static Map<String, String> headers() {
        return new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    }

    /**
     * The Digest header of a body: SHA-256 over the exact bytes sent, in
     * base64. Hash the byte array you hand to the HTTP client, never an
     * object you serialise again later.
     */
    public static String digest(byte[] body) {
        try {
            return "SHA-256=" + Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-256").digest(body));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The signing string: "name: value" per signed header, names in lower
     * case, in the order of the headers list, joined by "\n" with no
     * trailing newline.
     */
    public static String signingString(List<String[]> lines) {
        List<String> out = new ArrayList<>();
        for (String[] line : lines) {
            out.add(line[0] + ": " + line[1]);
        }
        return String.join("\n", out);
    }

    static boolean isAscii(String s) {
        return s.chars().allMatch(c -> c < 0x80);
    }

    /**
     * RFC 2047: a header value that is not ASCII is sent as one encoded
     * word, =?utf-8?B?&lt;base64 of the UTF-8 bytes&gt;?=.
     *
     * <p>When it is needed: the Signature header holds the keyId, and the
     * keyId holds the issuer DN with letters such as æ, ø and å as they are
     * (CN=Tromsø CA). HTTP header values are bytes: java.net.http refuses
     * characters above U+00FF and sends the others as '?'. The bank decodes
     * an encoded Signature value (utf-8, iso-8859-1 or us-ascii). The bank's
     * own test CA is ASCII, so its keyId goes out as it is.
     */
    public static String mimeEncode(String value) {
        if (isAscii(value)) {
            return value;
        }
        return "=?utf-8?B?" + Base64.getEncoder().encodeToString(value.getBytes(StandardCharsets.UTF_8)) + "?=";
    }

    /**
     * Adds X-Request-ID (unless set), Date, Digest (with a body),
     * TPP-Signature-Certificate and Signature to headers, a map with
     * case-insensitive names (see headers()). target is the path and query
     * exactly as they go on the request line, e.g.
     * /v1/accounts?withBalance=true; body may be null.
     */
    public Map<String, String> sign(String method, String target, Map<String, String> headers, byte[] body)
            throws GeneralSecurityException {
        headers.putIfAbsent("X-Request-ID", UUID.randomUUID().toString()); // any unique string
        // Date in IMF-fixdate form; signed, since the bank requires a Date
        // that is sent to be signed.
        headers.put("Date", IMF_FIXDATE.format(ZonedDateTime.now(ZoneOffset.UTC)));
        if (body != null && body.length > 0) {
            headers.put("Digest", digest(body));
        }
        List<String[]> lines = new ArrayList<>();
        for (String name : SIGNED_HEADERS) {
            if (name.equals("(request-target)")) {
                // The method in lower case, a space, the path with its query.
                lines.add(new String[] {name, method.toLowerCase(Locale.ROOT) + " " + target});
            } else if (headers.containsKey(name)) {
                String value = headers.get(name);
                if (!isAscii(value)) {
                    // The bank signs header values as it receives them and
                    // decodes only the Signature header: keep the others ASCII
                    // (percent-encode a redirect URI).
                    throw new IllegalArgumentException("the " + name + " header is not ASCII; percent-encode it");
                }
                lines.add(new String[] {name, value});
            }
        }
        Signature rsa = Signature.getInstance("SHA256withRSA"); // RSA PKCS#1 v1.5 over SHA-256
        rsa.initSign(key);
        rsa.update(signingString(lines).getBytes(StandardCharsets.UTF_8));
        String signature = Base64.getEncoder().encodeToString(rsa.sign());
        List<String> names = new ArrayList<>();
        lines.forEach(line -> names.add(line[0]));
        headers.put("TPP-Signature-Certificate", certificateHeader);
        // The keyId goes between the quotes as it is: the backslashes of an
        // escaped DN (O=Bank\, Inc) are the DN's own, not doubled, and RFC
        // 2253 escapes every double quote of a DN.
        headers.put("Signature", mimeEncode("keyId=\"" + keyId + "\",algorithm=\"" + SIGNING_ALGORITHM
                + "\",headers=\"" + String.join(" ", names) + "\",signature=\"" + signature + "\""));
        return headers;
    }

    /**
     * Signs and sends one request with java.net.http. It signs the raw path
     * and query of uri, which is what HttpClient puts on the request line;
     * body (may be null) is sent as these exact bytes.
     */
    public HttpResponse<byte[]> send(HttpClient client, URI uri, String method, Map<String, String> headers, byte[] body)
            throws IOException, InterruptedException, GeneralSecurityException {
        String target = uri.getRawPath() + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
        sign(method, target, headers, body);
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(20))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
        headers.forEach(request::header);
        return client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    /** Reads a PEM certificate, e.g. the bank's from GET /v1/sandbox/bank-certificate. */
    public static X509Certificate certificate(byte[] pem) throws GeneralSecurityException {
        return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(new ByteArrayInputStream(pem));
    }
}
