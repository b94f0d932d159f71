import * as fs from 'fs'
import * as os from 'os'
import * as path from 'path'
import { createPublicClient, http } from 'viem'
import { Logger } from '../common/logger'
import { spawnManaged, Spawned, waitFor } from '../common/processes'

/** anvil's well-known development mnemonic: its accounts are public knowledge, for local chains only. */
export const DEV_MNEMONIC = 'test test test test test test test test test test test junk'

/**
 * The EVM rules of every local chain: the version our contracts are compiled for
 * (devnet/build-contracts.ts). anvil's default, Prague, also keeps the last 8,191 block hashes in
 * a system contract's storage (EIP-2935) and recomputes the state root over them for every block:
 * mining 12,000 empty blocks took 210 s of CPU under Prague and 22 s under Cancun.
 */
export const EVM_VERSION = 'cancun'

export function anvilBinary(): string {
    return require.resolve('@foundry-rs/anvil-linux-amd64/bin/anvil')
}

export interface AnvilOptions {
    port: number
    chainId: number
    /** Keep the chain in this file across restarts (anvil --state). */
    stateFile?: string
    /** Start from this state file and never write it (anvil --load-state): a fixture used read-only. */
    loadStateFile?: string
    /** Continue the chain of this node from this block (anvil --fork-url, --fork-block-number). */
    fork?: { url: string; blockNumber: number }
    /** Seconds between blocks; undefined or 0 mines one block per transaction. */
    blockTime?: number
    /** Do not mine at all until asked (evm_mine / evm_setAutomine). */
    noMining?: boolean
    /** Depth of the finalized/safe tags: finalized = latest - 2 * slots, safe = latest - slots. */
    slotsInAnEpoch?: number
    genesisTimestamp?: number
    /** Ether given to each of the 10 development accounts. */
    balanceEther?: number
    /**
     * Let anvil log every RPC call to stdout. Off by default (anvil --quiet; start-up errors still
     * reach stderr): nothing reads those lines, and anvil blocks its request workers when that pipe
     * is full, so a parent that stops draining it (a spawnSync, a long synchronous step) would
     * stall the node after a few hundred calls.
     */
    logRequests?: boolean
    log?: Logger
    name?: string
    /** EVM rules; EVM_VERSION unless given (prague: EIP-7702 set-code transactions, docs/devnet.md; shanghai: SELFDESTRUCT before EIP-6780). */
    hardfork?: 'shanghai' | 'cancun' | 'prague'
}

export interface Anvil {
    url: string
    chainId: number
    process: Spawned
    /** Graceful stop: anvil writes its state file (when one is set) before exiting. */
    stop(): Promise<void>
}

const anvilHomes = new Set<string>()
let exitHookInstalled = false

function createAnvilHome(): string {
    if (!exitHookInstalled) {
        exitHookInstalled = true
        process.once('exit', () => [...anvilHomes].forEach(removeAnvilHome))
    }
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'anvil-home-'))
    anvilHomes.add(home)
    return home
}

function removeAnvilHome(home: string): void {
    fs.rmSync(home, { recursive: true, force: true })
    anvilHomes.delete(home)
}

export async function startAnvil(options: AnvilOptions): Promise<Anvil> {
    const args = [
        '--host', '127.0.0.1',
        '--port', String(options.port),
        '--chain-id', String(options.chainId),
        '--mnemonic', DEV_MNEMONIC,
        '--accounts', '10',
        '--balance', String(options.balanceEther ?? 1_000_000),
        // The native chain's minimum gas price is 0: accounts without coin can transact.
        '--gas-price', '0',
        '--base-fee', '0',
        '--disable-min-priority-fee',
        '--order', 'fifo',
        '--hardfork', options.hardfork ?? EVM_VERSION,
    ]
    if (options.stateFile) {
        fs.mkdirSync(path.dirname(options.stateFile), { recursive: true })
        args.push('--state', options.stateFile, '--state-interval', '30')
    }
    if (options.loadStateFile) args.push('--load-state', options.loadStateFile)
    if (options.fork) args.push('--fork-url', options.fork.url, '--fork-block-number', String(options.fork.blockNumber), '--fork-chain-id', String(options.chainId))
    if (!options.logRequests) args.push('--quiet')
    if (options.noMining) args.push('--no-mining')
    else if (options.blockTime) args.push('--block-time', String(options.blockTime))
    if (options.slotsInAnEpoch !== undefined) args.push('--slots-in-an-epoch', String(options.slotsInAnEpoch))
    if (options.genesisTimestamp !== undefined) args.push('--timestamp', String(options.genesisTimestamp))

    const name = options.name ?? `anvil:${options.chainId}`
    // anvil moves old block states to disk under $HOME/.foundry/anvil/tmp and leaves them there
    // when killed: gigabytes per long chain. A home of its own is removed whenever anvil ends.
    const home = createAnvilHome()
    const proc = spawnManaged(anvilBinary(), args, { name, log: options.log, env: { ...process.env, HOME: home } })
    void proc.exited.then(() => removeAnvilHome(home))
    let stderr = ''
    proc.child.stderr?.on('data', (d) => {
        stderr += d.toString()
        options.log?.warn({ name }, d.toString().trim())
    })
    proc.child.stdout?.resume()
    const url = `http://127.0.0.1:${options.port}`
    const client = createPublicClient({ transport: http(url, { retryCount: 0 }) })
    try {
        await Promise.race([
            waitFor(`${name} on ${url}`, async () => (await client.getChainId()) === options.chainId, 30_000),
            proc.exited.then((code) => {
                throw new Error(`${name} exited with ${code} before answering: ${stderr.trim()}`)
            }),
        ])
    } catch (err) {
        proc.kill()
        throw err
    }
    return {
        url,
        chainId: options.chainId,
        process: proc,
        stop: () => proc.stop(10_000),
    }
}
