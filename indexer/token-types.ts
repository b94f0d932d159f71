import * as erc1155 from '../abi/codecs/erc1155'
import * as erc20 from '../abi/codecs/erc20'
import type { TokenType } from './state'

/**
 * Telling token standards apart (docs/indexer.md#token-types). A log's shape names a standard
 * (Transfer with the amount as data: ERC-20; with a third indexed topic: ERC-721; TransferSingle or
 * TransferBatch: ERC-1155), but not reliably: early ERC-721s (CryptoKitties) emit the id as data, and a
 * contract may emit another standard's events. So a token's standard is decided once, when it is first
 * seen, from its ERC-165 answers, the shape deciding only where those do not.
 */

export const TRANSFER_TOPIC = erc20.events.Transfer.topic
export const TRANSFER_SINGLE_TOPIC = erc1155.events.TransferSingle.topic
export const TRANSFER_BATCH_TOPIC = erc1155.events.TransferBatch.topic

/** ERC-165 interface ids, asked with supportsInterface(bytes4). */
export const ERC721_INTERFACE = '0x80ac58cd'
export const ERC1155_INTERFACE = '0xd9b67a26'

/** What a token answered to supportsInterface; false also for a revert or no answer. */
export interface TokenInterfaces {
    erc721: boolean
    erc1155: boolean
}

/** The standard a token log's shape names, or null for a log that is no token transfer by shape. */
export function transferShape(log: { topics: readonly string[]; data: string }): TokenType | null {
    const topic0 = log.topics[0]
    if (topic0 === TRANSFER_TOPIC) {
        if (log.topics.length === 3 && log.data.length === 66) return 'ERC-20'
        if (log.topics.length === 4 && log.data === '0x') return 'ERC-721'
        return null
    }
    if ((topic0 === TRANSFER_SINGLE_TOPIC || topic0 === TRANSFER_BATCH_TOPIC) && log.topics.length === 4) return 'ERC-1155'
    return null
}

/**
 * A new token's standard: the one interface it claims, else (both claimed, as a contract answering
 * every call does, or neither, as pre-ERC-165 tokens) the shape of the log it was first seen by.
 */
export function decideTokenType(shape: TokenType, interfaces: TokenInterfaces): TokenType {
    if (interfaces.erc721 && !interfaces.erc1155) return 'ERC-721'
    if (interfaces.erc1155 && !interfaces.erc721) return 'ERC-1155'
    return shape
}

/** supportsInterface's answer: true only for an ABI `bool` true. */
export function decodeSupports(data: string | undefined): boolean {
    return data !== undefined && data.length === 66 && BigInt(data) === 1n
}

/** The calldata of supportsInterface(id). */
export function supportsInterfaceCall(interfaceId: string): string {
    return erc1155.functions.supportsInterface.encode({ interfaceId })
}
