package dev.tenantmq.domain;

import dev.tenantmq.config.MqConfig;
import io.quarkus.runtime.Startup;
import jakarta.inject.Singleton;
import java.util.List;
import java.util.Optional;
import org.jboss.logging.Logger;

/**
 * The receipt keys of this process, read from {@code mq.receipt.key} and
 * {@code mq.receipt.previous-keys} at start-up (docs/security.md, "Receipt signing"), and the one
 * place receipts are issued and read. A malformed or short key stops the start. Without
 * {@code mq.receipt.key} the process signs with a random key of its own and logs a WARN: receipts
 * then verify on this process only, and only until it restarts, so a deployment of several
 * instances must give every instance the same key, or acks through another instance answer INVALID
 * (and the messages are redelivered after their visibility timeout).
 */
@Startup
@Singleton
public class ReceiptSigning {
    private static final Logger LOG = Logger.getLogger(ReceiptSigning.class);

    private final ReceiptKeys keys;

    ReceiptSigning(MqConfig config) {
        this.keys = ReceiptKeys.of(config.receipt().key(), config.receipt().previousKeys().orElse(List.of()));
        if (keys.generated()) {
            LOG.warn("mq.receipt.key (MQ_RECEIPT_KEY) is not set: receipts are signed with a random key of this process,"
                    + " valid on this process until it restarts. Every instance of a deployment with more than one must"
                    + " share one key, or acks through another instance answer INVALID (docs/security.md, \"Receipt"
                    + " signing\")");
        }
    }

    /** The token of {@code receipt}, signed with the current key. */
    public String encode(Receipt receipt) {
        return receipt.encode(keys);
    }

    /** The receipt a token names, or empty when it is not one signed with an accepted key ({@link Receipt#decode}). */
    public Optional<Receipt> decode(String token) {
        return Receipt.decode(token, keys);
    }

    /**
     * The tokens of one request, each decoded by {@link #decode} at most once, when first asked
     * for: hand the same object to every step of the request that reads them.
     */
    public ReceiptTokens tokens(List<String> tokens) {
        return new ReceiptTokens(tokens, this::decode);
    }
}
