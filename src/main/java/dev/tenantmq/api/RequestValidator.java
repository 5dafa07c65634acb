package dev.tenantmq.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tenantmq.api.dto.FetchRequest;
import dev.tenantmq.api.dto.CommittedRequest;
import dev.tenantmq.api.dto.PublishRequest;
import dev.tenantmq.config.MqConfig;
import dev.tenantmq.domain.AdminService;
import dev.tenantmq.model.ConsumeLimits;
import dev.tenantmq.model.ConsumerGroup;
import dev.tenantmq.domain.ConsumeService;
import dev.tenantmq.model.FieldError;
import dev.tenantmq.model.Identifiers;
import dev.tenantmq.model.InvalidRequestException;
import dev.tenantmq.model.MessageId;
import dev.tenantmq.model.PartitionKey;
import dev.tenantmq.domain.PublishService;
import dev.tenantmq.model.DeliveryDelay;
import dev.tenantmq.model.Rfc3339;
import dev.tenantmq.model.Tenant;
import dev.tenantmq.model.Topic;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns request parameters and bodies into validated domain values, collecting every broken
 * rule before failing (SPEC section 3 for identifiers, section 4 for ranges). Nothing here
 * touches the database.
 */
@ApplicationScoped
public class RequestValidator {
    static final int DEFAULT_MAX_MESSAGES = 10;

    private final MqConfig config;
    private final PublishService publish;
    private final ConsumeService consume;

    RequestValidator(MqConfig config, PublishService publish, ConsumeService consume) {
        this.config = config;
        this.publish = publish;
        this.consume = consume;
    }

    /** Collects broken rules. */
    static final class Errors {
        private final List<FieldError> list = new ArrayList<>();

        void add(String field, String message) {
            list.add(new FieldError(field, message));
        }

        int size() {
            return list.size();
        }

        void throwIfAny() {
            if (!list.isEmpty()) {
                throw new InvalidRequestException(list);
            }
        }
    }

    /** Validates the tenant and topic path parameters. */
    public record TopicPath(Tenant tenant, Topic topic) {}

    /** Validates the tenant, topic and consumer group path parameters. */
    public record GroupPath(Tenant tenant, Topic topic, ConsumerGroup consumerGroup) {}

    /** @throws InvalidRequestException naming each bad parameter */
    public TopicPath topicPath(String tenant, String topic) {
        Errors errors = new Errors();
        checkName(errors, "tenant", tenant);
        checkTopic(errors, topic);
        errors.throwIfAny();
        return new TopicPath(new Tenant(tenant), new Topic(topic));
    }

    /**
     * Validates a consumer call's path. Unlike publish, the topic needs no room for the
     * dead-letter suffix: a dead-letter topic of up to 255 characters is consumed like any other.
     *
     * @throws InvalidRequestException naming each bad parameter
     */
    public GroupPath groupPath(String tenant, String topic, String consumerGroup) {
        Errors errors = new Errors();
        checkName(errors, "tenant", tenant);
        checkName(errors, "topic", topic);
        checkName(errors, "consumerGroup", consumerGroup);
        errors.throwIfAny();
        return new GroupPath(new Tenant(tenant), new Topic(topic), new ConsumerGroup(consumerGroup));
    }

    /**
     * Validates a committed notice: 1..{@code mq.publish.max-batch-size} partition keys, each valid.
     * An absent or null list "is required"; a list of another size says its size, as receipts do
     * (docs/api.md, "Errors").
     *
     * @throws InvalidRequestException naming {@code partitionKeys} or {@code partitionKeys[i]}
     */
    public List<PartitionKey> committedBody(CommittedRequest body) {
        Errors errors = new Errors();
        int max = config.publish().maxBatchSize();
        String list = "an array of 1.." + max + " partition keys";
        if (body == null || body.partitionKeys() == null) {
            errors.add("partitionKeys", "is required: " + list);
            errors.throwIfAny();
        }
        // Sent, but of a size out of range: named with its size, as a receipts list is.
        int size = body.partitionKeys().size();
        if (size < 1 || size > max) {
            errors.add("partitionKeys", "must be " + list + " (got " + size + ")");
            errors.throwIfAny();
        }
        List<PartitionKey> out = new ArrayList<>(body.partitionKeys().size());
        for (int i = 0; i < body.partitionKeys().size(); i++) {
            // An element of the array is a key to check, not a field to fill: null is of the wrong type.
            String problem = body.partitionKeys().get(i) == null ? "must be a string, not null"
                    : Identifiers.keyProblem(body.partitionKeys().get(i));
            if (problem != null) {
                errors.add("partitionKeys[" + i + "]", problem);
            } else {
                out.add(new PartitionKey(body.partitionKeys().get(i)));
            }
        }
        errors.throwIfAny();
        return out;
    }

    /**
     * Validates a publish body: 1..max messages, each with a valid partitionKey, an optional
     * valid id, a payload, and metadata that is an object of strings.
     *
     * @throws InvalidRequestException naming each bad field, e.g. {@code messages[2].id}
     */
    public List<PublishService.Outgoing> publishBody(PublishRequest body) {
        Errors errors = new Errors();
        int max = config.publish().maxBatchSize();
        if (body == null || body.messages() == null) {
            errors.add("messages", "is required: an array of 1.." + max + " messages");
            errors.throwIfAny();
        }
        List<PublishRequest.Message> messages = body.messages();
        publish.requireBatchSize(messages.size()); // the domain's rule, asked before the messages are looked at
        List<PublishService.Outgoing> out = new ArrayList<>(messages.size());
        for (int i = 0; i < messages.size(); i++) {
            String at = "messages[" + i + "]";
            PublishRequest.Message m = messages.get(i);
            if (m == null) {
                errors.add(at, "must be an object, not null");
                continue;
            }
            String keyProblem = Identifiers.keyProblem(m.partitionKey());
            if (keyProblem != null) {
                errors.add(at + ".partitionKey", keyProblem);
            }
            String idProblem = Identifiers.optionalKeyProblem(m.id());
            if (idProblem != null) {
                errors.add(at + ".id", idProblem);
            }
            if (m.payload() == null) {
                errors.add(at + ".payload", "is required (any JSON value; use null explicitly for none)");
            }
            Map<String, String> metadata = metadata(errors, at + ".metadata", m.metadata());
            int before = errors.size();
            DeliveryDelay delay = delay(errors, at, m.deliverAfterSeconds(), m.deliverAt());
            if (keyProblem == null && idProblem == null && m.payload() != null && metadata != null
                    && errors.size() == before) {
                out.add(new PublishService.Outgoing(new PartitionKey(m.partitionKey()),
                        m.id() == null ? null : new MessageId(m.id()), m.payload().json(), metadata, delay));
            }
        }
        errors.throwIfAny();
        return out;
    }

    /**
     * The delay of a published message (docs/api.md, "Delayed delivery"): {@code deliverAfterSeconds}
     * a whole number of seconds, at least 0; {@code deliverAt} an RFC 3339 date-time with an offset
     * in the years the database stores ({@link Rfc3339#read}); at most one of them. How far ahead a
     * delay may reach is the domain's rule ({@link DeliveryDelay#problem}), checked in publish: a
     * number of seconds of any size goes there, so one too large for a long is refused naming the
     * topic's retention maximum age, as any other delay beyond it.
     *
     * @return the delay, or null when there is none or a field is bad (then {@code errors} names it)
     */
    private static DeliveryDelay delay(Errors errors, String at, JsonNode afterSeconds, JsonNode dueAt) {
        if (afterSeconds != null && dueAt != null) {
            errors.add(at + "." + DeliveryDelay.AT_FIELD, "cannot be combined with " + DeliveryDelay.AFTER_FIELD
                    + ": give one of them");
            return null;
        }
        if (afterSeconds != null) {
            if (!afterSeconds.isIntegralNumber()) {
                errors.add(at + "." + DeliveryDelay.AFTER_FIELD, "must be a whole number of seconds, at least 0, not "
                        + JsonErrorWords.given(afterSeconds));
                return null;
            }
            if (afterSeconds.bigIntegerValue().signum() < 0) {
                errors.add(at + "." + DeliveryDelay.AFTER_FIELD, "must be at least 0 seconds (got "
                        + abbreviate(afterSeconds.bigIntegerValue().toString()) + ")");
                return null;
            }
            // Too large for a long is too far ahead: the domain's rule names the topic's bound.
            return DeliveryDelay.afterSeconds(afterSeconds.canConvertToLong() ? afterSeconds.asLong() : Long.MAX_VALUE,
                    afterSeconds.bigIntegerValue().toString());
        }
        if (dueAt != null) {
            if (!dueAt.isTextual()) {
                errors.add(at + "." + DeliveryDelay.AT_FIELD, "must be " + Rfc3339.FORM + ", not "
                        + JsonErrorWords.given(dueAt));
                return null;
            }
            Rfc3339.Reading when = Rfc3339.read(dueAt.asText());
            if (when.afterStoredYears()) {
                // Further ahead than the longest retention (3650 days) reaches from now: the domain's
                // rule refuses it naming the topic's bound, the limit a client meets first.
                return DeliveryDelay.at(Rfc3339.LAST, dueAt.asText());
            }
            if (when.problem() != null) {
                errors.add(at + "." + DeliveryDelay.AT_FIELD, when.problem());
                return null;
            }
            return DeliveryDelay.at(when.instant(), dueAt.asText());
        }
        return null;
    }

    /** At most 40 characters of a client's number in a detail. */
    private static String abbreviate(String s) {
        return s.length() <= 40 ? s : s.substring(0, 40) + "...";
    }

    /**
     * An optional body (fetch's) is either absent (no body, or {@code Content-Length: 0}: all
     * defaults) or a JSON object. The JSON literal {@code null} reads as a null body too, so a
     * null body with content is that literal, or whitespace: 400, as openapi.yaml declares the
     * body an object and not nullable.
     *
     * @throws InvalidRequestException naming {@code body}
     */
    public void objectOrNoBody(Object body, String contentLength, String transferEncoding) {
        boolean sent = transferEncoding != null || (contentLength != null && !contentLength.trim().equals("0"));
        if (body == null && sent) {
            // Quarkus reads whitespace alone as no value too, so either may have been given.
            throw InvalidRequestException.of("body", "must be a JSON object, or no body at all for the defaults, not"
                    + " null or whitespace alone");
        }
    }

    /**
     * Validates a fetch body (null means all defaults) against {@link ConsumeLimits}, the limits
     * the domain enforces too.
     *
     * @throws InvalidRequestException naming each out-of-range field
     */
    public ConsumeService.Fetch fetch(GroupPath path, FetchRequest body) {
        FetchRequest b = body != null ? body : new FetchRequest(null, null, null, null, null);
        int maxMessages = b.maxMessages() != null ? b.maxMessages() : DEFAULT_MAX_MESSAGES;
        int maxBytes = b.maxBytes() != null ? b.maxBytes() : config.fetch().defaultMaxBytes();
        Duration wait = Duration.ofSeconds(b.waitSeconds() != null ? b.waitSeconds() : 0);
        // absent: the default of the topic or group (docs/settings.md, "Per-topic and per-group settings")
        Duration visibility = b.visibilitySeconds() != null ? Duration.ofSeconds(b.visibilitySeconds())
                : consume.defaultVisibility(path.tenant(), path.topic(), path.consumerGroup());
        ConsumeLimits.require(ConsumeLimits.fetchProblems(maxMessages, config.fetch().maxMessages(), maxBytes,
                config.fetch().maxBytes(), wait, visibility));
        return new ConsumeService.Fetch(path.tenant(), path.topic(), path.consumerGroup(), maxMessages, maxBytes, wait,
                visibility);
    }

    /**
     * Validates a list of receipts: present (not null), 1..max entries, each a string of at most
     * {@link ConsumeLimits#MAX_RECEIPT_LENGTH} characters.
     *
     * @throws InvalidRequestException naming {@code receipts}, or each bad {@code receipts[i]}
     */
    public List<String> receipts(List<String> receipts) {
        consume.requireReceipts(receipts); // the domain's rule, before single receipts
        ConsumeLimits.require(ConsumeLimits.receiptProblems(receipts));
        return receipts;
    }

    /**
     * Validates the receipts a fetch carries to acknowledge (its {@code ack}): absent is none,
     * else 0..max entries, each a string of at most {@link ConsumeLimits#MAX_RECEIPT_LENGTH}
     * characters, the limits of an ack's {@code receipts}.
     *
     * @throws InvalidRequestException naming {@code ack}, or each bad {@code ack[i]}
     */
    public List<String> fetchAck(FetchRequest body) {
        List<String> ack = body == null || body.ack() == null ? List.of() : body.ack();
        consume.requireReceiptCount(ConsumeService.FETCH_ACK_FIELD, 0, ack.size());
        ConsumeLimits.require(ConsumeLimits.receiptProblems(ConsumeService.FETCH_ACK_FIELD, ack));
        return ack;
    }

    /**
     * Validates a required visibility timeout in seconds (1..43200, {@link ConsumeLimits}).
     *
     * @throws InvalidRequestException naming {@code visibilitySeconds}
     */
    public Duration visibility(Integer seconds) {
        Duration visibility = seconds == null ? null : Duration.ofSeconds(seconds);
        ConsumeLimits.require(ConsumeLimits.visibilityProblem(visibility).stream().toList());
        return visibility;
    }

    /** A validated nack body apart from its receipts: the delay (empty means backoff) and the reason. */
    public record NackOptions(java.util.Optional<Duration> delay, String reason) {}

    /**
     * Validates the optional delay (0..43200 seconds) and reason (at most 1024 code points,
     * well-formed) of a nack ({@link ConsumeLimits}). An absent or blank reason becomes
     * {@code "nacked"}.
     *
     * @throws InvalidRequestException naming {@code delaySeconds} or {@code reason}
     */
    public NackOptions nack(Integer delaySeconds, String reason) {
        java.util.Optional<Duration> delay = java.util.Optional.ofNullable(delaySeconds).map(Duration::ofSeconds);
        ConsumeLimits.require(ConsumeLimits.nackProblems(delay, reason));
        return new NackOptions(delay, reason == null || reason.isBlank() ? "nacked" : reason);
    }

    /** Default and largest {@code limit} of an admin listing. */
    public static final int DEFAULT_ADMIN_LIMIT = 1000;
    public static final int MAX_ADMIN_LIMIT = 10_000;

    /** A validated admin listing request: its tenant scope and row limit. */
    public record Listing(AdminService.Scope scope, int limit) {}

    /**
     * Validates the scope of an admin listing (SPEC "Admin"; RFC "Operational tooling"): exactly
     * one of {@code tenant} or {@code allTenants=true}; neither or both is 400, never a silent
     * scatter. {@code limit} is 1..10000 rows, default 1000. The tenant need not be served.
     *
     * @throws InvalidRequestException naming {@code tenant}, {@code allTenants} or {@code limit}
     */
    public Listing listing(String tenant, String allTenants, String limit) {
        Errors errors = new Errors();
        Boolean all = null;
        if (allTenants != null) {
            if (allTenants.equals("true") || allTenants.equals("false")) {
                all = Boolean.valueOf(allTenants);
            } else {
                errors.add("allTenants", "must be true or false (got '" + allTenants + "')");
            }
        }
        boolean wantsAll = Boolean.TRUE.equals(all);
        if (tenant != null && wantsAll) {
            errors.add("tenant", "must not be given together with allTenants=true: ask for one tenant or for all");
        } else if (tenant == null && !wantsAll) {
            errors.add("tenant", "is required unless allTenants=true (listings never scatter silently)");
        } else if (tenant != null) {
            checkName(errors, "tenant", tenant);
        }
        int rows = intParam(errors, "limit", limit, DEFAULT_ADMIN_LIMIT, 1, MAX_ADMIN_LIMIT);
        errors.throwIfAny();
        return new Listing(new AdminService.Scope(wantsAll ? java.util.Optional.empty()
                : java.util.Optional.of(new Tenant(tenant))), rows);
    }

    /**
     * Validates the optional {@code state} filter of the lease listing.
     *
     * @return true for {@code active}, false for {@code stale}, null when absent
     * @throws InvalidRequestException naming {@code state}
     */
    public Boolean leaseState(String state) {
        if (state == null) {
            return null;
        }
        return switch (state) {
            case "active" -> true;
            case "stale" -> false;
            default -> throw InvalidRequestException.of("state", "must be active or stale (got '" + state + "')");
        };
    }

    /**
     * Validates an optional topic filter (a name of up to 255 characters; dead-letter topics
     * included); null when absent.
     *
     * @throws InvalidRequestException naming {@code topic}
     */
    public Topic optionalTopic(String topic) {
        return optionalName("topic", topic, Topic::new);
    }

    /**
     * Validates an optional consumer group filter; null when absent.
     *
     * @throws InvalidRequestException naming {@code consumerGroup}
     */
    public ConsumerGroup optionalGroup(String group) {
        return optionalName("consumerGroup", group, ConsumerGroup::new);
    }

    private static <T> T optionalName(String field, String value, java.util.function.Function<String, T> type) {
        if (value == null) {
            return null;
        }
        Errors errors = new Errors();
        checkName(errors, field, value);
        errors.throwIfAny();
        return type.apply(value);
    }

    /**
     * Validates the complete identity of one message, given as query parameters (so keys with
     * {@code /}, {@code %}, {@code ?}, {@code #}, spaces or emoji work): all four are required.
     * The topic may be a dead-letter topic (up to 255 characters).
     *
     * @throws InvalidRequestException naming each missing or bad parameter
     */
    public AdminService.MessageIdentity messageIdentity(String tenant, String topic, String partitionKey, String id) {
        Errors errors = new Errors();
        checkName(errors, "tenant", tenant);
        checkName(errors, "topic", topic);
        String keyProblem = Identifiers.keyProblem(partitionKey);
        if (keyProblem != null) {
            errors.add("partitionKey", keyProblem);
        }
        String idProblem = Identifiers.keyProblem(id);
        if (idProblem != null) {
            errors.add("id", idProblem);
        }
        errors.throwIfAny();
        return new AdminService.MessageIdentity(new Tenant(tenant), new Topic(topic), new PartitionKey(partitionKey),
                new MessageId(id));
    }

    /** Which settings an admin settings call is about: a topic, or a consumer group on it. */
    public record SettingsTarget(Tenant tenant, Topic topic, java.util.Optional<ConsumerGroup> consumerGroup) {}

    /**
     * Validates the target of a settings call: {@code tenant} and {@code topic} required (any
     * tenant, served or not, as for every admin call), {@code consumerGroup} optional.
     *
     * @throws InvalidRequestException naming each missing or bad parameter
     */
    public SettingsTarget settingsTarget(String tenant, String topic, String consumerGroup) {
        Errors errors = new Errors();
        checkName(errors, "tenant", tenant);
        checkName(errors, "topic", topic);
        if (consumerGroup != null) {
            checkName(errors, "consumerGroup", consumerGroup);
        }
        errors.throwIfAny();
        return new SettingsTarget(new Tenant(tenant), new Topic(topic),
                java.util.Optional.ofNullable(consumerGroup).map(ConsumerGroup::new));
    }

    /** Default and largest {@code limit} of a browse, in messages (payloads make a page heavier than a listing row). */
    public static final int DEFAULT_BROWSE_LIMIT = 100;
    public static final int MAX_BROWSE_LIMIT = 1000;

    /**
     * Validates a browse of a topic's messages: {@code tenant} and {@code topic} required (the
     * topic may be a dead-letter topic), {@code partitionKey} optional, {@code afterOffset} an
     * integer from 0 (the default) to 2^63-1, {@code limit} 1..1000 (default 100). The tenant
     * need not be served, as for every admin call.
     *
     * @throws InvalidRequestException naming each missing or bad parameter
     */
    public AdminService.Browse browse(String tenant, String topic, String partitionKey, String afterOffset, String limit) {
        Errors errors = new Errors();
        checkName(errors, "tenant", tenant);
        checkName(errors, "topic", topic);
        String keyProblem = partitionKey == null ? null : Identifiers.keyProblem(partitionKey);
        if (keyProblem != null) {
            errors.add("partitionKey", keyProblem);
        }
        long after = 0;
        if (afterOffset != null) {
            try {
                after = Long.parseLong(afterOffset);
            } catch (NumberFormatException e) {
                after = -1;
            }
            if (after < 0) {
                errors.add("afterOffset", outsideRange(afterOffset, 0, Long.MAX_VALUE));
            }
        }
        int rows = intParam(errors, "limit", limit, DEFAULT_BROWSE_LIMIT, 1, MAX_BROWSE_LIMIT);
        errors.throwIfAny();
        return new AdminService.Browse(new Tenant(tenant), new Topic(topic),
                partitionKey == null ? null : new PartitionKey(partitionKey), after, rows);
    }

    private static int intParam(Errors errors, String field, String value, int defaultValue, int min, int max) {
        if (value == null) {
            return defaultValue;
        }
        try {
            int v = Integer.parseInt(value);
            if (v >= min && v <= max) {
                return v;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        errors.add(field, outsideRange(value, min, max));
        return defaultValue;
    }

    private static final java.util.regex.Pattern INTEGER = java.util.regex.Pattern.compile("-?[0-9]+");

    /**
     * The rule a query parameter outside {@code min..max} breaks, in the words of the range rules
     * of the request bodies: "must be between 1 and 1000 (got 99999999999)", whatever the size of
     * the number; "must be an integer between ..." when it is not one.
     */
    static String outsideRange(String value, long min, long max) {
        boolean integer = INTEGER.matcher(value).matches();
        return "must be " + (integer ? "" : "an integer ") + "between " + min + " and " + max + " (got "
                + (integer ? abbreviate(value) : "'" + value + "'") + ")";
    }

    private void checkTopic(Errors errors, String topic) {
        String problem = Identifiers.publishTopicProblem(topic, config.dlqSuffix());
        if (problem != null) {
            errors.add("topic", problem);
        }
    }

    private static void checkName(Errors errors, String field, String value) {
        String problem = Identifiers.nameProblem(value);
        if (problem != null) {
            errors.add(field, problem);
        }
    }

    private static Map<String, String> metadata(Errors errors, String at, JsonNode node) {
        Map<String, String> out = new LinkedHashMap<>();
        if (node == null || node.isNull()) {
            return out;
        }
        if (!node.isObject()) {
            errors.add(at, "must be an object of string values, not " + JsonErrorWords.given(node));
            return null;
        }
        boolean ok = true;
        for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            if (!e.getValue().isTextual()) {
                errors.add(at + "." + e.getKey(), "must be a string, not " + JsonErrorWords.given(e.getValue()));
                ok = false;
            } else if (!Identifiers.isWellFormed(e.getKey()) || !Identifiers.isWellFormed(e.getValue().textValue())) {
                errors.add(at + "." + e.getKey(), "must be well-formed Unicode (no lone surrogate)");
                ok = false;
            } else {
                out.put(e.getKey(), e.getValue().textValue());
            }
        }
        return ok ? out : null;
    }


    /** A validated deletion target: the tenant, the topic (a dead-letter topic too), and the group or null. */
    public record DeletionTarget(Tenant tenant, Topic topic, ConsumerGroup consumerGroup, boolean includeDeadLetters) {}

    /**
     * Validates {@code DELETE /admin/topics}: tenant and topic required (up to 255 characters, so a
     * dead-letter topic can be deleted by its own name), {@code includeDeadLetters} true or false
     * (default false).
     *
     * @throws InvalidRequestException naming each missing or bad parameter
     */
    public DeletionTarget topicDeletion(String tenant, String topic, String includeDeadLetters) {
        Errors errors = new Errors();
        checkName(errors, "tenant", tenant);
        checkName(errors, "topic", topic);
        boolean include = false;
        if (includeDeadLetters != null) {
            if (includeDeadLetters.equals("true") || includeDeadLetters.equals("false")) {
                include = Boolean.parseBoolean(includeDeadLetters);
            } else {
                errors.add("includeDeadLetters", "must be true or false (got '" + includeDeadLetters + "')");
            }
        }
        errors.throwIfAny();
        return new DeletionTarget(new Tenant(tenant), new Topic(topic), null, include);
    }

    /**
     * Validates {@code DELETE /admin/consumer-groups}: tenant, topic and consumerGroup required.
     *
     * @throws InvalidRequestException naming each missing or bad parameter
     */
    public DeletionTarget groupDeletion(String tenant, String topic, String consumerGroup) {
        GroupPath p = groupPath(tenant, topic, consumerGroup);
        return new DeletionTarget(p.tenant(), p.topic(), p.consumerGroup(), false);
    }

    /**
     * Validates an offset reset (docs/operations.md, "Replay: resetting a group's offsets"):
     * {@code tenant}, {@code topic} and {@code consumerGroup} required, {@code partitionKey}
     * optional; {@code to} one of earliest, latest, offset (then {@code toOffset}, an integer from
     * 1: the next message delivered) or datetime (then {@code toDatetime}, read as {@code deliverAt}
     * is: {@link Rfc3339#read}); {@code toOffset} and {@code toDatetime} only with their target; {@code dryRun} true or false
     * (default false).
     *
     * @throws InvalidRequestException naming each missing or bad parameter
     */
    public dev.tenantmq.domain.OffsetResetService.Request offsetReset(String tenant, String topic, String consumerGroup,
            String partitionKey, String to, String offset, String datetime, String dryRun) {
        Errors errors = new Errors();
        checkName(errors, "tenant", tenant);
        checkName(errors, "topic", topic);
        checkName(errors, "consumerGroup", consumerGroup);
        String keyProblem = partitionKey == null ? null : Identifiers.keyProblem(partitionKey);
        if (keyProblem != null) {
            errors.add("partitionKey", keyProblem);
        }
        dev.tenantmq.model.OffsetReset.Target target = null;
        String targets = "earliest, latest, offset or datetime";
        if (to == null) {
            errors.add("to", "is required: " + targets);
        } else {
            switch (to) {
                case "earliest" -> target = new dev.tenantmq.model.OffsetReset.Target.Earliest();
                case "latest" -> target = new dev.tenantmq.model.OffsetReset.Target.Latest();
                case "offset" -> {
                    long n = -1;
                    if (offset == null) {
                        errors.add("toOffset", "is required with to=offset: the offset of the next message to deliver");
                    } else {
                        try {
                            n = Long.parseLong(offset);
                        } catch (NumberFormatException e) {
                            n = -1;
                        }
                        if (n < 1) {
                            errors.add("toOffset", outsideRange(offset, 1, Long.MAX_VALUE));
                        } else {
                            target = new dev.tenantmq.model.OffsetReset.Target.ToOffset(n);
                        }
                    }
                }
                case "datetime" -> {
                    if (datetime == null) {
                        errors.add("toDatetime", "is required with to=datetime: " + Rfc3339.FORM);
                    } else {
                        // Read as deliverAt is, by the same rules (docs/api.md, "Delayed delivery").
                        Rfc3339.Reading when = Rfc3339.read(datetime);
                        if (when.problem() != null) {
                            errors.add("toDatetime", when.problem());
                        } else {
                            target = new dev.tenantmq.model.OffsetReset.Target.ToTime(when.instant());
                        }
                    }
                }
                default -> errors.add("to", "must be " + targets + " (got '" + to + "')");
            }
            if (offset != null && !to.equals("offset")) {
                errors.add("toOffset", "is only for to=offset");
            }
            if (datetime != null && !to.equals("datetime")) {
                errors.add("toDatetime", "is only for to=datetime");
            }
        }
        boolean dry = false;
        if (dryRun != null) {
            if (dryRun.equals("true") || dryRun.equals("false")) {
                dry = dryRun.equals("true");
            } else {
                errors.add("dryRun", "must be true or false (got '" + dryRun + "')");
            }
        }
        errors.throwIfAny();
        return new dev.tenantmq.domain.OffsetResetService.Request(new Tenant(tenant), new Topic(topic),
                new ConsumerGroup(consumerGroup), partitionKey == null ? null : new PartitionKey(partitionKey), target,
                dry);
    }
}
