// The load generator's HTTP client for every bench: node's own client over kept-alive connections. `fetch`
// (undici) cost the shared cores about 0.3 ms of CPU per request: half a core of the two at 1,500 single
// imports/s, CPU the services under test lost to the load generator (docs/performance.md).
import http from 'node:http';
import { performance } from 'node:perf_hooks';

const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 256 });

/** POSTs `body` as JSON with a bearer token: status, body text, latency in ms and the time it ended. */
export async function post(base, tok, route, body) {
  const s = performance.now();
  const payload = Buffer.from(JSON.stringify(body));
  const url = new URL(route, base);
  const { status, text } = await new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent: keepAlive,
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: {
          authorization: `Bearer ${tok}`,
          'content-type': 'application/json',
          'content-length': payload.length,
        },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
  return { status, text, ms: performance.now() - s, at: performance.now() };
}
