import com.fasterxml.jackson.databind.*;
import com.fasterxml.jackson.databind.node.*;
import org.apache.kafka.common.protocol.*;
import java.io.*;
import java.nio.ByteBuffer;
import java.lang.reflect.*;
// reads lines {"kind","version","seed","index","data"} (data: Kafka JSON, any fields); writes the vector lines
public class KafkaMessageGen {
  public static void main(String[] a) throws Exception {
    ObjectMapper om = new ObjectMapper();
    BufferedReader r = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
    String line;
    while ((line = r.readLine()) != null) {
      JsonNode in = om.readTree(line);
      String kind = in.get("kind").asText(); short v = (short) in.get("version").asInt();
      String pkg = in.has("pkg") ? in.get("pkg").asText() : "org.apache.kafka.common.message";
      String dn = kind.endsWith("Key") || kind.endsWith("Value") ? kind : kind + "Data";
      Class<?> conv = Class.forName(pkg + "." + dn + "JsonConverter");
      Class<?> dc = Class.forName(pkg + "." + dn);
      Message m;
      try { m = (Message) conv.getMethod("read", JsonNode.class, short.class).invoke(null, in.get("data"), v); } catch (Exception e) { System.err.println(kind+" v"+v+": read "+e.getCause()); continue; }
      ObjectSerializationCache c = new ObjectSerializationCache();
      int n = m.size(c, v);
      ByteBuffer b = ByteBuffer.allocate(n);
      try { m.write(new ByteBufferAccessor(b), c, v); } catch (Exception e) { System.err.println(kind+" v"+v+": "+e); continue; }
      b.flip();
      byte[] bytes = new byte[b.remaining()]; b.duplicate().get(bytes);
      Message back = (Message) dc.getConstructor(org.apache.kafka.common.protocol.Readable.class, short.class).newInstance(new ByteBufferAccessor(ByteBuffer.wrap(bytes)), v);
      if (!back.equals(m)) { System.err.println(kind+" v"+v+": read-back differs"); continue; }
      JsonNode out = (JsonNode) conv.getMethod("write", dc, short.class).invoke(null, back, v);
      StringBuilder hex = new StringBuilder(); for (byte x : bytes) hex.append(String.format("%02x", x));
      ObjectNode o = om.createObjectNode();
      o.put("kind", kind); o.put("version", v); o.set("seed", in.get("seed")); o.set("index", in.get("index"));
      o.set("data", out); o.put("hex", hex.toString());
      System.out.println(om.writeValueAsString(o));
    }
  }
}
