import type { CoinBalance } from '../model'
import { coinBalanceId } from '../db/row-ids'
import { Batch, Row } from './batch'
import { BlockData } from './processor'
import { effectiveSuccess, Frame } from './traces'

/**
 * The native coin's movements, and from them every address's balance after each block that changed
 * it. Within a block the movements are:
 * - each transaction's fee: the sender pays gas used × effective gas price, the block's miner gets
 *   the part above the base fee (the base fee is burnt);
 * - every value-moving frame whose effects stand (see effectiveSuccess): a call moves its value from
 *   caller to callee, a creation to the new contract, a selfdestruct the balance to its beneficiary,
 *   a reward frame credits the miner. Delegate, static and callcode frames move nothing;
 * - without call trees (a node with no tracing) only each transaction's own value, when it succeeded.
 * Balances are not summed from the beginning of the chain: the node's balance at the batch's last
 * block (read for every touched address anyway) is the anchor, and earlier points are that balance
 * minus the movements after them. A movement the rules above miss (say, a withdrawal credited
 * outside any transaction) therefore never makes the latest balance wrong.
 */
export function addCoinMovements(batch: Batch, block: BlockData, frames: Frame[] | undefined): void {
    const height = block.header.height
    const timestamp = new Date(block.header.timestamp)
    const move = (address: string, amount: bigint, transaction: string | null) => {
        if (amount === 0n) return
        batch.touchAddress(address, height)
        batch.addCoinDelta(address, height, timestamp, amount, transaction)
    }
    const baseFee = block.header.baseFeePerGas ?? 0n
    for (const tx of block.transactions) {
        move(tx.from, -(tx.gasUsed * tx.effectiveGasPrice), tx.hash)
        move(block.header.miner, tx.gasUsed * (tx.effectiveGasPrice - baseFee), tx.hash)
        if (frames === undefined && tx.status === 1 && tx.value > 0n) {
            move(tx.from, -tx.value, tx.hash)
            move((tx.to ?? tx.contractAddress)!, tx.value, tx.hash)
        }
    }
    if (frames === undefined) return
    const stands = effectiveSuccess(frames)
    frames.forEach((frame, i) => {
        if (!stands[i] || frame.value === 0n) return
        switch (frame.type) {
            case 'call':
            case 'selfdestruct':
                move(frame.from, -frame.value, frame.transactionHash)
                move(frame.to!, frame.value, frame.transactionHash)
                break
            case 'create':
            case 'create2':
                move(frame.from, -frame.value, frame.transactionHash)
                if (frame.createdContract) move(frame.createdContract, frame.value, frame.transactionHash)
                break
            case 'reward':
                move(frame.to!, frame.value, null)
                break
        }
    })
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
