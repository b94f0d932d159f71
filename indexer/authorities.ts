import { RpcClient } from '@subsquid/rpc-client'
import { recoverAuthorizationAddress } from 'viem/utils'
import { BlockData } from './processor'
import { isMissingStateError } from './rpc'
import { Authorization, typedFieldsOf } from './typed-fields'

/** Half the order of secp256k1: EIP-2 (and EIP-7702) refuse signatures with a higher s. */
const HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n
const MAX_NONCE = 2n ** 64n - 1n

/**
 * Recovers the authority of every EIP-7702 authorization in these blocks and decides its status
 * as EIP-7702 applies it (docs/indexer.md#transaction-types): invalid_chain_id unless signed for
 * chain 0 or this chain, invalid_signature when nothing is recovered or s is high, invalid_nonce
 * unless the nonce is the authority's at that point of the block (its nonce before the block, plus
 * the transactions it sent before and the authorizations of it applied before), else ok. The
 * authorities' nonces before the block are read from the node; without that state the status of
 * well-signed authorizations stays null.
 */
export async function checkAuthorizations(rpc: RpcClient, blocks: BlockData[]): Promise<void> {
    for (const block of blocks) {
        const signed: { tx: BlockData['transactions'][number]; auths: Authorization[] }[] = []
        for (const tx of block.transactions) {
            const auths = typedFieldsOf(tx).authorizationList
            if (!auths || auths.length === 0) continue
            for (const auth of auths) await recover(auth, typedFieldsOf(tx).chainId)
            signed.push({ tx, auths })
        }
        if (signed.length === 0) continue
        const authorities = [...new Set(signed.flatMap((s) => s.auths.filter((a) => a.status === null).map((a) => a.authority!)))]
        const before = await noncesBefore(rpc, authorities, block.header.height)
        if (!before) continue
        const nonce = new Map(authorities.map((a, i) => [a, before[i]]))
        for (const tx of block.transactions) {
            const from = tx.from.toLowerCase()
            const sent = nonce.get(from)
            // A transaction's sender pays its nonce before its authorizations are applied.
            if (sent !== undefined) nonce.set(from, sent + 1n)
            for (const auth of signed.find((s) => s.tx === tx)?.auths ?? []) {
                if (auth.status !== null) continue
                const current = nonce.get(auth.authority!)!
                if (BigInt(auth.nonce) === current) {
                    auth.status = 'ok'
                    nonce.set(auth.authority!, current + 1n)
                } else {
                    auth.status = 'invalid_nonce'
                }
            }
        }
    }
}

async function recover(auth: Authorization, txChainId: bigint | null): Promise<void> {
    try {
        auth.authority = (await recoverAuthorizationAddress({
            authorization: {
                // viem hashes chain id and nonce with numberToHex, which takes bigints of any size.
                chainId: BigInt(auth.chainId) as unknown as number,
                address: auth.address as `0x${string}`,
                nonce: BigInt(auth.nonce) as unknown as number,
                yParity: auth.yParity,
                r: auth.r as `0x${string}`,
                s: auth.s as `0x${string}`,
            },
        })).toLowerCase()
    } catch {
        auth.authority = null
    }
    const chainId = BigInt(auth.chainId)
    if (chainId !== 0n && chainId !== txChainId) auth.status = 'invalid_chain_id'
    else if (BigInt(auth.nonce) >= MAX_NONCE) auth.status = 'invalid_nonce'
    else if (auth.authority === null || BigInt(auth.s) > HALF_N || auth.yParity > 1) auth.status = 'invalid_signature'
}

async function noncesBefore(rpc: RpcClient, authorities: string[], height: number): Promise<bigint[] | undefined> {
    if (authorities.length === 0) return []
    try {
        const answers: string[] = await rpc.batchCall(authorities.map((a) => ({
            method: 'eth_getTransactionCount', params: [a, '0x' + Math.max(0, height - 1).toString(16)],
        })))
        return answers.map((n) => BigInt(n))
    } catch (err) {
        if (isMissingStateError(err)) return undefined
        throw err
    }
}
