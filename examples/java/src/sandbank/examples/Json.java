package sandbank.examples;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Just enough JSON for the walkthrough, because the JDK has none: objects
 * become Map, arrays List, numbers BigDecimal. In your code base use the
 * JSON library you already have; the signer does not need one.
 */
final class Json {
    private final String s;
    private int i;

    private Json(String s) {
        this.s = s;
    }

    static Object parse(String text) {
        Json p = new Json(text);
        Object v = p.value();
        p.space();
        if (p.i != p.s.length()) {
            throw p.error("trailing characters");
        }
        return v;
    }

    /** The value at a path of object keys and array indexes, or null. */
    static Object at(Object v, Object... path) {
        for (Object key : path) {
            if (key instanceof String k && v instanceof Map<?, ?> m) {
                v = m.get(k);
            } else if (key instanceof Integer n && v instanceof List<?> l && n < l.size()) {
                v = l.get(n);
            } else {
                return null;
            }
        }
        return v;
    }

    /** The string at a path, or "" when there is none. */
    static String str(Object v, Object... path) {
        return at(v, path) instanceof String text ? text : "";
    }

    /** The list at a path, or an empty one. */
    static List<?> list(Object v, Object... path) {
        return at(v, path) instanceof List<?> l ? l : List.of();
    }

    static String write(Object v) {
        if (v == null) {
            return "null";
        }
        if (v instanceof String text) {
            StringBuilder b = new StringBuilder("\"");
            for (char c : text.toCharArray()) {
                switch (c) {
                    case '"' -> b.append("\\\"");
                    case '\\' -> b.append("\\\\");
                    default -> {
                        if (c < 0x20) {
                            b.append(String.format("\\u%04x", (int) c));
                        } else {
                            b.append(c);
                        }
                    }
                }
            }
            return b.append('"').toString();
        }
        if (v instanceof Map<?, ?> m) {
            List<String> items = new ArrayList<>();
            m.forEach((k, x) -> items.add(write(k.toString()) + ":" + write(x)));
            return "{" + String.join(",", items) + "}";
        }
        if (v instanceof List<?> l) {
            List<String> items = new ArrayList<>();
            l.forEach(x -> items.add(write(x)));
            return "[" + String.join(",", items) + "]";
        }
        return v.toString(); // numbers and booleans
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException("not JSON: " + what + " at offset " + i);
    }

    private void space() {
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
    }

    private Object value() {
        space();
        if (i >= s.length()) {
            throw error("unexpected end");
        }
        char c = s.charAt(i);
        if (c == '{') {
            Map<String, Object> m = new LinkedHashMap<>();
            i++;
            space();
            if (s.charAt(i) == '}') {
                i++;
                return m;
            }
            while (true) {
                space();
                String key = string();
                space();
                expect(':');
                m.put(key, value());
                space();
                if (s.charAt(i) == ',') {
                    i++;
                } else {
                    expect('}');
                    return m;
                }
            }
        }
        if (c == '[') {
            List<Object> l = new ArrayList<>();
            i++;
            space();
            if (s.charAt(i) == ']') {
                i++;
                return l;
            }
            while (true) {
                l.add(value());
                space();
                if (s.charAt(i) == ',') {
                    i++;
                } else {
                    expect(']');
                    return l;
                }
            }
        }
        if (c == '"') {
            return string();
        }
        for (String word : new String[] {"true", "false", "null"}) {
            if (s.startsWith(word, i)) {
                i += word.length();
                return word.equals("null") ? null : Boolean.valueOf(word);
            }
        }
        int start = i;
        while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
            i++;
        }
        if (start == i) {
            throw error("unexpected '" + c + "'");
        }
        return new BigDecimal(s.substring(start, i));
    }

    private void expect(char c) {
        if (i >= s.length() || s.charAt(i) != c) {
            throw error("expected '" + c + "'");
        }
        i++;
    }

    private String string() {
        expect('"');
        StringBuilder b = new StringBuilder();
        while (i < s.length() && s.charAt(i) != '"') {
            char c = s.charAt(i++);
            if (c != '\\') {
                b.append(c);
                continue;
            }
            char e = s.charAt(i++);
            switch (e) {
                case 'b' -> b.append('\b');
                case 'f' -> b.append('\f');
                case 'n' -> b.append('\n');
                case 'r' -> b.append('\r');
                case 't' -> b.append('\t');
                case 'u' -> {
                    b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                    i += 4;
                }
                default -> b.append(e);
            }
        }
        expect('"');
        return b.toString();
    }
}
