import * as bitcoin from 'bitcoinjs-lib'
import { randomBytes } from 'crypto'
import * as fs from 'fs'
import * as os from 'os'
import * as path from 'path'
import {
    Address, createPublicClient, createWalletClient, erc20Abi, getAddress, Hash, Hex, http, parseAbiItem, parseUnits, PublicClient, toHex,
} from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { Client, Pool } from 'pg'
import { WebSocket } from 'ws'
import { BridgeChainRecord, NativeContracts } from '../../common/config'
import { spawnManaged, Spawned, waitFor } from '../../common/processes'
import { Anvil, DEV_MNEMONIC, startAnvil } from '../../devnet/anvil'
import { addNativePool, BRIDGE_NETWORKS, fundVault, provisionBridgeChain, setIntervalMining } from '../../devnet/bridge-chains'
import { deployNativeContracts, devnetChain, ZERO_FEES } from '../../devnet/deploy'
import { EsploraServer, startEsploraServer } from '../../devnet/bitcoin/esplora'
import type { SimpleSwapServer } from '../../devnet/provider/server'
import { SolanaNode, startSolanaNode } from '../../devnet/solana/server'
import { startTronNode, TronNode } from '../../devnet/tron/server'
import { BroadcastGate } from '../support/broadcast-gate'
import { freePort } from '../support/ports'
import { createTestDatabase } from '../support/postgres'
import { stopAfterRun } from '../support/workers'

/**
 * The bridge's world for a test suite: four local anvils (the native chain 3009, BSC 56, ETHEREUM 1,
 * POLYGON 137) with our contracts and test tokens, each mining a block every second with
 * finalized = latest − 2 (the bridge confirms by watching blocks arrive), shared by the worker's
 * files and reset for each; and the real bridge process (lib/bridge/main.js) against them.
 */

const BRIDGE_MAIN = path.resolve(__dirname, '../../bridge/main.js')
export const NATIVE_CHAIN_ID = 3009

export type ChainName = 'NATIVECHAIN' | 'BSC' | 'ETHEREUM' | 'POLYGON'

export interface TestChain {
    name: ChainName
    chainId: number
    url: string
    anvil: Anvil
    client: PublicClient
    /** ERC-20s by bridge symbol. */
    tokens: Record<string, Address>
}

export interface BridgeChains {
    chains: Record<ChainName, TestChain>
    native: NativeContracts
    bsc: BridgeChainRecord
    /**
     * Started with `stateDir`: stops the chain's anvil (it writes its state file) and starts it again
     * from that file on the same port, mining again. The node then holds no state for any block
     * before the restart, as a pruned node would not.
     */
    restart(name: ChainName): Promise<void>
    stop(): Promise<void>
}

/** A development account (anvil's mnemonic): 0 owns every token; others are users. */
export const account = (index: number) => mnemonicToAccount(DEV_MNEMONIC, { addressIndex: index })

/**
 * The bridge's chains for a test file. Without `stateDir`, the worker's shared chains
 * (docs/testing.md#shared-chains): started and provisioned by the first file that asks, then handed
 * to each later file reset to that provisioned state (evm_revert to a snapshot), with the clock, base
 * fee, gas limit, mempool and mining of a fresh chain. Their `stop` only pauses mining; the anvils end
 * with the worker. With `stateDir`, chains of the file's own that `restart` can stop and start again.
 */
export async function startBridgeChains(options: { stateDir?: string } = {}): Promise<BridgeChains> {
    if (options.stateDir) return startChains(options.stateDir)
    shared ??= startChains().then(async (w) => ({ w, snapshots: await snapshotAll(w), gasLimits: await gasLimitsOf(w) }))
    const world = await shared.catch((err) => {
        shared = undefined
        throw err
    })
    await resetAll(world)
    return {
        ...world.w,
        restart: () => Promise.reject(new Error('restart needs chains started with a stateDir')),
        stop: () => pauseAll(world.w),
    }
}

interface SharedChains {
    w: BridgeChains
    /** evm_snapshot id per chain, taken once provisioned (evm_revert consumes it: retaken each reset). */
    snapshots: Record<ChainName, Hex>
    gasLimits: Record<ChainName, bigint>
}

let shared: Promise<SharedChains> | undefined

const CHAIN_NAMES: ChainName[] = ['NATIVECHAIN', 'BSC', 'ETHEREUM', 'POLYGON']

function rpc(chain: TestChain, method: string, params: unknown[] = []): Promise<any> {
    return chain.client.request({ method: method as any, params: params as any })
}

async function eachChain<T>(w: BridgeChains, f: (chain: TestChain) => Promise<T>): Promise<Record<ChainName, T>> {
    const values = await Promise.all(CHAIN_NAMES.map((name) => f(w.chains[name])))
    return Object.fromEntries(CHAIN_NAMES.map((name, i) => [name, values[i]])) as Record<ChainName, T>
}

function snapshotAll(w: BridgeChains): Promise<Record<ChainName, Hex>> {
    return eachChain(w, (chain) => rpc(chain, 'evm_snapshot'))
}

async function gasLimitsOf(w: BridgeChains): Promise<Record<ChainName, bigint>> {
    return eachChain(w, async (chain) => (await chain.client.getBlock({ blockTag: 'latest' })).gasLimit)
}

/** Everything a file may have changed on a shared chain, back to the provisioned state. */
async function resetAll(world: SharedChains): Promise<void> {
    await eachChain(world.w, async (chain) => {
        await rpc(chain, 'evm_setIntervalMining', [0])
        await rpc(chain, 'evm_setAutomine', [false])
        await rpc(chain, 'anvil_dropAllTransactions')
        if (!(await rpc(chain, 'evm_revert', [world.snapshots[chain.name]]))) throw new Error(`${chain.name}: the shared chains' snapshot is gone`)
        world.snapshots[chain.name] = await rpc(chain, 'evm_snapshot')
        // A file may have moved the clock ahead (evm_setNextBlockTimestamp) or raised the base fee.
        await rpc(chain, 'evm_setTime', [Math.floor(Date.now() / 1000)])
        await rpc(chain, 'anvil_setNextBlockBaseFeePerGas', ['0x0'])
        await rpc(chain, 'evm_setBlockGasLimit', [toHex(world.gasLimits[chain.name])])
        await rpc(chain, 'evm_setIntervalMining', [1])
    })
}

async function pauseAll(w: BridgeChains): Promise<void> {
    await eachChain(w, (chain) => rpc(chain, 'evm_setIntervalMining', [0]).catch(() => undefined))
}

async function startChains(stateDir?: string): Promise<BridgeChains> {
    const started: Anvil[] = []
    const stateFile = (chainId: number) => (stateDir ? path.join(stateDir, `anvil-${chainId}.json`) : undefined)
    try {
        const start = async (chainId: number) => {
            const anvil = await startAnvil({ port: await freePort(), chainId, slotsInAnEpoch: 1, stateFile: stateFile(chainId) })
            started.push(anvil)
            return anvil
        }
        const [nativeAnvil, bscAnvil, ethAnvil, polygonAnvil] = await Promise.all([start(NATIVE_CHAIN_ID), start(56), start(1), start(137)])
        const { contracts } = await deployNativeContracts({ rpcUrl: nativeAnvil.url, chainId: NATIVE_CHAIN_ID })
        await addNativePool(nativeAnvil.url, NATIVE_CHAIN_ID, contracts)
        const spec = (name: string) => BRIDGE_NETWORKS.find((n) => n.name === name)!
        const [bsc, eth, polygon] = await Promise.all([
            provisionBridgeChain(spec('BSC'), bscAnvil.url),
            provisionBridgeChain(spec('ETHEREUM'), ethAnvil.url),
            provisionBridgeChain(spec('POLYGON'), polygonAnvil.url),
        ])
        await Promise.all(started.map((a) => setIntervalMining(a.url, 1)))
        const chain = (name: ChainName, anvil: Anvil, tokens: Record<string, Address>): TestChain => ({
            name, chainId: anvil.chainId, url: anvil.url, anvil, tokens,
            client: createPublicClient({ chain: devnetChain(anvil.chainId, anvil.url), transport: http(anvil.url), cacheTime: 0 }) as PublicClient,
        })
        const chains = {
            NATIVECHAIN: chain('NATIVECHAIN', nativeAnvil, { STABLE: contracts.stable }),
            BSC: chain('BSC', bscAnvil, bsc.tokens),
            ETHEREUM: chain('ETHEREUM', ethAnvil, eth.tokens),
            POLYGON: chain('POLYGON', polygonAnvil, polygon.tokens),
        }
        return {
            chains,
            native: contracts,
            bsc,
            restart: async (name: ChainName) => {
                const old = chains[name].anvil
                if (!stateFile(old.chainId)) throw new Error('restart needs chains started with a stateDir')
                await old.stop()
                started.splice(started.indexOf(old), 1)
                const anvil = await startAnvil({ port: Number(new URL(old.url).port), chainId: old.chainId, slotsInAnEpoch: 1, stateFile: stateFile(old.chainId) })
                started.push(anvil)
                await setIntervalMining(anvil.url, 1)
                chains[name].anvil = anvil
            },
            stop: async () => {
                await Promise.allSettled(started.map((a) => a.stop()))
            },
        }
    } catch (err) {
        await Promise.allSettled(started.map((a) => a.stop()))
        throw err
    }
}

stopAfterRun(async () => {
    const world = await shared?.catch(() => undefined)
    shared = undefined
    await Promise.allSettled(world ? CHAIN_NAMES.map((name) => world.w.chains[name].anvil.stop()) : [])
})

export interface BridgeProcess {
    url: string
    wsUrl: string
    process: Spawned
    output(): string
    stop(): Promise<void>
}

/** The env of a bridge process against the test chains. */
export function bridgeEnv(w: BridgeChains, databaseUrl: string, dataDir: string): Record<string, string> {
    const c = w.chains
    return {
        NODE_ENV: 'test',
        LOG_LEVEL: 'warn',
        DATABASE_URL: databaseUrl,
        DATA_DIR: dataDir,
        MASTER_KEY: '22'.repeat(32),
        JWT_SECRET: 'test-jwt-secret-of-at-least-32-characters',
        BRIDGE_ADMIN_TOKEN: 'test-bridge-admin-token-0123456789',
        RPC_URL: c.NATIVECHAIN.url,
        CHAIN_ID: String(NATIVE_CHAIN_ID),
        WNATIVE_ADDRESS: w.native.wnative,
        STABLE_ADDRESS: w.native.stable,
        AMM_FACTORY_ADDRESS: w.native.factory,
        AMM_ROUTER_ADDRESS: w.native.router,
        BSC_RPC_URL: c.BSC.url,
        BSC_USDT_ADDRESS: c.BSC.tokens.USDT,
        BSC_WNATIVE_ADDRESS: c.BSC.tokens.WNATIVE,
        BSC_AMM_FACTORY_ADDRESS: w.bsc.amm!.factory,
        BSC_AMM_ROUTER_ADDRESS: w.bsc.amm!.router,
        ETHEREUM_RPC_URL: c.ETHEREUM.url,
        ETHEREUM_USDT_ADDRESS: c.ETHEREUM.tokens.USDT,
        POLYGON_RPC_URL: c.POLYGON.url,
        POLYGON_USDT_ADDRESS: c.POLYGON.tokens.USDT,
        BRIDGE_MONITOR_INTERVAL_MS: '1000',
        BRIDGE_WORKER_INTERVAL_MS: '300',
        BRIDGE_CONFIRMATIONS_NATIVECHAIN: '2',
        BRIDGE_CREATE_LIMIT: '1000',
    }
}

/** `port`: the port of a bridge stopped before, so that its clients reconnect to the new process. */
export async function startBridge(env: Record<string, string>, options: { port?: number } = {}): Promise<BridgeProcess> {
    const port = options.port ?? await freePort()
    let output = ''
    const proc = spawnManaged(process.execPath, [BRIDGE_MAIN], { name: 'bridge', env: { ...process.env, ...env, BRIDGE_PORT: String(port) } })
    const collect = (d: Buffer) => {
        output = (output + d.toString()).slice(process.env.DEBUG_FAULTS ? -5_000_000 : -50_000)
    }
    proc.child.stdout?.on('data', collect)
    proc.child.stderr?.on('data', collect)
    const url = `http://127.0.0.1:${port}`
    try {
        await Promise.race([
            waitFor('bridge to listen', () => fetch(`${url}/health`).then((r) => r.ok, () => false), 60_000, 100),
            proc.exited.then((code) => {
                throw new Error(`bridge exited with ${code}:\n${output}`)
            }),
        ])
    } catch (err) {
        await proc.stop()
        throw err
    }
    return { url, wsUrl: `ws://127.0.0.1:${port}/ws`, process: proc, output: () => output, stop: () => proc.stop(5000) }
}

/** The BITCOIN (Esplora), SOLANA and TRON doubles as the bridge's tests run them, each making blocks on a timer as its network does. */
export interface ExternalNetworks {
    btc: EsploraServer
    sol: SolanaNode
    tron: TronNode
    /** Stops the block timers and the doubles. */
    stop(): Promise<void>
}

export async function startExternalNetworks(): Promise<ExternalNetworks> {
    const [btc, sol, tron] = await Promise.all([
        startEsploraServer('regtest'), startSolanaNode({ finalizedDepth: 8 }), startTronNode({ solidifyDepth: 3, startTime: Date.now() - 3_600_000 }),
    ])
    const tronTicker = setInterval(() => tron.ledger.mine(1), 1000)
    const ticker = setInterval(() => {
        btc.ledger.mine(1)
        sol.ledger.advance(4)
    }, 400)
    return {
        btc, sol, tron,
        async stop() {
            clearInterval(ticker)
            clearInterval(tronTicker)
            await Promise.allSettled([btc.close(), sol.close(), tron.close()])
        },
    }
}

/** A fresh P2WPKH address of the regtest chain, of no one's key. */
export function regtestAddress(): string {
    return bitcoin.payments.p2wpkh({ hash: randomBytes(20), network: bitcoin.networks.regtest }).address!
}

/** What the address holds unspent in the Esplora double's ledger, in satoshis. */
export function btcBalance(btc: EsploraServer, address: string): bigint {
    return btc.ledger.unspentOf(btc.ledger.scriptOf(address)).reduce((sum, o) => sum + o.value, 0n)
}

/** The bridge's environment for the external networks' doubles and the SimpleSwap double, polled every second. */
export function externalNetworksEnv(networks: ExternalNetworks, ss: SimpleSwapServer): Record<string, string> {
    return {
        BITCOIN_NETWORK: 'regtest',
        BITCOIN_ESPLORA_URL: networks.btc.url,
        SOLANA_RPC_URL: networks.sol.url,
        TRON_API_URL: networks.tron.url,
        SIMPLESWAP_API_KEY: ss.apiKey,
        SIMPLESWAP_API_URL: ss.baseUrl,
        BRIDGE_PROVIDER_POLL_SECONDS: '1',
    }
}

/**
 * Funds the bridge's vaults on the external networks: SOLANA pays the fee of gathering each
 * deposit, BITCOIN keeps a float for network fees, TRON pays USDT payouts and their energy in TRX.
 */
export async function fundExternalVaults(bridge: BridgeProcess, networks: ExternalNetworks): Promise<void> {
    const vault = (chain: string) => vaultOf(bridge, chain as ChainName)
    networks.sol.ledger.fund(await vault('SOLANA'), 10_000_000_000n)
    networks.btc.ledger.fund(await vault('BITCOIN'), 10_000_000n)
    const tronVault = await vault('TRON')
    networks.tron.ledger.fundTrx(tronVault, 50_000_000_000n)
    networks.tron.ledger.fundUsdt(tronVault, 1_000_000_000_000n)
}

export function tempDir(): string {
    return fs.mkdtempSync(path.join(os.tmpdir(), 'bridge-test-'))
}

export interface VaultLevels {
    coin: string
    /** Whole tokens by symbol, per chain; a symbol left out is not funded. */
    tokens: Partial<Record<ChainName, Record<string, string>>>
}

export const DEFAULT_LEVELS: VaultLevels = {
    coin: '1000',
    tokens: {
        NATIVECHAIN: { STABLE: '1000000' },
        BSC: { USDT: '1000000', WNATIVE: '1000' },
        ETHEREUM: { USDT: '1000000' },
        POLYGON: { USDT: '1000000' },
    },
}

const DECIMALS: Record<string, number> = { 'NATIVECHAIN:STABLE': 6, 'BSC:USDT': 18, 'BSC:WNATIVE': 18, 'ETHEREUM:USDT': 6, 'POLYGON:USDT': 6 }

/** The vault address the bridge reports for a chain (GET /api/swap/config). */
export async function vaultOf(bridge: BridgeProcess, chain: ChainName): Promise<Address> {
    const config = (await (await fetch(`${bridge.url}/api/swap/config`)).json()) as any
    return config.networks.find((n: any) => n.chain === chain).vault_address
}

export async function fundVaults(w: BridgeChains, bridge: BridgeProcess, levels: VaultLevels = DEFAULT_LEVELS): Promise<void> {
    for (const name of Object.keys(w.chains) as ChainName[]) {
        const chain = w.chains[name]
        const vault = await vaultOf(bridge, name)
        const tokens = Object.entries(levels.tokens[name] ?? {}).map(([symbol, amount]) => ({
            address: chain.tokens[symbol], decimals: DECIMALS[`${name}:${symbol}`], amount,
        }))
        await fundVault(chain.url, chain.chainId, vault, { coin: levels.coin, tokens })
    }
}

/** Sends a deposit (coin when token is undefined) from a development account and waits for it to be mined. */
export async function send(chain: TestChain, from: number, to: Address, amount: bigint, token?: Address): Promise<Hash> {
    const wallet = createWalletClient({ account: account(from), chain: devnetChain(chain.chainId, chain.url), transport: http(chain.url) })
    const hash = token
        ? await wallet.writeContract({ address: token, abi: erc20Abi, functionName: 'transfer', args: [to, amount], ...ZERO_FEES })
        : await wallet.sendTransaction({ to, value: amount, ...ZERO_FEES })
    // Mined now, not at the next one-second block: the test is waiting for its own transaction.
    await rpc(chain, 'evm_mine')
    const receipt = await chain.client.waitForTransactionReceipt({ hash, pollingInterval: 100 })
    if (receipt.status !== 'success') throw new Error(`deposit ${hash} reverted`)
    return hash
}

/** Gives a development account test tokens (account 0 owns and holds them all). */
export async function giveTokens(chain: TestChain, symbol: string, to: Address, amount: bigint): Promise<void> {
    await send(chain, 0, to, amount, chain.tokens[symbol])
}

export async function balanceOf(chain: TestChain, holder: Address, token?: Address): Promise<bigint> {
    return token
        ? chain.client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [holder] })
        : chain.client.getBalance({ address: holder })
}

/** The amounts of every `token` Transfer from `from` to `to` on the chain, from genesis: how many times a payout was made. */
export async function transferAmounts(chain: TestChain, token: Address, from: Address, to: Address): Promise<bigint[]> {
    const logs = await chain.client.getLogs({
        address: token,
        event: parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)'),
        args: { from, to },
        fromBlock: 0n,
    })
    return logs.map((l) => l.args.value!)
}

export { parseUnits }

// ---- Many waiting swaps ------------------------------------------------------------------------

/** How many waiting swaps one chain carries here: the scale the monitor must handle per chain. */
export const WATCHED = 10_000

/**
 * Inserts `count` swaps waiting for a deposit on the native chain, as POST /api/swap would leave
 * them, the even ones watching the coin and the odd ones the STABLE token, at fresh random addresses (no
 * key is needed: nothing is ever deposited there). Deposit indexes far above the sequence's.
 */
export async function insertWaitingSwaps(databaseUrl: string, count: number, watchFromBlock: bigint): Promise<Address[]> {
    const db = new Client({ connectionString: databaseUrl })
    await db.connect()
    try {
        const addresses: Address[] = []
        const route = JSON.stringify({ kind: 'pool', legs: [], min_amount: '0.001', max_amount: '1000' })
        for (let start = 0; start < count; start += 1000) {
            const n = Math.min(1000, count - start)
            const i = Array.from({ length: n }, (_, k) => start + k)
            const chunk = i.map(() => getAddress(`0x${randomBytes(20).toString('hex')}`))
            addresses.push(...chunk)
            await db.query(
                `INSERT INTO bridge_swap (id, status, source_chain, source_token, target_chain, target_token, source_amount, target_wallet,
                    route_kind, route, fee_bps, deposit_family, deposit_index, deposit_address, watch_from_block, expires_at)
                 SELECT gen_random_uuid(), 'pending_deposit', 'NATIVECHAIN', t.token, 'ETHEREUM', 'USDT', 1000000, $1,
                    'pool', $2::jsonb, 250, 'evm', t.idx, t.address, $3, now() + interval '1 hour'
                 FROM unnest($4::text[], $5::bigint[], $6::text[]) AS t(token, idx, address)`,
                [account(9).address, route, watchFromBlock.toString(), i.map((k) => (k % 2 ? 'STABLE' : 'NATIVE')), i.map((k) => 10_000_000 + k),
                    chunk]
            )
        }
        return addresses
    } finally {
        await db.end()
    }
}

// ---- HTTP helpers -----------------------------------------------------------------------------

export async function api(bridge: BridgeProcess, method: string, route: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any; headers: Headers }> {
    const response = await fetch(`${bridge.url}${route}`, {
        method,
        headers: body !== undefined ? { 'content-type': 'application/json', ...headers } : headers,
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    })
    const text = await response.text()
    let parsed: unknown = text
    try {
        parsed = JSON.parse(text)
    } catch {
        // not JSON; keep the text
    }
    return { status: response.status, body: parsed, headers: response.headers }
}

export async function createSwap(bridge: BridgeProcess, body: Record<string, unknown>): Promise<any> {
    const res = await api(bridge, 'POST', '/api/swap', body)
    if (res.status !== 201) throw new Error(`swap creation answered ${res.status}: ${JSON.stringify(res.body)}`)
    return res.body
}

/** Polls the status route until the swap reaches one of `statuses`; fails fast on an unexpected final status. */
export async function waitForStatus(bridge: BridgeProcess, id: string, statuses: string[], timeoutMs = 120_000): Promise<any> {
    let last: any
    return waitFor(`swap ${id} to reach ${statuses.join('/')}`, async () => {
        const { body } = await api(bridge, 'GET', `/api/swap/${id}`)
        last = body
        if (statuses.includes(body.status)) return body
        if (['completed', 'failed', 'expired'].includes(body.status)) {
            throw new Error(`swap ended ${body.status} (${body.error_message}), expected ${statuses.join('/')}`)
        }
        return undefined
    }, timeoutMs, 250).catch((err) => {
        throw new Error(`${err.message}; last seen: ${JSON.stringify(last)}\nbridge output:\n${bridge.output().slice(-5000)}`)
    })
}

export async function eventsOf(bridge: BridgeProcess, id: string): Promise<any[]> {
    return (await api(bridge, 'GET', `/api/swap/${id}/events`)).body.events
}

// ---- WebSocket client -------------------------------------------------------------------------

export class WsClient {
    readonly messages: any[] = []
    closed?: { code: number; reason: string }
    private constructor(readonly socket: WebSocket) {
        socket.on('message', (data) => this.messages.push(JSON.parse(data.toString())))
        socket.on('close', (code, reason) => {
            this.closed = { code, reason: reason.toString() }
        })
    }

    static async connect(url: string): Promise<WsClient> {
        const socket = new WebSocket(url)
        await new Promise<void>((resolve, reject) => {
            socket.once('open', () => resolve())
            socket.once('error', reject)
        })
        return new WsClient(socket)
    }

    send(message: unknown): void {
        this.socket.send(typeof message === 'string' ? message : JSON.stringify(message))
    }

    /** The first message (from `from` on) that matches. */
    async next(match: (m: any) => boolean, timeoutMs = 30_000, from = 0): Promise<any> {
        return waitFor('a websocket message', async () => this.messages.slice(from).find(match), timeoutMs, 50)
    }

    close(): void {
        this.socket.close()
    }
}

// ---- A node that cannot be reached for broadcasts ------------------------------------------

export { BroadcastGate }

/** The variable bridgeEnv points each anvil's RPC with. */
const RPC_VARIABLES: Record<ChainName, string> = { NATIVECHAIN: 'RPC_URL', BSC: 'BSC_RPC_URL', ETHEREUM: 'ETHEREUM_RPC_URL', POLYGON: 'POLYGON_RPC_URL' }

/** A started BroadcastGate in front of each of these chains' anvils; gateEnv sends the bridge through them. */
export async function startGates<N extends ChainName>(w: BridgeChains, names: N[]): Promise<Record<N, BroadcastGate>> {
    const gates = Object.fromEntries(names.map((n) => [n, new BroadcastGate(w.chains[n].url)])) as Record<N, BroadcastGate>
    await Promise.all(Object.values<BroadcastGate>(gates).map((g) => g.start()))
    return gates
}

/** The entries of the bridge's env that put the gates between it and their chains. */
export function gateEnv(gates: Partial<Record<ChainName, BroadcastGate>>): Record<string, string> {
    return Object.fromEntries(Object.entries(gates).map(([name, gate]) => [RPC_VARIABLES[name as ChainName], gate!.url]))
}

/** The shared chains and a bridge whose ETHEREUM broadcasts pass a gate, on a database of its own. */
export interface GatedBridge {
    w: BridgeChains
    bridge: BridgeProcess
    /** In front of ETHEREUM's node. */
    gate: BroadcastGate
    /** On the bridge's database. */
    pool: Pool
    stop(): Promise<void>
}

/** Starts a GatedBridge with its vaults funded (DEFAULT_LEVELS). */
export async function startGatedBridge(databaseName: string): Promise<GatedBridge> {
    const databaseUrl = await createTestDatabase(databaseName)
    const w = await startBridgeChains()
    const dir = tempDir()
    let gate: BroadcastGate | undefined
    let bridge: BridgeProcess | undefined
    const stop = async () => {
        await bridge?.stop()
        await gate?.stop()
        await w.stop()
        fs.rmSync(dir, { recursive: true, force: true })
    }
    try {
        const gates = await startGates(w, ['ETHEREUM'])
        gate = gates.ETHEREUM
        bridge = await startBridge({ ...bridgeEnv(w, databaseUrl, dir), ...gateEnv(gates) })
        await fundVaults(w, bridge)
    } catch (err) {
        await stop()
        throw err
    }
    const pool = new Pool({ connectionString: databaseUrl, max: 2 })
    return {
        w, bridge, gate, pool,
        async stop() {
            await pool.end()
            await stop()
        },
    }
}

/** A stored transaction of a swap, as the tests read it. */
export interface TxRow { id: string; status: string; tx_hash: Hash; raw: Hex; amount: string; nonce: string | null; replaces: string | null }

/** The transactions the bridge stored for one purpose of a swap, oldest attempt first. */
export async function txRows(pool: Pool, swapId: string, purpose: string): Promise<TxRow[]> {
    const { rows } = await pool.query(
        `SELECT id::text, status, tx_hash, raw, amount::text, nonce::text, replaces::text FROM bridge_tx WHERE swap_id = $1 AND purpose = $2 ORDER BY attempt`,
        [swapId, purpose]
    )
    return rows
}

/**
 * The gate holds back (refuses, or with `swallow` forwards unanswered) only what the bridge stored
 * for `purpose` of this swap, found by its raw bytes in bridge_tx.
 */
export function holdStored(gate: BroadcastGate, pool: Pool, swapId: string, purpose: string, swallow = false): BroadcastGate {
    gate.filter = async (raw) => {
        const { rows } = await pool.query('SELECT 1 FROM bridge_tx WHERE raw = $1 AND swap_id = $2 AND purpose = $3', [raw, swapId, purpose])
        return rows.length > 0
    }
    gate.swallow = swallow
    gate.blocked = true
    return gate
}

/** A stored transaction the bridge has not seen land (sender.ts: 'broadcast' once a broadcast may have reached a node). */
export const UNFINISHED = ['signed', 'broadcast']

/**
 * Waits until the step's transaction is stored (the only one, not known to have landed: 'signed',
 * or 'broadcast' once a broadcast got no clear answer) and `tried` says its broadcast was attempted; the row.
 */
export async function storedAndTried(pool: Pool, bridge: BridgeProcess, swapId: string, purpose: string, tried: (row: TxRow) => boolean | Promise<boolean>): Promise<TxRow> {
    return waitFor(`the ${purpose} of ${swapId} stored and its broadcast tried`, async () => {
        const rows = await txRows(pool, swapId, purpose)
        if (rows.length !== 1 || !UNFINISHED.includes(rows[0].status)) return undefined
        return (await tried(rows[0])) ? rows[0] : undefined
    }, 120_000, 100).catch((err) => {
        throw new Error(`${err.message}\nbridge output:\n${bridge.output().slice(-4000)}`)
    })
}

/**
 * A swap of 12 STABLE on the native chain to USDT on ETHEREUM for `receiver`, deposited while
 * `gate` (ETHEREUM's) holds back its payout: the swap, and its payout once stored and refused.
 */
export async function swapWithHeldPayout(w: BridgeChains, bridge: BridgeProcess, pool: Pool, gate: BroadcastGate, receiver: Address): Promise<{ swap: any; payout: TxRow }> {
    const native = w.chains.NATIVECHAIN
    await giveTokens(native, 'STABLE', account(6).address, parseUnits('12', 6))
    const swap = await createSwap(bridge, {
        source_chain: 'NATIVECHAIN', source_token: 'STABLE', target_chain: 'ETHEREUM', target_token: 'USDT',
        source_token_amount: 12, target_wallet: receiver,
    })
    holdStored(gate, pool, swap.id, 'payout')
    await send(native, 6, swap.deposit_address, parseUnits('12', 6), native.tokens.STABLE)
    return { swap, payout: await storedAndTried(pool, bridge, swap.id, 'payout', (row) => gate.refused.includes(row.raw)) }
}

/**
 * What the ledger guard held (docs/bridge/lifecycle.md#vault-holds): each vault hold and each swap
 * held by one, as `chain vault` / `swap id` lines. Normal operation leaves it empty.
 */
export async function ledgerGuardHolds(pool: Pool): Promise<string[]> {
    const vaults = (await pool.query(`SELECT chain, address FROM bridge_vault_hold ORDER BY id`)).rows.map((r) => `${r.chain} ${r.address}`)
    const swaps = (await pool.query(`SELECT id FROM bridge_swap WHERE hold_reason LIKE '%ledger does not know%' ORDER BY id`)).rows.map((r) => `swap ${r.id}`)
    return [...vaults, ...swaps]
}
