// A complete CRS callback receiver: verifies the signature, refuses stale or tampered deliveries,
// and processes each ce-id once. Node >= 20 and jose 5.x (`npm install jose@5`); with jose 6,
// which is ESM-only, turn the require calls into imports.
//
//   RECEIVER_JWKS_FILE=callback-jwks.json PORT=8089 node crs-callback-receiver.cjs
//
// docs/callbacks.md shows this file verbatim; a unit test runs it against real signatures.
'use strict';
const { createHash } = require('node:crypto');
const http = require('node:http');
const { base64url, createLocalJWKSet, flattenedVerify } = require('jose');

const TOLERANCE_SEC = 300; // how far x-crs-timestamp may be from our clock
const MAX_BODY_BYTES = 1024 * 1024;

class CallbackRejected extends Error {}

/**
 * Throws CallbackRejected unless the request is a fresh delivery signed by one of `keys`
 * (createLocalJWKSet over our published callback JWKS). headers: Node's lower-cased request
 * headers; rawBody: the bytes as received, before JSON.parse; now: unix seconds.
 */
async function verifyCrsCallback(keys, headers, rawBody, now = Math.floor(Date.now() / 1000)) {
  const id = headers['ce-id'];
  const timestamp = headers['x-crs-timestamp'];
  const [protectedHeader, detached, signature, extra] = String(headers['x-crs-signature'] ?? '').split('.');
  if (
    typeof id !== 'string' ||
    !/^\d{1,12}$/.test(timestamp ?? '') ||
    !protectedHeader ||
    detached !== '' ||
    !signature ||
    extra !== undefined
  ) {
    throw new CallbackRejected('malformed callback signature');
  }
  // The timestamp is signed, so an old delivery cannot be replayed with a new one.
  if (Math.abs(now - Number(timestamp)) > TOLERANCE_SEC) throw new CallbackRejected('stale callback');
  const bodyHash = base64url.encode(createHash('sha256').update(rawBody).digest());
  const payload = base64url.encode(`${id}.${timestamp}.${bodyHash}`);
  try {
    await flattenedVerify({ protected: protectedHeader, payload, signature }, keys, {
      algorithms: ['ES256'],
    });
  } catch {
    throw new CallbackRejected('bad callback signature');
  }
}

/**
 * An HTTP request handler. `onEvent({ id, type, source, subject, time, data })` runs once per
 * ce-id: `source` is the communicationNumber, `subject` the customerExtId. A delivery whose ce-id
 * was already processed gets 200 without running onEvent again (we retry until we see a 2xx, and a
 * replayed request repeats the id). `processed` must be durable in production (a table with the
 * ce-id as unique key, kept at least as long as redeliveries may happen); a Set is enough here.
 */
function createCrsCallbackReceiver({ jwks, onEvent, processed = new Set(), clock }) {
  const keys = createLocalJWKSet(jwks);
  const inProgress = new Set();
  return async function handle(req, res) {
    if (req.method !== 'POST') return void res.writeHead(405).end();
    const chunks = [];
    let size = 0;
    for await (const chunk of req) {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) return void res.writeHead(413).end();
      chunks.push(chunk);
    }
    const rawBody = Buffer.concat(chunks);
    try {
      await verifyCrsCallback(keys, req.headers, rawBody, clock?.());
    } catch (err) {
      if (err instanceof CallbackRejected) return void res.writeHead(401).end();
      throw err;
    }
    const id = req.headers['ce-id'];
    if (processed.has(id)) return void res.writeHead(200).end(); // duplicate: acknowledge, do nothing
    if (inProgress.has(id)) return void res.writeHead(409).end(); // the same id is being processed: retry later
    inProgress.add(id);
    try {
      await onEvent({
        id,
        type: req.headers['ce-type'],
        source: req.headers['ce-source'],
        subject: req.headers['ce-subject'],
        time: req.headers['ce-time'],
        data: JSON.parse(rawBody.toString('utf8')),
      });
      processed.add(id);
      res.writeHead(204).end();
    } catch {
      res.writeHead(500).end(); // not processed: a non-2xx answer makes CRS retry later
    } finally {
      inProgress.delete(id);
    }
  };
}

module.exports = { verifyCrsCallback, createCrsCallbackReceiver, CallbackRejected, TOLERANCE_SEC };

if (require.main === module) {
  const jwks = JSON.parse(require('node:fs').readFileSync(process.env.RECEIVER_JWKS_FILE, 'utf8'));
  const handle = createCrsCallbackReceiver({
    jwks,
    onEvent: (event) => console.log(event.type, event.id, 'communicationNumber', event.source),
  });
  http
    .createServer((req, res) => handle(req, res).catch(() => res.writeHead(500).end()))
    .listen(Number(process.env.PORT || 8089));
}
