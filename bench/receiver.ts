/**
 * The webhook receiver of the bench: answers every POST 200 at once, except under /slow/,
 * where it waits 2 s first. GET /stats gives the requests counted per path and the last
 * arrival time per path. Prints its address when listening.
 */
import { createServer } from 'node:http';

const counts: Record<string, number> = {};
const last: Record<string, number> = {};
const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/stats') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ counts, last }));
    return;
  }
  req.resume();
  req.on('end', () => {
    const path = req.url ?? '/';
    counts[path] = (counts[path] ?? 0) + 1;
    last[path] = Date.now();
    const answer = () => {
      res.writeHead(200);
      res.end();
    };
    if (path.startsWith('/slow/')) setTimeout(answer, 2000);
    else answer();
  });
});
server.keepAliveTimeout = 10_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object')
    console.log(`receiver listening on http://127.0.0.1:${address.port}`);
});
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
