package dev.tenantmq.store;

import com.mysql.cj.CacheAdapter;
import com.mysql.cj.CacheAdapterFactory;
import com.mysql.cj.QueryInfo;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Lock;

/**
 * One cache of parsed statements ({@code QueryInfo}) for every connection of a database URL,
 * where Connector/J keeps one per connection by default: named by the driver property
 * {@code queryInfoCacheFactory} (application.properties). The store's statements with a
 * {@code UNION ALL} branch or an IN list per partition have many texts (one per count of
 * partitions), each parsed by the driver before it is sent; with a cache per connection each
 * text was parsed again on each of the pool's connections, and the parse was a fifth of the
 * service's CPU in the benchmark's replay (docs/architecture.md, "Rows into responses").
 *
 * <p>A parsed statement depends on the SQL text and on settings that all connections of one URL
 * share (the character encoding, the server's {@code NO_BACKSLASH_ESCAPES} mode); it is not
 * changed after it is built, so connections can share it. Least recently used texts go first,
 * beyond {@value #MAX_ENTRIES} texts or {@value #MAX_CHARS} characters of them.
 *
 * <p>A text longer than the driver's {@code prepStmtCacheSqlLimit} (64 KiB, which bounds the
 * texts prepared on the server) is kept apart, up to {@value #MAX_TEXT_CHARS} characters, at most
 * {@value #MAX_LONG_ENTRIES} such texts and {@value #MAX_LONG_CHARS} characters, so that a few of
 * them never push out thousands of short ones: a retention read of 100 partitions is about
 * 130,000 characters, the same text on every full read, and parsing it again on each read was
 * 12% of the service's CPU samples while retention deleted what the benchmark's earlier rows
 * consumed (docs/architecture.md, "Server-side prepared statements").
 * The driver creates it by reflection, hence the registration for a native image.
 */
@RegisterForReflection
public final class SharedQueryInfoCache implements CacheAdapterFactory<String, QueryInfo> {
    /** Most texts up to the driver's limit kept per URL. */
    static final int MAX_ENTRIES = 4_096;
    /** Most characters of those texts kept per URL (the parse holds about as many bytes again). */
    static final long MAX_CHARS = 8_000_000;
    /** The longest text kept. */
    static final int MAX_TEXT_CHARS = 1_000_000;
    /** Most texts longer than the driver's limit kept per URL. */
    static final int MAX_LONG_ENTRIES = 16;
    /** Most characters of those longer texts kept per URL. */
    static final long MAX_LONG_CHARS = 4_000_000;

    private static final Map<String, Shared> BY_URL = new ConcurrentHashMap<>();

    /** Created by the driver, by reflection, once per connection. */
    public SharedQueryInfoCache() {}

    @Override
    public CacheAdapter<String, QueryInfo> getInstance(Lock connectionLock, String url, int cacheMaxSize,
                                                       int maxKeySize) {
        return BY_URL.computeIfAbsent(url, u -> new Shared()).view(maxKeySize);
    }

    /** The texts of one URL: those up to the driver's limit, and the longer ones apart. */
    private static final class Shared {
        private final Lru texts = new Lru(MAX_ENTRIES, MAX_CHARS);
        private final Lru longTexts = new Lru(MAX_LONG_ENTRIES, MAX_LONG_CHARS);

        /** A connection's view: {@code maxKeySize}, the driver's limit, parts the two. */
        CacheAdapter<String, QueryInfo> view(int maxKeySize) {
            return new CacheAdapter<>() {
                private Lru of(String sql) {
                    return sql.length() <= maxKeySize ? texts : longTexts;
                }

                @Override
                public QueryInfo get(String sql) {
                    return of(sql).get(sql);
                }

                @Override
                public void put(String sql, QueryInfo parsed) {
                    if (sql.length() <= MAX_TEXT_CHARS) {
                        of(sql).put(sql, parsed);
                    }
                }

                @Override
                public void invalidate(String sql) {
                    of(sql).remove(sql);
                }

                @Override
                public void invalidateAll(Set<String> sqls) {
                    sqls.forEach(this::invalidate);
                }

                @Override
                public void invalidateAll() {
                    texts.clear();
                    longTexts.clear();
                }
            };
        }
    }

    /** Texts in access order, the least recently used going first beyond either bound. */
    private static final class Lru {
        private final LinkedHashMap<String, QueryInfo> byText = new LinkedHashMap<>(256, 0.75f, true);
        private final int maxEntries;
        private final long maxChars;
        private long chars;

        Lru(int maxEntries, long maxChars) {
            this.maxEntries = maxEntries;
            this.maxChars = maxChars;
        }

        synchronized QueryInfo get(String sql) {
            return byText.get(sql);
        }

        synchronized void put(String sql, QueryInfo parsed) {
            if (byText.put(sql, parsed) == null) {
                chars += sql.length();
            }
            Iterator<Map.Entry<String, QueryInfo>> oldest = byText.entrySet().iterator();
            while ((byText.size() > maxEntries || chars > maxChars) && oldest.hasNext()) {
                chars -= oldest.next().getKey().length();
                oldest.remove();
            }
        }

        synchronized void remove(String sql) {
            if (byText.remove(sql) != null) {
                chars -= sql.length();
            }
        }

        synchronized void clear() {
            byText.clear();
            chars = 0;
        }
    }
}
