package dev.tenantmq;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.expression.BooleanValue;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.ExpressionVisitorAdapter;
import net.sf.jsqlparser.expression.JdbcParameter;
import net.sf.jsqlparser.expression.operators.conditional.AndExpression;
import net.sf.jsqlparser.expression.operators.conditional.OrExpression;
import net.sf.jsqlparser.expression.operators.relational.EqualsTo;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.expression.operators.relational.InExpression;
import net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.delete.Delete;
import net.sf.jsqlparser.statement.insert.Insert;
import net.sf.jsqlparser.statement.select.FromItem;
import net.sf.jsqlparser.statement.select.Join;
import net.sf.jsqlparser.statement.select.ParenthesedSelect;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.SelectItem;
import net.sf.jsqlparser.statement.select.SetOperationList;
import net.sf.jsqlparser.statement.select.Values;
import net.sf.jsqlparser.statement.select.WithItem;
import net.sf.jsqlparser.statement.update.Update;
import net.sf.jsqlparser.statement.update.UpdateSet;
import org.junit.jupiter.api.Test;

/**
 * Every runtime statement is bound to tenants (the Vitess shard key), so each routes to the
 * shards of those tenants only. The statements are parsed (JSqlParser), and every WHERE clause,
 * of the statement and of each subquery, derived table, UPDATE and DELETE, must lead with a
 * tenant condition ({@code tenant = ?}, {@code tenant IN (?, ...)} or a correlation
 * {@code x.tenant = y.tenant}), and each of its top-level disjuncts must be bound by one, so
 * {@code WHERE tenant = ? OR ...} fails. A join with a table must lead its ON with a tenant
 * condition; a join with a derived table is bound by the derived table's own WHERE. The only
 * exceptions are the admin API's explicit all-tenants listings (RFC "Operational tooling"),
 * named {@code *_ALL_TENANTS}, whose outermost WHERE is {@code TRUE AND ...}.
 */
class StoreSqlRulesTest {

    @Test
    void every_where_clause_leads_with_tenant_and_binds_every_disjunct_to_it() {
        List<String> broken = new ArrayList<>();
        int statements = 0;
        for (Map.Entry<String, String> e : StoreStatements.all().entrySet()) {
            if (e.getValue().contains("WHERE %s")) {
                continue; // a listing template: its formatted constants are checked
            }
            Rules rules = new Rules(e.getKey(), e.getKey().endsWith("_ALL_TENANTS"));
            rules.check(e.getValue());
            broken.addAll(rules.broken);
            statements += rules.wheres > 0 ? 1 : 0;
        }
        assertTrue(statements > 40, "found the store's statements (" + statements + ")");
        assertEquals(List.of(), broken);
    }

    @Test
    void the_rules_refuse_unbound_disjuncts_and_tenant_conditions_that_do_not_lead() {
        List<String> unbound = List.of(
                "SELECT 1 FROM queue_messages WHERE tenant = ? AND topic = ? OR 1 = 1",
                "SELECT 1 FROM queue_messages WHERE tenant = ? AND topic = ? OR partition_key = ?",
                "SELECT 1 FROM queue_messages WHERE (tenant = ? OR topic = ?) AND partition_key = ?",
                "SELECT 1 FROM queue_messages WHERE topic = ? AND (tenant = ? OR partition_key = ?)",
                "SELECT 1 FROM queue_messages WHERE topic = ? AND tenant = ?",
                "SELECT 1 FROM queue_messages WHERE tenant = topic",
                "SELECT 1 FROM queue_messages m WHERE m.tenant = ? AND EXISTS "
                        + "(SELECT 1 FROM queue_offsets o WHERE o.topic = m.topic)",
                "SELECT 1 FROM queue_offsets o JOIN queue_messages m ON m.topic = o.topic WHERE o.tenant = ?",
                "UPDATE queue_offsets SET committed_offset = ? WHERE tenant = ? OR topic = ?",
                "DELETE FROM queue_offsets WHERE topic = ?",
                "SELECT 1 FROM queue_offsets");
        for (String sql : unbound) {
            Rules rules = new Rules("example", false);
            rules.check(sql);
            assertFalse(rules.broken.isEmpty(), "refused: " + sql);
        }
        Rules bound = new Rules("example", false);
        bound.check("SELECT 1 FROM queue_messages WHERE (tenant = ? AND topic = ?) OR (tenant IN (?, ?) AND id = ?)");
        assertEquals(List.of(), bound.broken, "every disjunct bound and leading with tenant");
    }

    /** Checks one statement; collects what breaks the rules. */
    private static final class Rules {
        private final String name;
        /** The outermost WHERE may be {@code TRUE} (a fleet-wide listing). */
        private final boolean fleetWide;
        final List<String> broken = new ArrayList<>();
        int wheres;
        private boolean outermost = true;

        Rules(String name, boolean fleetWide) {
            this.name = name;
            this.fleetWide = fleetWide;
        }

        void check(String sql) {
            Statement statement;
            try {
                statement = CCJSqlParserUtil.parse(StoreStatements.expandTemplate(sql));
            } catch (JSQLParserException ex) {
                broken.add(name + " does not parse: " + ex.getMessage().lines().findFirst().orElse(""));
                return;
            }
            if (statement instanceof Select select) {
                select(select);
            } else if (statement instanceof Update update) {
                joins(update.getStartJoins());
                joins(update.getJoins());
                fromItem(update.getFromItem());
                for (UpdateSet set : update.getUpdateSets()) {
                    set.getValues().forEach(this::subqueries);
                }
                where("UPDATE", update.getWhere(), true);
            } else if (statement instanceof Delete delete) {
                joins(delete.getJoins());
                where("DELETE", delete.getWhere(), true);
            } else if (statement instanceof Insert insert) {
                if (insert.getSelect() != null && !(insert.getSelect() instanceof Values)) {
                    select(insert.getSelect()); // INSERT ... SELECT; VALUES reads nothing
                }
                if (insert.getDuplicateUpdateSets() != null) {
                    insert.getDuplicateUpdateSets().forEach(s -> s.getValues().forEach(this::subqueries));
                }
            } else {
                broken.add(name + " is a " + statement.getClass().getSimpleName() + ", which this test cannot check");
            }
        }

        private void select(Select select) {
            if (select.getWithItemsList() != null) {
                for (WithItem<?> with : select.getWithItemsList()) {
                    select(with.getSelect());
                }
            }
            if (select instanceof ParenthesedSelect parenthesed) {
                select(parenthesed.getSelect());
            } else if (select instanceof SetOperationList union) {
                union.getSelects().forEach(this::select);
            } else if (select instanceof PlainSelect plain) {
                boolean top = outermost;
                outermost = false;
                for (SelectItem<?> item : plain.getSelectItems()) {
                    subqueries(item.getExpression());
                }
                fromItem(plain.getFromItem());
                joins(plain.getJoins());
                if (plain.getFromItem() != null) {
                    where("SELECT", plain.getWhere(), top);
                }
                subqueries(plain.getHaving());
            } else {
                broken.add(name + ": a " + select.getClass().getSimpleName() + " this test cannot check");
            }
        }

        private void fromItem(FromItem item) {
            if (item instanceof ParenthesedSelect derived) {
                select(derived);
            }
        }

        private void joins(List<Join> joins) {
            if (joins == null) {
                return;
            }
            for (Join join : joins) {
                fromItem(join.getRightItem());
                if (join.getRightItem() instanceof Table table) {
                    Expression on = join.getOnExpressions().stream().reduce(AndExpression::new).orElse(null);
                    if (on == null) {
                        broken.add(name + ": join with " + table + " has no ON condition");
                    } else {
                        conditions("join ON " + table, on);
                    }
                }
                join.getOnExpressions().forEach(this::subqueries);
            }
        }

        private void where(String clause, Expression where, boolean top) {
            wheres++;
            if (where == null) {
                broken.add(name + ": " + clause + " without WHERE");
                return;
            }
            subqueries(where);
            if (top && fleetWide && leading(where) instanceof BooleanValue b && b.getValue()) {
                return; // WHERE TRUE AND ...: an explicit fleet-wide listing
            }
            conditions(clause + " WHERE", where);
        }

        private void conditions(String clause, Expression e) {
            Expression first = leading(e);
            if (!isTenantCondition(first)) {
                broken.add(name + ": " + clause + " leads with " + first + ", not tenant");
            }
            if (!bound(e)) {
                broken.add(name + ": " + clause + " " + e + " has a disjunct not bound by tenant");
            }
        }

        /** Every subquery inside {@code e} (EXISTS, IN, scalar) is checked as a select. */
        private void subqueries(Expression e) {
            if (e == null) {
                return;
            }
            e.accept(new ExpressionVisitorAdapter<Void>() {
                @Override
                public <S> Void visit(ParenthesedSelect subquery, S context) {
                    select(subquery);
                    return null;
                }

                @Override
                public <S> Void visit(Select subquery, S context) {
                    select(subquery);
                    return null;
                }
            }, null);
        }
    }

    /** The first conjunct of a condition: the left end of its AND chain (of its first disjunct). */
    private static Expression leading(Expression e) {
        Expression inner = unwrap(e);
        if (inner instanceof AndExpression and) {
            return leading(and.getLeftExpression());
        }
        if (inner instanceof OrExpression or) {
            return leading(or.getLeftExpression());
        }
        return inner;
    }

    /** Whether every way {@code e} can be true requires a tenant condition: each disjunct has one. */
    private static boolean bound(Expression e) {
        Expression inner = unwrap(e);
        if (inner instanceof AndExpression and) {
            return bound(and.getLeftExpression()) || bound(and.getRightExpression());
        }
        if (inner instanceof OrExpression or) {
            return bound(or.getLeftExpression()) && bound(or.getRightExpression());
        }
        return isTenantCondition(inner);
    }

    /**
     * {@code [x.]tenant = ?}, {@code [x.]tenant IN (?, ...)}, or {@code x.tenant = y.tenant}
     * (a correlated subquery or join, bound by the enclosing statement's tenant).
     */
    private static boolean isTenantCondition(Expression e) {
        if (e instanceof EqualsTo eq) {
            return isTenant(eq.getLeftExpression())
                    && (eq.getRightExpression() instanceof JdbcParameter || isTenant(eq.getRightExpression()));
        }
        if (e instanceof InExpression in && !in.isNot() && isTenant(in.getLeftExpression())
                && in.getRightExpression() instanceof ExpressionList<?> list && !list.isEmpty()) {
            return list.stream().allMatch(JdbcParameter.class::isInstance);
        }
        return false;
    }

    private static boolean isTenant(Expression e) {
        return e instanceof Column c && c.getColumnName().equalsIgnoreCase("tenant");
    }

    private static Expression unwrap(Expression e) {
        Expression inner = e;
        while (true) {
            // JSqlParser 5 parses a parenthesised expression as a list of one (its Parenthesis
            // class is deprecated and no longer produced).
            if (inner instanceof ParenthesedExpressionList<?> list && list.size() == 1) {
                inner = list.get(0);
            } else {
                return inner;
            }
        }
    }
}
