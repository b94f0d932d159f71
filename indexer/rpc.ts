import { RpcClient } from '@subsquid/rpc-client'
import { hexToString, trim } from 'viem'
import * as erc20 from '../abi/codecs/erc20'
import { Logger } from '../common/logger'
import { BatchSize, BatchSizingRpcClient } from './batch-size'
import { decodeSupports, ERC1155_INTERFACE, ERC721_INTERFACE, supportsInterfaceCall, TokenInterfaces } from './token-types'

/**
 * Reads from the node that the processor does not do for us: token metadata on first sight, and
 * native balances and code of the addresses a batch touched. Calls are JSON-RPC batches through
 * Subsquid's client, which retries connection errors, timeouts, 429 and 5xx with bounded backoff,
 * so a restarting node delays the indexer instead of crashing it, and sends smaller batches when
 * the node refuses large ones (batch-size.ts).
 */

export interface TokenMetadata {
    name: string | null
    symbol: string | null
    decimals: number | null
    totalSupply: bigint | null
    /** ERC-165 answers, when asked for (readTokenMetadata's `interfaces`) */
    interfaces?: TokenInterfaces
}

/** Pauses (ms) after consecutive connection failures; bounded, so a healed node is seen within seconds. */
export const RETRY_SCHEDULE = [100, 500, 1000, 2000, 4000]

/**
 * The most calls in one JSON-RPC batch, while the node accepts that many: Erigon's default
 * `--rpc.batch.limit` and the devnet's (docs/devnet.md#limits-of-a-public-node). A larger ceiling
 * would be refused, halved and widened again every WIDEN_AFTER_MS by such a node.
 */
export const MAX_BATCH_CALLS = 100

/** How each of the indexer's clients talks to the node: bounded concurrency, batches sized to what it accepts, retries with bounded pauses. */
export function nodeClientOptions(url: string, batchSize: BatchSize, requestTimeoutMs: number) {
    return {
        url,
        capacity: 10,
        batchSize,
        requestTimeout: requestTimeoutMs,
        retryAttempts: Number.MAX_SAFE_INTEGER,
        retrySchedule: RETRY_SCHEDULE,
    }
}

export function createRpcClient(url: string, log: Logger, requestTimeoutMs = 30_000): RpcClient {
    return new BatchSizingRpcClient(nodeClientOptions(url, new BatchSize(MAX_BATCH_CALLS, log), requestTimeoutMs))
}

const toQty = (n: number) => '0x' + n.toString(16)

/** Errors of a node that no longer holds the state of an old block (pruned, or restarted without it). */
export function isMissingStateError(err: unknown): boolean {
    return /missing trie node|BlockOutOfRange|state.*(not available|pruned)|header not found|historical state/i.test(String((err as Error)?.message ?? err))
}

/**
 * Runs calls against the state of `block`, or of the latest block when the node cannot serve that
 * state any more; the second result says which happened.
 */
export async function atBlockOrLatest<T>(block: number, run: (tag: string) => Promise<T>): Promise<[T, boolean]> {
    try {
        return [await run(toQty(block)), true]
    } catch (err) {
        if (!isMissingStateError(err)) throw err
        return [await run('latest'), false]
    }
}

/** An eth_call request, for batchEthCalls. */
export function callRequest(to: string, data: string, blockTag: string) {
    return { method: 'eth_call', params: [{ to, data }, blockTag] }
}

/**
 * eth_calls in JSON-RPC batches, a reverting call answering undefined: a revert is an answer (the
 * contract has no such function), any other error is not.
 */
export function batchEthCalls(client: RpcClient, calls: { method: string; params: unknown[] }[]): Promise<(string | undefined)[]> {
    return client.batchCall(calls, {
        validateError: (info) => {
            if (isMissingStateError(info.message)) throw new Error(info.message)
            if (/revert|invalid opcode|out of gas|execution|stack underflow/i.test(info.message)) return undefined
            throw new Error(`eth_call failed: ${info.message}`)
        },
    })
}

/**
 * Name, symbol and decimals as of `block`; total supply as of `supplyBlock` (the block before the
 * first sighting, so that the mints seen from then on can be added to it). With `interfaces`, the
 * ERC-721 and ERC-1155 supportsInterface answers too, in the same JSON-RPC batch.
 */
export async function readTokenMetadata(
    client: RpcClient,
    tokens: string[],
    block: number,
    supplyBlock: number,
    interfaces = false
): Promise<Map<string, TokenMetadata>> {
    const result = new Map<string, TokenMetadata>()
    if (tokens.length === 0) return result
    const ethCalls = (calls: { method: string; params: unknown[] }[]) => batchEthCalls(client, calls)
    const perToken = interfaces ? 5 : 3
    const [texts] = await atBlockOrLatest(block, (tag) => ethCalls(tokens.flatMap((t) => [
        callRequest(t, erc20.functions.name.encode({}), tag),
        callRequest(t, erc20.functions.symbol.encode({}), tag),
        callRequest(t, erc20.functions.decimals.encode({}), tag),
        ...(interfaces ? [callRequest(t, supportsInterfaceCall(ERC721_INTERFACE), tag), callRequest(t, supportsInterfaceCall(ERC1155_INTERFACE), tag)] : []),
    ])))
    // Without the state before the first sighting, the supply is what the indexer sees minted,
    // which is exact for every token that emits Transfer on mint.
    const [supplies, historical] = await atBlockOrLatest(supplyBlock, (tag) => ethCalls(
        tokens.map((t) => callRequest(t, erc20.functions.totalSupply.encode({}), tag))
    ))
    tokens.forEach((token, i) => {
        const [name, symbol, decimals, erc721, erc1155] = texts.slice(i * perToken, (i + 1) * perToken)
        result.set(token, {
            name: decodeText(name),
            symbol: decodeText(symbol),
            decimals: decodeDecimals(decimals),
            totalSupply: historical ? decodeUint(supplies[i]) : 0n,
            ...(interfaces ? { interfaces: { erc721: decodeSupports(erc721), erc1155: decodeSupports(erc1155) } } : {}),
        })
    })
    return result
}

/** A string as ABI `string`, or as `bytes32` (older tokens such as MKR), or null if neither. */
export function decodeText(data: string | undefined): string | null {
    if (!data || data === '0x') return null
    try {
        return sanitize(erc20.functions.name.decodeResult(data))
    } catch {
        if (data.length === 66) {
            try {
                return sanitize(hexToString(trim(data as `0x${string}`, { dir: 'right' })))
            } catch {
                return null
            }
        }
        return null
    }
}

function sanitize(text: string): string | null {
    // Postgres text cannot hold NUL; other control characters are junk in a token name.
    const cleaned = text.replace(/[\u0000-\u001f\u007f]/g, '').trim()
    return cleaned.length === 0 ? null : cleaned.slice(0, 256)
}

function decodeUint(data: string | undefined): bigint | null {
    if (!data || data.length !== 66) return null
    return BigInt(data)
}

function decodeDecimals(data: string | undefined): number | null {
    const value = decodeUint(data)
    return value !== null && value <= 255n ? Number(value) : null
}

/** Native balances at `block`, or the latest ones (second result false) when the node lacks that state. */
export async function readBalances(client: RpcClient, addresses: string[], block: number): Promise<[bigint[], boolean]> {
    if (addresses.length === 0) return [[], true]
    const [answers, atBlock] = await atBlockOrLatest(block, (tag): Promise<string[]> =>
        client.batchCall(addresses.map((a) => ({ method: 'eth_getBalance', params: [a, tag] })))
    )
    return [answers.map((a) => BigInt(a)), atBlock]
}

/** No code at all: an EOA, or a contract whose code a SELFDESTRUCT deleted (not a delegated EOA, whose designator stays). */
export function isEmptyCode(code: string): boolean {
    return code === '0x' || code === '0x0'
}

/** Code of a contract, as opposed to none or an EIP-7702 delegation designator. */
export function isContractCode(code: string): boolean {
    return !isEmptyCode(code) && delegationOf(code) === null
}

/** Each address's code at `block`, or the latest when the node lacks that state. */
export async function readCodes(client: RpcClient, addresses: string[], block: number): Promise<string[]> {
    if (addresses.length === 0) return []
    const [answers] = await atBlockOrLatest(block, (tag): Promise<string[]> =>
        client.batchCall(addresses.map((a) => ({ method: 'eth_getCode', params: [a, tag] })))
    )
    return answers
}

/** EIP-7702's delegation designator: an EOA's code 0xef0100 || address. The address, or null for any other code. */
export function delegationOf(code: string): string | null {
    return /^0xef0100[0-9a-f]{40}$/i.test(code) ? '0x' + code.slice(8).toLowerCase() : null
}
