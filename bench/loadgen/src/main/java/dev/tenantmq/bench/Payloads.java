package dev.tenantmq.bench;

import java.util.SplittableRandom;

/** The 1 KiB payload and the request bodies every system in a row gets. */
final class Payloads {
    private Payloads() {}

    /** A JSON object of exactly 1024 bytes: {"pad":"xxx..."}. */
    static final String PAYLOAD = "{\"pad\":\"" + "x".repeat(1024 - 10) + "\"}";
    static final byte[] PAYLOAD_BYTES = PAYLOAD.getBytes(java.nio.charset.StandardCharsets.UTF_8);

    static String partition(int p) {
        return String.format("p-%03d", p);
    }

    /**
     * A publish body of {@code n} messages with ids {@code <prefix>-<seq>}; each message goes to a
     * partition drawn uniformly from {@code partitions} (the same draw the raw JDBC baseline uses).
     */
    static String batch(String idPrefix, long firstSeq, int n, SplittableRandom rnd, int partitions) {
        StringBuilder b = new StringBuilder(n * (PAYLOAD.length() + 80)).append("{\"messages\":[");
        for (int i = 0; i < n; i++) {
            b.append(i == 0 ? "" : ",").append("{\"partitionKey\":\"").append(partition(rnd.nextInt(partitions)))
                    .append("\",\"id\":\"").append(idPrefix).append('-').append(firstSeq + i)
                    .append("\",\"payload\":").append(PAYLOAD).append('}');
        }
        return b.append("]}").toString();
    }

    /** One message to a given partition key. */
    static String single(String partitionKey, String id) {
        return "{\"messages\":[{\"partitionKey\":\"" + partitionKey + "\",\"id\":\"" + id + "\",\"payload\":" + PAYLOAD + "}]}";
    }
}
