package dev.tenantmq;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * Marks a test class whose rule lives wholly in the HTTP layer (reading bodies, authentication,
 * the error wording), so no database can change its outcome. CI runs such a class on the embedded
 * MariaDB only and leaves it out of the MySQL 9.7 and vtgate runs with
 * {@code -DexcludedGroups=database-agnostic} (docs/testing.md, "What CI runs"). Such a class may
 * check that a refused request stored nothing; a class whose outcome depends on how the store
 * writes, reads, locks, orders or counts rows must not carry it ({@code ArchitectureTest} holds
 * it to HTTP).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag(DatabaseAgnostic.TAG)
public @interface DatabaseAgnostic {
    /** The JUnit tag, as {@code -DexcludedGroups} names it. */
    String TAG = "database-agnostic";
}
