// Benchmarks and suites that switch the renderer set process.env for a while and must leave it as they found it,
// unset variables included (assigning undefined would leave the string "undefined").

/**
 * The current values of `names`, and a function that puts them back.
 * @example const env = saveEnv(['RENDERER', 'CHROMIUM_PATH']); process.env.RENDERER = 'off'; … env.restore();
 */
export function saveEnv(names: readonly string[]): { restore(): void } {
  const saved = Object.fromEntries(names.map((name) => [name, process.env[name]]));
  return {
    restore() {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    },
  };
}
