#!/usr/bin/env node
'use strict';
// Readiness probes for stack.sh that speak each server's own protocol, so "ready" means the server
// answers requests, not merely that a port accepts connections. Node built-ins only: the stack must
// come up before `pnpm install` has run.
//   probe.cjs kafka 127.0.0.1:19092     ApiVersions, then Metadata: a broker is registered and a controller elected
//   probe.cjs mongo 127.0.0.1:27018     OP_MSG { ping: 1 } answers ok: 1
// Exit 0 when ready, 1 otherwise (reason on stderr).
const net = require('node:net');

const TIMEOUT_MS = Number(process.env.PROBE_TIMEOUT_MS || 3000);

function parseAddress(address) {
  const i = address.lastIndexOf(':');
  return { host: address.slice(0, i), port: Number(address.slice(i + 1)) };
}

/** Sends length-framed requests one after the other on one connection and resolves with the replies. */
function exchange(address, frames, readLength) {
  const { host, port } = parseAddress(address);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port });
    const replies = [];
    let buffer = Buffer.alloc(0);
    const timer = setTimeout(
      () => socket.destroy(new Error(`no answer within ${TIMEOUT_MS} ms`)),
      TIMEOUT_MS,
    );
    socket.on('connect', () => socket.write(frames[0]));
    socket.on('data', (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        if (buffer.length < 4) return;
        const total = readLength(buffer);
        if (buffer.length < total) return;
        replies.push(buffer.subarray(0, total));
        buffer = buffer.subarray(total);
        if (replies.length === frames.length) {
          clearTimeout(timer);
          socket.end();
          resolve(replies);
          return;
        }
        socket.write(frames[replies.length]);
      }
    });
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      if (replies.length < frames.length) reject(new Error('connection closed before the answer'));
    });
  });
}

function kafkaRequest(apiKey, apiVersion, correlationId, body) {
  const clientId = Buffer.from('crs-stack-probe');
  const header = Buffer.alloc(10);
  header.writeInt16BE(apiKey, 0);
  header.writeInt16BE(apiVersion, 2);
  header.writeInt32BE(correlationId, 4);
  header.writeInt16BE(clientId.length, 8);
  const payload = Buffer.concat([header, clientId, body]);
  const size = Buffer.alloc(4);
  size.writeInt32BE(payload.length, 0);
  return Buffer.concat([size, payload]);
}

async function probeKafka(address) {
  const apiVersions = kafkaRequest(18, 0, 1, Buffer.alloc(0));
  // Metadata v1 with a null topic array asks for all topics; the interesting parts are brokers and controller.
  const nullArray = Buffer.alloc(4);
  nullArray.writeInt32BE(-1, 0);
  const metadata = kafkaRequest(3, 1, 2, nullArray);
  const [versionsReply, metadataReply] = await exchange(
    address,
    [apiVersions, metadata],
    (b) => b.readInt32BE(0) + 4,
  );

  const versionsError = versionsReply.readInt16BE(8);
  if (versionsError !== 0) throw new Error(`ApiVersions error code ${versionsError}`);

  let offset = 8;
  const brokerCount = metadataReply.readInt32BE(offset);
  offset += 4;
  for (let i = 0; i < brokerCount; i += 1) {
    offset += 4; // node id
    offset += 2 + metadataReply.readInt16BE(offset); // host
    offset += 4; // port
    const rackLength = metadataReply.readInt16BE(offset);
    offset += 2 + Math.max(rackLength, 0);
  }
  const controllerId = metadataReply.readInt32BE(offset);
  if (brokerCount < 1) throw new Error('no broker registered yet');
  if (controllerId < 0) throw new Error('no controller elected yet');
  return `kafka ready: ${brokerCount} broker(s), controller ${controllerId}`;
}

function bsonDocument(fields) {
  const parts = [];
  for (const [name, value] of Object.entries(fields)) {
    const key = Buffer.concat([Buffer.from(name), Buffer.from([0])]);
    if (typeof value === 'number') {
      const v = Buffer.alloc(4);
      v.writeInt32LE(value, 0);
      parts.push(Buffer.from([0x10]), key, v);
    } else {
      const s = Buffer.concat([Buffer.from(String(value)), Buffer.from([0])]);
      const len = Buffer.alloc(4);
      len.writeInt32LE(s.length, 0);
      parts.push(Buffer.from([0x02]), key, len, s);
    }
  }
  const body = Buffer.concat([...parts, Buffer.from([0])]);
  const size = Buffer.alloc(4);
  size.writeInt32LE(body.length + 4, 0);
  return Buffer.concat([size, body]);
}

/** Reads the top-level `ok` field of a BSON document; enough for command replies. */
function bsonOk(doc) {
  let offset = 4;
  while (offset < doc.length - 1) {
    const type = doc[offset];
    const nameEnd = doc.indexOf(0, offset + 1);
    const name = doc.toString('utf8', offset + 1, nameEnd);
    offset = nameEnd + 1;
    let value;
    let size;
    switch (type) {
      case 0x01:
        value = doc.readDoubleLE(offset);
        size = 8;
        break;
      case 0x10:
        value = doc.readInt32LE(offset);
        size = 4;
        break;
      case 0x12:
        value = Number(doc.readBigInt64LE(offset));
        size = 8;
        break;
      case 0x08:
        value = doc[offset];
        size = 1;
        break;
      case 0x02:
        size = 4 + doc.readInt32LE(offset);
        break;
      case 0x03:
      case 0x04:
        size = doc.readInt32LE(offset);
        break;
      case 0x07:
        size = 12;
        break;
      case 0x09:
      case 0x11:
        size = 8;
        break;
      case 0x0a:
        size = 0;
        break;
      default:
        return undefined;
    }
    if (name === 'ok') return value;
    offset += size;
  }
  return undefined;
}

async function probeMongo(address) {
  const doc = bsonDocument({ ping: 1, $db: 'admin' });
  const header = Buffer.alloc(16);
  header.writeInt32LE(16 + 4 + 1 + doc.length, 0);
  header.writeInt32LE(1, 4);
  header.writeInt32LE(0, 8);
  header.writeInt32LE(2013, 12); // OP_MSG
  const frame = Buffer.concat([header, Buffer.alloc(4), Buffer.from([0]), doc]);
  const [reply] = await exchange(address, [frame], (b) => b.readInt32LE(0));
  if (reply.readInt32LE(12) !== 2013) throw new Error(`unexpected reply opcode ${reply.readInt32LE(12)}`);
  const ok = bsonOk(reply.subarray(21));
  if (ok !== 1) throw new Error(`ping answered ok=${ok}`);
  return 'mongo ready: ping ok';
}

const probes = { kafka: probeKafka, mongo: probeMongo };
const [kind, address] = process.argv.slice(2);
if (!probes[kind] || !address) {
  process.stderr.write('usage: probe.cjs kafka|mongo <host:port>\n');
  process.exit(2);
}
probes[kind](address).then(
  (message) => {
    process.stdout.write(`${message}\n`);
  },
  (err) => {
    process.stderr.write(`${kind} not ready: ${err.message}\n`);
    process.exitCode = 1;
  },
);
