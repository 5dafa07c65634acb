package dev.tenantmq.store;

import dev.tenantmq.model.GroupScope;
import java.util.ArrayList;
import java.util.List;

/**
 * One bind value of a {@link Statement}, named for the column its placeholder is compared with
 * or written to ({@code tenant}, {@code consumer_group}, {@code message_offset} ...), or for its
 * role where no column is ({@code limit}, {@code micros}). The three keys of a {@link GroupScope}
 * are bound only through {@link #tenant}, {@link #group} and {@link #topic}, so the name always
 * matches the value; {@code StatementBindsTest} checks each name against the SQL, so binds in the
 * wrong order (say, the scope's (tenant, group, topic) where {@code queue_offsets} is keyed
 * (tenant, topic, ..., group)) fail a test instead of silently matching nothing.
 *
 * @param name the column (or role) of the placeholder
 * @param value the value, bound with {@code setObject}
 */
record Bind(String name, Object value) {
    static Bind tenant(GroupScope s) {
        return new Bind("tenant", s.tenant());
    }

    static Bind group(GroupScope s) {
        return new Bind("consumer_group", s.consumerGroup());
    }

    static Bind topic(GroupScope s) {
        return new Bind("topic", s.topic());
    }

    static Bind of(String name, Object value) {
        return new Bind(name, value);
    }

    /** One bind per value of an IN list, each named {@code name}. */
    static List<Bind> each(String name, List<?> values) {
        List<Bind> out = new ArrayList<>(values.size());
        values.forEach(v -> out.add(new Bind(name, v)));
        return out;
    }

    /** The binds in order, IN lists flattened: elements are {@link Bind}s or lists of them. */
    static List<Bind> list(Object... binds) {
        List<Bind> out = new ArrayList<>();
        for (Object b : binds) {
            if (b instanceof Bind one) {
                out.add(one);
            } else if (b instanceof List<?> many) {
                many.forEach(m -> out.add((Bind) m));
            } else {
                throw new IllegalArgumentException("not a bind: " + b);
            }
        }
        return out;
    }
}
