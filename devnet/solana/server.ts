import { VersionedMessage } from '@solana/web3.js'
import bs58 from 'bs58'
import { createServer, IncomingMessage, Server, ServerResponse } from 'http'
import { AddressInfo } from 'net'
import { Commitment, LedgerOptions, SendRefused, SolanaLedger } from './ledger'

/**
 * The JSON-RPC front end of the local Solana cluster, on 127.0.0.1: the methods
 * @solana/web3.js's Connection calls for the bridge's adapter and a wallet's transfer, with agave's field names,
 * encodings (base58 keys and signatures, base64 wire transactions, numbers for u64) and error
 * codes (-32002 preflight failure with the TransactionError, -32003 signature verification,
 * -32602 bad params, -32601 unknown method): docs/bridge/README.md#local-chains-npm-start
 */

export interface SolanaNode {
    url: string
    ledger: SolanaLedger
    /** Methods called, in order: lets a test tell what went over the wire. */
    calls: string[]
    /**
     * Test hook: while set, a request calling sendTransaction is answered HTTP 503 (an RPC
     * provider's front end whose validator is restarting) and nothing is sent; the refused
     * transactions (as sent: base58 or base64) are kept in `heldSends`.
     */
    holdSends: boolean
    heldSends: string[]
    /**
     * Test hook: while set, a request calling sendTransaction is executed as usual but never
     * answered (the connection hangs until the client goes away): a send that went through
     * without the sender hearing so.
     */
    swallowSends: boolean
    close(): Promise<void>
}

class RpcError extends Error {
    constructor(readonly code: number, message: string, readonly data?: unknown) {
        super(message)
    }
}

function commitmentOf(config: any): Commitment {
    const c = config?.commitment ?? 'finalized'
    if (c !== 'processed' && c !== 'confirmed' && c !== 'finalized') throw new RpcError(-32602, `Invalid params: unknown commitment ${c}`)
    return c
}

function handle(ledger: SolanaLedger, method: string, params: any[]): unknown {
    const context = () => ({ apiVersion: '2.2.0', slot: ledger.slot })
    switch (method) {
        case 'getSlot':
            return ledger.slotAt(commitmentOf(params[0]))
        case 'getBlockHeight':
            return ledger.blockHeight(ledger.slotAt(commitmentOf(params[0])))
        case 'getBlockTime': {
            const slot = Number(params[0])
            if (slot > ledger.slot || slot < ledger.firstSlot) throw new RpcError(-32004, `Block not available for slot ${slot}`)
            return ledger.blockTime(slot)
        }
        case 'getBlock': {
            const slot = Number(params[0])
            const config = params[1] ?? {}
            if (slot > ledger.slotAt(commitmentOf(config)) || slot < ledger.firstSlot) throw new RpcError(-32004, `Block not available for slot ${slot}`)
            if ((config.transactionDetails ?? 'full') !== 'none') throw new RpcError(-32602, 'Invalid params: only transactionDetails "none" is served here')
            return {
                blockhash: ledger.blockHashOf(slot), previousBlockhash: ledger.blockHashOf(slot - 1), parentSlot: slot - 1,
                blockTime: ledger.blockTime(slot), blockHeight: ledger.blockHeight(slot),
            }
        }
        case 'getLatestBlockhash':
            commitmentOf(params[0])
            return { context: context(), value: { blockhash: ledger.blockhash, lastValidBlockHeight: ledger.lastValidBlockHeight } }
        case 'isBlockhashValid':
            return { context: context(), value: params[0] === ledger.blockhash }
        case 'getBalance':
            return { context: context(), value: ledger.balance(String(params[0]), commitmentOf(params[1])) }
        case 'getMinimumBalanceForRentExemption':
            return ledger.rentExempt(Number(params[0]))
        case 'getFeeForMessage': {
            const message = VersionedMessage.deserialize(Buffer.from(String(params[0]), 'base64'))
            return { context: context(), value: ledger.feeFor(message.header.numRequiredSignatures, message.recentBlockhash) }
        }
        case 'getGenesisHash':
            return ledger.blockHashOf(0)
        case 'sendTransaction': {
            const config = params[1] ?? {}
            const encoding = config.encoding ?? 'base58'
            const wire = encoding === 'base64' ? Buffer.from(String(params[0]), 'base64') : Buffer.from(bs58.decode(String(params[0])))
            try {
                return ledger.send(wire, { skipPreflight: config.skipPreflight === true })
            } catch (err) {
                if (err instanceof SendRefused) throw new RpcError(err.code, err.message, err.data)
                throw err
            }
        }
        case 'getSignatureStatuses': {
            const signatures: string[] = params[0] ?? []
            return {
                context: context(),
                value: signatures.map((s) => {
                    const tx = ledger.landed.get(s)
                    if (!tx) return null
                    const status = ledger.statusOf(tx.slot)
                    return {
                        slot: tx.slot, confirmations: status === 'finalized' ? null : ledger.slot - tx.slot, err: tx.err?.json ?? null,
                        status: tx.err ? { Err: tx.err.json } : { Ok: null }, confirmationStatus: status,
                    }
                }),
            }
        }
        case 'getSignaturesForAddress': {
            const config = params[1] ?? {}
            const commitment = commitmentOf(config)
            if (commitment === 'processed') throw new RpcError(-32602, 'Invalid params: commitment processed is not supported')
            let list = ledger.signaturesFor(String(params[0]), commitment)
            if (config.before) {
                const i = list.findIndex((t) => t.signature === config.before)
                list = i < 0 ? [] : list.slice(i + 1)
            }
            if (config.until) {
                const i = list.findIndex((t) => t.signature === config.until)
                if (i >= 0) list = list.slice(0, i)
            }
            return list.slice(0, Math.min(Number(config.limit ?? 1000), 1000)).map((t) => ({
                signature: t.signature, slot: t.slot, err: t.err?.json ?? null, memo: null, blockTime: ledger.blockTime(t.slot),
                confirmationStatus: ledger.statusOf(t.slot),
            }))
        }
        case 'getTransaction': {
            const config = params[1] ?? {}
            const commitment = commitmentOf(config)
            if (commitment === 'processed') throw new RpcError(-32602, 'Invalid params: commitment processed is not supported')
            if ((config.encoding ?? 'json') !== 'json') throw new RpcError(-32602, 'Invalid params: only json encoding is served here')
            const tx = ledger.landed.get(String(params[0]))
            if (!tx || tx.slot > ledger.slotAt(commitment)) return null
            if (tx.tx.version !== 'legacy' && config.maxSupportedTransactionVersion === undefined) {
                throw new RpcError(-32015, 'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0')
            }
            const message = tx.tx.message
            return {
                slot: tx.slot,
                blockTime: ledger.blockTime(tx.slot),
                ...(config.maxSupportedTransactionVersion !== undefined ? { version: tx.tx.version } : {}),
                transaction: {
                    signatures: tx.tx.signatures.map((s) => bs58.encode(s)),
                    message: {
                        accountKeys: tx.accountKeys,
                        header: message.header,
                        recentBlockhash: message.recentBlockhash,
                        instructions: message.compiledInstructions.map((ix) => ({
                            programIdIndex: ix.programIdIndex, accounts: ix.accountKeyIndexes, data: bs58.encode(ix.data), stackHeight: null,
                        })),
                    },
                },
                meta: {
                    err: tx.err?.json ?? null, status: tx.err ? { Err: tx.err.json } : { Ok: null }, fee: tx.fee,
                    preBalances: tx.preBalances, postBalances: tx.postBalances, innerInstructions: [], logMessages: tx.logs,
                    preTokenBalances: [], postTokenBalances: [], rewards: [], loadedAddresses: { writable: [], readonly: [] },
                    computeUnitsConsumed: tx.computeUnits,
                },
            }
        }
        default:
            throw new RpcError(-32601, 'Method not found')
    }
}

/** Listens on 127.0.0.1:port (0: a free port). */
export async function startSolanaNode(options: LedgerOptions = {}, port = 0): Promise<SolanaNode> {
    const ledger = new SolanaLedger(options)
    const calls: string[] = []
    const hooks = { holdSends: false, heldSends: [] as string[], swallowSends: false }
    const answer = (request: any) => {
        const id = request?.id ?? null
        try {
            if (request?.jsonrpc !== '2.0' || typeof request.method !== 'string') throw new RpcError(-32600, 'Invalid request')
            calls.push(request.method)
            return { jsonrpc: '2.0', id, result: handle(ledger, request.method, Array.isArray(request.params) ? request.params : []) }
        } catch (err) {
            const e = err instanceof RpcError ? err : new RpcError(-32603, `Internal error: ${(err as Error).message}`)
            return { jsonrpc: '2.0', id, error: { code: e.code, message: e.message, ...(e.data === undefined ? {} : { data: e.data }) } }
        }
    }
    const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
        const chunks: Buffer[] = []
        req.on('data', (c) => chunks.push(c))
        req.on('end', () => {
            let body: any
            try {
                body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
            } catch {
                body = undefined
            }
            const sends = (Array.isArray(body) ? body : [body]).filter((r: any) => r?.method === 'sendTransaction')
            if (hooks.holdSends && sends.length) {
                hooks.heldSends.push(...sends.map((r: any) => String(r.params?.[0])))
                res.writeHead(503, { 'content-type': 'text/plain' })
                res.end('Service Unavailable')
                return
            }
            const reply = body === undefined
                ? { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }
                : Array.isArray(body) ? body.map(answer) : answer(body)
            if (hooks.swallowSends && sends.length) return
            res.writeHead(200, { 'content-type': 'application/json' })
            res.end(JSON.stringify(reply))
        })
    })
    await new Promise<void>((resolve, reject) => {
        server.once('error', reject)
        server.listen(port, '127.0.0.1', resolve)
    })
    return {
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        ledger,
        calls,
        get holdSends() {
            return hooks.holdSends
        },
        set holdSends(value: boolean) {
            hooks.holdSends = value
        },
        heldSends: hooks.heldSends,
        get swallowSends() {
            return hooks.swallowSends
        },
        set swallowSends(value: boolean) {
            hooks.swallowSends = value
        },
        close: () => new Promise<void>((resolve, reject) => {
            server.closeAllConnections()
            server.close((err) => (err ? reject(err) : resolve()))
        }),
    }
}
