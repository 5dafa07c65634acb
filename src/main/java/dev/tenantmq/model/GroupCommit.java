package dev.tenantmq.model;

import java.util.ArrayList;
import java.util.List;

/**
 * The rules of group commit (docs/architecture.md, "Group commit"): when concurrent publishes to
 * one (tenant, topic) share a transaction, and how the shared result is cut back into one result
 * per request. Pure: the domain keeps the waiting publishers and asks these rules; the store runs
 * the shared transaction.
 *
 * <ul>
 *   <li>A publish waits for others only while a sibling transaction of its (tenant, topic) is
 *       running, as PostgreSQL's {@code commit_delay} waits only when {@code commit_siblings} are
 *       active: a lone publish runs at once and pays no linger.</li>
 *   <li>A waiting group runs when it is full ({@code maxMessages}, as Kafka's producer
 *       {@code batch.size}), when no sibling transaction is running any more (its commit is what
 *       the group waited for), or when it has waited {@code linger} (Kafka's {@code linger.ms}),
 *       whichever comes first.</li>
 *   <li>Whatever these rules say, a group never starts while a running transaction of its (tenant,
 *       topic), or a group that began waiting before it, writes one of its partitions
 *       ({@link HeadQueue}): it would wait for that partition's head lock anyway, in its own
 *       transaction; waiting in the process, it can still take requests.</li>
 *   <li>A request joins the open group only if the group stays within {@code maxMessages}; a
 *       request that does not fit closes that group (it runs as soon as its partitions are free)
 *       and opens the next one, so a request is never split across transactions.</li>
 *   <li>A linger of zero turns grouping off: every publish is a transaction of its own.</li>
 * </ul>
 *
 * @param lingerNanos longest wait of a group for more requests, in nanoseconds; 0 turns grouping off
 * @param maxMessages most messages of a group; a single larger request still runs (alone)
 */
public record GroupCommit(long lingerNanos, int maxMessages) {
    /**
     * @throws IllegalArgumentException on a negative linger or a maximum below 1
     */
    public GroupCommit {
        if (lingerNanos < 0) {
            throw new IllegalArgumentException("linger must not be negative");
        }
        if (maxMessages < 1) {
            throw new IllegalArgumentException("maxMessages must be at least 1");
        }
    }

    /** Whether grouping is on (a linger above zero). */
    public boolean enabled() {
        return lingerNanos > 0;
    }

    /** What an arriving request does. */
    public enum Arrival {
        /** Join the open group; its leader runs it. */
        JOIN,
        /**
         * Lead a new group and wait for others to join; an open group that could not take this
         * request closes (takes no more members, and runs as soon as its partitions are free).
         */
        OPEN,
        /**
         * Run as a group of its own, without waiting for members, as soon as its partitions are
         * free ({@link HeadQueue}); an open group that could not take it closes too.
         */
        RUN
    }

    /**
     * Where a request of {@code requestMessages} goes.
     *
     * @param openGroupMessages messages of the open (still waiting) group of its (tenant, topic),
     *     or 0 when there is none
     * @param running transactions of its (tenant, topic) running in this process
     */
    public Arrival arrive(int openGroupMessages, int requestMessages, int running) {
        if (!enabled()) {
            return Arrival.RUN;
        }
        if (openGroupMessages > 0 && openGroupMessages + requestMessages <= maxMessages) {
            return Arrival.JOIN;
        }
        if (running == 0 || requestMessages >= maxMessages) {
            return Arrival.RUN;
        }
        return Arrival.OPEN;
    }

    /**
     * Whether a waiting group runs now.
     *
     * @param groupMessages messages in the group
     * @param running transactions of its (tenant, topic) running in this process (the group's own
     *     not among them: it has not started)
     * @param waitedNanos how long the group has waited, in nanoseconds
     */
    public boolean flush(int groupMessages, int running, long waitedNanos) {
        return groupMessages >= maxMessages || running == 0 || waitedNanos >= lingerNanos;
    }

    /**
     * The messages of a group's requests as one list, in request order: the shared transaction
     * handles them as one batch, so a request's duplicate of an earlier request's message is
     * answered as if the requests had run one after the other.
     */
    public static <T> List<T> concat(List<? extends List<? extends T>> requests) {
        List<T> all = new ArrayList<>();
        requests.forEach(all::addAll);
        return all;
    }

    /**
     * Cuts the results of {@link #concat} back into one list per request.
     *
     * @param sizes each request's message count, in request order
     * @throws IllegalArgumentException when the sizes do not add up to the results
     */
    public static <T> List<List<T>> split(List<T> results, List<Integer> sizes) {
        List<List<T>> out = new ArrayList<>(sizes.size());
        int from = 0;
        for (int size : sizes) {
            if (size < 0 || from + size > results.size()) {
                throw new IllegalArgumentException("request sizes " + sizes + " do not fit " + results.size() + " results");
            }
            out.add(List.copyOf(results.subList(from, from + size)));
            from += size;
        }
        if (from != results.size()) {
            throw new IllegalArgumentException("request sizes " + sizes + " leave " + (results.size() - from)
                    + " of " + results.size() + " results");
        }
        return out;
    }
}
