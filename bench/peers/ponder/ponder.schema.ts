import { index, onchainTable } from 'ponder'

/** One row per ERC-20 Transfer and per AMM Swap, keyed by the log's place in the chain. */

export const transfer = onchainTable('transfer', (t) => ({
    id: t.text().primaryKey(),
    token: t.hex().notNull(),
    from: t.hex().notNull(),
    to: t.hex().notNull(),
    value: t.bigint().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
    transactionHash: t.hex().notNull(),
}), (table) => ({ tokenIndex: index().on(table.token), fromIndex: index().on(table.from), toIndex: index().on(table.to) }))

export const swap = onchainTable('swap', (t) => ({
    id: t.text().primaryKey(),
    pair: t.hex().notNull(),
    sender: t.hex().notNull(),
    to: t.hex().notNull(),
    amount0In: t.bigint().notNull(),
    amount1In: t.bigint().notNull(),
    amount0Out: t.bigint().notNull(),
    amount1Out: t.bigint().notNull(),
    blockNumber: t.bigint().notNull(),
    timestamp: t.bigint().notNull(),
    transactionHash: t.hex().notNull(),
}), (table) => ({ pairIndex: index().on(table.pair) }))
