// Preloaded into `next start` (NODE_OPTIONS=--import) by tests that point the real service at a local
// fixture site: production refuses CHECK_HOST_MAP, so this stands in for DNS and the internet instead.
// PAC_FAKE_INTERNET maps host names to a local port: {"hostile.pac-fixture.net": 41234}. Each name
// resolves to one public address (so the SSRF guard passes it as it would a real site), and every socket
// opened to that name is answered by the local port. Other names and sockets are untouched.
import dns from 'node:dns';
import net from 'node:net';

const PUBLIC_ADDRESS = '93.184.215.14';
const hosts = JSON.parse(process.env.PAC_FAKE_INTERNET || '{}');

const realLookup = dns.promises.lookup.bind(dns.promises);
dns.promises.lookup = async (hostname, options) => {
  if (!Object.hasOwn(hosts, hostname)) return realLookup(hostname, options);
  const answer = { address: PUBLIC_ADDRESS, family: 4 };
  return options && options.all ? [answer] : answer;
};

const realConnect = net.connect.bind(net);
net.connect = net.createConnection = (options, ...rest) => {
  const host = options && typeof options === 'object' ? options.host : undefined;
  if (host === undefined || !Object.hasOwn(hosts, host)) return realConnect(options, ...rest);
  return realConnect({ host: '127.0.0.1', port: hosts[host] }, ...rest);
};
