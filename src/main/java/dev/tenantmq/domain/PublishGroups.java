package dev.tenantmq.domain;

import dev.tenantmq.config.MqConfig;
import dev.tenantmq.model.GroupCommit;
import dev.tenantmq.model.HeadQueue;
import dev.tenantmq.store.MessageStore;
import dev.tenantmq.store.PublishTransaction.NewMessage;
import dev.tenantmq.store.PublishTransaction.Published;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * Group commit of publishes (docs/architecture.md, "Group commit"): concurrent publishes to one
 * (tenant, topic) in this process share one transaction. The rules (who waits, when a group
 * runs, how results are cut) are {@link GroupCommit}'s; this class keeps the waiting requests.
 *
 * <p>The first request of a group leads it: it waits for the group to be ready, runs the shared
 * transaction on its own thread and hands every member its results. When the shared transaction
 * fails (after the store's own deadlock retries), each request runs again alone, so only a
 * faulty one fails. Requests arrive here validated and admitted by the quotas.
 */
@ApplicationScoped
public class PublishGroups {
    private static final Logger LOG = Logger.getLogger(PublishGroups.class);

    private final MessageStore store;
    private final GroupCommit rules;
    private final ConcurrentHashMap<Key, Lane> lanes = new ConcurrentHashMap<>();

    @Inject
    PublishGroups(MessageStore store, MqConfig config) {
        this(store, new GroupCommit(config.publish().linger().toNanos(), config.publish().groupMaxMessages()));
    }

    /** With explicit rules (tests choose the linger and the group size to form groups deterministically). */
    PublishGroups(MessageStore store, GroupCommit rules) {
        this.store = store;
        this.rules = rules;
    }

    /**
     * Publishes one request's messages, alone or in a group with concurrent requests of the same
     * (tenant, topic): the results and errors are those of {@link MessageStore#publish} of this
     * request, as if the group's requests had run one after the other in arrival order.
     *
     * @param dedupWindowMicros as {@link MessageStore#publish}
     * @return one result per message, in request order
     * @throws dev.tenantmq.model.StoreUnavailableException when the database is unreachable; nothing was written
     */
    public List<Published> publish(String tenant, String topic, List<NewMessage> messages, long dedupWindowMicros) {
        if (!rules.enabled()) {
            return store.publish(tenant, topic, messages, dedupWindowMicros);
        }
        Key key = new Key(tenant, topic);
        Lane lane = lanes.compute(key, (k, l) -> {
            Lane in = l == null ? new Lane() : l;
            in.users++;
            return in;
        });
        try {
            Member me = new Member(messages);
            Group led = lane.enter(me, rules);
            if (led != null) {
                try {
                    run(tenant, topic, led.members, dedupWindowMicros, () -> lane.committing(led));
                } finally {
                    lane.finished(led);
                }
            }
            return me.await();
        } finally {
            lanes.computeIfPresent(key, (k, l) -> --l.users == 0 ? null : l);
        }
    }

    /**
     * Runs a group's shared transaction and hands out the results; falls back to one transaction
     * per request. {@code committing} runs as the transaction's statements are done.
     */
    private void run(String tenant, String topic, List<Member> members, long dedupWindowMicros, Runnable committing) {
        try {
            if (members.size() == 1) {
                members.get(0).done(store.publish(tenant, topic, members.get(0).messages, dedupWindowMicros, committing));
                return;
            }
            List<List<Published>> results;
            try {
                results = store.publishAll(tenant, topic, members.stream().map(m -> m.messages).toList(),
                        dedupWindowMicros, committing);
            } catch (RuntimeException e) {
                // Nothing of the group was stored: each request alone, so that a faulty one fails
                // alone, in arrival order as the group would have stored them.
                LOG.debugf(e, "group commit of %d publishes to tenant=%s topic=%s failed; running them one by one",
                        members.size(), tenant, topic);
                for (Member m : members) {
                    try {
                        m.done(store.publish(tenant, topic, m.messages, dedupWindowMicros));
                    } catch (RuntimeException alone) {
                        m.failed(alone);
                    }
                }
                return;
            }
            for (int i = 0; i < members.size(); i++) {
                members.get(i).done(results.get(i));
            }
        } catch (RuntimeException | Error e) {
            members.forEach(m -> m.failed(e));
            throw e;
        }
    }

    /** A (tenant, topic): requests group only with requests of the same one. */
    private record Key(String tenant, String topic) {}

    /** The groups of one (tenant, topic). */
    private static final class Lane {
        /** Requests of this lane inside {@link #publish}; guarded by the map's {@code compute}. */
        int users;
        /** Groups of this lane running their transaction. */
        private int running;
        /** The group still waiting for members, or null. */
        private Group open;
        /** Which waiting group may take its partitions' head locks ({@link HeadQueue}). */
        private final HeadQueue heads = new HeadQueue();

        /**
         * Places a request: joins the open group (returns null: its leader runs it), or leads a
         * group, waiting for it to be ready when the rules say so, and for the running groups
         * and the groups before it that share a partition with it (returns the group, to run).
         */
        synchronized Group enter(Member me, GroupCommit rules) {
            switch (rules.arrive(open == null ? 0 : open.messages, me.messages.size(), running)) {
                case JOIN -> {
                    open.add(me);
                    if (rules.flush(open.messages, running, 0)) {
                        notifyAll();
                    }
                    return null;
                }
                case RUN -> {
                    closeOpen();
                    Group group = new Group(me);
                    group.closed = true; // a group of its own: nobody joins it
                    awaitStart(group, rules);
                    return group;
                }
                case OPEN -> {
                    closeOpen();
                    Group group = new Group(me);
                    open = group;
                    awaitStart(group, rules);
                    return group;
                }
                default -> throw new IllegalStateException();
            }
        }

        /**
         * A running group's statements are done and its {@code COMMIT} goes next: the database
         * releases its head locks during the commit (InnoDB without a binary log, before the log
         * flush), so a group waiting for its partitions may start now and overlap the rest of the
         * commit, as it would have had it waited for the locks in the database.
         * Once per group; a group whose transaction fails before it frees them in {@link #finished}.
         */
        synchronized void committing(Group group) {
            if (!group.freed) {
                group.freed = true;
                heads.finish(group.keys);
                notifyAll();
            }
        }

        /** A running group committed or failed: a waiting group may run now. */
        synchronized void finished(Group group) {
            running--;
            committing(group);
            notifyAll();
        }

        /** The open group can take no more: its leader runs it once its partitions are free. */
        private void closeOpen() {
            if (open != null) {
                open.closed = true;
                open = null;
                notifyAll();
            }
        }

        /**
         * Waits until the group may run: ready by the rules (closed, full, no sibling running, or
         * lingered long enough), and no running or earlier waiting group shares a partition with
         * it, however long that takes: the group would wait as long for those partitions' head
         * locks in its own transaction. Then the group takes no more members and starts.
         */
        private void awaitStart(Group group, GroupCommit rules) {
            heads.waitFor(group.keys);
            long start = System.nanoTime();
            try {
                while (true) {
                    long waited = System.nanoTime() - start;
                    boolean ready = group.closed || rules.flush(group.messages, running, waited);
                    if (ready && heads.mayStart(group.keys)) {
                        return;
                    }
                    if (ready) {
                        wait(); // for a group that shares a partition: committing() or finished() wakes this
                    } else {
                        TimeUnit.NANOSECONDS.timedWait(this, rules.lingerNanos() - waited);
                    }
                }
            } catch (InterruptedException e) {
                // Stop waiting and run the group (its transaction waits for the head locks, if
                // need be); the caller sees the interrupt afterwards.
                Thread.currentThread().interrupt();
            } finally {
                if (open == group) {
                    open = null;
                }
                heads.start(group.keys);
                running++;
            }
        }
    }

    /** Requests that share a transaction; guarded by their lane until it runs. */
    private static final class Group {
        final List<Member> members = new ArrayList<>();
        /** The partitions whose heads the group's transaction locks. */
        final Set<String> keys = new HashSet<>();
        int messages;
        boolean closed;
        /** Its partitions were handed back to the lane's {@link HeadQueue} (guarded by the lane). */
        boolean freed;

        Group(Member leader) {
            add(leader);
        }

        void add(Member m) {
            members.add(m);
            messages += m.messages.size();
            m.messages.forEach(message -> keys.add(message.partitionKey()));
        }
    }

    /** One request in a group, and its outcome. */
    private static final class Member {
        final List<NewMessage> messages;
        private final CompletableFuture<List<Published>> outcome = new CompletableFuture<>();

        Member(List<NewMessage> messages) {
            this.messages = messages;
        }

        void done(List<Published> results) {
            outcome.complete(results);
        }

        void failed(Throwable e) {
            outcome.completeExceptionally(e);
        }

        /** The results, or the request's own failure rethrown; waits for the group's leader. */
        List<Published> await() {
            try {
                return outcome.join();
            } catch (CompletionException e) {
                if (e.getCause() instanceof RuntimeException r) {
                    throw r;
                }
                if (e.getCause() instanceof Error err) {
                    throw err;
                }
                throw e;
            }
        }
    }
}
