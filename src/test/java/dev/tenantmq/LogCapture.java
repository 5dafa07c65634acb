package dev.tenantmq;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Captures the log records of INFO or above written while it is open (JBoss LogManager passes
 * them to java.util.logging handlers on the root logger), as "logger LEVEL message".
 */
public final class LogCapture extends Handler implements AutoCloseable {
    private final List<String> lines = new CopyOnWriteArrayList<>();

    private LogCapture() {}

    /** Starts capturing. */
    public static LogCapture start() {
        LogCapture capture = new LogCapture();
        Logger.getLogger("").addHandler(capture);
        return capture;
    }

    /** The lines captured so far. */
    public List<String> lines() {
        return List.copyOf(lines);
    }

    @Override
    public void publish(LogRecord r) {
        if (r.getLevel().intValue() >= Level.INFO.intValue()) {
            lines.add(r.getLoggerName() + " " + r.getLevel() + " " + r.getMessage());
        }
    }

    @Override
    public void flush() {}

    /** Stops capturing. */
    @Override
    public void close() {
        Logger.getLogger("").removeHandler(this);
    }
}
