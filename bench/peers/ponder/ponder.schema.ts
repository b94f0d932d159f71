import { index, onchainTable } from 'ponder'

/** One row per ERC-20 Transfer and per AMM Swap, keyed by the log's place in the chain. */

type Columns = Parameters<Extract<Parameters<typeof onchainTable>[1], (...args: never[]) => unknown>>[0]

/** Where a log is: its id (Ponder's, from block and log index), block and transaction. */
const place = (t: Columns) => ({
    id: t.text().primaryKey(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
    transactionHash: t.hex().notNull(),
})

export const transfer = onchainTable('transfer', (t) => ({
    ...place(t),
    token: t.hex().notNull(),
    from: t.hex().notNull(),
    to: t.hex().notNull(),
    value: t.bigint().notNull(),
}), (table) => ({ tokenIndex: index().on(table.token), fromIndex: index().on(table.from), toIndex: index().on(table.to) }))

export const swap = onchainTable('swap', (t) => ({
    ...place(t),
    pair: t.hex().notNull(),
    sender: t.hex().notNull(),
    to: t.hex().notNull(),
    amount0In: t.bigint().notNull(),
    amount1In: t.bigint().notNull(),
    amount0Out: t.bigint().notNull(),
    amount1Out: t.bigint().notNull(),
}), (table) => ({ pairIndex: index().on(table.pair) }))
