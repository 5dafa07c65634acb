package dev.tenantmq;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tenantmq.model.DeliveryState;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every store statement that writes {@code queue_delivery_state.state} makes a transition that
 * {@link DeliveryState} allows: an insert creates a row only in a state that may follow "no row",
 * and an update names, in its WHERE clause, the states it moves rows from, each one the target
 * state may be entered from. A statement that binds its from-state ({@code state = ?}) is fenced
 * by a {@code PartitionWalk} step, which checks its own transition when it is made.
 */
class DeliveryTransitionsSqlTest {
    private static final Pattern SET_STATE = Pattern.compile("\\bSET\\b[^;]*?(?<![.\\w])state\\s*=\\s*'(\\w+)'",
            Pattern.CASE_INSENSITIVE | Pattern.DOTALL);
    private static final Pattern WHERE_STATE = Pattern.compile(
            "(?<![.\\w])state\\s*(?:=\\s*(?:'(\\w+)'|(\\?))|IN\\s*\\(([^)]*)\\))", Pattern.CASE_INSENSITIVE);
    private static final Pattern LITERAL = Pattern.compile("'(\\w+)'");
    /** Statements whose from-state is bound from a PartitionWalk step (Deliver, DeadLetter), which checks it. */
    private static final Set<String> WALK_FENCED = Set.of("INFLIGHT", "DEAD");

    private static Set<String> stateNames() {
        Set<String> names = new TreeSet<>();
        for (DeliveryState s : DeliveryState.values()) {
            names.add(s.name());
        }
        return names;
    }

    @Test
    void every_state_write_of_the_store_is_a_transition_the_lifecycle_allows() {
        List<String> checked = new ArrayList<>();
        for (Map.Entry<String, String> e : StoreStatements.all().entrySet()) {
            String name = e.getKey();
            String sql = e.getValue();
            String flat = sql.replaceAll("\\s+", " ").trim();
            if (flat.matches("(?is)INSERT INTO queue_delivery_state\\b.*")) {
                Matcher m = LITERAL.matcher(flat);
                boolean any = false;
                while (m.find()) {
                    if (stateNames().contains(m.group(1))) {
                        DeliveryState to = DeliveryState.valueOf(m.group(1));
                        assertTrue(to.mayFollow(null), name + " creates a row in " + to + ", which needs a row before it");
                        any = true;
                    }
                }
                assertTrue(any, name + " inserts a delivery row without a literal state");
                checked.add(name);
                continue;
            }
            if (!flat.matches("(?is)UPDATE queue_delivery_state\\b.*")) {
                continue;
            }
            Matcher set = SET_STATE.matcher(flat);
            if (!set.find()) {
                continue; // the state does not change (extend)
            }
            DeliveryState to = DeliveryState.valueOf(set.group(1));
            String where = flat.substring(flat.toUpperCase().indexOf(" WHERE "));
            Matcher from = WHERE_STATE.matcher(where);
            List<String> froms = new ArrayList<>();
            while (from.find()) {
                if (from.group(1) != null) {
                    froms.add(from.group(1));
                } else if (from.group(2) != null) {
                    assertTrue(WALK_FENCED.contains(to.name()), name + " binds the state it moves rows from to " + to
                            + ", but no PartitionWalk step checks that transition");
                    froms.add("?");
                } else {
                    Matcher lit = LITERAL.matcher(from.group(3));
                    while (lit.find()) {
                        froms.add(lit.group(1));
                    }
                }
            }
            assertFalse(froms.isEmpty(), name + " moves rows to " + to + " without naming the states it moves them from");
            for (String f : froms) {
                if (!f.equals("?")) {
                    DeliveryState previous = DeliveryState.valueOf(f);
                    assertTrue(to.mayFollow(previous), name + " moves rows from " + previous + " to " + to
                            + ", a transition DeliveryState does not have");
                }
            }
            checked.add(name);
        }
        // The state writes known today: the check must see each (a renamed table or a missed pattern would skip it).
        Set<String> fields = new TreeSet<>();
        checked.forEach(c -> fields.add(c.substring(c.indexOf('.') + 1)));
        assertTrue(fields.containsAll(Set.of("INSERT_BATCH_DELIVERY", "UPDATE_REDELIVERY", "MARK_DEAD", "ACK_DELIVERY",
                "NACK_DELIVERY", "HAND_BACK_LATER", "REQUEUE_DELIVERY")), "state writes checked: " + checked);
    }
}
