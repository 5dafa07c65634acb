package dev.tenantmq.store;

import java.sql.SQLException;
import java.sql.Statement;

/**
 * The number of rows a write statement may change, checked on every run (house rule: "check
 * update counts; 0 = conflict or stale lease, more than 1 = bug").
 */
enum UpdateCount {
    /**
     * Exactly one row: a row read in this transaction. No row means it changed or went away,
     * not through the lease row lock, which every consumer write takes, but by retention or an
     * admin delete of the message: a {@link ConflictRetry}, so {@link Db} retries the
     * transaction with fresh reads. More than one is a bug.
     */
    EXACTLY_ONE,
    /** None (the fence did not match: stale, answered to the caller) or one; more is a bug. */
    AT_MOST_ONE,
    /** Any number (a range of rows); nothing to check. */
    ANY;

    /**
     * Checks one update count.
     *
     * @param what the write, for the error
     * @return {@code n}
     * @throws ConflictRetry when {@link #EXACTLY_ONE} changed no row
     * @throws SQLException when the count breaks the contract otherwise (a bug)
     */
    int check(int n, String what) throws SQLException {
        switch (this) {
            case EXACTLY_ONE -> {
                if (n == 0) {
                    throw new ConflictRetry(what + " changed no row");
                }
                if (n != 1 && n != Statement.SUCCESS_NO_INFO) {
                    throw new SQLException(what + " changed " + n + " rows, expected 1");
                }
            }
            case AT_MOST_ONE -> {
                if (n > 1) {
                    throw new SQLException(what + " changed " + n + " rows, expected at most 1");
                }
            }
            case ANY -> {
                // a range: any count is right
            }
        }
        return n;
    }

    /**
     * Checks the count of one statement that writes {@code rows} rows at once (a multi-row
     * UPDATE): as {@link #check} of each row, so for {@link #EXACTLY_ONE} fewer rows are a
     * {@link ConflictRetry} and more a bug.
     *
     * @return {@code n}
     */
    int checkRows(int n, int rows, String what) throws SQLException {
        if (n == Statement.SUCCESS_NO_INFO || this == ANY) {
            return n;
        }
        if (this == EXACTLY_ONE && n < rows) {
            throw new ConflictRetry(what + " changed " + n + " of " + rows + " rows");
        }
        if (n > rows) {
            throw new SQLException(what + " changed " + n + " rows, expected " + (this == EXACTLY_ONE ? "" : "at most ")
                    + rows);
        }
        return n;
    }

    /** Checks each count of a JDBC batch, as {@link #check}. */
    void checkEach(int[] counts, String what) throws SQLException {
        for (int n : counts) {
            check(n, what);
        }
    }
}
