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
  let result;
  for (let attempt = 1; ; attempt++) {
    try {
      result = await send(url, tok, payload);
      break;
    } catch (err) {
      // A kept-alive connection the server closed as idle just as it was reused: the request never reached
      // the server (node's documented case for a retry: `request.reusedSocket`), so it is sent again.
      if (!(err.reusedSocket && err.code === 'ECONNRESET') || attempt >= 3) throw err;
    }
  }
  return { ...result, ms: performance.now() - s, at: performance.now() };
}

function send(url, tok, payload) {
  return new Promise((resolve, reject) => {
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
    req.on('error', (err) => reject(Object.assign(err, { reusedSocket: req.reusedSocket })));
    req.end(payload);
  });
}
