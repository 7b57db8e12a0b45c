// The ingress ceiling: raw kafkajs produce with acks=all from one process, the way the ingress's
// DurablePublisher produces (idempotent producer, default partitioner, keyed messages), but with nothing
// else in the way: no HTTP, no store, no registry, no serialisation beyond a ready Buffer. Many
// messages per send and several sends in flight, to a fresh topic with the command topic's partition
// count (TOPIC_PARTITIONS, 6 by default), for about 10 s or 100,000 messages; the topic is deleted after.
//
//   const { messagesPerSec } = await produceLimit({ brokers: ['127.0.0.1:19092'] });
//   node test/bench/limits/kafka.mjs            (reads .local/stack.env)
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { stackEnv } from '../stack.mjs';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../..');
const { Kafka, Partitioners, logLevel } = require(
  require.resolve('kafkajs', { paths: [path.join(ROOT, 'packages/messaging')] }),
);

const MESSAGE_BYTES = 300;
const PER_SEND = 500; // messages per sendBatch
const IN_FLIGHT = 4; // concurrent sendBatch calls (kafkajs serialises idempotent requests per broker)

export async function produceLimit({
  brokers,
  partitions = Number(process.env.TOPIC_PARTITIONS ?? 6),
  seconds = 10,
  maxMessages = 100_000,
  log = () => {},
} = {}) {
  const kafka = new Kafka({ clientId: 'bench-limit-produce', brokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  const topic = `bench.limit.produce.${Date.now().toString(36)}.${process.pid}`;
  await admin.connect();
  await admin.createTopics({
    topics: [{ topic, numPartitions: partitions, replicationFactor: 1 }],
    waitForLeaders: true,
  });
  const producer = kafka.producer({
    idempotent: true,
    allowAutoTopicCreation: false,
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  try {
    await producer.connect();
    const value = Buffer.alloc(MESSAGE_BYTES - 20, 'x');
    let next = 0;
    const batch = () => {
      const messages = [];
      for (let i = 0; i < PER_SEND; i++, next++) messages.push({ key: `BENCH:${next}`, value });
      return messages;
    };
    // Warm-up: metadata, producer id, one request per partition leader.
    await producer.send({ topic, acks: -1, messages: batch() });
    let sent = 0;
    const started = performance.now();
    const deadline = started + seconds * 1000;
    const worker = async () => {
      while (performance.now() < deadline && sent < maxMessages) {
        const messages = batch();
        sent += messages.length; // reserved before the await, so workers stop at maxMessages together
        await producer.send({ topic, acks: -1, messages });
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    const elapsed = (performance.now() - started) / 1000;
    const messagesPerSec = Math.round(sent / elapsed);
    log(
      `  raw produce: ${sent} messages of ${MESSAGE_BYTES} B in ${elapsed.toFixed(1)} s = ${messagesPerSec}/s`,
    );
    return { messagesPerSec, messages: sent, seconds: elapsed, partitions, messageBytes: MESSAGE_BYTES };
  } finally {
    await producer.disconnect().catch(() => {});
    await admin.deleteTopics({ topics: [topic] }).catch(() => {});
    await admin.disconnect().catch(() => {});
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const brokers = (process.env.KAFKA_BROKERS ?? stackEnv().KAFKA_BROKERS).split(',');
  console.log(JSON.stringify(await produceLimit({ brokers, log: console.log })));
}
