package dev.tenantmq.domain;

import dev.tenantmq.model.Identifiers;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Base64;
import java.util.Optional;

/**
 * The opaque token that names one delivery (SPEC section 4, "Ack, nack, extend"). It carries
 * everything an ack needs, so any process of the service can handle it: the message identity
 * (tenant, consumer group, topic, partition key, offset) and the fencing values: the lease epoch
 * and the delivery number (the partition's {@code queue_offsets.delivery_seq} when the message was
 * handed out: it grows with every hand-out, unlike {@code deliveryAttempt}, which a handed-back
 * message keeps). Encoded as URL-safe base64 without padding of a versioned binary record.
 * Version 3 carries the delivery number as 64 bits; version 2 receipts (32 bits) are still read,
 * so receipts issued before an upgrade keep working. Version 1 carried the attempt and is INVALID.
 */
public record Receipt(String tenant, String consumerGroup, String topic, String partitionKey, long offset,
                      long leaseEpoch, long delivery) {
    private static final byte VERSION = 3;
    private static final byte VERSION_2 = 2;

    /** The token handed to clients. */
    public String encode() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + partitionKey.length() * 3);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(VERSION);
            out.writeUTF(tenant);
            out.writeUTF(consumerGroup);
            out.writeUTF(topic);
            out.writeUTF(partitionKey);
            out.writeLong(offset);
            out.writeLong(leaseEpoch);
            out.writeLong(delivery);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes.toByteArray());
    }

    /**
     * Decodes a token. Returns empty when it is not one this service issued in this format
     * (the caller reports {@code INVALID}); never throws.
     */
    public static Optional<Receipt> decode(String token) {
        if (token == null || token.isEmpty() || token.length() > 8192) {
            return Optional.empty();
        }
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(Base64.getUrlDecoder().decode(token)))) {
            byte version = in.readByte();
            if (version != VERSION && version != VERSION_2) {
                return Optional.empty();
            }
            Receipt r = new Receipt(in.readUTF(), in.readUTF(), in.readUTF(), in.readUTF(), in.readLong(), in.readLong(),
                    version == VERSION ? in.readLong() : in.readInt());
            if (in.read() != -1 || Identifiers.keyProblem(r.partitionKey) != null || r.offset <= 0 || r.delivery < 1) {
                return Optional.empty();
            }
            return Optional.of(r);
        } catch (IOException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
