import { startBalancer, type Balancer } from './balancer';
import { startServer, type RunningServer } from './server';

// Several `next start` instances of one build on one shared store (REDIS_URL), behind one round-robin balancer:
// the deployment docs/DEPLOY.md describes, on one machine. Every instance gets the same environment, and
// APP_URL names the balancer, as it names the public address in production.

interface ClusterOptions {
  /** The environment every instance shares (rails, limits, REDIS_URL …). */
  env: Record<string, string>;
  /** Instances behind the balancer; 2 unless told. */
  instances?: number;
  /**
   * A renderer server both instances send pages to, instead of each rendering with its own Chromium: passed to
   * every instance as RENDERER_URL. Unset, each instance renders in process as configured by `env`.
   */
  rendererUrl?: string;
}

export interface Cluster {
  /** The balancer's address: the service's public address. */
  url: string;
  balancer: Balancer;
  servers: RunningServer[];
  stop(): Promise<void>;
}

/**
 * Builds once (as startServer does), starts the instances side by side and the balancer in front of them.
 * @example const cluster = await startCluster({ env: { ...rails.env, REDIS_URL: redis.url } }); await fetch(`${cluster.url}/api/health`);
 */
export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const balancer = await startBalancer();
  const env = { ...options.env, APP_URL: balancer.url, ...(options.rendererUrl ? { RENDERER_URL: options.rendererUrl } : {}) };
  const servers: RunningServer[] = [];
  try {
    // One after another: the first start builds, and two cold starts at once only slow each other down.
    for (let i = 0; i < (options.instances ?? 2); i++) servers.push(await startServer(env));
  } catch (error) {
    await Promise.all(servers.map((s) => s.stop()));
    await balancer.close();
    throw error;
  }
  balancer.upstreams = servers.map((s) => s.url);
  return {
    url: balancer.url,
    balancer,
    servers,
    stop: async () => {
      await Promise.all(servers.map((s) => s.stop()));
      await balancer.close();
    },
  };
}
