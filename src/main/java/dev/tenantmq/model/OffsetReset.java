package dev.tenantmq.model;

import java.time.Instant;
import java.util.Optional;

/**
 * Where a reset moves a consumer group's committed offset in one partition (docs/operations.md,
 * "Replay: resetting a group's offsets"). Pure rules, no I/O.
 *
 * <p>Offsets come from one AUTO_INCREMENT sequence per table, so the offsets of a partition are
 * increasing but not dense, and {@code committed_offset} is the last acknowledged offset: the
 * group's next delivery is the first stored message above it. A target therefore becomes the
 * committed offset just below the first message to deliver. "To offset N" means, as in Kafka,
 * that N is the next message delivered: the committed offset becomes N - 1, and the next
 * delivery is the first stored message of the partition at or above N. A target is clamped into
 * what the partition can still deliver: never below the earliest stored message (retention
 * deleted the rest) and never above the partition's head (a committed offset above the head
 * would skip messages published later, whose offsets come from the same sequence).
 */
public final class OffsetReset {
    private OffsetReset() {}

    /** What a reset asks for; {@link Kind} names it in the API ({@code to=earliest} ...). */
    public sealed interface Target {
        /** The name of the target in the API. */
        Kind kind();

        /** The earliest stored message is delivered next. */
        record Earliest() implements Target {
            @Override
            public Kind kind() {
                return Kind.EARLIEST;
            }
        }

        /** Nothing stored now is delivered: only messages published after the reset. */
        record Latest() implements Target {
            @Override
            public Kind kind() {
                return Kind.LATEST;
            }
        }

        /** The first stored message at or above {@code offset} (at least 1) is delivered next. */
        record ToOffset(long offset) implements Target {
            public ToOffset {
                if (offset < 1) {
                    throw new IllegalArgumentException("offset must be at least 1: " + offset);
                }
            }

            @Override
            public Kind kind() {
                return Kind.OFFSET;
            }
        }

        /** The first stored message published at or after {@code at} is delivered next. */
        record ToTime(Instant at) implements Target {
            @Override
            public Kind kind() {
                return Kind.DATETIME;
            }
        }
    }

    /** The kinds of target, by their API name (lower case). */
    public enum Kind {
        EARLIEST, LATEST, OFFSET, DATETIME;

        /** The API name: {@code earliest}, {@code latest}, {@code offset}, {@code datetime}. */
        public String apiName() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** A stored message as a reset sees it: its offset and when it was published (database UTC). */
    public record Stored(long offset, Instant createdAt) {}

    /**
     * A partition of the group as it stands.
     *
     * @param committed the group's committed offset now
     * @param head the newest offset given to a message of the partition (0 when none yet)
     * @param earliest the earliest stored message, empty when retention (or deletes) left none
     */
    public record Partition(long committed, long head, Optional<Stored> earliest) {
        /** The lowest committed offset that still delivers something: just below the earliest stored message. */
        long floor() {
            return earliest.map(e -> e.offset() - 1).orElse(Math.max(head, committed));
        }

        /** The highest committed offset that skips nothing published later: the head. */
        long ceiling() {
            return Math.max(head, floor());
        }
    }

    /**
     * The outcome in one partition.
     *
     * @param to the new committed offset
     * @param beforeEarliest the target lay before the earliest stored message (older messages are
     *     gone, or there were none): the group starts at the earliest stored message instead.
     *     Always false in a partition that stores no message (retention deleted them all, or none
     *     was published): there is no earliest stored message for a target to lie before, and
     *     every target leaves the group at the head (docs/operations.md, "Replay: resetting a
     *     group's offsets")
     */
    public record Move(long to, boolean beforeEarliest) {}

    /**
     * The new committed offset of a partition for an offset-based target (earliest, latest, an
     * offset). A time target needs {@link #forTime}.
     *
     * @throws IllegalArgumentException for a time target
     */
    public static Move move(Target target, Partition p) {
        if (target instanceof Target.Earliest) {
            return new Move(p.floor(), false);
        }
        if (target instanceof Target.Latest) {
            return new Move(p.ceiling(), false);
        }
        if (target instanceof Target.ToOffset o) {
            return clamp(o.offset() - 1, p);
        }
        throw new IllegalArgumentException("a time target needs forTime");
    }

    /**
     * The new committed offset for a time target, given the first stored message published at or
     * after it ({@link #firstAtOrAfter}), or empty when there is none (the group then starts after
     * everything stored, as for latest).
     */
    public static Move forTime(Target.ToTime target, Partition p, Optional<Stored> first) {
        if (first.isEmpty()) {
            return new Move(p.ceiling(), false);
        }
        boolean before = p.earliest().isPresent() && target.at().isBefore(p.earliest().get().createdAt());
        return new Move(clamp(first.get().offset() - 1, p).to(), before);
    }

    private static Move clamp(long wanted, Partition p) {
        if (wanted < p.floor()) {
            return new Move(p.floor(), p.earliest().isPresent());
        }
        return new Move(Math.min(wanted, p.ceiling()), false);
    }

    /** Reads the first stored message of the partition at or above an offset; empty when there is none. */
    @FunctionalInterface
    public interface Probe {
        Optional<Stored> firstFrom(long offset) throws Exception;
    }

    /**
     * The first stored message of a partition published at or after {@code at}, found by binary
     * search over offsets with {@code probe} (one primary-key seek each, at most about 64 for
     * any partition): within a partition {@code created_at} does not decrease with the offset,
     * because appenders of a partition serialize on its head lock and stamp the database clock
     * (docs/architecture.md, "Publish: the partition head lock"). Should the database clock have
     * stepped back, the answer is a message published at or after {@code at} whose predecessor
     * found by the search was published before it.
     *
     * @param earliest the earliest stored message of the partition
     * @param head the partition's head offset (no stored offset is above it)
     * @return the message, or empty when every stored message is older than {@code at}
     */
    public static Optional<Stored> firstAtOrAfter(Instant at, Stored earliest, long head, Probe probe) throws Exception {
        if (!earliest.createdAt().isBefore(at)) {
            return Optional.of(earliest);
        }
        // Invariant: the stored message lo was published before at; every stored message at or
        // above hi was published at or after it (or there is none).
        long lo = earliest.offset();
        long hi = Math.max(head, lo) + 1;
        while (hi - lo > 1) {
            long mid = lo + (hi - lo) / 2;
            Optional<Stored> r = probe.firstFrom(mid);
            if (r.isEmpty() || r.get().offset() >= hi || !r.get().createdAt().isBefore(at)) {
                hi = mid; // nothing stored in [mid, hi) is older than at
            } else {
                lo = r.get().offset();
            }
        }
        Optional<Stored> found = probe.firstFrom(hi);
        return found.filter(s -> !s.createdAt().isBefore(at));
    }
}
