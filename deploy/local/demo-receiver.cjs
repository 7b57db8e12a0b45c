#!/usr/bin/env node
// A callback receiver for the local demo: verifies each delivery's signature (docs/auth.md) and logs
// the CloudEvent headers, so `npm start` shows callbacks arriving. Not part of the product.
'use strict';
const http = require('node:http');
const fs = require('node:fs');
const path = require('node:path');
const { verifyCallback } = require(path.resolve(__dirname, '../../packages/auth/dist/index.js'));

const port = Number(process.env.RECEIVER_PORT || 8089);
const jwks = JSON.parse(fs.readFileSync(process.env.RECEIVER_JWKS_FILE, 'utf8'));
const seen = new Set();

http
  .createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/health/ready') {
      res.writeHead(200).end('{"status":"UP"}');
      return;
    }
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks);
      try {
        await verifyCallback({ jwks, headers: req.headers, body, now: Math.floor(Date.now() / 1000) });
      } catch (err) {
        console.log(JSON.stringify({ msg: 'rejected callback', reason: err.reason || err.message }));
        res.writeHead(401).end();
        return;
      }
      const id = req.headers['ce-id'];
      console.log(
        JSON.stringify({
          msg: seen.has(id) ? 'duplicate callback (ignored)' : 'callback',
          type: req.headers['ce-type'],
          id,
          source: req.headers['ce-source'],
          subject: req.headers['ce-subject'],
        }),
      );
      seen.add(id);
      res.writeHead(204).end();
    });
  })
  .listen(port, '127.0.0.1');
