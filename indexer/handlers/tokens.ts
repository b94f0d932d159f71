import * as erc1155 from '../../abi/codecs/erc1155'
import * as erc20 from '../../abi/codecs/erc20'
import * as erc721 from '../../abi/codecs/erc721'
import * as weth from '../../abi/codecs/weth'
import { Batch } from '../batch'
import { batchTransferId, logId } from '../../db/row-ids'
import { ZERO_ADDRESS } from '../ids'
import { BlockData, Log } from '../processor'
import { ChainState, TokenType } from '../state'
import { TRANSFER_BATCH_TOPIC, TRANSFER_SINGLE_TOPIC, TRANSFER_TOPIC, transferShape } from '../token-types'

export { TRANSFER_TOPIC }

/** Tokens first seen in the batch and not yet read from the chain: address -> type and first block. */
export type TokenSightings = Map<string, { type: TokenType; firstBlock: number }>

/** What one log moves: from, to, and an amount or token id per item (an ERC-1155 batch has several). */
interface Moves {
    from: string
    to: string
    items: { value: bigint | null; tokenId: bigint | null }[]
    /** an ERC-1155 TransferBatch: one row per item, each with its position */
    batched: boolean
}

/**
 * Token transfers from the logs of the token's standard (decided when the token was first seen,
 * token-types.ts): ERC-20 Transfer; ERC-721 Transfer with the id as the third topic or, in early
 * ERC-721s, as data; ERC-1155 TransferSingle and TransferBatch (one row per id, in the log's order);
 * plus WNATIVE's Deposit and Withdrawal, which WETH-style contracts emit instead of a Transfer when
 * coin is wrapped or unwrapped. Holder balances follow from the transfers exactly, so fee-on-transfer
 * tokens are right as well: the fee is its own Transfer log. Returns the rows written.
 */
export function indexTokenLog(batch: Batch, state: ChainState, block: BlockData, log: Log, sightings: TokenSightings): number {
    const token = log.address
    const type = state.tokenTypes.get(token) ?? transferShape(log) ?? 'ERC-20'
    const moves = decodeMoves(state, type, log)
    if (!moves || moves.items.length === 0) return 0
    const from = moves.from.toLowerCase()
    const to = moves.to.toLowerCase()
    const height = block.header.height
    if (!state.tokens.has(token) && !sightings.has(token)) sightings.set(token, { type, firstBlock: height })

    const tokenDelta = batch.tokenDelta(token)
    moves.items.forEach(({ value, tokenId }, position) => {
        batch.tokenTransfers.push({
            id: moves.batched ? batchTransferId(height, log.logIndex, position) : logId(height, log.logIndex),
            blockNumber: height,
            blockHash: block.header.hash,
            timestamp: new Date(block.header.timestamp),
            logIndex: log.logIndex,
            transactionHash: log.transactionHash,
            token,
            tokenType: type,
            from,
            to,
            value,
            tokenId,
            batchIndex: moves.batched ? position : null,
        })
        // An ERC-721 balance counts tokens held; an ERC-1155 one sums the amounts of every id held.
        const amount = type === 'ERC-721' ? 1n : value!
        tokenDelta.transfers += 1
        // A mint to the zero address (an AMM pair locking its minimum liquidity) is a mint, not a
        // burn: the tokens stay in the total supply.
        if (from === ZERO_ADDRESS) tokenDelta.supply += amount
        else {
            batch.addBalance(token, from, -amount)
            if (to === ZERO_ADDRESS) tokenDelta.supply -= amount
        }
        if (to !== ZERO_ADDRESS) batch.addBalance(token, to, amount)
        if (tokenId !== null) {
            const instance = batch.touchInstance(token, tokenId, height)
            instance.transfers += 1
            if (type === 'ERC-721') instance.owner = to
            else {
                if (from !== ZERO_ADDRESS) batch.addNftBalance(token, tokenId, from, -amount)
                if (to !== ZERO_ADDRESS) batch.addNftBalance(token, tokenId, to, amount)
            }
        }
    })
    const rows = moves.items.length
    batch.touchAddress(from, height).tokenTransfers += rows
    if (to !== from) batch.touchAddress(to, height).tokenTransfers += rows
    return rows
}

/** The transfer a log is for a token of `type`, or null when it is none (another standard's event, or malformed). */
function decodeMoves(state: ChainState, type: TokenType, log: Log): Moves | null {
    const topic0 = log.topics[0]
    const one = (from: string, to: string, value: bigint | null, tokenId: bigint | null): Moves => ({ from, to, items: [{ value, tokenId }], batched: false })
    if (topic0 === TRANSFER_TOPIC && type !== 'ERC-1155') {
        if (log.topics.length === 3 && log.data.length === 66) {
            const { from, to, value } = erc20.events.Transfer.decode(log)
            // An ERC-721 that predates the standard's final form: the id as data.
            return type === 'ERC-721' ? one(from, to, null, value) : one(from, to, value, null)
        }
        if (log.topics.length === 4 && log.data === '0x' && type === 'ERC-721') {
            const { from, to, tokenId } = erc721.events.Transfer.decode(log)
            return one(from, to, null, tokenId)
        }
        return null
    }
    if (type === 'ERC-1155' && log.topics.length === 4 && topic0 === TRANSFER_SINGLE_TOPIC && log.data.length === 2 + 128) {
        const { from, to, id, value } = erc1155.events.TransferSingle.decode(log)
        return one(from, to, value, id)
    }
    if (type === 'ERC-1155' && log.topics.length === 4 && topic0 === TRANSFER_BATCH_TOPIC) {
        let event: ReturnType<typeof erc1155.events.TransferBatch.decode>
        try {
            event = erc1155.events.TransferBatch.decode(log)
        } catch {
            return null
        }
        if (event.ids.length !== event.values.length) return null
        return { from: event.from, to: event.to, items: event.ids.map((tokenId, i) => ({ value: event.values[i], tokenId })), batched: true }
    }
    if (log.address === state.amm.wnative && topic0 === weth.events.Deposit.topic) {
        const deposit = weth.events.Deposit.decode(log)
        return one(ZERO_ADDRESS, deposit.dst, deposit.wad, null)
    }
    if (log.address === state.amm.wnative && topic0 === weth.events.Withdrawal.topic) {
        const withdrawal = weth.events.Withdrawal.decode(log)
        return one(withdrawal.src, ZERO_ADDRESS, withdrawal.wad, null)
    }
    return null
}
