import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.protocol.Readable;
import org.apache.kafka.common.protocol.types.RawTaggedField;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;

/**
 * Asks Kafka's own generated message classes about the cases of rebalance-codec's rule vectors
 * (codec/conformance/handcrafted_rules.py), one JSON case a line on stdin, one JSON answer a line on stdout.
 *
 * <pre>
 *   {"id": ..., "op": "read",  "class": "org.apache.kafka.common.message.JoinGroupRequestData", "version": 5, "hex": ...}
 *   {"id": ..., "op": "write", "class": ..., "version": 5, "value": {Kafka's JSON, "_unknownTaggedFields": {"7": "hex"}}}
 *   {"id": ..., "op": "write-null", "class": ..., "version": 5, "value": {...}, "path": ["protocols", 0, "name"]}
 *   {"id": ..., "op": "read-prefixed", "class": "...ConsumerProtocolSubscription", "hex": int16 version + body}
 *   {"id": ..., "op": "call", "class": "...ConnectProtocol", "method": "deserializeAssignment", "hex": ...}
 *
 *   {"id": ..., "ok": true, "hex": bytes written (write) or written back (read), "value": the value read, "consumed": n}
 *   {"id": ..., "ok": false, "error": "the exception Kafka's class threw"}
 * </pre>
 *
 * read: {@code new <class>(new ByteBufferAccessor(buf), version)}, then the class's JsonConverter writes the value;
 * write: the class's JsonConverter reads the value, the message writes itself (its size, then write);
 * write-null: as write, but the field at the path is set to null with its setter before writing (Kafka's writer
 * itself meets the null, not the JSON converter); read-prefixed: Kafka's {@code ConsumerProtocol} reads the int16
 * version and the body ({@code deserializeConsumerProtocolSubscription}/{@code ...Assignment}); call: the static
 * method of the class that reads a ByteBuffer (Kafka Connect's hand-written deserializers), its result as
 * "value" in rebalance-codec's view of Connect (what ../shared/vectors/kafka-java/tools/ConnectGen.java records:
 * url, configOffset, allocation; error, leader, leaderUrl, configOffset, connectorIds, taskIds, revoked ones,
 * delay), read through the result's accessors. Unknown tagged
 * fields, which the JSON converters leave out, are carried as "_unknownTaggedFields" (tag -> hex) on every
 * struct, read from and written to {@code unknownTaggedFields()}. A records field is shown as the bytes the message
 * holds (the converters write every one as empty bytes).
 *
 * This file holds none of Kafka's code; it calls Kafka's classes, which are built by hand outside the project
 * (vectors/tools/README.md): {@code java -cp <Kafka's classes>:<jackson> KafkaRules COMMIT < cases > answers}.
 */
public class KafkaRules {
    // ASCII out: a line splitter that breaks at U+2028 meets no raw line separator inside a string
    static final ObjectMapper JSON = new ObjectMapper();
    static {
        JSON.getFactory().configure(JsonWriteFeature.ESCAPE_NON_ASCII.mappedFeature(), true);
    }
    static final HexFormat HEX = HexFormat.of();

    public static void main(String[] args) throws Exception {
        String commit = args.length > 0 ? args[0] : "";
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            JsonNode c = JSON.readTree(line);
            ObjectNode a = JSON.createObjectNode();
            a.put("id", c.get("id").asText());
            a.put("commit", commit);
            a.put("class", c.get("class").asText());
            a.put("digest", c.path("digest").asText());
            try {
                answer(c, a);
            } catch (Throwable t) {
                Throwable e = t instanceof InvocationTargetException ? t.getCause() : t;
                a.put("ok", false);
                a.put("error", e.getClass().getName() + ": " + e.getMessage());
            }
            out.println(JSON.writeValueAsString(a));
        }
        out.flush();
    }

    static void answer(JsonNode c, ObjectNode a) throws Exception {
        Class<?> cls = Class.forName(c.get("class").asText());
        String op = c.get("op").asText();
        short version = (short) c.path("version").asInt(0);
        Message m;
        int consumed;
        if (op.equals("call")) {
            ByteBuffer buf = ByteBuffer.wrap(HEX.parseHex(c.get("hex").asText()));
            Object result = cls.getMethod(c.get("method").asText(), ByteBuffer.class).invoke(null, buf);
            a.put("ok", true);
            a.set("value", connectView(result));
            a.put("consumed", buf.position());
            return;
        }
        if (op.equals("read") || op.equals("read-prefixed")) {
            ByteBuffer buf = ByteBuffer.wrap(HEX.parseHex(c.get("hex").asText()));
            if (op.equals("read")) {
                m = (Message) cls.getConstructor(Readable.class, short.class)
                    .newInstance(new ByteBufferAccessor(buf), version);
            } else {
                Class<?> protocol = Class.forName("org.apache.kafka.clients.consumer.internals.ConsumerProtocol");
                short prefix = buf.getShort(0);
                m = (Message) protocol.getMethod("deserialize" + cls.getSimpleName(), ByteBuffer.class).invoke(null, buf);
                version = (short) Math.max(m.lowestSupportedVersion(), Math.min(prefix, m.highestSupportedVersion()));
            }
            consumed = buf.position();
        } else {
            JsonNode value = c.get("value");
            m = (Message) converter(cls).getMethod("read", JsonNode.class, short.class).invoke(null, value, version);
            addTagged(m, value);
            if (op.equals("write-null")) setNull(m, c.get("path"));
            a.put("hex", HEX.formatHex(written(m, version)));
            // read back by the same class: the value a decoder of these bytes gives
            ByteBuffer again = ByteBuffer.wrap(HEX.parseHex(a.get("hex").asText()));
            m = (Message) cls.getConstructor(Readable.class, short.class).newInstance(new ByteBufferAccessor(again), version);
            consumed = again.position();
        }
        JsonNode json = (JsonNode) converter(cls).getMethod("write", cls, short.class).invoke(null, m, version);
        showTagged(m, json);
        showRecords(m, json);
        a.put("ok", true);
        a.set("value", json);
        a.put("consumed", consumed);
        if (!a.has("hex")) {
            a.put("hex", HEX.formatHex(written(m, version)));
        }
    }

    /** A Connect worker state or assignment as JSON, through its accessors (none of them is Kafka's code here). */
    static JsonNode connectView(Object o) throws ReflectiveOperationException {
        if (o == null) return JSON.nullNode();
        ObjectNode n = JSON.createObjectNode();
        if (has(o, "url")) {
            n.put("url", (String) call(o, "url"));
            n.put("configOffset", (Long) call(o, "offset"));
            if (has(o, "assignment")) n.set("allocation", connectView(call(o, "assignment")));
            return n;
        }
        n.put("error", ((Number) call(o, "error")).intValue());
        n.put("leader", (String) call(o, "leader"));
        n.put("leaderUrl", (String) call(o, "leaderUrl"));
        n.put("configOffset", (Long) call(o, "offset"));
        n.set("connectorIds", JSON.valueToTree(call(o, "connectors")));
        n.set("taskIds", tasks((Collection<?>) call(o, "tasks")));
        if (has(o, "revokedConnectors")) {
            n.set("revokedConnectorIds", JSON.valueToTree(call(o, "revokedConnectors")));
            n.set("revokedTaskIds", tasks((Collection<?>) call(o, "revokedTasks")));
            n.put("delay", (Integer) call(o, "delay"));
        }
        return n;
    }

    static ArrayNode tasks(Collection<?> ids) throws ReflectiveOperationException {
        ArrayNode out = JSON.createArrayNode();
        for (Object t : ids) {
            out.addObject().put("connector", (String) call(t, "connector")).put("task", (Integer) call(t, "task"));
        }
        return out;
    }

    static boolean has(Object o, String method) {
        try {
            o.getClass().getMethod(method);
            return true;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }

    static Object call(Object o, String method) throws ReflectiveOperationException {
        return o.getClass().getMethod(method).invoke(o);
    }

    /** The bytes the message writes at version: its size, then write into a buffer of that size. */
    static byte[] written(Message m, short version) {
        ObjectSerializationCache cache = new ObjectSerializationCache();
        ByteBuffer buf = ByteBuffer.allocate(m.size(cache, version));
        m.write(new ByteBufferAccessor(buf), cache, version);
        return buf.array();
    }

    static Class<?> converter(Class<?> cls) throws ClassNotFoundException {
        return Class.forName(cls.getName() + "JsonConverter");
    }

    /** The child messages of a JSON field: the getter of that name returns a message or a collection of them. */
    static Object child(Message m, String name) {
        try {
            return m.getClass().getMethod(name).invoke(m);
        } catch (ReflectiveOperationException e) {
            return null;
        }
    }

    static void addTagged(Message m, JsonNode value) {
        if (!(value instanceof ObjectNode)) return;
        JsonNode tags = value.get("_unknownTaggedFields");
        if (tags != null) {
            for (Iterator<String> it = tags.fieldNames(); it.hasNext(); ) {
                String tag = it.next();
                m.unknownTaggedFields().add(new RawTaggedField(Integer.parseInt(tag), HEX.parseHex(tags.get(tag).asText())));
            }
        }
        eachChild(m, value, KafkaRules::addTagged);
    }

    static void showTagged(Message m, JsonNode json) {
        if (!(json instanceof ObjectNode)) return;
        List<RawTaggedField> raw = m.unknownTaggedFields();
        if (!raw.isEmpty()) {
            ObjectNode tags = ((ObjectNode) json).putObject("_unknownTaggedFields");
            for (RawTaggedField f : raw) tags.put(Integer.toString(f.tag()), HEX.formatHex(f.data()));
        }
        eachChild(m, json, KafkaRules::showTagged);
    }

    /**
     * The bytes of each records field (ShareFetchResponse's Records): the JSON converters write every one as empty
     * bytes (KIP-673's JsonConverterGenerator: {@code new BinaryNode(new byte[]{})}), so the value read would not say
     * what was read; the bytes the message holds, from its getter, replace them.
     */
    static void showRecords(Message m, JsonNode json) {
        if (!(json instanceof ObjectNode)) return;
        for (Iterator<String> it = json.fieldNames(); it.hasNext(); ) {
            String name = it.next();
            if (!json.get(name).isBinary()) continue;
            Object records = child(m, name);  // MemoryRecords (in ...common.record.internal from Kafka 4.4)
            if (records == null || !records.getClass().getSimpleName().equals("MemoryRecords")) continue;
            try {
                ByteBuffer b = ((ByteBuffer) records.getClass().getMethod("buffer").invoke(records)).duplicate();
                byte[] bytes = new byte[b.remaining()];
                b.get(bytes);
                ((ObjectNode) json).put(name, bytes);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        }
        eachChild(m, json, KafkaRules::showRecords);
    }

    interface Visit { void apply(Message m, JsonNode json); }

    static void eachChild(Message m, JsonNode json, Visit visit) {
        for (Iterator<String> it = json.fieldNames(); it.hasNext(); ) {
            String name = it.next();
            JsonNode node = json.get(name);
            Object sub = node.isObject() || node.isArray() ? child(m, name) : null;
            if (sub instanceof Message && node.isObject()) {
                visit.apply((Message) sub, node);
            } else if (sub instanceof Collection && node.isArray()) {
                Iterator<?> items = ((Collection<?>) sub).iterator();
                for (JsonNode item : (ArrayNode) node) {
                    Object next = items.hasNext() ? items.next() : null;
                    if (next instanceof Message) visit.apply((Message) next, item);
                }
            }
        }
    }

    /** Sets the field at path (JSON names and array indexes) to null with its setter. */
    static void setNull(Message m, JsonNode path) throws Exception {
        Object at = m;
        for (int i = 0; i < path.size() - 1; i++) {
            JsonNode step = path.get(i);
            if (step.isInt()) {
                Iterator<?> items = ((Collection<?>) at).iterator();
                for (int k = 0; k < step.asInt(); k++) items.next();
                at = items.next();
            } else {
                at = at.getClass().getMethod(step.asText()).invoke(at);
            }
        }
        String name = path.get(path.size() - 1).asText();
        String setter = "set" + Character.toUpperCase(name.charAt(0)) + name.substring(1);
        for (Method method : at.getClass().getMethods()) {
            if (method.getName().equals(setter) && method.getParameterCount() == 1
                    && !method.getParameterTypes()[0].isPrimitive()) {
                method.invoke(at, new Object[]{null});
                return;
            }
        }
        throw new NoSuchMethodException(setter + " taking an object on " + at.getClass().getName());
    }
}
