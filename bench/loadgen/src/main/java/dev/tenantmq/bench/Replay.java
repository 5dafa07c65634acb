package dev.tenantmq.bench;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32;
import java.util.zip.GZIPInputStream;

/**
 * The replay of real input (bench/README.md; the replay of the end_to_end row), the same procedure as bench/replay.py in Java: keys
 * are split among publishers by CRC32 of tenant and key (so each key is published in file
 * order), each (tenant, topic) stream has one consumer that fetches and acks, and at the end
 * every event must have been delivered exactly once and in file order per key.
 */
final class Replay {
    record Event(String tenant, String topic, String key, String id, String payloadJson) {}

    private static final JsonFactory JSON = new JsonFactory();

    static List<Event> load(Path file, int limit) throws Exception {
        ObjectMapper om = new ObjectMapper();
        List<Event> out = new ArrayList<>();
        try (InputStream raw = Files.newInputStream(file);
             InputStream in = file.toString().endsWith(".gz") ? new GZIPInputStream(raw, 1 << 16) : raw;
             BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null && (limit <= 0 || out.size() < limit)) {
                if (line.isBlank()) {
                    continue;
                }
                JsonNode e = om.readTree(line);
                JsonNode payload = e.get("payload");
                out.add(new Event(e.get("tenant").asText(), e.get("topic").asText(), e.get("partitionKey").asText(),
                        e.get("id").asText(), payload == null ? "null" : om.writeValueAsString(payload)));
            }
        }
        return out;
    }

    /** Replays {@code events} to topics {@code <topic>-<runId>}; the map holds the counts and rates. */
    static Map<String, Object> run(Mq mq, List<Event> events, String runId, int publishers, int batch, int maxMessages)
            throws Exception {
        record Stream(String tenant, String topic) {}
        Map<String, List<String>> expected = new HashMap<>(); // tenant \0 topic \0 key -> ids in file order
        Map<Stream, Long> perStream = new LinkedHashMap<>();
        List<List<Event>> lanes = new ArrayList<>();
        for (int i = 0; i < publishers; i++) {
            lanes.add(new ArrayList<>());
        }
        for (Event e : events) {
            String topic = e.topic() + "-" + runId;
            expected.computeIfAbsent(e.tenant() + "\0" + topic + "\0" + e.key(), k -> new ArrayList<>()).add(e.id());
            perStream.merge(new Stream(e.tenant(), topic), 1L, Long::sum);
            CRC32 crc = new CRC32();
            crc.update((e.tenant() + "\0" + e.key()).getBytes(StandardCharsets.UTF_8));
            lanes.get((int) (crc.getValue() % publishers)).add(e);
        }
        Map<String, List<String>> delivered = new ConcurrentHashMap<>();
        Set<String> seen = ConcurrentHashMap.newKeySet();
        AtomicLong duplicates = new AtomicLong();
        AtomicLong published = new AtomicLong();
        long started = System.nanoTime();
        double publishSecs;
        try (ExecutorService consumers = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> cf = new ArrayList<>();
            for (Map.Entry<Stream, Long> s : perStream.entrySet()) {
                String tenant = s.getKey().tenant(), topic = s.getKey().topic();
                long want = s.getValue();
                cf.add(consumers.submit(() -> {
                    long got = 0;
                    long lastProgress = System.nanoTime();
                    while (got < want) {
                        List<Mq.Msg> msgs = mq.fetch(tenant, topic, "replay", maxMessages, 1, 120);
                        if (msgs.isEmpty()) {
                            if (System.nanoTime() - lastProgress > 120e9) {
                                throw new IllegalStateException("replay consumer " + tenant + "/" + topic
                                        + ": no progress for 120 s, " + got + " of " + want);
                            }
                            continue;
                        }
                        lastProgress = System.nanoTime();
                        for (Mq.Msg m : msgs) {
                            String key = tenant + "\0" + topic + "\0" + m.partitionKey();
                            if (!seen.add(key + "\0" + m.id())) {
                                duplicates.incrementAndGet();
                                continue;
                            }
                            delivered.computeIfAbsent(key, k -> java.util.Collections.synchronizedList(new ArrayList<>()))
                                    .add(m.id());
                            got++;
                        }
                        mq.ack(tenant, topic, "replay", msgs);
                    }
                    return null;
                }));
            }
            try (ExecutorService pubs = Executors.newVirtualThreadPerTaskExecutor()) {
                List<Future<?>> pf = new ArrayList<>();
                for (List<Event> lane : lanes) {
                    pf.add(pubs.submit(() -> {
                        Map<Stream, List<Event>> pending = new LinkedHashMap<>();
                        for (Event e : lane) {
                            Stream s = new Stream(e.tenant(), e.topic() + "-" + runId);
                            List<Event> b = pending.computeIfAbsent(s, k -> new ArrayList<>());
                            b.add(e);
                            if (b.size() >= batch) {
                                flush(mq, s.tenant(), s.topic(), pending.remove(s), published);
                            }
                        }
                        for (Map.Entry<Stream, List<Event>> b : pending.entrySet()) {
                            flush(mq, b.getKey().tenant(), b.getKey().topic(), b.getValue(), published);
                        }
                        return null;
                    }));
                }
                for (Future<?> f : pf) {
                    f.get();
                }
            }
            publishSecs = (System.nanoTime() - started) / 1e9;
            for (Future<?> f : cf) {
                f.get();
            }
        }
        double totalSecs = (System.nanoTime() - started) / 1e9;
        long missing = 0, outOfOrder = 0;
        for (Map.Entry<String, List<String>> e : expected.entrySet()) {
            List<String> ids = e.getValue();
            List<String> got = delivered.getOrDefault(e.getKey(), List.of());
            Set<String> gotSet = new HashSet<>(got);
            for (String id : ids) {
                missing += gotSet.contains(id) ? 0 : 1;
            }
            Map<String, Integer> position = new HashMap<>();
            for (int i = 0; i < ids.size(); i++) {
                position.put(ids.get(i), i);
            }
            int last = -1;
            for (String id : got) {
                int n = position.getOrDefault(id, -1);
                if (n != last + 1) {
                    outOfOrder++;
                }
                last = Math.max(last, n);
            }
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("events", events.size());
        m.put("streams", new TreeSet<>(perStream.keySet().stream().map(s -> s.tenant() + "/" + s.topic()).toList()).size());
        m.put("partition_keys", expected.size());
        m.put("published", published.get());
        m.put("delivered", seen.size());
        m.put("duplicates", duplicates.get());
        m.put("missing", missing);
        m.put("out_of_order", outOfOrder);
        m.put("publish_s", Stats.round(publishSecs));
        m.put("total_s", Stats.round(totalSecs));
        m.put("publish_msgs_per_s", published.get() / publishSecs);
        m.put("end_to_end_msgs_per_s", seen.size() / totalSecs);
        m.put("ok", missing == 0 && outOfOrder == 0 && duplicates.get() == 0 && seen.size() == events.size());
        return m;
    }

    private static void flush(Mq mq, String tenant, String topic, List<Event> batch, AtomicLong published) throws Exception {
        StringWriter w = new StringWriter(batch.size() * 256);
        try (JsonGenerator g = JSON.createGenerator(w)) {
            g.writeStartObject();
            g.writeArrayFieldStart("messages");
            for (Event e : batch) {
                g.writeStartObject();
                g.writeStringField("partitionKey", e.key());
                g.writeStringField("id", e.id());
                g.writeFieldName("payload");
                g.writeRawValue(e.payloadJson());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        }
        int dups = mq.publish(tenant, topic, w.toString());
        if (dups > 0) {
            throw new IllegalStateException(dups + " duplicates on a clean replay");
        }
        published.addAndGet(batch.size());
    }
}
