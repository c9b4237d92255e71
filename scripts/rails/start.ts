// startRails(): brings up every local payment rail in-process and returns what a service and its clients
// need to use them. Used by `npm run rails` (scripts/rails/index.ts) and by tests.
//
//   anvil --chain-id 8453 (loopback, free port)
//   TestUSDC (contracts/TestUSDC.sol, compiled with solc, cached in .rails/) placed at Base's USDC address
//   Multicall3 subset at its canonical address (the x402 facilitator's failure diagnostics call it)
//   a funded payer (anvil test key), a payTo address, a facilitator signer (anvil test key, pays gas)
//   a real x402 facilitator over HTTP, and a fake of the Stripe endpoints the card rail uses
import { randomBytes } from 'node:crypto';
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  getAddress,
  http,
  parseUnits,
  toHex,
  type Chain,
  type Hex,
} from 'viem';
import { mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { startAnvil } from './anvil';
import { compileContracts, type Artifacts } from './compile';
import { startFacilitator, type FacilitatorFault } from './facilitator';
import { startStripeFake, type FakePaymentIntent, type FakeSharedPaymentToken, type StripeFault } from './stripe-fake';

export const BASE_CHAIN_ID = 8453;
export const BASE_USDC_ADDRESS = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' as const;
const BASE_SEPOLIA_CHAIN_ID = 84532;
/** Circle's USDC on Base Sepolia: the second chain's TestUSDC sits here, as the probe's default network expects. */
const BASE_SEPOLIA_USDC_ADDRESS = '0x036CbD53842c5426634e7929541eC2318f3dCF7e' as const;
const MULTICALL3_ADDRESS = '0xcA11bde05977b3631167028862bE2a173976CA11' as const;
/** anvil's well-known test mnemonic: every key derived from it is public and worthless. */
const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';

export interface StartRailsOptions {
  /** Project root (contracts/, .rails/, node_modules/). Default: process.cwd(). */
  root?: string;
  /** Fixed ports; 0 or omitted picks free ones. */
  anvilPort?: number;
  facilitatorPort?: number;
  stripePort?: number;
  /** USDC minted to the payer, in whole USDC. Default 1000. */
  payerUsdc?: number;
  /** Secret for MPP challenge HMACs. Default: random per start. */
  mppSecretKey?: string;
  stripeSecretKey?: string;
  stripeNetworkId?: string;
  /**
   * Also start a second anvil as Base Sepolia (chain id 84532, TestUSDC at its USDC address) with a funded probe
   * wallet, settled by the same facilitator: the endpoint check's paid round trip pays there.
   */
  probeChain?: boolean;
}

/** The second chain (Base Sepolia's id) and the endpoint check's probe wallet, funded on it. */
interface ProbeChain {
  chainId: number;
  /** CAIP-2: eip155:84532. */
  network: string;
  rpcUrl: string;
  chain: Chain;
  usdcAddress: Hex;
  /** The probe wallet (an anvil test key, worthless): 100 USDC here, nothing on the main chain. */
  wallet: { address: Hex; privateKey: Hex };
  /** A payTo a seller on this chain can use. */
  payTo: Hex;
  usdcBalance(address: Hex): Promise<bigint>;
  mintUsdc(address: Hex, amount: bigint): Promise<void>;
  /** Moves `amount` from `from` to `to` as `from` (anvil impersonation), as no honest seller could: a test seller's defect. */
  forceTransfer(from: Hex, to: Hex, amount: bigint): Promise<Hex>;
}

export interface Rails {
  rpcUrl: string;
  chainId: number;
  chain: Chain;
  usdcAddress: Hex;
  usdcAbi: Artifacts['TestUSDC']['abi'];
  payer: { address: Hex; privateKey: Hex };
  payTo: Hex;
  facilitatorUrl: string;
  facilitatorAddress: Hex;
  stripe: {
    apiUrl: string;
    host: string;
    port: number;
    secretKey: string;
    networkId: string;
    paymentIntents(): FakePaymentIntent[];
    sharedPaymentTokens(): FakeSharedPaymentToken[];
    requests(): { method: string; path: string }[];
  };
  /** Environment a service needs to offer every rail (APP_URL is the service's own business). */
  env: {
    MPP_SECRET_KEY: string;
    PAY_TO_ADDRESS: string;
    USDC_ADDRESS: string;
    X402_FACILITATOR_URL: string;
    /** The chain the settlement reconciler reads (USDC authorizationState). */
    BASE_RPC_URL: string;
    STRIPE_SECRET_KEY: string;
    STRIPE_NETWORK_ID: string;
    STRIPE_API_URL: string;
    STRIPE_WEBHOOK_SECRET: string;
  };
  /** Environment for paying clients (the mppx CLI, scripts). */
  clientEnv: {
    RPC_URL: string;
    PAYER_PRIVATE_KEY: string;
    MPPX_PRIVATE_KEY: string;
    MPPX_RPC_URL: string;
    MPPX_STRIPE_SECRET_KEY: string;
    MPPX_STRIPE_SPT_URL: string;
  };
  /** Fault injection for tests. */
  faults: { facilitator(fault: FacilitatorFault, only?: '/verify' | '/settle'): void; stripe(fault: StripeFault): void };
  /** USDC balance (atomic units, 6 decimals) of an address, read on chain. */
  usdcBalance(address: Hex): Promise<bigint>;
  /** Mint test USDC (atomic units) to an address. */
  mintUsdc(address: Hex, amount: bigint): Promise<void>;
  /** Present when started with `probeChain`. */
  probe?: ProbeChain;
  /** Milliseconds each phase took, for the record. */
  timings: Record<string, number>;
  stop(): Promise<void>;
}

export async function startRails(options: StartRailsOptions = {}): Promise<Rails> {
  const timings: Record<string, number> = {};
  const t0 = performance.now();
  const mark = (name: string, since: number) => (timings[name] = Math.round(performance.now() - since));
  const root = options.root ?? process.cwd();
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch(() => undefined);
    stops.length = 0;
  };

  try {
    let t = performance.now();
    // Compile (or read the cache) while anvil boots.
    const [artifacts, anvil, probeAnvil] = await Promise.all([
      Promise.resolve().then(() => compileContracts({ root })),
      startAnvil({ chainId: BASE_CHAIN_ID, port: options.anvilPort, root, mnemonic: ANVIL_MNEMONIC }),
      options.probeChain ? startAnvil({ chainId: BASE_SEPOLIA_CHAIN_ID, root, mnemonic: ANVIL_MNEMONIC }) : null,
    ]);
    stops.push(anvil.stop);
    if (probeAnvil) stops.push(probeAnvil.stop);
    mark('anvilAndCompile', t);

    const chain = defineChain({
      id: BASE_CHAIN_ID,
      name: 'Base (local anvil)',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [anvil.rpcUrl] } },
      testnet: true,
    });
    const keyOf = (index: number) => toHex(mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: index }).getHdKey().privateKey!);
    const facilitatorKey = keyOf(0);
    const payerKey = keyOf(1);
    const payer = privateKeyToAccount(payerKey);
    const payTo = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 2 }).address;
    const minter = privateKeyToAccount(keyOf(3));

    t = performance.now();
    const publicClient = createPublicClient({ chain, transport: http(anvil.rpcUrl) });
    const rpc = (method: string, params: unknown[]) =>
      publicClient.request({ method: method as never, params: params as never });
    await rpc('anvil_setCode', [BASE_USDC_ADDRESS, artifacts.TestUSDC.runtimeBytecode]);
    await rpc('anvil_setCode', [MULTICALL3_ADDRESS, artifacts.Multicall3.runtimeBytecode]);
    const minterWallet = createWalletClient({ account: minter, chain, transport: http(anvil.rpcUrl) });
    const usdcAbi = artifacts.TestUSDC.abi;
    const mintUsdc = async (address: Hex, amount: bigint) => {
      const hash = await minterWallet.writeContract({
        address: BASE_USDC_ADDRESS,
        abi: usdcAbi,
        functionName: 'mint',
        args: [address, amount],
      });
      const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
      if (receipt.status !== 'success') throw new Error('minting test USDC failed');
    };
    await mintUsdc(payer.address, parseUnits(String(options.payerUsdc ?? 1000), 6));
    const probe = probeAnvil
      ? await probeChainOn(probeAnvil.rpcUrl, artifacts, {
          minter,
          wallet: keyOf(4),
          payTo: mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: 5 }).address,
        })
      : undefined;
    mark('chainSetup', t);

    t = performance.now();
    const [facilitator, stripe] = await Promise.all([
      startFacilitator({
        chain,
        rpcUrl: anvil.rpcUrl,
        privateKey: facilitatorKey,
        port: options.facilitatorPort,
        ...(probe ? { moreChains: [{ chain: probe.chain, rpcUrl: probe.rpcUrl }] } : {}),
      }),
      startStripeFake({
        port: options.stripePort,
        secretKey: options.stripeSecretKey,
        networkId: options.stripeNetworkId ?? 'internal',
      }),
    ]);
    stops.push(facilitator.stop, stripe.stop);
    mark('servers', t);
    timings.total = Math.round(performance.now() - t0);

    const mppSecretKey = options.mppSecretKey ?? randomBytes(32).toString('base64url');
    return {
      rpcUrl: anvil.rpcUrl,
      chainId: BASE_CHAIN_ID,
      chain,
      usdcAddress: BASE_USDC_ADDRESS,
      usdcAbi,
      payer: { address: payer.address, privateKey: payerKey },
      payTo: getAddress(payTo),
      facilitatorUrl: facilitator.url,
      facilitatorAddress: facilitator.address,
      stripe: {
        apiUrl: stripe.apiUrl,
        host: stripe.host,
        port: stripe.port,
        secretKey: stripe.secretKey,
        networkId: stripe.networkId,
        paymentIntents: stripe.paymentIntents,
        sharedPaymentTokens: stripe.sharedPaymentTokens,
        requests: stripe.requests,
      },
      env: {
        MPP_SECRET_KEY: mppSecretKey,
        PAY_TO_ADDRESS: getAddress(payTo),
        USDC_ADDRESS: BASE_USDC_ADDRESS,
        X402_FACILITATOR_URL: facilitator.url,
        BASE_RPC_URL: anvil.rpcUrl,
        STRIPE_SECRET_KEY: stripe.secretKey,
        STRIPE_NETWORK_ID: stripe.networkId,
        STRIPE_API_URL: stripe.apiUrl,
        STRIPE_WEBHOOK_SECRET: stripe.checkout.webhookSecret,
      },
      clientEnv: {
        RPC_URL: anvil.rpcUrl,
        PAYER_PRIVATE_KEY: payerKey,
        MPPX_PRIVATE_KEY: payerKey,
        MPPX_RPC_URL: anvil.rpcUrl,
        MPPX_STRIPE_SECRET_KEY: stripe.secretKey,
        MPPX_STRIPE_SPT_URL: `${stripe.apiUrl}/v1/test_helpers/shared_payment/granted_tokens`,
      },
      faults: { facilitator: facilitator.setFault, stripe: stripe.setFault },
      usdcBalance: async (address: Hex) =>
        (await publicClient.readContract({
          address: BASE_USDC_ADDRESS,
          abi: usdcAbi,
          functionName: 'balanceOf',
          args: [address],
        })) as bigint,
      mintUsdc,
      ...(probe ? { probe } : {}),
      timings,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The second chain: TestUSDC at Base Sepolia's USDC address, the probe wallet given 100 USDC. */
async function probeChainOn(rpcUrl: string, artifacts: Artifacts, keys: { minter: ReturnType<typeof privateKeyToAccount>; wallet: Hex; payTo: Hex }): Promise<ProbeChain> {
  const chain = defineChain({
    id: BASE_SEPOLIA_CHAIN_ID,
    name: 'Base Sepolia (local anvil)',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
    testnet: true,
  });
  const publicClient = createPublicClient({ chain, transport: http(rpcUrl) });
  const rpc = (method: string, params: unknown[]) => publicClient.request({ method: method as never, params: params as never });
  await rpc('anvil_setCode', [BASE_SEPOLIA_USDC_ADDRESS, artifacts.TestUSDC.runtimeBytecode]);
  await rpc('anvil_setCode', [MULTICALL3_ADDRESS, artifacts.Multicall3.runtimeBytecode]);
  const abi = artifacts.TestUSDC.abi;
  const minterWallet = createWalletClient({ account: keys.minter, chain, transport: http(rpcUrl) });
  const mined = async (hash: Hex) => {
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    if (receipt.status !== 'success') throw new Error(`transaction ${hash} failed on the probe chain`);
    return hash;
  };
  const mintUsdc = async (address: Hex, amount: bigint) => {
    await mined(await minterWallet.writeContract({ address: BASE_SEPOLIA_USDC_ADDRESS, abi, functionName: 'mint', args: [address, amount] }));
  };
  const wallet = privateKeyToAccount(keys.wallet);
  await mintUsdc(wallet.address, parseUnits('100', 6));
  return {
    chainId: BASE_SEPOLIA_CHAIN_ID,
    network: `eip155:${BASE_SEPOLIA_CHAIN_ID}`,
    rpcUrl,
    chain,
    usdcAddress: BASE_SEPOLIA_USDC_ADDRESS,
    wallet: { address: wallet.address, privateKey: keys.wallet },
    payTo: getAddress(keys.payTo),
    usdcBalance: async (address) => (await publicClient.readContract({ address: BASE_SEPOLIA_USDC_ADDRESS, abi, functionName: 'balanceOf', args: [address] })) as bigint,
    mintUsdc,
    forceTransfer: async (from, to, amount) => {
      await rpc('anvil_impersonateAccount', [from]);
      try {
        const as = createWalletClient({ account: from, chain, transport: http(rpcUrl) });
        return await mined(await as.writeContract({ address: BASE_SEPOLIA_USDC_ADDRESS, abi, functionName: 'transfer', args: [to, amount] }));
      } finally {
        await rpc('anvil_stopImpersonatingAccount', [from]);
      }
    },
  };
}
