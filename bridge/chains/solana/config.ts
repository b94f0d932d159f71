import { Finality } from '../../config'

/**
 * Settings of the SOLANA network adapter, and how they read from the environment:
 *
 *   SOLANA_RPC_URL              JSON-RPC endpoint (e.g. https://api.mainnet-beta.solana.com);
 *                               the network is enabled when it is set
 *   BRIDGE_CONFIRMATIONS_SOLANA finalized (default) | confirmed: the commitment at which deposits
 *                               are seen and credited and sent transactions count as final.
 *                               finalized is rooted (≈32 slots, ≈13 s) and cannot be rolled back;
 *                               confirmed is a supermajority vote (≈1 s) that a fork switch could
 *                               in rare cases still undo
 *   SOLANA_SEND_COMMITMENT      commitment for the blockhash, the preflight and the balance read
 *                               when signing (default confirmed: a blockhash from a fork that dies
 *                               only makes the transaction unable to land, which inspect() turns
 *                               into 'dead' once the block height proves it)
 *   SOLANA_MAX_SCAN_SLOTS       widest slot range one deposit scan covers (default 9000, ≈1 h)
 */

export type Commitment = 'confirmed' | 'finalized'

export interface SolanaConfig {
    chain: 'SOLANA'
    rpcUrl: string
    /** Deposits and final transactions; the engine's Finality for SOLANA is { tag: 'finalized' } or { tag: 'safe' } (= confirmed). */
    commitment: Commitment
    sendCommitment: Commitment
    maxScanSlots: bigint
}

export function defaultSolanaConfig(rpcUrl: string): SolanaConfig {
    return { chain: 'SOLANA', rpcUrl, commitment: 'finalized', sendCommitment: 'confirmed', maxScanSlots: 9000n }
}

/** The commitment a Finality asks for: finalized for the finalized tag, confirmed for anything weaker. */
export function commitmentOf(finality: Finality): Commitment {
    return 'tag' in finality && finality.tag === 'finalized' ? 'finalized' : 'confirmed'
}

export function finalityOf(commitment: Commitment): Finality {
    return { tag: commitment === 'finalized' ? 'finalized' : 'safe' }
}

function commitment(name: string, value: string): Commitment {
    if (value === 'finalized' || value === 'confirmed') return value
    // processed can be rolled back by any fork switch: never enough to credit or pay on.
    throw new Error(`${name} must be finalized or confirmed, not "${value}"`)
}

/** The SOLANA settings from the environment, or undefined when SOLANA_RPC_URL is not set (network not enabled). */
type SolanaEnvKey = 'SOLANA_RPC_URL' | 'BRIDGE_CONFIRMATIONS_SOLANA' | 'SOLANA_SEND_COMMITMENT' | 'SOLANA_MAX_SCAN_SLOTS'

export function parseSolanaEnv(env: { readonly [K in SolanaEnvKey]?: string }): SolanaConfig | undefined {
    if (!env.SOLANA_RPC_URL) return undefined
    const config = defaultSolanaConfig(env.SOLANA_RPC_URL)
    if (env.BRIDGE_CONFIRMATIONS_SOLANA) config.commitment = commitment('BRIDGE_CONFIRMATIONS_SOLANA', env.BRIDGE_CONFIRMATIONS_SOLANA)
    if (env.SOLANA_SEND_COMMITMENT) config.sendCommitment = commitment('SOLANA_SEND_COMMITMENT', env.SOLANA_SEND_COMMITMENT)
    if (env.SOLANA_MAX_SCAN_SLOTS) {
        const slots = Number(env.SOLANA_MAX_SCAN_SLOTS)
        if (!Number.isInteger(slots) || slots < 1) throw new Error('SOLANA_MAX_SCAN_SLOTS must be a positive number of slots')
        config.maxScanSlots = BigInt(slots)
    }
    return config
}
