import { PublicClient } from 'viem'
import { Finality, Settled } from '../sending/chain'

/**
 * The one finality rule of our EVM reads: the bridge's deposits and both services' own transactions: a block
 * is final at or below the node's finalized/safe tag, or with the configured confirmations on top
 * of `head` (read only when the rule counts confirmations).
 */
export async function finalHeight(client: PublicClient, finality: Finality, head = () => client.getBlockNumber({ cacheTime: 0 })): Promise<bigint> {
    if ('tag' in finality) return (await client.getBlock({ blockTag: finality.tag })).number
    return (await head()) - BigInt(finality.confirmations) + 1n
}

/** Whether a mined block is final by the rule and still the canonical block at its height, with its confirmations. */
export async function settled(client: PublicClient, blockNumber: bigint, blockHash: string, finality: Finality): Promise<Settled> {
    // A finality tag is read before the head: the other way round, a block mined between the two
    // reads shows a final block with fewer confirmations than its finality implies.
    const tagged = 'tag' in finality ? await finalHeight(client, finality) : undefined
    const head = await client.getBlockNumber({ cacheTime: 0 })
    const confirmations = Number(head - blockNumber + 1n)
    let final = blockNumber <= (tagged ?? (await finalHeight(client, finality, async () => head)))
    // The receipt may come from before a reorg that the finality read already saw.
    if (final) final = (await client.getBlock({ blockNumber })).hash === blockHash
    return { blockNumber, final, confirmations }
}

/** The canonical hash at a height, read twice (through a load balancer, likely from two backends); differing answers are an error. */
export async function agreedBlockHash(client: PublicClient, chain: string, blockNumber: bigint): Promise<string> {
    const first = (await client.getBlock({ blockNumber })).hash
    const second = (await client.getBlock({ blockNumber })).hash
    if (first !== second) throw new Error(`${chain}: the node answered two hashes for block ${blockNumber}; checking again later`)
    return first
}
