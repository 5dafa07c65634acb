package dev.tenantmq;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.tenantmq.api.AdminResource;
import dev.tenantmq.api.ConsumerGroupResource;
import dev.tenantmq.api.MessagesResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.util.Iterator;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** {@code /q/openapi} serves openapi.yaml, and the contract lists exactly the routes the resources implement. */
@QuarkusTest
class OpenApiContractTest {
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final List<Class<?>> RESOURCES = List.of(MessagesResource.class, ConsumerGroupResource.class,
            AdminResource.class);

    @Test
    void served_document_equals_the_repository_contract() throws Exception {
        JsonNode file = YAML.readTree(Files.readString(java.nio.file.Path.of("openapi.yaml")));
        JsonNode served = new ObjectMapper().readTree(given().queryParam("format", "json").get("/q/openapi")
                .then().statusCode(200).extract().asString());
        assertEquals(file.get("paths"), served.get("paths"));
        assertEquals(file.get("components"), served.get("components"));
    }

    @Test
    void every_resource_route_is_in_the_contract_and_nothing_else() throws Exception {
        JsonNode file = YAML.readTree(Files.readString(java.nio.file.Path.of("openapi.yaml")));
        TreeSet<String> documented = new TreeSet<>();
        for (Iterator<String> paths = file.get("paths").fieldNames(); paths.hasNext(); ) {
            String path = paths.next();
            for (Iterator<String> ops = file.get("paths").get(path).fieldNames(); ops.hasNext(); ) {
                String op = ops.next();
                if (!op.equals("parameters")) {
                    documented.add(op.toUpperCase() + " " + path);
                }
            }
        }
        TreeSet<String> implemented = new TreeSet<>();
        for (Class<?> resource : RESOURCES) {
            String root = resource.getAnnotation(Path.class).value();
            for (Method m : resource.getDeclaredMethods()) {
                String verb = m.isAnnotationPresent(POST.class) ? "POST" : m.isAnnotationPresent(GET.class) ? "GET"
                        : m.isAnnotationPresent(PUT.class) ? "PUT" : m.isAnnotationPresent(DELETE.class) ? "DELETE" : null;
                if (verb != null) {
                    Path sub = m.getAnnotation(Path.class);
                    implemented.add(verb + " " + root + (sub == null ? "" : sub.value()));
                }
            }
        }
        assertEquals(implemented, documented);
    }
}
