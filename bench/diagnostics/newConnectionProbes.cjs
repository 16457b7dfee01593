/*
 * `/health/live` probed as a kubelet does, a new connection each, every 250 ms for SECONDS:
 *   node bench/diagnostics/newConnectionProbes.cjs http://127.0.0.1:PORT SECONDS
 * Prints each probe over 100 ms (its connect time and total), then p50 / p99 / max.
 */
const http = require('node:http');

const url = new URL(process.argv[2]);
const end = Date.now() + Number(process.argv[3]) * 1000;
const totals = [];
const timer = setInterval(() => {
  if (Date.now() > end) {
    clearInterval(timer);
    setTimeout(() => {
      totals.sort((a, b) => a - b);
      const at = (q) => totals[Math.min(totals.length - 1, Math.floor(totals.length * q))].toFixed(1);
      console.log(`probes of ${url.host}, ${totals.length}: p50 ${at(0.5)} / p99 ${at(0.99)} / max ${at(1)} ms`);
    }, 6000);
    return;
  }
  const started = performance.now();
  let connected = started;
  const request = http.get({ host: url.hostname, port: url.port, path: '/health/live', agent: false }, (response) => {
    response.resume();
    response.on('end', () => {
      const total = performance.now() - started;
      totals.push(total);
      if (total > 100) console.log(`${Date.now()} connect ${(connected - started).toFixed(0)} ms, total ${total.toFixed(0)} ms`);
    });
  });
  request.on('socket', (socket) => socket.on('connect', () => (connected = performance.now())));
  request.on('error', (error) => console.log(`probe failed: ${error.message}`));
}, 250);
