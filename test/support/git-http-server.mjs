// A git server for tests, run in a child process (the tests call git synchronously): `git
// http-backend` (CGI) behind a Node HTTP server on loopback that demands HTTP Basic credentials whose
// password is the token. Commands on stdin: `token <t>` changes the token accepted, `hold` makes the
// next authenticated upload-pack request wait (it prints `held`) until `release`. It prints
// `listening <port>` once it listens, and `request <method> <path> <status>` per request.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { createInterface } from 'node:readline';

// The token comes in the environment, so that a scan of every process's arguments finds it nowhere.
const [root, port = '0'] = process.argv.slice(2);
let token = process.env.GIT_TEST_TOKEN;
let hold = false;
let release = [];

createInterface({ input: process.stdin }).on('line', (line) => {
  const [command, value] = line.split(' ');
  if (command === 'token') token = value;
  if (command === 'hold') hold = true;
  if (command === 'release') {
    hold = false;
    for (const go of release.splice(0)) go();
  }
});

const authorised = (header) => {
  if (!token) return true;
  const match = /^Basic (.+)$/.exec(header ?? '');
  if (!match) return false;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  return decoded.slice(decoded.indexOf(':') + 1) === token;
};

const server = createServer(async (req, res) => {
  const url = new URL(req.url, 'http://127.0.0.1');
  if (!authorised(req.headers.authorization)) {
    console.log(`request ${req.method} ${url.pathname} 401`);
    res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="git"' });
    res.end();
    return;
  }
  if (hold && url.pathname.endsWith('/git-upload-pack')) {
    console.log('held');
    await new Promise((go) => release.push(go));
  }
  const cgi = spawn('git', ['http-backend'], {
    env: {
      PATH: process.env.PATH,
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: '1',
      PATH_INFO: url.pathname,
      QUERY_STRING: url.search.slice(1),
      REQUEST_METHOD: req.method,
      CONTENT_TYPE: req.headers['content-type'] ?? '',
      HTTP_CONTENT_ENCODING: req.headers['content-encoding'] ?? '',
      GIT_PROTOCOL: req.headers['git-protocol'] ?? '',
      REMOTE_ADDR: '127.0.0.1',
      REMOTE_USER: 'reader',
    },
  });
  req.pipe(cgi.stdin);
  let head = Buffer.alloc(0);
  let headersDone = false;
  cgi.stdout.on('data', (chunk) => {
    if (headersDone) return void res.write(chunk);
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) return;
    headersDone = true;
    let status = 200;
    for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
      else res.setHeader(name, value);
    }
    console.log(`request ${req.method} ${url.pathname} ${status}`);
    res.writeHead(status);
    res.write(head.subarray(end + 4));
  });
  cgi.stdout.on('end', () => res.end());
  cgi.on('error', () => res.destroy());
});
server.listen(Number(port), '127.0.0.1', () => console.log(`listening ${server.address().port}`));
