import { createPublicClient, http } from 'viem'
import { Anvil, startAnvil } from '../devnet/anvil'
import { freePort } from '../test/support/ports'
import { ensureSyntheticChain, SyntheticChain, SyntheticSenders } from './synthetic-chain'

/** The cached synthetic chain served by anvil for the indexer benchmarks: docs/testing.md#benchmarks */

export interface ServedChain {
    chain: SyntheticChain
    anvil: Anvil
}

/**
 * Builds (or reuses) the synthetic chain of `blocks` blocks and serves it, with `finalBlocks` empty
 * blocks on top so every synthetic block is final to an indexer that waits that many confirmations.
 */
export async function serveSyntheticChain(blocks: number, finalBlocks: number, log: (m: string) => void, senders: SyntheticSenders = 'few'): Promise<ServedChain> {
    const chain = await ensureSyntheticChain(blocks, await freePort(), log, senders)
    // Read-only: a state file anvil rewrote during the run would cost CPU and could be left half-written.
    const anvil = await startAnvil({ port: await freePort(), chainId: 3009, loadStateFile: chain.stateFile })
    // An indexer stops only once the end of its range is final; the loaded chain does not grow, so
    // with the end at its head it would wait for ever after the last block. The empty blocks live
    // in anvil's memory only.
    await createPublicClient({ transport: http(anvil.url) }).request({ method: 'anvil_mine' as any, params: [`0x${finalBlocks.toString(16)}`] as any })
    return { chain, anvil }
}

/** The environment of this repository's indexer backfilling the whole synthetic chain into `databaseUrl`. */
export function indexerBackfillEnv(served: ServedChain, databaseUrl: string, tracing: string, finality: number): Record<string, string> {
    const { chain, anvil } = served
    return {
        RPC_URL: anvil.url,
        INDEXER_END_BLOCK: String(chain.head),
        INDEXER_FINALITY_CONFIRMATION: String(finality),
        INDEXER_HEALTH_PORT: '0',
        LOG_LEVEL: 'debug',
        DATABASE_URL: databaseUrl,
        INDEXER_TRACING: tracing,
        WNATIVE_ADDRESS: chain.contracts.wnative,
        STABLE_ADDRESS: chain.contracts.stable,
        AMM_FACTORY_ADDRESS: chain.contracts.factory,
        AMM_ROUTER_ADDRESS: chain.contracts.router,
    }
}
