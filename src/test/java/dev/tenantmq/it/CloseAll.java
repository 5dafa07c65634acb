package dev.tenantmq.it;

import java.util.List;

/** The clean-up of a test that started processes, databases and client threads. */
final class CloseAll {
    private CloseAll() {
    }

    /**
     * Closes {@code started} from the last to the first, every one of them even when an earlier
     * close fails (a service process left running would outlive the test JVM's work); the first
     * failure is thrown afterwards with the others suppressed.
     */
    static void lastFirst(List<? extends AutoCloseable> started) throws Exception {
        Exception first = null;
        for (int i = started.size() - 1; i >= 0; i--) {
            try {
                started.get(i).close();
            } catch (Exception e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
