import { RpcClient } from '@subsquid/rpc-client'
import { decodeAbiParameters } from 'viem'
import { batchEthCalls, callRequest } from '../rpc'

/**
 * The token URI of NFT instances, read from the chain: ERC-721's `tokenURI(id)`, ERC-1155's
 * `uri(id)` with its `{id}` substituted. Read at the latest block (the cache holds what the token
 * says now, not at its transfer), in JSON-RPC batches that the client splits to the node's limit.
 */

const TOKEN_URI = '0xc87b56dd' // tokenURI(uint256)
const URI = '0x0e89341c' // uri(uint256)

export interface UriRequest {
    token: string
    /** decimal */
    tokenId: string
    /** 'ERC-721', 'ERC-1155', or another type, read like ERC-721 */
    type: string
}

/** A URI, or why there is none (the call reverted, or answered something that is no string). */
export type UriAnswer = { uri: string } | { error: string }

/** ERC-1155's rule: `{id}` is the id as 64 lowercase hex digits, without 0x. */
export function substituteId(template: string, tokenId: string): string {
    return template.replaceAll('{id}', BigInt(tokenId).toString(16).padStart(64, '0'))
}

function call(selector: string, r: UriRequest) {
    return callRequest(r.token, selector + BigInt(r.tokenId).toString(16).padStart(64, '0'), 'latest')
}

function decodeString(data: string | undefined): string | undefined {
    if (!data || data === '0x') return undefined
    try {
        return decodeAbiParameters([{ type: 'string' }], data as `0x${string}`)[0]
    } catch {
        return undefined
    }
}

/**
 * The URI of each request, in order. The type's own function is asked first; an instance whose
 * function reverts or answers no string is asked the other one once (a token whose type was
 * guessed from its log's shape may be the other kind). Throws when the node fails (not a revert).
 */
export async function readTokenUris(client: RpcClient, requests: readonly UriRequest[]): Promise<UriAnswer[]> {
    if (requests.length === 0) return []
    const first = (r: UriRequest) => (r.type === 'ERC-1155' ? URI : TOKEN_URI)
    const answers = (await batchEthCalls(client, requests.map((r) => call(first(r), r)))).map(decodeString)
    const retry = requests.flatMap((r, i) => (answers[i] === undefined ? [i] : []))
    const second = retry.length ? (await batchEthCalls(client, retry.map((i) => call(first(requests[i]) === URI ? TOKEN_URI : URI, requests[i])))).map(decodeString) : []
    const secondAt = new Map(retry.map((index, k) => [index, second[k]]))
    return requests.map((r, i) => {
        const viaFirst = answers[i]
        if (viaFirst !== undefined) return { uri: first(r) === URI ? substituteId(viaFirst, r.tokenId) : viaFirst }
        const viaSecond = secondAt.get(i)
        if (viaSecond !== undefined) return { uri: first(r) === URI ? viaSecond : substituteId(viaSecond, r.tokenId) }
        return { error: 'chain: neither tokenURI(id) nor uri(id) answered a string' }
    })
}
