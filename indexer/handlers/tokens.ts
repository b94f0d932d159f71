import * as erc20 from '../../abi/codecs/erc20'
import * as erc721 from '../../abi/codecs/erc721'
import * as weth from '../../abi/codecs/weth'
import { Batch } from '../batch'
import { logId } from '../../db/row-ids'
import { ZERO_ADDRESS } from '../ids'
import { BlockData, Log } from '../processor'
import { ChainState } from '../state'

export const TRANSFER_TOPIC = erc20.events.Transfer.topic

/** Tokens first seen in the batch and not yet read from the chain: address -> type and first block. */
export type TokenSightings = Map<string, { type: 'ERC-20' | 'ERC-721'; firstBlock: number }>

/**
 * Token transfers from ERC-20 and ERC-721 Transfer logs (told apart by their shape: the amount is
 * data in ERC-20 and the third indexed topic in ERC-721), plus WNATIVE's Deposit and Withdrawal,
 * which WETH-style contracts emit instead of a Transfer when coin is wrapped or unwrapped. Holder
 * balances follow from the transfers exactly, so fee-on-transfer tokens are right as well: the fee
 * is its own Transfer log.
 */
export function indexTokenLog(batch: Batch, state: ChainState, block: BlockData, log: Log, sightings: TokenSightings): boolean {
    const topic0 = log.topics[0]
    let from: string, to: string, value: bigint | null = null, tokenId: bigint | null = null
    let type: 'ERC-20' | 'ERC-721'
    if (topic0 === TRANSFER_TOPIC && log.topics.length === 3 && log.data.length === 66) {
        ;({ from, to, value } = erc20.events.Transfer.decode(log))
        type = 'ERC-20'
    } else if (topic0 === TRANSFER_TOPIC && log.topics.length === 4 && log.data === '0x') {
        ;({ from, to, tokenId } = erc721.events.Transfer.decode(log))
        type = 'ERC-721'
    } else if (log.address === state.amm.wnative && topic0 === weth.events.Deposit.topic) {
        const deposit = weth.events.Deposit.decode(log)
        ;[from, to, value, type] = [ZERO_ADDRESS, deposit.dst, deposit.wad, 'ERC-20']
    } else if (log.address === state.amm.wnative && topic0 === weth.events.Withdrawal.topic) {
        const withdrawal = weth.events.Withdrawal.decode(log)
        ;[from, to, value, type] = [withdrawal.src, ZERO_ADDRESS, withdrawal.wad, 'ERC-20']
    } else {
        return false
    }
    from = from.toLowerCase()
    to = to.toLowerCase()
    const token = log.address
    const height = block.header.height
    if (!state.tokens.has(token) && !sightings.has(token)) sightings.set(token, { type, firstBlock: height })

    batch.tokenTransfers.push({
        id: logId(height, log.logIndex),
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
    })
    // An ERC-721 balance counts tokens held.
    const amount = type === 'ERC-721' ? 1n : value!
    const tokenDelta = batch.tokenDelta(token)
    tokenDelta.transfers += 1
    // A mint to the zero address (an AMM pair locking its minimum liquidity) is a mint, not a
    // burn: the tokens stay in the total supply.
    if (from === ZERO_ADDRESS) tokenDelta.supply += amount
    else {
        batch.addBalance(token, from, -amount)
        if (to === ZERO_ADDRESS) tokenDelta.supply -= amount
    }
    if (to !== ZERO_ADDRESS) batch.addBalance(token, to, amount)
    batch.touchAddress(from, height).tokenTransfers += 1
    if (to !== from) batch.touchAddress(to, height).tokenTransfers += 1
    return true
}
