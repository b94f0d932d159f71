import { ChainName } from '../registry'
import { Finality } from './finality'

/**
 * Rough seconds until a block counts as final by a network's rule, for the swap page's "about N minutes"
 * (docs/bridge/README.md#swap-page). Typical mainnet figures, not measurements: an estimate to show a user,
 * never used to decide anything.
 */

/** Typical seconds between blocks (slots on SOLANA). */
const BLOCK_SECONDS: Record<ChainName, number> = {
    NATIVECHAIN: 2, BSC: 1, ETHEREUM: 12, POLYGON: 2, TRON: 3, BITCOIN: 600, SOLANA: 0.4,
}

/** Typical seconds until a block is under the node's `finalized` and `safe` tags (SOLANA's finalized commitment). */
const TAG_SECONDS: Record<ChainName, { finalized: number; safe: number }> = {
    NATIVECHAIN: { finalized: 30, safe: 10 },
    // BSC's fast finality: two blocks in the usual case.
    BSC: { finalized: 5, safe: 3 },
    // Two epochs of 32 slots, and one.
    ETHEREUM: { finalized: 15 * 60, safe: 7 * 60 },
    // Heimdall milestones.
    POLYGON: { finalized: 60, safe: 30 },
    TRON: { finalized: 60, safe: 60 },
    BITCOIN: { finalized: 3_600, safe: 600 },
    SOLANA: { finalized: 15, safe: 2 },
}

export function finalitySeconds(chain: ChainName, finality: Finality): number {
    if ('tag' in finality) return TAG_SECONDS[chain][finality.tag]
    return Math.ceil(finality.confirmations * BLOCK_SECONDS[chain])
}
