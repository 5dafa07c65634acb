package dev.tenantmq.ops;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.stream.Stream;

/**
 * Histogram buckets for {@code http.server.requests}, so the dashboard's "HTTP p99 by route"
 * ({@code histogram_quantile} over {@code http_server_requests_seconds_bucket}) has data. A fixed
 * set of 14 buckets from 1 ms to 35 s (a long poll waits up to 30 s) keeps the series per route
 * bounded, where Micrometer's percentile histogram would add about 70.
 */
@Singleton
public class HttpHistogram {
    static final double[] BUCKETS_NANOS = Stream.of("PT0.001S", "PT0.005S", "PT0.01S", "PT0.025S", "PT0.05S",
                    "PT0.1S", "PT0.25S", "PT0.5S", "PT1S", "PT2.5S", "PT5S", "PT10S", "PT20S", "PT35S")
            .mapToDouble(d -> Duration.parse(d).toNanos()).toArray();

    /** The filter Quarkus applies to the registry: buckets for the HTTP server timer only. */
    @Produces
    @Singleton
    MeterFilter httpServerBuckets() {
        return new MeterFilter() {
            @Override
            public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
                if (!"http.server.requests".equals(id.getName())) {
                    return config;
                }
                return DistributionStatisticConfig.builder().serviceLevelObjectives(BUCKETS_NANOS).build().merge(config);
            }
        };
    }
}
