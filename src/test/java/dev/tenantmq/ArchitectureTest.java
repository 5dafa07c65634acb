package dev.tenantmq;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The arrows between the layers run one way: {@code api -> domain -> store -> model}, where
 * {@code model} is the ground floor (value types and the pure delivery rules) that every layer
 * may use. The scheduler sits beside the domain and uses the store; {@code ops} and
 * {@code config} serve everyone.
 *
 * <p>Not held yet (issue "Throughput", "The shape the new consume path lands in"): the admin API's
 * DTOs are store rows, so {@code api} still uses {@code store}, and the identifier value types
 * ({@code Tenant}, {@code Topic} ...) still live in {@code domain}, which {@code config} uses.
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
}
