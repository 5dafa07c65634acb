package dev.tenantmq.bench;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.MessageProperties;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The RabbitMQ peer (bench/README.md; row peers.rabbitmq): durable classic queues, persistent messages, publisher
 * confirms, manual acks. One connection per client, like the HTTP clients of the other rows.
 */
final class Rabbit {
    private final ConnectionFactory factory = new ConnectionFactory();

    Rabbit(int port) {
        factory.setHost("127.0.0.1");
        factory.setPort(port);
        factory.setUsername("guest");
        factory.setPassword("guest");
    }

    String version() throws Exception {
        try (Connection c = factory.newConnection()) {
            return String.valueOf(c.getServerProperties().get("version"));
        }
    }

    void declare(String queue) throws Exception {
        try (Connection c = factory.newConnection(); Channel ch = c.createChannel()) {
            ch.queueDeclare(queue, true, false, false, Map.of());
        }
    }

    void delete(String queue) throws Exception {
        try (Connection c = factory.newConnection(); Channel ch = c.createChannel()) {
            ch.queueDelete(queue);
        }
    }

    /** A durable fanout exchange feeding {@code queues}: one publish fills every queue (backlogs). */
    void fanout(String exchange, List<String> queues) throws Exception {
        try (Connection c = factory.newConnection(); Channel ch = c.createChannel()) {
            ch.exchangeDeclare(exchange, "fanout", true);
            for (String q : queues) {
                ch.queueDeclare(q, true, false, false, Map.of());
                ch.queueBind(q, exchange, "");
            }
        }
    }

    /**
     * Publishes {@code total} persistent 1 KiB messages from {@code clients} connections, each
     * sending {@code batch} messages and then waiting for their confirms; returns msg/s.
     */
    double publish(String exchange, String routingKey, long total, int clients, int batch) throws Exception {
        AtomicLong next = new AtomicLong();
        long started = System.nanoTime();
        try (ExecutorService ex = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> fs = new ArrayList<>();
            for (int w = 0; w < clients; w++) {
                fs.add(ex.submit(() -> {
                    try (Connection c = factory.newConnection(); Channel ch = c.createChannel()) {
                        ch.confirmSelect();
                        long first;
                        while ((first = next.getAndAdd(batch)) < total) {
                            int n = (int) Math.min(batch, total - first);
                            for (int i = 0; i < n; i++) {
                                ch.basicPublish(exchange, routingKey, MessageProperties.PERSISTENT_BASIC, Payloads.PAYLOAD_BYTES);
                            }
                            ch.waitForConfirmsOrDie(60_000);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                f.get();
            }
        }
        return total / ((System.nanoTime() - started) / 1e9);
    }

    /**
     * Drains {@code total} messages from {@code queue} with {@code consumers} connections, prefetch
     * {@code batch}, acking every {@code batch} deliveries at once (multiple=true); returns msg/s.
     */
    double consume(String queue, long total, int consumers, int batch) throws Exception {
        AtomicLong delivered = new AtomicLong();
        CountDownLatch all = new CountDownLatch(1);
        List<Connection> conns = new ArrayList<>();
        List<Channel> channels = new ArrayList<>();
        long[][] lastTag = new long[consumers][1];
        long started = System.nanoTime();
        try {
            for (int w = 0; w < consumers; w++) {
                Connection c = factory.newConnection();
                conns.add(c);
                Channel ch = c.createChannel();
                channels.add(ch);
                ch.basicQos(batch);
                final long[] mine = lastTag[w];
                ch.basicConsume(queue, false, new DefaultConsumer(ch) {
                    private int unacked;

                    @Override
                    public void handleDelivery(String tag, Envelope env, AMQP.BasicProperties props, byte[] body)
                            throws java.io.IOException {
                        synchronized (mine) {
                            mine[0] = env.getDeliveryTag();
                            if (++unacked == batch) {
                                getChannel().basicAck(env.getDeliveryTag(), true);
                                unacked = 0;
                                mine[0] = 0;
                            }
                        }
                        if (delivered.incrementAndGet() >= total) {
                            all.countDown();
                        }
                    }
                });
            }
            if (!all.await(600, TimeUnit.SECONDS)) {
                throw new IllegalStateException("rabbitmq consume: only " + delivered.get() + " of " + total);
            }
            for (int w = 0; w < consumers; w++) { // ack the tail that did not fill a batch
                synchronized (lastTag[w]) {
                    if (lastTag[w][0] > 0) {
                        channels.get(w).basicAck(lastTag[w][0], true);
                    }
                }
            }
            double rate = total / ((System.nanoTime() - started) / 1e9);
            return rate;
        } finally {
            for (Connection c : conns) {
                c.close();
            }
        }
    }

    /**
     * Publish-to-delivery latency at {@code rate} msg/s for {@code seconds}: one publisher with
     * asynchronous confirms, one consumer with manual acks. Records nanoseconds into {@code lat}.
     */
    void wake(String queue, int rate, double seconds, Stats.Latencies lat) throws Exception {
        Map<Long, Long> sent = new ConcurrentHashMap<>();
        long count = Math.round(rate * seconds);
        CountDownLatch all = new CountDownLatch((int) count);
        try (Connection cc = factory.newConnection(); Channel cons = cc.createChannel();
             Connection pc = factory.newConnection(); Channel pub = pc.createChannel()) {
            cons.basicQos(10);
            cons.basicConsume(queue, false, new DefaultConsumer(cons) {
                @Override
                public void handleDelivery(String tag, Envelope env, AMQP.BasicProperties props, byte[] body)
                        throws java.io.IOException {
                    long now = System.nanoTime();
                    Long t0 = sent.remove(Long.parseLong(props.getMessageId()));
                    if (t0 != null) {
                        lat.add(now - t0);
                        all.countDown();
                    }
                    getChannel().basicAck(env.getDeliveryTag(), false);
                }
            });
            pub.confirmSelect();
            pub.addConfirmListener((tag, multiple) -> {}, (tag, multiple) -> {
                throw new IllegalStateException("rabbitmq nacked a publish");
            });
            long start = System.nanoTime();
            long periodNanos = 1_000_000_000L / rate;
            for (long i = 0; i < count; i++) {
                long due = start + i * periodNanos;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                }
                AMQP.BasicProperties props = MessageProperties.PERSISTENT_BASIC.builder().messageId(Long.toString(i)).build();
                sent.put(i, System.nanoTime());
                pub.basicPublish("", queue, props, Payloads.PAYLOAD_BYTES);
            }
            if (!all.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("rabbitmq wake: " + all.getCount() + " messages not delivered");
            }
            pub.waitForConfirmsOrDie(30_000);
        }
    }
}
