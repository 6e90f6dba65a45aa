// Reads "MESSAGE HEX" lines on stdin and prints, per line, what this Kafka release's
// SubscriptionInfo.decode / AssignmentInfo.decode made of the bytes, as one JSON line:
// {"outcome": "decoded"|"error", "fields": {name: String.valueOf(value)}, "exception": ..., "message": ...}
// It calls the release's own classes (compiled from that release's sources) through reflection only,
// so the one program runs against every release.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.TreeMap;

public class StreamsReaders {
    private static final String PKG = "org.apache.kafka.streams.processor.internals.assignment.";

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        String line;
        while ((line = in.readLine()) != null) {
            String[] parts = line.trim().split(" ");
            System.out.println(parts[0].equals("NEWEST") ? newest(parts[1]) : decode(parts[0], parts.length > 1 ? parts[1] : ""));
        }
    }

    // The class's own newest version: CURRENT_VERSION (before 2.0), LATEST_SUPPORTED_VERSION (2.0 on, in the
    // class or in StreamsAssignmentProtocolVersions).
    static String newest(String message) {
        for (String owner : new String[] {message, "StreamsAssignmentProtocolVersions"}) {
            for (String name : new String[] {"LATEST_SUPPORTED_VERSION", "CURRENT_VERSION"}) {
                try {
                    Field f = Class.forName(PKG + owner).getDeclaredField(name);
                    f.setAccessible(true);
                    return "{\"newest\": " + f.get(null) + ", \"constant\": " + q(owner + "." + name) + "}";
                } catch (ReflectiveOperationException e) {
                    // not in this release
                }
            }
        }
        return "{\"newest\": null}";
    }

    static String decode(String message, String hex) {
        byte[] bytes = new byte[hex.length() / 2];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
        }
        try {
            Class<?> cls = Class.forName(PKG + message);
            Method decode = cls.getMethod("decode", ByteBuffer.class);
            Object info = decode.invoke(null, ByteBuffer.wrap(bytes));
            Map<String, String> fields = new TreeMap<>();
            for (Class<?> c = info.getClass(); c != null && c != Object.class; c = c.getSuperclass()) {
                for (Field f : c.getDeclaredFields()) {
                    if (Modifier.isStatic(f.getModifiers())) continue;
                    f.setAccessible(true);
                    fields.put(f.getName(), String.valueOf(f.get(info)));
                }
            }
            StringBuilder sb = new StringBuilder("{\"outcome\": \"decoded\", \"fields\": {");
            boolean first = true;
            for (Map.Entry<String, String> e : fields.entrySet()) {
                if (!first) sb.append(", ");
                first = false;
                sb.append(q(e.getKey())).append(": ").append(q(e.getValue()));
            }
            return sb.append("}}").toString();
        } catch (java.lang.reflect.InvocationTargetException e) {
            Throwable t = e.getCause();
            return "{\"outcome\": \"error\", \"exception\": " + q(t.getClass().getSimpleName())
                + ", \"message\": " + q(String.valueOf(t.getMessage())) + "}";
        } catch (Exception e) {
            return "{\"outcome\": \"harness-error\", \"message\": " + q(e.toString()) + "}";
        }
    }

    static String q(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (char ch : s.toCharArray()) {
            if (ch == '"' || ch == '\\') sb.append('\\').append(ch);
            else if (ch < 0x20 || ch > 0x7e) sb.append(String.format("\\u%04x", (int) ch));
            else sb.append(ch);
        }
        return sb.append('"').toString();
    }
}
