package dev.tenantmq;

import java.sql.SQLException;

/**
 * Reads of the server's views of running statements ({@code information_schema.innodb_trx},
 * {@code PROCESSLIST}) for tests that wait for a statement to block. MySQL 9.7 keeps the statement
 * text of these views in utf8mb3 and refuses the whole read while any running statement's text
 * holds a 4-byte character (a partition key with an emoji that another test stored, bound into a
 * background statement's text). Such a read tells nothing: the caller reads again.
 */
public final class ServerViews {
    private ServerViews() {}

    /** Whether {@code e} is MySQL 9.7 refusing a view because a statement's text is not utf8mb3. */
    public static boolean textNotReadable(SQLException e) {
        return e.getMessage() != null && e.getMessage().startsWith("Cannot convert string");
    }
}
