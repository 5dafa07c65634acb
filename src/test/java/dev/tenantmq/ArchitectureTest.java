package dev.tenantmq;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The arrows between the layers run one way: {@code api -> domain -> store -> model}, where
 * {@code model} is the ground floor (value types, their validation errors, the pure delivery
 * rules, {@code GroupScope}, {@code DeadLetterPolicy}, {@code StoreUnavailableException}) that
 * every layer may use. The scheduler sits beside the domain and uses the store; {@code config}
 * serves everyone; {@code ops} (metrics, health) is called by the layers, the scheduler included,
 * and reads only what they publish to it (the scheduler's {@code ops.SchedulerStatus}).
 *
 * <p>Each rule is checked on the compiled classes, so it sees a type that is used (a field, a
 * parameter, a call), not an unused import. The packages as a whole are free of cycles.
 */
class ArchitectureTest {
    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.tenantmq");

    @Test
    void the_ground_floor_depends_on_no_other_layer() {
        noClasses().that().resideInAPackage("dev.tenantmq.model..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.tenantmq.api..", "dev.tenantmq.domain..",
                        "dev.tenantmq.store..", "dev.tenantmq.scheduler..", "dev.tenantmq.ops..", "dev.tenantmq.config..")
                .check(MAIN);
    }

    /**
     * The ground floor is plain Java: value types and pure rules, no framework (no CDI bean, no
     * JDBC, no HTTP), so its rules run in a unit test without a container or a database.
     */
    @Test
    void the_ground_floor_is_plain_java() {
        classes().that().resideInAPackage("dev.tenantmq.model..")
                .should().onlyDependOnClassesThat().resideInAnyPackage("dev.tenantmq.model..", "java..")
                .check(MAIN);
    }

    /** No package reaches, through any path, back to a package that depends on it. */
    @Test
    void the_packages_are_free_of_cycles() {
        slices().matching("dev.tenantmq.(*)..").should().beFreeOfCycles().check(MAIN);
    }

    @Test
    void the_store_depends_only_on_the_ground_floor() {
        noClasses().that().resideInAPackage("dev.tenantmq.store..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.tenantmq.api..", "dev.tenantmq.domain..",
                        "dev.tenantmq.scheduler..", "dev.tenantmq.ops..", "dev.tenantmq.config..")
                .check(MAIN);
    }

    @Test
    void the_domain_never_reaches_up_to_the_http_layer_or_the_scheduler() {
        noClasses().that().resideInAPackage("dev.tenantmq.domain..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.tenantmq.api..", "dev.tenantmq.scheduler..")
                .check(MAIN);
    }

    /** The HTTP layer sees domain views and ground-floor types, never a database row or the scheduler. */
    @Test
    void the_http_layer_reaches_the_store_only_through_the_domain() {
        noClasses().that().resideInAPackage("dev.tenantmq.api..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.tenantmq.store..", "dev.tenantmq.scheduler..")
                .check(MAIN);
    }

    @Test
    void the_scheduler_never_reaches_up_to_the_http_layer() {
        noClasses().that().resideInAPackage("dev.tenantmq.scheduler..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.tenantmq.api..")
                .check(MAIN);
    }

    /** Configuration is read by every layer, so it may use only the ground floor (its names are value types). */
    @Test
    void configuration_depends_only_on_the_ground_floor() {
        noClasses().that().resideInAPackage("dev.tenantmq.config..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.tenantmq.api..", "dev.tenantmq.domain..",
                        "dev.tenantmq.store..", "dev.tenantmq.scheduler..", "dev.tenantmq.ops..")
                .check(MAIN);
    }

    /**
     * Metrics and health checks are called by the layers; they never call back into the HTTP layer,
     * the domain or the scheduler. Health reads the status the scheduler publishes, not the scheduler.
     */
    @Test
    void operations_never_reach_into_the_http_layer_the_domain_or_the_scheduler() {
        noClasses().that().resideInAPackage("dev.tenantmq.ops..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.tenantmq.api..", "dev.tenantmq.domain..",
                        "dev.tenantmq.scheduler..")
                .check(MAIN);
    }

    /**
     * The publish protocol's files that the JDBC library compiles from this source tree
     * (clients/jdbc/pom.xml, docs/transactional-publish.md, "One protocol, two artifacts"), with
     * their nested classes. The library has no Quarkus, no CDI, no logging and no Jackson.
     */
    static final DescribedPredicate<JavaClass> SHARED_WITH_THE_JDBC_LIBRARY = JavaClass.Predicates.resideInAPackage(
            "dev.tenantmq.model..").or(com.tngtech.archunit.core.domain.properties.HasName.Predicates.nameMatching(
            // arrays of them too (an enum's values()): [Ldev.tenantmq.store.PublishTransaction$LookUp;
            "(\\[+L)?dev\\.tenantmq\\.store\\.(Statement|Bind|Jdbc|PublishSql|PublishTransaction)(\\$[^;]*)?;?"));

    /**
     * What the JDBC library compiles of the service is plain Java: the ground floor and the publish
     * protocol use only the JDK and each other, so the library's build needs nothing the service's
     * framework brings, and the service and the application take the same head lock with the same
     * statements.
     */
    @Test
    void the_publish_protocol_shared_with_the_jdbc_library_is_plain_java() {
        classes().that(SHARED_WITH_THE_JDBC_LIBRARY)
                .should().onlyDependOnClassesThat(JavaClass.Predicates.resideInAPackage("java..")
                        .or(SHARED_WITH_THE_JDBC_LIBRARY))
                .check(MAIN);
    }

    /**
     * Every statement of the service is prepared through {@code Jdbc.prepare}, so that the
     * installed {@code StatementTexts} chooses, per text, a server-side prepared statement or text
     * (docs/architecture.md, "Server-side prepared statements"): a statement prepared on the
     * connection directly would go to the server on its first run.
     */
    @Test
    void statements_are_prepared_only_through_the_stores_preparer() {
        noClasses().that().haveNameNotMatching("dev\\.tenantmq\\.store\\.(Jdbc|StatementTexts)(\\$.*)?")
                .should().callMethodWhere(com.tngtech.archunit.core.domain.JavaCall.Predicates.target(
                        com.tngtech.archunit.core.domain.properties.HasName.Predicates.name("prepareStatement"))
                        .and(com.tngtech.archunit.core.domain.JavaCall.Predicates.target(
                                com.tngtech.archunit.core.domain.properties.HasOwner.Predicates.With.owner(
                                        JavaClass.Predicates.assignableTo(java.sql.Connection.class)))))
                .check(MAIN);
    }

    /**
     * A test class tagged {@link DatabaseAgnostic} runs on MariaDB only (docs/testing.md, "What CI
     * runs"), so it may not read or count what the database does: neither it nor a class nested in
     * it uses JDBC, the pool or a class of the store, directly or through a test helper that does
     * (the general log, handler counters, row counts, delivery states). It speaks HTTP to the
     * service. A plain {@code @Tag("database-agnostic")} counts as the annotation.
     */
    @Test
    void database_agnostic_tests_do_not_reach_the_database() {
        JavaClasses tests = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.ONLY_INCLUDE_TESTS)
                .importPackages("dev.tenantmq");
        DescribedPredicate<JavaClass> database = JavaClass.Predicates.resideInAnyPackage("java.sql..", "javax.sql..",
                "io.agroal..", "dev.tenantmq.store..");
        DescribedPredicate<JavaClass> tagged = new DescribedPredicate<>("are tagged database-agnostic or nested in such a class") {
            @Override
            public boolean test(JavaClass c) {
                for (java.util.Optional<JavaClass> k = java.util.Optional.of(c); k.isPresent(); k = k.get().getEnclosingClass()) {
                    JavaClass each = k.get();
                    if (each.isAnnotatedWith(DatabaseAgnostic.class) || each.isAnnotatedWith(org.junit.jupiter.api.Tag.class)
                            && DatabaseAgnostic.TAG.equals(each.getAnnotationOfType(org.junit.jupiter.api.Tag.class).value())) {
                        return true;
                    }
                }
                return false;
            }
        };
        // A test helper reaches the database when it, or a class nested in it, depends on one directly.
        DescribedPredicate<JavaClass> reachesDatabase = new DescribedPredicate<>("reach the database (JDBC, the pool, the store, or a test helper using them)") {
            @Override
            public boolean test(JavaClass target) {
                if (database.test(target)) {
                    return true;
                }
                String top = target.getName().replaceFirst("\\$.*", "");
                return tests.stream().filter(t -> t.getName().equals(top) || t.getName().startsWith(top + "$"))
                        .anyMatch(t -> t.getDirectDependenciesFromSelf().stream()
                                .anyMatch(d -> database.test(d.getTargetClass())));
            }
        };
        classes().that(tagged).should().onlyDependOnClassesThat(DescribedPredicate.not(reachesDatabase)).check(tests);
    }
}
