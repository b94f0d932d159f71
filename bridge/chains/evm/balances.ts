import { Address, erc20Abi, PublicClient } from 'viem'
import { Asset } from '../../config'

/** Balance reads handed to the batching client at once (it sends them BALANCE_BATCH per request). */
const BALANCE_READS_IN_FLIGHT = 1000

/** One read per item, BALANCE_READS_IN_FLIGHT at a time, each settled alone so that one failing read leaves the others. */
async function readInRounds<T>(items: T[], read: (item: T) => Promise<bigint>): Promise<PromiseSettledResult<bigint>[]> {
    const out: PromiseSettledResult<bigint>[] = []
    for (let i = 0; i < items.length; i += BALANCE_READS_IN_FLIGHT) {
        out.push(...await Promise.allSettled(items.slice(i, i + BALANCE_READS_IN_FLIGHT).map((item) => read(item))))
    }
    return out
}

/** Coin balances of many addresses at one block, through the batching client. */
export function coinBalancesAt(batchClient: PublicClient, addresses: Address[], blockNumber: bigint): Promise<PromiseSettledResult<bigint>[]> {
    return readInRounds(addresses, (address) => batchClient.getBalance({ address, blockNumber }))
}

/** Coin or token balances of many addresses, at a block or the latest, through the batching client. */
export function balancesOf(
    batchClient: PublicClient,
    requests: { address: string; asset: Asset }[],
    blockNumber?: bigint
): Promise<PromiseSettledResult<bigint>[]> {
    const at = blockNumber === undefined ? {} : { blockNumber }
    return readInRounds(requests, ({ address, asset }) => asset.kind === 'coin'
        ? batchClient.getBalance({ address: address as Address, ...at })
        : batchClient.readContract({ address: asset.address as Address, abi: erc20Abi, functionName: 'balanceOf', args: [address as Address], ...at }))
}

export async function balanceOf(client: PublicClient, address: string, asset: Asset): Promise<bigint> {
    if (asset.kind === 'coin') return client.getBalance({ address: address as Address })
    return client.readContract({ address: asset.address as Address, abi: erc20Abi, functionName: 'balanceOf', args: [address as Address] })
}
