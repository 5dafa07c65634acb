package dev.tenantmq.domain;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The keys that sign receipts (docs/security.md, "Receipt signing"): receipts are issued with an
 * HMAC-SHA256 tag under the current key ({@code mq.receipt.key}), and a receipt verifies when its
 * tag matches the current key or one of the previous keys ({@code mq.receipt.previous-keys}), so a
 * key can be rotated without failing the receipts in flight. A receipt that was forged or altered
 * fails verification without a database look-up. Pure: no CDI, no configuration (see
 * {@link ReceiptSigning} for the bean that reads the settings).
 *
 * <p>A key is given as text: {@code base64:} followed by standard or URL-safe base64 of the key
 * bytes, or else raw text, whose UTF-8 bytes are the key. Either way it must be at least
 * {@value #MIN_KEY_BYTES} bytes (256 bits, the size of the HMAC-SHA256 output).
 */
public final class ReceiptKeys {
    /** Least key length, in bytes. */
    public static final int MIN_KEY_BYTES = 32;
    /** Length of a receipt's tag, in bytes: HMAC-SHA256 truncated to 128 bits (RFC 2104, section 5). */
    public static final int TAG_BYTES = 16;
    private static final String ALGORITHM = "HmacSHA256";
    private static final String BASE64_PREFIX = "base64:";

    /**
     * One key, and its MAC keyed once when the runtime's provider can clone it: never updated
     * itself, each tag works on a clone. Looking the algorithm up and keying a MAC per receipt
     * took 3% of the service's CPU in the replay benchmark; a clone copies the keyed state. A
     * provider that cannot clone (some FIPS or PKCS#11 ones) gets a MAC per tag, as before.
     */
    private record Key(SecretKeySpec spec, Mac prototype) {
        static Key of(byte[] bytes) {
            SecretKeySpec spec = new SecretKeySpec(bytes, ALGORITHM);
            Mac mac = fresh(spec);
            try {
                mac.clone(); // can this provider clone? (SunJCE can)
                return new Key(spec, mac);
            } catch (CloneNotSupportedException e) {
                return new Key(spec, null);
            }
        }

        /** A MAC of this key with nothing updated yet, for one tag; not shared between threads. */
        Mac mac() {
            if (prototype != null) {
                try {
                    return (Mac) prototype.clone();
                } catch (CloneNotSupportedException e) {
                    // cloned once at start-up: not expected; fall through to a new MAC
                }
            }
            return fresh(spec);
        }

        private static Mac fresh(SecretKeySpec spec) {
            try {
                Mac mac = Mac.getInstance(ALGORITHM);
                mac.init(spec);
                return mac;
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("HmacSHA256 is part of every Java runtime", e);
            }
        }
    }

    private final Key current;
    private final List<Key> accepted;
    private final boolean generated;

    private ReceiptKeys(byte[] current, List<byte[]> previous, boolean generated) {
        this.current = Key.of(current);
        List<Key> all = new ArrayList<>();
        all.add(this.current);
        previous.forEach(p -> all.add(Key.of(p)));
        this.accepted = List.copyOf(all);
        this.generated = generated;
    }

    /**
     * Keys from their text (the settings' values).
     *
     * @param current the signing key's text; empty to generate a random key of this process
     * @param previous the texts of keys still accepted for verification, oldest last
     * @throws IllegalArgumentException naming the setting whose key is malformed or shorter than
     *     {@value #MIN_KEY_BYTES} bytes; the message never contains a key
     */
    public static ReceiptKeys of(Optional<String> current, List<String> previous) {
        List<byte[]> old = new ArrayList<>();
        for (int i = 0; i < previous.size(); i++) {
            old.add(parse(previous.get(i), "mq.receipt.previous-keys[" + i + "]"));
        }
        if (current.isEmpty()) {
            byte[] random = new byte[MIN_KEY_BYTES];
            new SecureRandom().nextBytes(random);
            return new ReceiptKeys(random, old, true);
        }
        return new ReceiptKeys(parse(current.get(), "mq.receipt.key"), old, false);
    }

    /** Keys from raw bytes (tests). */
    public static ReceiptKeys ofBytes(byte[] current, byte[]... previous) {
        return new ReceiptKeys(current.clone(), Arrays.stream(previous).map(byte[]::clone).toList(), false);
    }

    /** Whether the signing key was generated at start-up because {@code mq.receipt.key} is not set. */
    public boolean generated() {
        return generated;
    }

    /** The tag of {@code data} under the current key: what a new receipt carries. */
    byte[] sign(byte[] data) {
        return sign(data, data.length);
    }

    /** The tag of the first {@code length} bytes of {@code data} under the current key. */
    byte[] sign(byte[] data, int length) {
        return tag(current, data, length);
    }

    /**
     * Whether the last {@value #TAG_BYTES} bytes of {@code signed} are the tag of the bytes before
     * them under any accepted key. Compared in constant time, so the answer's timing reveals no
     * prefix of a right tag.
     */
    boolean verify(byte[] signed) {
        if (signed.length <= TAG_BYTES) {
            return false;
        }
        int length = signed.length - TAG_BYTES;
        byte[] given = Arrays.copyOfRange(signed, length, signed.length);
        boolean ok = false;
        for (Key key : accepted) {
            ok |= MessageDigest.isEqual(tag(key, signed, length), given); // no early exit: every key is tried
        }
        return ok;
    }

    private static byte[] tag(Key key, byte[] data, int length) {
        Mac mac = key.mac(); // a Mac is not thread-safe: each tag has its own
        mac.update(data, 0, length);
        return Arrays.copyOf(mac.doFinal(), TAG_BYTES);
    }

    private static byte[] parse(String text, String setting) {
        byte[] key;
        if (text.startsWith(BASE64_PREFIX)) {
            String b64 = text.substring(BASE64_PREFIX.length()).trim();
            try {
                key = b64.indexOf('-') >= 0 || b64.indexOf('_') >= 0 ? Base64.getUrlDecoder().decode(b64)
                        : Base64.getDecoder().decode(b64);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(setting + " starts with 'base64:' but the rest is not base64");
            }
        } else {
            key = text.getBytes(StandardCharsets.UTF_8);
        }
        if (key.length < MIN_KEY_BYTES) {
            throw new IllegalArgumentException(setting + " must be at least " + MIN_KEY_BYTES + " bytes (got " + key.length
                    + "): for example 'base64:' followed by the output of 'openssl rand -base64 32'");
        }
        return key;
    }
}
