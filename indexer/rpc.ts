import { RpcClient } from '@subsquid/rpc-client'
import { hexToString, trim } from 'viem'
import * as erc20 from '../abi/codecs/erc20'

/**
 * Reads from the node that the processor does not do for us: token metadata on first sight, and
 * native balances and code of the addresses a batch touched. Calls are JSON-RPC batches through
 * Subsquid's client, which retries connection errors with backoff, so a restarting node delays
 * the indexer instead of crashing it.
 */

export interface TokenMetadata {
    name: string | null
    symbol: string | null
    decimals: number | null
    totalSupply: bigint | null
}

export function createRpcClient(url: string): RpcClient {
    return new RpcClient({
        url,
        capacity: 10,
        maxBatchCallSize: 200,
        requestTimeout: 30_000,
        retryAttempts: Number.MAX_SAFE_INTEGER,
    })
}

const toQty = (n: number) => '0x' + n.toString(16)

/** eth_call that yields undefined instead of throwing when the contract reverts. */
function callRequest(to: string, data: string, block: number) {
    return { method: 'eth_call', params: [{ to, data }, toQty(block)] }
}

export async function readTokenMetadata(
    client: RpcClient,
    tokens: string[],
    block: number
): Promise<Map<string, TokenMetadata>> {
    const result = new Map<string, TokenMetadata>()
    if (tokens.length === 0) return result
    const calls = tokens.flatMap((t) => [
        callRequest(t, erc20.functions.name.encode({}), block),
        callRequest(t, erc20.functions.symbol.encode({}), block),
        callRequest(t, erc20.functions.decimals.encode({}), block),
        callRequest(t, erc20.functions.totalSupply.encode({}), block),
    ])
    // A reverting call is an answer (the token has no such function), not an error to retry.
    const answers: (string | undefined)[] = await client.batchCall(calls, { validateError: () => undefined })
    tokens.forEach((token, i) => {
        const [name, symbol, decimals, supply] = answers.slice(i * 4, i * 4 + 4)
        result.set(token, {
            name: decodeText(name),
            symbol: decodeText(symbol),
            decimals: decodeDecimals(decimals),
            totalSupply: decodeUint(supply),
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

export async function readBalances(client: RpcClient, addresses: string[], block: number): Promise<bigint[]> {
    if (addresses.length === 0) return []
    const answers: string[] = await client.batchCall(
        addresses.map((a) => ({ method: 'eth_getBalance', params: [a, toQty(block)] }))
    )
    return answers.map((a) => BigInt(a))
}

export async function readHasCode(client: RpcClient, addresses: string[], block: number): Promise<boolean[]> {
    if (addresses.length === 0) return []
    const answers: string[] = await client.batchCall(
        addresses.map((a) => ({ method: 'eth_getCode', params: [a, toQty(block)] }))
    )
    return answers.map((code) => code !== '0x' && code !== '0x0')
}
