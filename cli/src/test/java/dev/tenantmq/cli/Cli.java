package dev.tenantmq.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs the packaged CLI ({@code target/tmq.jar}, or {@code bin/tmq}) as a process of its own, the
 * way an operator does, and captures its exit code, stdout and stderr (UTF-8).
 */
final class Cli {
    /** The shaded jar that {@code package} built (failsafe runs after it). */
    static final Path JAR = Path.of(System.getProperty("tmq.jar", "target/tmq.jar"));
    /** The committed launcher script. */
    static final Path SCRIPT = Path.of(System.getProperty("tmq.script", "../bin/tmq"));

    /** What one run of tmq did. */
    record Result(int code, String out, String err) {
        @Override
        public String toString() {
            return "exit " + code + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    private final Map<String, String> env = new HashMap<>();

    /** A runner with these environment variables (TMQ_URL, TMQ_ADMIN_TOKEN, LANG ...). */
    Cli(Map<String, String> env) {
        this.env.putAll(env);
    }

    /** Runs {@code java -jar tmq.jar args} with a UTF-8 locale and empty stdin. */
    Result run(String... args) {
        return withInput(null, args);
    }

    /** Runs {@code java -jar tmq.jar args} with {@code stdin} as its standard input. */
    Result withInput(String stdin, String... args) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-jar", JAR.toString()));
        command.addAll(List.of(args));
        Map<String, String> e = new HashMap<>(env);
        e.putIfAbsent("LC_ALL", "C.UTF-8");
        return exec(command, e, stdin);
    }

    /** Runs {@code bin/tmq args} with exactly the environment {@code environment} adds to PATH and HOME. */
    static Result script(Map<String, String> environment, String... args) {
        List<String> command = new ArrayList<>(List.of(SCRIPT.toString()));
        command.addAll(List.of(args));
        Map<String, String> e = new HashMap<>();
        e.put("PATH", System.getenv("PATH"));
        e.put("HOME", System.getProperty("user.home"));
        e.put("JAVA_HOME", System.getProperty("java.home"));
        e.putAll(environment);
        return exec(command, e, null);
    }

    /** Starts tmq without waiting for it (tail until a signal). */
    Process start(String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-jar", JAR.toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().putAll(env);
        pb.environment().putIfAbsent("LC_ALL", "C.UTF-8");
        return pb.start();
    }

    private static Result exec(List<String> command, Map<String, String> environment, String stdin) {
        try {
            ProcessBuilder pb = new ProcessBuilder(command);
            pb.environment().clear();
            pb.environment().put("PATH", System.getenv("PATH"));
            pb.environment().putAll(environment);
            Process p = pb.start();
            CompletableFuture<String> out = drain(p.getInputStream());
            CompletableFuture<String> err = drain(p.getErrorStream());
            try (OutputStream in = p.getOutputStream()) {
                if (stdin != null) {
                    in.write(stdin.getBytes(StandardCharsets.UTF_8));
                }
            }
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("tmq did not finish within 120 s: " + command);
            }
            return new Result(p.exitValue(), out.get(10, TimeUnit.SECONDS), err.get(10, TimeUnit.SECONDS));
        } catch (Exception e) {
            throw new AssertionError("cannot run " + command, e);
        }
    }

    /** Reads a stream to its end on another thread, as UTF-8. */
    static CompletableFuture<String> drain(InputStream stream) {
        return CompletableFuture.supplyAsync(() -> {
            try (stream) {
                ByteArrayOutputStream buf = new ByteArrayOutputStream();
                stream.transferTo(buf);
                return buf.toString(StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
    }
}
