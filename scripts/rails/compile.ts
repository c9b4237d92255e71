// Compiles the local-rails contracts (contracts/*.sol) with solcjs and caches the result under .rails/.
// The cache key is the sources' hash plus the compiler version, so an edited contract recompiles by itself.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Abi, Hex } from 'viem';

interface ContractArtifact {
  abi: Abi;
  /** Runtime (deployed) bytecode: what anvil_setCode places at an address. */
  runtimeBytecode: Hex;
}

export interface Artifacts {
  TestUSDC: ContractArtifact;
  Multicall3: ContractArtifact;
}

const CONTRACTS = ['TestUSDC', 'Multicall3'] as const;

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[];
  contracts: Record<string, Record<string, { abi: Abi; evm: { deployedBytecode: { object: string } } }>>;
}

export function compileContracts(options: { root?: string; cacheDir?: string } = {}): Artifacts & { cached: boolean } {
  const root = options.root ?? process.cwd();
  const cacheDir = options.cacheDir ?? path.join(root, '.rails');
  const require = createRequire(path.join(root, 'package.json'));
  // Keyed on solc's package version so a cache hit never loads the (large, slow to load) compiler.
  const solcVersion = (require('solc/package.json') as { version: string }).version;

  const sources: Record<string, { content: string }> = {};
  for (const name of CONTRACTS) {
    const file = `contracts/${name}.sol`;
    sources[file] = { content: readFileSync(path.join(root, file), 'utf8') };
  }
  const settings = { optimizer: { enabled: true, runs: 200 }, evmVersion: 'cancun' };
  const key = createHash('sha256')
    .update(solcVersion)
    .update(JSON.stringify(settings))
    .update(JSON.stringify(sources))
    .digest('hex');

  const cacheFile = path.join(cacheDir, 'artifacts.json');
  if (existsSync(cacheFile)) {
    try {
      const cached = JSON.parse(readFileSync(cacheFile, 'utf8')) as { key: string; artifacts: Artifacts };
      if (cached.key === key) return { ...cached.artifacts, cached: true };
    } catch {
      // A corrupt cache is rebuilt below.
    }
  }

  const solc = require('solc') as { compile(input: string): string };
  const input = {
    language: 'Solidity',
    sources,
    settings: { ...settings, outputSelection: { '*': { '*': ['abi', 'evm.deployedBytecode.object'] } } },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(`solc failed:\n${errors.map((e) => e.formattedMessage).join('\n')}`);

  const artifacts = {} as Artifacts;
  for (const name of CONTRACTS) {
    const compiled = output.contracts[`contracts/${name}.sol`]?.[name];
    if (!compiled) throw new Error(`solc produced no output for ${name}`);
    artifacts[name] = { abi: compiled.abi, runtimeBytecode: `0x${compiled.evm.deployedBytecode.object}` };
  }

  mkdirSync(cacheDir, { recursive: true });
  const tmp = `${cacheFile}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify({ key, artifacts }));
  renameSync(tmp, cacheFile); // atomic: parallel test workers never read a half-written cache
  return { ...artifacts, cached: false };
}
