import { ponder } from 'ponder:registry'
import { swap, transfer } from 'ponder:schema'

/** Handlers: each event becomes one row, as this repository's indexer stores them too (docs/testing.md#benchmarks). */

ponder.on('ERC20:Transfer', async ({ event, context }) => {
    await context.db.insert(transfer).values({
        id: event.id,
        token: event.log.address,
        from: event.args.from,
        to: event.args.to,
        value: event.args.value,
        blockNumber: event.block.number,
        timestamp: event.block.timestamp,
        transactionHash: event.transaction.hash,
    })
})

ponder.on('Pair:Swap', async ({ event, context }) => {
    await context.db.insert(swap).values({
        id: event.id,
        pair: event.log.address,
        sender: event.args.sender,
        to: event.args.to,
        amount0In: event.args.amount0In,
        amount1In: event.args.amount1In,
        amount0Out: event.args.amount0Out,
        amount1Out: event.args.amount1Out,
        blockNumber: event.block.number,
        timestamp: event.block.timestamp,
        transactionHash: event.transaction.hash,
    })
})
