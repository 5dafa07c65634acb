package dev.tenantmq.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.tenantmq.api.dto.FetchResponse;
import dev.tenantmq.model.Utf8Json;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A delivered payload goes into the fetch response as the stored JSON bytes, unchanged: numbers as
 * published, non-ASCII text as its UTF-8, whether it fits the generator's buffer or not, and
 * through a character writer as well (docs/architecture.md, "Rows into responses").
 */
class Utf8JsonSerializerTest {
    private static final ObjectMapper JSON = JsonMapper.builder().findAndAddModules()
            .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS).build();
    private static final String PAYLOAD = "{\"n\":1e400,\"z\":-0,\"d\":0.10,\"s\":\"h\\u00e9 \u00e9 \u6f22 \ud83d\ude00\"}";

    private static FetchResponse.Message message(Utf8Json payload) {
        return new FetchResponse.Message("k", "m1", 7, payload, "{}", Instant.EPOCH, 1, "r", null, null);
    }

    private static String expected(String payload) {
        return "{\"partitionKey\":\"k\",\"id\":\"m1\",\"offset\":7,\"payload\":" + payload
                + ",\"metadata\":{},\"createdAt\":\"1970-01-01T00:00:00Z\",\"deliveryAttempt\":1,\"receipt\":\"r\"}";
    }

    @Test
    void the_payload_bytes_are_written_as_they_are() throws Exception {
        byte[] stored = PAYLOAD.getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        JSON.writeValue(out, message(Utf8Json.ofUtf8(stored)));

        assertArrayEquals(expected(PAYLOAD).getBytes(StandardCharsets.UTF_8), out.toByteArray());
    }

    @Test
    void a_payload_larger_than_the_output_buffer_is_written_whole() throws Exception {
        String big = "[" + "\"\u00e9\u00e9\u00e9\",".repeat(20_000) + "1]"; // about 160 KB, past any buffer
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        JSON.writeValue(out, List.of(message(Utf8Json.of(big)), message(Utf8Json.of("2"))));

        assertEquals("[" + expected(big) + "," + expected("2") + "]", out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void a_character_writer_gets_the_same_text() throws Exception {
        assertEquals(expected(PAYLOAD), JSON.writeValueAsString(message(Utf8Json.of(PAYLOAD))));
    }
}
