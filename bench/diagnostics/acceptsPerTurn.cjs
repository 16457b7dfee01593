/*
 * How many connections Node accepts a turn of the event loop with a backlog waiting:
 *   node bench/diagnostics/acceptsPerTurn.cjs immediate|timeout
 * 300 connections from a child process wait in the accept queue; then turns of 2 ms of work follow one another by
 * setImmediate (or setTimeout 0), and the connections accepted in each are printed.
 */
const net = require('node:net');
const { fork } = require('node:child_process');

if (process.argv[2] === 'client') {
  for (let index = 0; index < 300; index += 1) net.connect(Number(process.argv[3]), '127.0.0.1').on('error', () => undefined);
  setTimeout(() => process.exit(0), 3000);
} else {
  const mode = process.argv[2] ?? 'immediate';
  let accepted = 0;
  const perTurn = [];
  const server = net.createServer(() => (accepted += 1));
  server.listen(0, '127.0.0.1', () => {
    fork(__filename, ['client', String(server.address().port)]);
    setTimeout(() => {
      const busy = (ms) => {
        const until = Date.now() + ms;
        while (Date.now() < until);
      };
      busy(1500);
      const turn = () => {
        perTurn.push(accepted);
        accepted = 0;
        if (perTurn.length > 12) {
          console.log(`${mode}: ${perTurn.join(' ')}`);
          process.exit(0);
        }
        busy(2);
        if (mode === 'immediate') setImmediate(turn);
        else setTimeout(turn, 0);
      };
      turn();
    }, 10);
  });
}
