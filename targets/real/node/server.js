// A node.js HTTP server: answers every request with one line naming the
// path asked for. Its port is the first argument.
const http = require('http');
const port = Number(process.argv[2]);
http.createServer((req, res) => {
  res.writeHead(200, { 'Content-Type': 'text/plain' });
  res.end(`node served ${req.url}\n`);
}).listen(port, '127.0.0.1', () => console.log(`listening on ${port}`));
