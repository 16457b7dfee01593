import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/*
 * The "trivial upstream" of the overhead scenario, in its own process: every
 * render.json request gets the same ten articles from a prepared buffer, so
 * the upstream costs next to nothing and the figures measure the subgraphs.
 */

const ITEMS = Array.from({ length: 10 }, (_, index) => ({
  url: `https://dailyglobe.example/world/2026/11/2${index % 10}/article-${index + 1}`,
  title: `A trivial article number ${index + 1} for the overhead benchmark`,
  img: `https://dailyglobe.example/img/${index + 1}.jpg`,
  authors: ['Ada Reporter'],
  sections: ['World'],
  publishTime: `2026-11-2${index % 10} 08:15:00`,
}));
const BODY = Buffer.from(JSON.stringify({ type: 'RecommenderExperienceResponse', recommendation: ITEMS }));

const server = createServer((request, response) => {
  if (request.url?.startsWith('/recommenderexperience/render.json') === true) {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': BODY.length }).end(BODY);
  } else {
    response.writeHead(404, { 'content-type': 'application/json' }).end('{"msg":"Not found"}');
  }
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
