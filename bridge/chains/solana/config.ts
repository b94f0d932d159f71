import { z } from 'zod'
import { url } from '../../../common/config'
import { Finality } from '../finality'

/** The SOLANA network's variables (docs/configuration.md); the network is enabled when SOLANA_RPC_URL is set. */
export const SolanaSettingsSchema = z.object({
    SOLANA_RPC_URL: url.optional()
        .describe('Solana JSON-RPC endpoint, e.g. `https://api.mainnet-beta.solana.com`'),
    BRIDGE_CONFIRMATIONS_SOLANA: z.enum(['finalized', 'confirmed']).optional()
        .meta({ description: 'the commitment at which deposits are seen and credited and sent transactions count as final: `finalized` is rooted (≈32 slots, ≈13 s) and cannot be rolled back; `confirmed` is a supermajority vote (≈1 s) that a fork switch could in rare cases still undo', unset: '`finalized`' }),
    // A blockhash from a fork that dies only makes the transaction unable to land, which inspect()
    // turns into 'dead' once the block height proves it: confirmed is safe here.
    SOLANA_SEND_COMMITMENT: z.enum(['finalized', 'confirmed']).optional()
        .meta({ description: 'the commitment of the blockhash, the preflight and the balance read when signing', unset: '`confirmed`' }),
    SOLANA_MAX_SCAN_SLOTS: z.string().regex(/^\d+$/, 'must be a number of slots').optional()
        .meta({ description: 'widest slot range one deposit scan covers', unset: '9000 (≈1 h)' }),
})

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

type SolanaEnvKey = keyof typeof SolanaSettingsSchema.shape

/** The SOLANA settings from the environment, or undefined when SOLANA_RPC_URL is not set (network not enabled). */
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
