// The decider's ceiling: raw consume-transform-produce with kafkajs, exactly once, the way
// TransactionalProcessor runs it (one transactional producer per input partition, read_committed,
// partitions consumed concurrently) but with nothing else in the way: no registry, no decoding, no
// decision; each consumed message is copied to an output topic. One transaction per fetched batch:
// the batch's outputs, sendOffsets and commit. A backlog of about 10 s of work (BENCH_CTP_MESSAGES,
// default 60,000 messages of 1 KB, a command's size) is written to a fresh input topic with the command
// topic's partition count (TOPIC_PARTITIONS, 6 by default) first, then drained and timed from the
// first batch to the last commit. Also timed, one after the other on one partition: a transaction with
// one output (the round trips every transaction pays) and one with offsets only. Topics are deleted after.
//
//   const { messagesPerSec } = await ctpLimit({ brokers: ['127.0.0.1:19092'] });
//   node test/bench/limits/ctp.mjs            (reads .local/stack.env)
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { stackEnv } from '../stack.mjs';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../..');
const { Kafka, Partitioners, logLevel } = require(
  require.resolve('kafkajs', { paths: [path.join(ROOT, 'packages/messaging')] }),
);

const MESSAGE_BYTES = 1000;

/**
 * One transaction: `fill` sends into it, then commit. The broker answers CONCURRENT_TRANSACTIONS while
 * the previous transaction's markers are still being written; kafkajs does not retry that inside a
 * transaction, so the transaction is aborted and run again (as TransactionalProcessor does).
 */
async function inTransaction(producer, fill) {
  for (let attempt = 1; ; attempt++) {
    const txn = await producer.transaction();
    let committing = false;
    try {
      await fill(txn);
      committing = true;
      await txn.commit();
      return attempt;
    } catch (err) {
      await txn.abort().catch(() => {});
      if (committing || err.type !== 'CONCURRENT_TRANSACTIONS' || attempt >= 20) throw err;
      await new Promise((r) => setTimeout(r, 5 * attempt));
    }
  }
}
const FILL_PER_SEND = 500;
const LATENCY_SAMPLES = 100;

export async function ctpLimit({
  brokers,
  partitions = Number(process.env.TOPIC_PARTITIONS ?? 6),
  messages = Number(process.env.BENCH_CTP_MESSAGES ?? 60_000),
  concurrency = partitions,
  timeoutMs = 180_000,
  log = () => {},
} = {}) {
  const kafka = new Kafka({ clientId: 'bench-limit-ctp', brokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  const run = `${Date.now().toString(36)}.${process.pid}`;
  const input = `bench.limit.ctp-in.${run}`;
  const output = `bench.limit.ctp-out.${run}`;
  const groupId = `bench.limit.ctp.${run}`;
  await admin.connect();
  await admin.createTopics({
    topics: [input, output].map((topic) => ({ topic, numPartitions: partitions, replicationFactor: 1 })),
    waitForLeaders: true,
  });
  const producers = new Map();
  const producerFor = async (partition) => {
    let p = producers.get(partition);
    if (!p) {
      p = kafka.producer({
        transactionalId: `bench.limit.ctp.${run}-${partition}`,
        idempotent: true,
        maxInFlightRequests: 1,
        transactionTimeout: 30000,
        allowAutoTopicCreation: false,
        createPartitioner: Partitioners.DefaultPartitioner,
      });
      await p.connect();
      producers.set(partition, p);
    }
    return p;
  };
  const filler = kafka.producer({
    idempotent: true,
    allowAutoTopicCreation: false,
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  const consumer = kafka.consumer({ groupId, readUncommitted: false, maxWaitTimeInMs: 200 });
  try {
    await filler.connect();
    const value = Buffer.alloc(MESSAGE_BYTES - 20, 'x');
    for (let next = 0; next < messages; ) {
      const batch = [];
      for (let i = 0; i < FILL_PER_SEND && next < messages; i++, next++)
        batch.push({ key: `BENCH:${next}`, value, headers: { type: 'BenchCommand' } });
      await filler.send({ topic: input, acks: -1, messages: batch });
    }
    for (let p = 0; p < partitions; p++) await producerFor(p); // InitProducerId is part of a start, not of the loop

    let done = 0;
    let transactions = 0;
    let retries = 0;
    let started;
    let finished;
    let failed;
    const drained = new Promise((resolve, reject) => {
      finished = resolve;
      failed = reject;
    });
    await consumer.connect();
    await consumer.subscribe({ topic: input, fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      partitionsConsumedConcurrently: concurrency,
      eachBatch: async ({ batch, resolveOffset, heartbeat }) => {
        started ??= performance.now();
        if (batch.messages.length === 0) return;
        const producer = await producerFor(batch.partition);
        const last = batch.messages.at(-1).offset;
        try {
          retries +=
            (await inTransaction(producer, async (txn) => {
              await txn.send({
                topic: output,
                acks: -1,
                messages: batch.messages.map((m) => ({ key: m.key, value: m.value, headers: m.headers })),
              });
              await txn.sendOffsets({
                consumerGroupId: groupId,
                topics: [
                  {
                    topic: batch.topic,
                    partitions: [{ partition: batch.partition, offset: (BigInt(last) + 1n).toString() }],
                  },
                ],
              });
            })) - 1;
        } catch (err) {
          failed(err);
          throw err;
        }
        resolveOffset(last);
        transactions++;
        done += batch.messages.length;
        if (done >= messages) finished();
        await heartbeat();
      },
    });
    let timer;
    await Promise.race([
      drained,
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`ctp: ${done} of ${messages} after ${timeoutMs} ms`)),
          timeoutMs,
        );
      }),
    ]).finally(() => clearTimeout(timer));
    const elapsed = (performance.now() - started) / 1000;
    await consumer.stop();

    // The fixed cost of a transaction: one output plus offsets, then offsets only, one after the other.
    const producer = await producerFor(0);
    const offsets = {
      consumerGroupId: groupId,
      topics: [{ topic: input, partitions: [{ partition: 0, offset: '0' }] }],
    };
    const timeTxn = async (withOutput) => {
      const t = performance.now();
      for (let i = 0; i < LATENCY_SAMPLES; i++) {
        retries +=
          (await inTransaction(producer, async (txn) => {
            if (withOutput) await txn.send({ topic: output, acks: -1, messages: [{ key: 'k', value }] });
            await txn.sendOffsets(offsets);
          })) - 1;
      }
      return (performance.now() - t) / LATENCY_SAMPLES;
    };
    const msPerTransaction = await timeTxn(true);
    const msPerOffsetsOnlyTransaction = await timeTxn(false);

    const messagesPerSec = Math.round(done / elapsed);
    const perTransaction = Math.round(done / Math.max(transactions, 1));
    log(
      `  raw consume-transform-produce: ${done} messages of ${MESSAGE_BYTES} B in ${elapsed.toFixed(1)} s = ${messagesPerSec}/s ` +
        `(${transactions} transactions, ${perTransaction} messages each, ${concurrency} partitions at a time); ` +
        `one transaction ${msPerTransaction.toFixed(1)} ms, offsets only ${msPerOffsetsOnlyTransaction.toFixed(1)} ms`,
    );
    return {
      messagesPerSec,
      messages: done,
      seconds: elapsed,
      transactions,
      messagesPerTransaction: perTransaction,
      msPerTransaction: Math.round(msPerTransaction * 100) / 100,
      msPerOffsetsOnlyTransaction: Math.round(msPerOffsetsOnlyTransaction * 100) / 100,
      concurrentTransactionRetries: retries,
      partitions,
      concurrency,
      messageBytes: MESSAGE_BYTES,
    };
  } finally {
    await consumer.disconnect().catch(() => {});
    await filler.disconnect().catch(() => {});
    for (const p of producers.values()) await p.disconnect().catch(() => {});
    await admin.deleteTopics({ topics: [input, output] }).catch(() => {});
    await admin.deleteGroups([groupId]).catch(() => {});
    await admin.disconnect().catch(() => {});
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const brokers = (process.env.KAFKA_BROKERS ?? stackEnv().KAFKA_BROKERS).split(',');
  const concurrency = process.env.BENCH_CTP_CONCURRENCY
    ? Number(process.env.BENCH_CTP_CONCURRENCY)
    : undefined;
  console.log(
    JSON.stringify(await ctpLimit({ brokers, log: console.log, ...(concurrency ? { concurrency } : {}) })),
  );
}
