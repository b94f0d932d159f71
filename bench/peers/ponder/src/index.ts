import { ponder } from 'ponder:registry'
import { swap, transfer } from 'ponder:schema'

/** Handlers: each event becomes one row, as this repository's indexer stores them too (docs/testing.md#benchmarks). */

interface LogEvent {
    id: string
    block: { number: bigint; timestamp: bigint }
    transaction: { hash: `0x${string}` }
}

/** The columns every row shares: where its log is. */
const place = (event: LogEvent) => ({
    id: event.id,
    blockNumber: event.block.number,
    timestamp: event.block.timestamp,
    transactionHash: event.transaction.hash,
})

ponder.on('ERC20:Transfer', async ({ event, context }) => {
    const { from, to, value } = event.args
    await context.db.insert(transfer).values({ ...place(event), token: event.log.address, from, to, value })
})

ponder.on('Pair:Swap', async ({ event, context }) => {
    await context.db.insert(swap).values({ ...place(event), pair: event.log.address, ...event.args })
})
