import { createPublicClient, http, PublicClient } from 'viem'
import { NativeContracts } from '../../common/config'
import { Anvil, startAnvil } from '../../devnet/anvil'
import { deployNativeContracts } from '../../devnet/deploy'
import { seedDemoActivity, SeedResult } from '../../devnet/seed'
import { freePort } from './ports'

export const CHAIN_ID = 3009

export interface TestChain {
    anvil: Anvil
    url: string
    client: PublicClient
    contracts: NativeContracts
    seeded?: SeedResult
    stop(): Promise<void>
}

/** A fresh anvil with our contracts and, when asked, a few days of the demo history. */
export async function startTestChain(options: { seedDays?: number; genesisDaysAgo?: number; hardfork?: 'cancun' | 'prague' } = {}): Promise<TestChain> {
    const days = options.genesisDaysAgo ?? (options.seedDays ?? 0) + 1
    const anvil = await startAnvil({
        port: await freePort(),
        chainId: CHAIN_ID,
        genesisTimestamp: Math.floor(Date.now() / 1000) - days * 86_400,
        hardfork: options.hardfork,
    })
    try {
        const { contracts } = await deployNativeContracts({ rpcUrl: anvil.url, chainId: CHAIN_ID })
        const seeded = options.seedDays
            ? await seedDemoActivity({ rpcUrl: anvil.url, chainId: CHAIN_ID, contracts, seed: 'test', days: options.seedDays })
            : undefined
        const client = createPublicClient({ transport: http(anvil.url, { timeout: 120_000 }) }) as PublicClient
        return { anvil, url: anvil.url, client, contracts, seeded, stop: anvil.stop }
    } catch (err) {
        await anvil.stop()
        throw err
    }
}

/** The hash of the chain's current head, uncached. */
export async function headHash(client: PublicClient): Promise<string> {
    return (await client.getBlock({ blockTag: 'latest' })).hash
}

/** Mines empty blocks (anvil_mine), in chunks that each answer well within a request timeout. */
export async function mineEmptyBlocks(client: PublicClient, count: number): Promise<void> {
    for (let left = count; left > 0; left -= 1000) {
        const chunk = Math.min(left, 1000)
        await client.request({ method: 'anvil_mine' as any, params: [`0x${chunk.toString(16)}`] as any }, { retryCount: 0 })
    }
}
