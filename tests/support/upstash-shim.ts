import http from 'node:http';
import Redis from 'ioredis';
import type { AddressInfo } from 'node:net';

// A small Upstash-compatible REST front for a real Redis: POST / takes one command as a JSON
// array, POST /pipeline an array of them; strings come back base64-encoded when the client
// asks with Upstash-Encoding: base64, as @upstash/redis (and so @vercel/kv) does by default.

type Reply = string | number | null | Reply[];

function encode(value: unknown, base64: boolean): Reply {
  if (Array.isArray(value)) return value.map((v) => encode(v, base64));
  if (Buffer.isBuffer(value)) value = value.toString('utf8');
  if (typeof value === 'string') return base64 ? Buffer.from(value, 'utf8').toString('base64') : value;
  if (typeof value === 'number') return value;
  // ioredis turns HGETALL into an object; Redis (and Upstash) answer a flat [field, value, …] list.
  if (value && typeof value === 'object') return Object.entries(value).flat().map((v) => encode(v, base64));
  return null;
}

export async function startUpstashShim(redisUrl: string, token: string) {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  const run = async (command: unknown, base64: boolean) => {
    if (!Array.isArray(command) || command.length === 0) return { error: 'ERR malformed command' };
    try {
      const [name, ...args] = command.map(String);
      return { result: encode(await redis.call(name, ...args), base64) };
    } catch (error) {
      return { error: (error as Error).message };
    }
  };
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${token}`) return reply(401, { error: 'Unauthorized' });
    let payload: unknown;
    try {
      payload = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return reply(400, { error: 'ERR body is not JSON' });
    }
    const base64 = String(req.headers['upstash-encoding'] ?? '').toLowerCase() === 'base64';
    if (req.url === '/pipeline' || req.url === '/multi-exec') {
      return reply(200, await Promise.all((payload as unknown[]).map((c) => run(c, base64))));
    }
    const out = await run(payload, base64);
    reply('error' in out ? 400 : 200, out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      redis.disconnect();
    },
  };
}
