/*
 * A diagnostic preload for the subgraph in the live bench (bench/README.md, "Live at scale, the last two goals"):
 *   LIVE_BENCH_NODE_ARGS="--require $PWD/bench/diagnostics/liveLoopPreload.cjs" (STALL_LOG: where it writes, one line a fact)
 * Logs, with wall-clock milliseconds: loop stalls over 50 ms, GC pauses over 20 ms, bursts of `ws` sends (a gap over
 * 1.5 s ends one: count and first-to-last span), connections accepted a second, and each `/health/live` request whose
 * connection waited over 50 ms from its accept to its answer. Not part of the subgraph: it patches `ws` and `http`.
 */
const { PerformanceObserver } = require('node:perf_hooks');
const fs = require('node:fs');
const http = require('node:http');

const out = process.env.STALL_LOG || 'live-stalls.log';
const lines = [];
setInterval(() => {
  if (lines.length > 0) fs.appendFileSync(out, `${lines.splice(0).join('\n')}\n`);
}, 1000).unref();

let last = performance.now();
setInterval(() => {
  const now = performance.now();
  if (now - last - 5 > 50) lines.push(`${Date.now()} stall ${(now - last - 5).toFixed(0)}`);
  last = now;
}, 5).unref();

new PerformanceObserver((list) => {
  for (const entry of list.getEntries())
    if (entry.duration > 20) lines.push(`${Date.now()} gc kind=${entry.detail?.kind} ${entry.duration.toFixed(0)}`);
}).observe({ entryTypes: ['gc'] });

const ws = require(require.resolve('ws', { paths: [process.cwd()] }));
const send = ws.WebSocket.prototype.send;
let burst;
const endBurst = () => {
  if (burst !== undefined && burst.count > 100)
    lines.push(`${Date.now()} burst sends=${burst.count} span=${(burst.last - burst.first).toFixed(0)} firstAt=${burst.firstAt}`);
  burst = undefined;
};
ws.WebSocket.prototype.send = function (...args) {
  const now = performance.now();
  if (burst !== undefined && now - burst.last > 1500) endBurst();
  burst ??= { first: now, last: now, count: 0, firstAt: Date.now() };
  burst.last = now;
  burst.count += 1;
  return send.apply(this, args);
};
setInterval(() => {
  if (burst !== undefined && performance.now() - burst.last > 1500) endBurst();
}, 500).unref();

const emit = http.Server.prototype.emit;
let accepts = 0;
http.Server.prototype.emit = function (name, ...args) {
  if (name === 'connection') {
    args[0].acceptedAt = performance.now();
    accepts += 1;
  }
  if (name === 'request' && args[0].url === '/health/live') {
    const [request, response] = args;
    const acceptedAt = request.socket.acceptedAt;
    response.on('finish', () => {
      const waited = performance.now() - acceptedAt;
      if (waited > 50) lines.push(`${Date.now()} health accept→answer=${waited.toFixed(0)}`);
    });
  }
  return emit.call(this, name, ...args);
};
setInterval(() => {
  if (accepts > 0) lines.push(`${Date.now()} accepts/s ${accepts}`);
  accepts = 0;
}, 1000).unref();
