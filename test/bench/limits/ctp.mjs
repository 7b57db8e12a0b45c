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
// `DECIDER_SHAPE` runs the same loop with the decider's traffic instead of a copy: each input of a batch
// import command's size becomes three events and one state snapshot (a second topic) of the sizes the
// decider writes for it (measured on the bench's batch customers, 2026-11-26: the topics' bytes on disk
// after 12,000 commands: 1,774 B per command, 2,789 B of events and 917 B of snapshot per command). Its
// rate counts inputs, so it compares with the decider's commands/s directly.
//   node test/bench/limits/ctp.mjs decider
//
//   const { messagesPerSec } = await ctpLimit({ brokers: ['127.0.0.1:19092'] });
//   node test/bench/limits/ctp.mjs            (reads .local/stack.env; needs a build: the decider's shape
//                                              takes its fetch, slice and transaction sizes from @crs/messaging)
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { stackEnv } from '../stack.mjs';

const require = createRequire(import.meta.url);
const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../..');
const { Kafka, Partitioners, logLevel } = require(
  require.resolve('kafkajs', { paths: [path.join(ROOT, 'packages/messaging')] }),
);
const { DEFAULT_MAX_PER_TRANSACTION, FETCH_MAX_BYTES_PER_PARTITION, produceSlices } = require(
  path.join(ROOT, 'packages/messaging/dist/index.js'),
);

const MESSAGE_BYTES = 1000;

/** The decider's traffic per batch import command (see the header): one input, three events, a snapshot. */
export const DECIDER_SHAPE = Object.freeze({
  inputBytes: 1_800,
  outputsPerInput: 3,
  outputBytes: 930,
  sideOutputBytes: 920,
  fetchBytesPerPartition: FETCH_MAX_BYTES_PER_PARTITION,
  maxInputsPerTransaction: DEFAULT_MAX_PER_TRANSACTION,
});

/** The shape in words, for the figure's unit: "1.8 KB in; 3 events of 0.93 KB and a 0.92 KB snapshot out". */
export function describeShape(shape) {
  const kb = (bytes) => `${Number((bytes / 1000).toFixed(2))} KB`;
  return `${kb(shape.inputBytes)} in; ${shape.outputsPerInput} events of ${kb(shape.outputBytes)} and a ${kb(shape.sideOutputBytes)} snapshot out`;
}

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
  inputBytes = MESSAGE_BYTES,
  outputsPerInput = 1,
  outputBytes = inputBytes,
  sideOutputBytes = 0,
  fetchBytesPerPartition = 0,
  maxInputsPerTransaction = Infinity,
} = {}) {
  const kafka = new Kafka({ clientId: 'bench-limit-ctp', brokers, logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  const run = `${Date.now().toString(36)}.${process.pid}`;
  const input = `bench.limit.ctp-in.${run}`;
  const output = `bench.limit.ctp-out.${run}`;
  const side = `bench.limit.ctp-side.${run}`;
  const outputTopics = sideOutputBytes > 0 ? [output, side] : [output];
  const groupId = `bench.limit.ctp.${run}`;
  await admin.connect();
  await admin.createTopics({
    topics: [input, ...outputTopics].map((topic) => ({
      topic,
      numPartitions: partitions,
      replicationFactor: 1,
    })),
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
  // The shaped run fetches as the decider does (FETCH_MAX_BYTES_PER_PARTITION of @crs/messaging).
  const consumer = kafka.consumer({
    groupId,
    readUncommitted: false,
    maxWaitTimeInMs: 200,
    ...(fetchBytesPerPartition ? { maxBytesPerPartition: fetchBytesPerPartition } : {}),
  });
  try {
    await filler.connect();
    // Keys and headers take about 20 bytes of a record.
    const value = Buffer.alloc(inputBytes - 20, 'x');
    const outputValue = outputBytes === inputBytes ? undefined : Buffer.alloc(outputBytes - 20, 'y');
    const sideValue = sideOutputBytes > 0 ? Buffer.alloc(sideOutputBytes - 20, 'z') : undefined;
    const shaped = outputsPerInput !== 1 || outputValue !== undefined || sideValue !== undefined;
    for (let next = 0; next < messages; ) {
      const batch = [];
      for (let i = 0; i < FILL_PER_SEND && next < messages; i++, next++)
        batch.push({ key: `BENCH:${next}`, value, headers: { type: 'BenchCommand' } });
      await filler.send({ topic: input, acks: -1, messages: batch });
    }
    for (let p = 0; p < partitions; p++) await producerFor(p); // InitProducerId is part of a start, not of the loop

    /**
     * What one transaction sends for its inputs, one request per slice. The copy: every input once, in
     * one request. The decider's shape: `outputsPerInput` outputs per input and the side output, cut by
     * the decider's own `produceSlices` (a record batch above the broker's message.max.bytes is refused).
     */
    const slicesFor = (inputs) => {
      if (!shaped)
        return [
          [
            {
              topic: output,
              messages: inputs.map((m) => ({ key: m.key, value: m.value, headers: m.headers })),
            },
          ],
        ];
      const byTopic = new Map([[output, []]]);
      if (sideValue) byTopic.set(side, []);
      for (const m of inputs) {
        const key = m.key.toString();
        for (let i = 0; i < outputsPerInput; i++)
          byTopic.get(output).push({ key, value: outputValue ?? m.value, headers: { type: 'BenchEvent' } });
        if (sideValue) byTopic.get(side).push({ key, value: sideValue, headers: { type: 'BenchSnapshot' } });
      }
      return produceSlices(byTopic);
    };

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
        // The decider cuts a fetched batch into transactions of at most 2,000 commands.
        for (let c = 0; c < batch.messages.length; c += maxInputsPerTransaction) {
          const inputs = batch.messages.slice(c, c + maxInputsPerTransaction);
          const last = inputs.at(-1).offset;
          try {
            retries +=
              (await inTransaction(producer, async (txn) => {
                for (const topicMessages of slicesFor(inputs))
                  await txn.sendBatch({ acks: -1, topicMessages });
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
          done += inputs.length;
        }
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
      `  raw consume-transform-produce: ${done} messages of ${inputBytes} B in ${elapsed.toFixed(1)} s = ${messagesPerSec}/s ` +
        `(${outputsPerInput} output${outputsPerInput === 1 ? '' : 's'} of ${outputBytes} B each` +
        `${sideValue ? ` and one of ${sideOutputBytes} B to a second topic` : ''}; ` +
        `${transactions} transactions, ${perTransaction} inputs each, ${concurrency} partitions at a time); ` +
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
      messageBytes: inputBytes,
      outputsPerInput,
      outputBytes,
      sideOutputBytes,
    };
  } finally {
    await consumer.disconnect().catch(() => {});
    await filler.disconnect().catch(() => {});
    for (const p of producers.values()) await p.disconnect().catch(() => {});
    await admin.deleteTopics({ topics: [input, ...outputTopics] }).catch(() => {});
    await admin.deleteGroups([groupId]).catch(() => {});
    await admin.disconnect().catch(() => {});
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const brokers = (process.env.KAFKA_BROKERS ?? stackEnv().KAFKA_BROKERS).split(',');
  const concurrency = process.env.BENCH_CTP_CONCURRENCY
    ? Number(process.env.BENCH_CTP_CONCURRENCY)
    : undefined;
  const shape = process.argv[2] === 'decider' ? DECIDER_SHAPE : {};
  console.log(
    JSON.stringify(
      await ctpLimit({ brokers, log: console.log, ...shape, ...(concurrency ? { concurrency } : {}) }),
    ),
  );
}
