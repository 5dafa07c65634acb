package dev.tenantmq;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.Base64;

/**
 * Builds receipt tokens byte by byte, in the layout of {@code domain.Receipt} (docs/security.md,
 * "Signed receipts"), for tests that forge, alter or replay receipts of older versions: the
 * record is version, tenant, group, topic, partition key (modified UTF-8 strings), offset, lease
 * epoch and delivery number (longs); a signed version appends the tag.
 */
public final class RawReceipts {
    private RawReceipts() {
    }

    /** The unsigned record of a receipt of {@code version}. */
    public static byte[] record(int version, String tenant, String group, String topic, String partitionKey,
                                long offset, long epoch, long delivery) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(version);
            out.writeUTF(tenant);
            out.writeUTF(group);
            out.writeUTF(topic);
            out.writeUTF(partitionKey);
            out.writeLong(offset);
            out.writeLong(epoch);
            out.writeLong(delivery);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        return bytes.toByteArray();
    }

    /** The token of {@code record} followed by {@code tag} (empty for the unsigned versions), as the API carries it. */
    public static String token(byte[] record, byte[] tag) {
        byte[] out = Arrays.copyOf(record, record.length + tag.length);
        System.arraycopy(tag, 0, out, record.length, tag.length);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(out);
    }
}
