package dev.tenantmq.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The store's SQL names delivery states through {@link StateSql}, never as hand-typed literals. */
class StateSqlTest {
    private static final Path STORE_SOURCES = Path.of("src/main/java/dev/tenantmq/store");
    private static final Pattern STATE_LITERAL = Pattern.compile("'(INFLIGHT|RETRY|PENDING|ACKED|DEAD)'");

    @Test
    void renders_one_state_and_the_state_lists_from_the_enum() {
        assertEquals("SET state = 'RETRY' WHERE state = 'INFLIGHT'",
                StateSql.render("SET state = {RETRY} WHERE state = {INFLIGHT}"));
        assertEquals("state IN ('INFLIGHT', 'RETRY', 'PENDING')", StateSql.render("state IN ({UNFINISHED})"));
        assertEquals("state IN ('ACKED', 'DEAD')", StateSql.render("state IN ({FINISHED})"));
    }

    @Test
    void an_unknown_state_token_fails_instead_of_reaching_the_database() {
        assertThrows(IllegalArgumentException.class, () -> StateSql.render("state = {RETRYING}"));
    }

    @Test
    void no_store_source_types_a_state_literal_by_hand() throws IOException {
        List<String> typed = new ArrayList<>();
        try (Stream<Path> files = Files.list(STORE_SOURCES)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                List<String> lines = Files.readAllLines(f);
                for (int i = 0; i < lines.size(); i++) {
                    String line = lines.get(i).strip();
                    boolean comment = line.startsWith("*") || line.startsWith("//") || line.startsWith("/*");
                    if (!comment && STATE_LITERAL.matcher(line).find()) {
                        typed.add(f.getFileName() + ":" + (i + 1) + ": " + line);
                    }
                }
            }
        }
        assertEquals(List.of(), typed, "state literals typed into store SQL (use {STATE} tokens, see StateSql)");
    }
}
