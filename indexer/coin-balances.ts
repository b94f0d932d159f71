import type { CoinBalance } from '../model'
import { coinBalanceId } from '../db/row-ids'
import { Batch, Row } from './batch'
import { BlockData } from './processor'
import { coinMovements } from '../common/coin-movements'
import { Frame } from './traces'
import { typedFieldsOf } from './typed-fields'

/**
 * The native balance history. The block's movements follow the one rule in common/coin-movements.ts.
 * Balances are not summed from the beginning of the chain: the node's balance at the batch's last
 * block (read for every touched address anyway) is the anchor, and earlier points are that balance
 * minus the movements after them. A movement the rule misses (say, a withdrawal credited outside
 * any transaction) therefore never makes the latest balance wrong.
 */
export function addCoinMovements(batch: Batch, block: BlockData, frames: Frame[] | undefined): void {
    const height = block.header.height
    const timestamp = new Date(block.header.timestamp)
    const transactions = block.transactions.map((tx) => {
        const { blobGasUsed, blobGasPrice } = typedFieldsOf(tx)
        return { ...tx, createdContract: tx.contractAddress ?? null, to: tx.to ?? null, blobFee: (blobGasUsed ?? 0n) * (blobGasPrice ?? 0n) }
    })
    for (const movement of coinMovements(block.header, transactions, frames)) {
        batch.touchAddress(movement.address, height)
        batch.addCoinDelta(movement.address, height, timestamp, movement.amount, movement.transaction)
    }
}

/**
 * The history rows of the batch: per address and block with a non-zero change, the balance after
 * the block. `balances` are the node's balances at the batch's last block; an address without one
 * gets no rows (it cannot be anchored).
 */
export function coinBalanceRows(batch: Batch, balances: ReadonlyMap<string, bigint>): Row<CoinBalance>[] {
    const rows: Row<CoinBalance>[] = []
    for (const [address, perBlock] of batch.coinDeltas) {
        let balance = balances.get(address)
        if (balance === undefined) continue
        const blocks = [...perBlock.keys()].sort((a, b) => b - a)
        for (const block of blocks) {
            const change = perBlock.get(block)!
            if (change.delta === 0n) continue
            rows.push({
                id: coinBalanceId(address, block),
                address,
                blockNumber: block,
                timestamp: change.timestamp,
                value: balance,
                delta: change.delta,
                transactionHash: change.transaction,
            })
            balance -= change.delta
        }
    }
    return rows
}
