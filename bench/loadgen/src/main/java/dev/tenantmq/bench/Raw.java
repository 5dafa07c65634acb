package dev.tenantmq.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The raw JDBC baselines (bench/README.md), on the same database server as the service, in a database
 * of their own ({@code bench_raw}) whose message table has the shape of {@code queue_messages}
 * (same primary key, unique id key and offset index), so an insert maintains the same indexes.
 * Autocommit throughout: every statement is its own durable transaction.
 */
final class Raw {
    private final String url;
    private final String user;
    private final String password;

    Raw(String serverUrl, String user, String password) {
        // The service's own Connector/J properties (application.properties), minus TLS.
        this.url = serverUrl + "/bench_raw?cachePrepStmts=true&prepStmtCacheSize=250&prepStmtCacheSqlLimit=65536"
                + "&characterEncoding=UTF-8&sslMode=DISABLED&allowPublicKeyRetrieval=true";
        this.user = user;
        this.password = password;
    }

    Connection connect() throws SQLException {
        return DriverManager.getConnection(url, user, password);
    }

    void setup() throws SQLException {
        try (Connection c = connect(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS raw_messages");
            s.execute("DROP TABLE IF EXISTS raw_offsets");
            s.execute("""
                    CREATE TABLE raw_messages (
                      tenant        VARCHAR(255) CHARACTER SET ascii   COLLATE ascii_bin   NOT NULL,
                      topic         VARCHAR(255) CHARACTER SET ascii   COLLATE ascii_bin   NOT NULL,
                      partition_key VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
                      `offset`      BIGINT NOT NULL AUTO_INCREMENT,
                      id            VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
                      payload       LONGTEXT     CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
                      metadata      MEDIUMTEXT   CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
                      created_at    DATETIME(6) NOT NULL,
                      PRIMARY KEY (tenant, topic, partition_key, `offset`),
                      UNIQUE KEY uq_message_id (tenant, topic, partition_key, id),
                      KEY idx_offset (`offset`)
                    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin""");
            s.execute("""
                    CREATE TABLE raw_offsets (
                      tenant           VARCHAR(255) CHARACTER SET ascii   COLLATE ascii_bin   NOT NULL,
                      topic            VARCHAR(255) CHARACTER SET ascii   COLLATE ascii_bin   NOT NULL,
                      partition_key    VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
                      consumer_group   VARCHAR(255) CHARACTER SET ascii   COLLATE ascii_bin   NOT NULL,
                      committed_offset BIGINT NOT NULL,
                      updated_at       DATETIME(6) NOT NULL,
                      PRIMARY KEY (tenant, topic, partition_key, consumer_group)
                    ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin""");
        }
    }

    private static final String TENANT = "bench";
    private static final String META = "{\"queue_name\":\"bench\"}";

    private static String insertSql(int rows) {
        StringBuilder b = new StringBuilder(
                "INSERT INTO raw_messages (tenant, topic, partition_key, id, payload, metadata, created_at) VALUES ");
        for (int i = 0; i < rows; i++) {
            b.append(i == 0 ? "" : ",").append("(?, ?, ?, ?, ?, ?, UTC_TIMESTAMP(6))");
        }
        return b.toString();
    }

    /**
     * Inserts {@code total} messages as multi-row INSERTs of {@code batch} rows on {@code conns}
     * connections (random partition per row, as the service publish rows); returns msg/s.
     */
    double insert(String topic, String idPrefix, long total, int conns, int batch, int partitions, Stats.Latencies lat)
            throws Exception {
        return insert(topic, idPrefix, total, conns, batch, partitions, lat, false);
    }

    /**
     * As above; with {@code ownedPartitions} each connection writes only its own partitions
     * (p mod conns), so each partition's rows commit in offset order and a concurrent
     * after-the-cursor reader cannot pass over a row that commits late (end_to_end). Without
     * it, AUTO_INCREMENT offsets of concurrent writers commit out of order and such a reader
     * would lose rows.
     */
    double insert(String topic, String idPrefix, long total, int conns, int batch, int partitions, Stats.Latencies lat,
                  boolean ownedPartitions) throws Exception {
        AtomicLong next = new AtomicLong();
        long started = System.nanoTime();
        try (ExecutorService ex = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> fs = new ArrayList<>();
            for (int w = 0; w < conns; w++) {
                final int worker = w;
                fs.add(ex.submit(() -> {
                    SplittableRandom rnd = new SplittableRandom(worker * 7919L + topic.hashCode());
                    try (Connection c = connect(); PreparedStatement ps = c.prepareStatement(insertSql(batch))) {
                        long first;
                        while ((first = next.getAndAdd(batch)) < total) {
                            int n = (int) Math.min(batch, total - first);
                            PreparedStatement st = n == batch ? ps : c.prepareStatement(insertSql(n));
                            int k = 1;
                            for (int i = 0; i < n; i++) {
                                st.setString(k++, TENANT);
                                st.setString(k++, topic);
                                int p = ownedPartitions ? worker + conns * rnd.nextInt((partitions - worker + conns - 1) / conns)
                                        : rnd.nextInt(partitions);
                                st.setString(k++, Payloads.partition(p));
                                st.setString(k++, idPrefix + "-" + (first + i));
                                st.setString(k++, Payloads.PAYLOAD);
                                st.setString(k++, META);
                            }
                            long t0 = System.nanoTime();
                            st.executeUpdate();
                            if (lat != null) {
                                lat.add(System.nanoTime() - t0);
                            }
                            if (st != ps) {
                                st.close();
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                f.get();
            }
        }
        return total / ((System.nanoTime() - started) / 1e9);
    }

    /**
     * Drains {@code total} messages of {@code topic} for {@code group}: each of {@code conns}
     * connections owns every conns-th partition and loops over them, selecting the next
     * {@code batch} rows after the in-memory cursor and then updating the committed offset.
     * Returns msg/s.
     */
    double consume(String topic, String group, long total, int conns, int batch, int partitions) throws Exception {
        try (Connection c = connect(); PreparedStatement ps = c.prepareStatement(
                "INSERT INTO raw_offsets VALUES (?, ?, ?, ?, 0, UTC_TIMESTAMP(6))")) {
            for (int p = 0; p < partitions; p++) {
                ps.setString(1, TENANT);
                ps.setString(2, topic);
                ps.setString(3, Payloads.partition(p));
                ps.setString(4, group);
                ps.addBatch();
            }
            ps.executeBatch();
        }
        AtomicLong consumed = new AtomicLong();
        long started = System.nanoTime();
        try (ExecutorService ex = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> fs = new ArrayList<>();
            for (int w = 0; w < conns; w++) {
                final int worker = w;
                fs.add(ex.submit(() -> {
                    try (Connection c = connect();
                         PreparedStatement sel = c.prepareStatement("""
                                 SELECT `offset`, id, payload, metadata, created_at FROM raw_messages
                                 WHERE tenant = ? AND topic = ? AND partition_key = ? AND `offset` > ?
                                 ORDER BY `offset` LIMIT ?""");
                         PreparedStatement upd = c.prepareStatement("""
                                 UPDATE raw_offsets SET committed_offset = ?, updated_at = UTC_TIMESTAMP(6)
                                 WHERE tenant = ? AND topic = ? AND partition_key = ? AND consumer_group = ?""")) {
                        List<Integer> mine = new ArrayList<>();
                        for (int p = worker; p < partitions; p += conns) {
                            mine.add(p);
                        }
                        long[] cursor = new long[partitions];
                        long idleSince = System.nanoTime();
                        while (consumed.get() < total) {
                            boolean any = false;
                            for (int p : mine) {
                                String pk = Payloads.partition(p);
                                sel.setString(1, TENANT);
                                sel.setString(2, topic);
                                sel.setString(3, pk);
                                sel.setLong(4, cursor[p]);
                                sel.setInt(5, batch);
                                int n = 0;
                                long last = cursor[p];
                                try (ResultSet rs = sel.executeQuery()) {
                                    while (rs.next()) {
                                        last = rs.getLong(1);
                                        rs.getString(2);
                                        rs.getString(3);
                                        rs.getString(4);
                                        rs.getTimestamp(5);
                                        n++;
                                    }
                                }
                                if (n == 0) {
                                    continue;
                                }
                                upd.setLong(1, last);
                                upd.setString(2, TENANT);
                                upd.setString(3, topic);
                                upd.setString(4, pk);
                                upd.setString(5, group);
                                if (upd.executeUpdate() != 1) {
                                    throw new IllegalStateException("offset row missing for " + pk);
                                }
                                cursor[p] = last;
                                consumed.addAndGet(n);
                                any = true;
                            }
                            if (any) {
                                idleSince = System.nanoTime();
                            } else if (System.nanoTime() - idleSince > 120e9) {
                                throw new IllegalStateException("raw consumer: no progress for 120 s");
                            } else {
                                Thread.sleep(1); // publishers still running (end_to_end)
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                f.get();
            }
        }
        return consumed.get() / ((System.nanoTime() - started) / 1e9);
    }
}
