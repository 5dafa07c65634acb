package dev.tenantmq;

import com.mysql.cj.MysqlConnection;
import com.mysql.cj.Query;
import com.mysql.cj.interceptors.QueryInterceptor;
import com.mysql.cj.log.Log;
import com.mysql.cj.protocol.Resultset;
import com.mysql.cj.protocol.ServerSession;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * A Connector/J query interceptor (test profile: {@code queryInterceptors}) that records the SQL
 * text the service sends while a test has switched it on, so a test can count the statements a
 * request costs. Client-side prepared statements carry their bound values, so a test finds its
 * own statements by its unique topic name. Off by default: it costs one atomic read per statement.
 */
public class StatementLog implements QueryInterceptor {
    // The driver loads this class in another class loader than the test's (Quarkus runs tests in
    // its own), so the two copies share their state through JDK objects in the system properties.
    @SuppressWarnings("unchecked")
    private static final ConcurrentLinkedQueue<String> SENT = (ConcurrentLinkedQueue<String>) System.getProperties()
            .computeIfAbsent("dev.tenantmq.StatementLog.sent", k -> new ConcurrentLinkedQueue<String>());
    private static final AtomicBoolean ON = (AtomicBoolean) System.getProperties()
            .computeIfAbsent("dev.tenantmq.StatementLog.on", k -> new AtomicBoolean());

    /** Starts recording, dropping anything recorded before. */
    public static void start() {
        SENT.clear();
        ON.set(true);
    }

    /** Stops recording and returns the statements sent since {@link #start()} that contain {@code marker}. */
    public static List<String> stop(String marker) {
        ON.set(false);
        return SENT.stream().filter(sql -> sql.contains(marker)).toList();
    }

    @Override
    public QueryInterceptor init(MysqlConnection conn, Properties props, Log log) {
        return this;
    }

    @Override
    public <T extends Resultset> T preProcess(Supplier<String> sql, Query interceptedQuery) {
        if (ON.get()) {
            String text = sql.get();
            if (text != null) {
                SENT.add(text);
            }
        }
        return null;
    }

    @Override
    public boolean executeTopLevelOnly() {
        return true;
    }

    @Override
    public void destroy() {}

    @Override
    public <T extends Resultset> T postProcess(Supplier<String> sql, Query interceptedQuery, T originalResultSet,
                                               ServerSession serverSession) {
        return null;
    }
}
