package dev.tenantmq;

import static org.awaitility.Awaitility.await;

import java.time.Duration;

/** Waits that are about time itself, not a state, named as such so they are never mistaken for one. */
public final class Waiting {
    private Waiting() {
    }

    /**
     * Lets {@code duration} pass, for a reason that is about time (a visibility timeout running
     * out, a publisher's pace), never as a stand-in for waiting on a state. A duration that is not
     * positive has passed already.
     */
    public static void letTimePass(Duration duration, String why) {
        if (duration.isNegative() || duration.isZero()) {
            return;
        }
        long until = System.nanoTime() + duration.toNanos();
        await("let " + duration.toMillis() + " ms pass: " + why)
                .pollDelay(Duration.ofMillis(Math.min(duration.toMillis(), 50)))
                .pollInterval(Duration.ofMillis(Math.max(1, Math.min(duration.toMillis(), 50))))
                .atMost(duration.plusSeconds(5))
                .until(() -> System.nanoTime() - until >= 0);
    }
}
