package dev.tenantmq.model;

import java.util.List;

/**
 * The rule of a deletion in bounded chunks (docs/operations.md, "Deleting a topic or a consumer
 * group"): passes over the steps (one table each) in order, each step repeated while its chunks
 * come back full, within a budget of chunks per call. A deletion is done only after a whole pass
 * deleted nothing: a row that another transaction committed meanwhile (a publisher that locked its
 * partition head before the deletion began, a lease taken on the way) is found by the next pass.
 * The budget counts the chunks that deleted rows; a chunk that finds nothing (one index probe)
 * is free. Once the budget is spent, a pass still starts, to find out whether anything is left:
 * it ends the call at its first chunk that deletes rows. So a call runs at most {@code maxChunks + 1}
 * chunks that delete, and the empty pass that makes it done always completes, whatever the budget.
 * Pure: the steps run the statements.
 */
public final class ChunkedDeletion {
    private ChunkedDeletion() {}

    /** One step: deletes at most {@code limit} rows of its table and returns how many it deleted. */
    @FunctionalInterface
    public interface Step {
        /** @return rows deleted, 0..{@code limit} */
        int delete(int limit);
    }

    /**
     * What one call did.
     *
     * @param done a whole pass deleted nothing: nothing of the target is left
     * @param deleted rows deleted per step, in step order
     * @param chunks chunk statements run, those that found nothing included
     */
    public record Outcome(boolean done, long[] deleted, int chunks) {
        /** Rows deleted by the step at {@code index}. */
        public long deleted(int index) {
            return deleted[index];
        }
    }

    /**
     * Runs passes over {@code steps} until a pass deletes nothing (done) or the budget of
     * {@code maxChunks} chunks that delete rows is spent (not done: call again).
     *
     * @param chunkSize rows per chunk, at least 1
     * @param maxChunks chunks that delete rows this call may run, at least 1
     * @throws IllegalStateException when a step reports more rows than its limit (a bug)
     */
    public static Outcome run(List<Step> steps, int chunkSize, int maxChunks) {
        if (chunkSize < 1 || maxChunks < 1) {
            throw new IllegalArgumentException("chunkSize and maxChunks must be at least 1");
        }
        long[] deleted = new long[steps.size()];
        int chunks = 0;
        int deleting = 0;
        while (true) {
            long pass = 0;
            for (int i = 0; i < steps.size(); i++) {
                int n;
                do {
                    if (deleting > maxChunks || (deleting == maxChunks && pass > 0)) {
                        return new Outcome(false, deleted, chunks);
                    }
                    n = steps.get(i).delete(chunkSize);
                    chunks++;
                    deleting += n > 0 ? 1 : 0;
                    if (n < 0 || n > chunkSize) {
                        throw new IllegalStateException("a chunk of at most " + chunkSize + " rows deleted " + n);
                    }
                    deleted[i] += n;
                    pass += n;
                } while (n == chunkSize);
            }
            if (pass == 0) {
                return new Outcome(true, deleted, chunks);
            }
        }
    }
}
