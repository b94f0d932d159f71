import { createServer, IncomingMessage, Server, ServerResponse } from 'http'
import { AddressInfo } from 'net'
import { TronWeb } from 'tronweb'
import { Block, BroadcastRefused, Landed, LedgerOptions, PARAMS, parseAddress, TronLedger } from './ledger'

/**
 * java-tron's full-node HTTP API and TronGrid's v1 account routes on 127.0.0.1, over a
 * TronLedger: docs/bridge/README.md#local-chains-npm-start. Field names and encodings follow java-tron: int64s as
 * JSON numbers, protobuf defaults (zeros, empty lists) left out, addresses in 41… hex unless the
 * request says `visible: true` (then base58), an unknown object as `{}`, log addresses as 20-byte
 * hex, hex-encoded UTF-8 in broadcast refusals (`{code, txid, message}`), `{"Error": …}` for a
 * malformed request. Every route takes a POST JSON body or GET query parameters.
 *
 * Routes: /wallet/ getnowblock, getblock, getblockbynum, getblockbyid, getaccount,
 * getaccountresource, getaccountnet, getchainparameters, getenergyprices, getbandwidthprices,
 * triggersmartcontract, triggerconstantcontract, broadcasttransaction, gettransactionbyid,
 * gettransactioninfobyid, gettransactionfrompending; /walletsolidity/ getnowblock,
 * getblockbynum, getaccount, gettransactionbyid, gettransactioninfobyid (the solidified view);
 * GET /v1/accounts/{address}/transactions and /v1/accounts/{address}/transactions/trc20 with
 * only_confirmed, only_unconfirmed, only_to, only_from, min_timestamp, max_timestamp, order_by,
 * limit (≤ 200), fingerprint, contract_address.
 *
 * Test hooks beside the ledger's: refuseBroadcasts (the connection of a broadcast is dropped
 * unanswered, as an unreachable node), swallowBroadcasts (a broadcast is taken as usual but never
 * answered, the connection left hanging: it went through without the sender hearing so), and
 * `calls`, `apiKeys` (what came over the wire).
 */

export interface TronNodeOptions extends LedgerOptions {
    /** When set, requests must carry it as TRON-PRO-API-KEY (401 otherwise), as TronGrid does. */
    apiKey?: string
}

class BadRequest extends Error {}

const num = (n: bigint | number) => Number(n)
const omitZero = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== 0 && v !== 0n && v !== undefined && v !== ''))

export class TronNode {
    readonly ledger: TronLedger
    url = ''
    /** Paths called, in order. */
    readonly calls: string[] = []
    /** TRON-PRO-API-KEY values seen. */
    readonly apiKeys = new Set<string>()
    refuseBroadcasts = false
    swallowBroadcasts = false
    private server?: Server

    constructor(private readonly options: TronNodeOptions = {}) {
        this.ledger = new TronLedger(options)
    }

    /** Listens on 127.0.0.1:port (0: a free port). */
    async start(port = 0): Promise<this> {
        const server = createServer((req, res) => this.handle(req, res))
        await new Promise<void>((resolve, reject) => {
            server.once('error', reject)
            server.listen(port, '127.0.0.1', resolve)
        })
        this.server = server
        this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
        return this
    }

    /** Drops open connections (clients keep them alive) and stops listening. */
    async close(): Promise<void> {
        const server = this.server
        this.server = undefined
        if (!server) return
        server.closeAllConnections()
        await new Promise<void>((resolve) => server.close(() => resolve()))
    }

    private handle(req: IncomingMessage, res: ServerResponse): void {
        const chunks: Buffer[] = []
        req.on('data', (c) => chunks.push(c))
        req.on('end', () => {
            const url = new URL(req.url ?? '/', 'http://node')
            this.calls.push(url.pathname)
            const key = req.headers['tron-pro-api-key']
            if (typeof key === 'string') this.apiKeys.add(key)
            const reply = (status: number, body: unknown) => {
                res.writeHead(status, { 'content-type': 'application/json' })
                res.end(JSON.stringify(body))
            }
            if (this.options.apiKey && key !== this.options.apiKey) return reply(401, { Error: 'ApiKey not exists' })
            if (url.pathname === '/wallet/broadcasttransaction' && this.refuseBroadcasts) {
                req.socket.destroy()
                return
            }
            let params: any = Object.fromEntries(url.searchParams)
            const text = Buffer.concat(chunks).toString('utf8')
            if (text.trim() !== '') {
                try {
                    params = { ...params, ...JSON.parse(text) }
                } catch {
                    return reply(200, { Error: 'class com.google.gson.JsonSyntaxException : not JSON' })
                }
            }
            try {
                if (url.pathname.startsWith('/v1/')) return reply(...this.grid(url.pathname, params))
                const answer = this.route(url.pathname, params)
                if (url.pathname === '/wallet/broadcasttransaction' && this.swallowBroadcasts) return
                if (answer === undefined) return reply(404, { Error: `no route ${url.pathname}` })
                reply(200, answer)
            } catch (err) {
                if (err instanceof BadRequest) return reply(200, { Error: err.message })
                reply(500, { Error: (err as Error).message })
            }
        })
    }

    private address(params: any, field = 'address'): string {
        try {
            return parseAddress(params[field], params.visible === true || params.visible === 'true')
        } catch (err) {
            throw new BadRequest(`class java.lang.IllegalArgumentException : ${(err as Error).message}`)
        }
    }

    private route(path: string, p: any): unknown {
        const l = this.ledger
        const visible = p.visible === true || p.visible === 'true'
        switch (path) {
            case '/wallet/getnowblock':
                return this.blockJson(l.head, true)
            case '/walletsolidity/getnowblock':
                return this.blockJson(l.block(l.solidifiedNumber)!, true)
            case '/wallet/getblock': {
                const detail = p.detail === true || p.detail === 'true'
                const idOrNum = p.id_or_num === undefined ? undefined : String(p.id_or_num)
                let block: Block | undefined = l.head
                if (idOrNum !== undefined && idOrNum !== '') {
                    block = /^\d+$/.test(idOrNum) ? l.block(Number(idOrNum)) : l.blocks.find((b) => b.id === idOrNum.toLowerCase())
                }
                return block ? this.blockJson(block, detail) : {}
            }
            case '/wallet/getblockbynum':
            case '/walletsolidity/getblockbynum': {
                const block = l.block(Number(p.num ?? 0), path.startsWith('/walletsolidity'))
                return block ? this.blockJson(block, true) : {}
            }
            case '/wallet/getblockbyid': {
                const block = l.blocks.find((b) => b.id === String(p.value ?? '').toLowerCase())
                return block ? this.blockJson(block, true) : {}
            }
            case '/wallet/getaccount':
            case '/walletsolidity/getaccount': {
                const hex = this.address(p)
                const solidified = path.startsWith('/walletsolidity')
                const account = l.view(solidified).accounts.get(hex)
                if (!account) return {}
                return {
                    address: visible ? TronWeb.address.fromHex(hex) : hex,
                    ...omitZero({
                        balance: num(account.balance),
                        create_time: account.createTime,
                        free_net_usage: account.freeNetUsage,
                        latest_consume_free_time: account.latestConsumeFreeTime,
                    }),
                    net_window_size: 28800,
                    account_resource: { energy_window_size: 28800 },
                    owner_permission: { permission_name: 'owner', threshold: 1, keys: [{ address: visible ? TronWeb.address.fromHex(hex) : hex, weight: 1 }] },
                }
            }
            case '/wallet/getaccountresource':
            case '/wallet/getaccountnet': {
                const account = l.view().accounts.get(this.address(p))
                if (!account) return {}
                return omitZero({
                    freeNetUsed: l.freeNetUsed(account),
                    freeNetLimit: PARAMS.freeNetLimit,
                    TotalNetLimit: 43_200_000_000,
                    TotalNetWeight: 26_000_000_000,
                    ...(path === '/wallet/getaccountresource' ? { TotalEnergyLimit: 180_000_000_000, TotalEnergyWeight: 19_000_000_000 } : {}),
                })
            }
            case '/wallet/getchainparameters':
                return {
                    chainParameter: [
                        { key: 'getMaintenanceTimeInterval', value: 21_600_000 },
                        { key: 'getCreateAccountFee', value: num(PARAMS.createAccountFee) },
                        { key: 'getTransactionFee', value: num(PARAMS.transactionFee) },
                        { key: 'getCreateNewAccountFeeInSystemContract', value: num(PARAMS.newAccountFee) },
                        { key: 'getCreateNewAccountBandwidthRate', value: 1 },
                        { key: 'getEnergyFee', value: num(l.energyPrice) },
                        { key: 'getMaxFeeLimit', value: num(PARAMS.maxFeeLimit) },
                        { key: 'getFreeNetLimit', value: PARAMS.freeNetLimit },
                        { key: 'getAllowTvmLondon', value: 1 },
                        { key: 'getAllowDynamicEnergy', value: 1 },
                        { key: 'getMemoFee', value: 1_000_000 },
                    ],
                }
            case '/wallet/getenergyprices':
                return { prices: l.energyPrices.map(([since, price]) => `${since}:${price}`).join(',') }
            case '/wallet/getbandwidthprices':
                return { prices: `0:${PARAMS.transactionFee}` }
            case '/wallet/triggersmartcontract':
            case '/wallet/triggerconstantcontract':
                return this.trigger(path === '/wallet/triggerconstantcontract', p)
            case '/wallet/broadcasttransaction':
                return this.broadcast(p)
            case '/wallet/gettransactionbyid':
            case '/walletsolidity/gettransactionbyid': {
                const t = l.mined(String(p.value ?? ''), path.startsWith('/walletsolidity'))
                return t ? this.txJson(t, true) : {}
            }
            case '/wallet/gettransactioninfobyid':
            case '/walletsolidity/gettransactioninfobyid': {
                const t = l.mined(String(p.value ?? ''), path.startsWith('/walletsolidity'))
                return t ? this.infoJson(t) : {}
            }
            case '/wallet/gettransactionfrompending': {
                const t = l.pending.find((x) => x.txid === String(p.value ?? '').toLowerCase())
                return t ? this.txJson(t, false) : {}
            }
            default:
                return undefined
        }
    }

    private trigger(constant: boolean, p: any) {
        const l = this.ledger
        const visible = p.visible === true || p.visible === 'true'
        const owner = this.address(p, 'owner_address')
        const contract = this.address(p, 'contract_address')
        let data: string
        if (typeof p.data === 'string' && p.data !== '') data = p.data.replace(/^0x/, '')
        else if (typeof p.function_selector === 'string') data = TronWeb.sha3(p.function_selector.replace(/\s/g, ''), false).slice(0, 8) + String(p.parameter ?? '')
        else throw new BadRequest('function_selector or data required')
        if (contract !== l.usdtHex) {
            return { result: { code: 'CONTRACT_VALIDATE_ERROR', message: Buffer.from('No contract or not a smart contract').toString('hex') } }
        }
        const callValue = BigInt(p.call_value ?? 0)
        const value: Record<string, unknown> = { data, owner_address: owner, contract_address: contract, ...(callValue ? { call_value: num(callValue) } : {}) }
        if (constant) {
            const call = l.execute(owner, data, callValue)
            return {
                result: { result: true },
                energy_used: num(call.energy),
                constant_result: [call.result],
                ...(call.ok ? {} : { transaction: { ret: [{ ret: 'FAILED' }] } }),
            }
        }
        const feeLimit = BigInt(p.fee_limit ?? 0)
        if (feeLimit < 0n || feeLimit > PARAMS.maxFeeLimit) {
            return { result: { code: 'CONTRACT_VALIDATE_ERROR', message: Buffer.from(`feeLimit must be >= 0 and <= ${PARAMS.maxFeeLimit}`).toString('hex') } }
        }
        const tx = l.build('TriggerSmartContract', value, feeLimit)
        return { result: { result: true }, transaction: visible ? { ...tx, visible: true } : tx }
    }

    private broadcast(p: any) {
        try {
            const txid = this.ledger.submit(p)
            return { result: true, txid }
        } catch (err) {
            if (!(err instanceof BroadcastRefused)) throw err
            return { code: err.code, txid: typeof p?.txID === 'string' ? p.txID : '', message: Buffer.from(err.message).toString('hex') }
        }
    }

    private blockJson(block: Block, detail: boolean) {
        const txs = block.txids.map((id) => this.txJson(this.ledger.landed.get(id)!, true))
        return {
            blockID: block.id,
            block_header: {
                raw_data: omitZero({
                    number: block.number,
                    txTrieRoot: block.txids.length ? block.id.slice(0, 64) : '00'.repeat(32),
                    witness_address: '41928c9af0651632157ef27a2cf17ca72c575a4d21',
                    parentHash: block.parentHash,
                    version: 31,
                    timestamp: block.timestamp,
                }),
                witness_signature: '00'.repeat(65),
            },
            ...(detail && txs.length ? { transactions: txs } : {}),
        }
    }

    private txJson(t: Landed, withRet: boolean) {
        return {
            ...(withRet ? { ret: [omitZero({ contractRet: t.contractRet, fee: num(t.fee) })] } : {}),
            signature: t.tx.signature,
            txID: t.txid,
            raw_data: t.tx.raw_data,
            raw_data_hex: t.tx.raw_data_hex,
        }
    }

    private infoJson(t: Landed) {
        const block = this.ledger.blocks[t.block!]
        const failed = t.contractRet !== 'SUCCESS'
        const trigger = t.type === 'TriggerSmartContract'
        return {
            id: t.txid,
            ...omitZero({ fee: num(t.fee) }),
            blockNumber: block.number,
            blockTimeStamp: block.timestamp,
            contractResult: [t.contractResult],
            ...(trigger ? { contract_address: t.to } : {}),
            receipt: {
                ...omitZero({
                    energy_fee: num(t.energyFee),
                    energy_usage_total: num(t.energyUsage),
                    net_usage: t.netUsage,
                    net_fee: num(t.netFee),
                }),
                ...(trigger ? { result: t.contractRet } : {}),
            },
            ...(t.logs.length ? { log: t.logs } : {}),
            ...(failed ? { result: 'FAILED', resMessage: Buffer.from(t.contractRet === 'OUT_OF_ENERGY' ? 'Not enough energy for \'SSTORE\' operation executing' : 'REVERT opcode executed').toString('hex') } : {}),
        }
    }

    /** TronGrid's v1 routes: [status, body]. */
    private grid(path: string, q: Record<string, string>): [number, unknown] {
        const l = this.ledger
        const match = /^\/v1\/accounts\/([^/]+)\/transactions(\/trc20)?$/.exec(path)
        if (!match) return [404, { success: false, error: `no route ${path}`, statusCode: 404 }]
        const address = decodeURIComponent(match[1])
        if (!TronWeb.isAddress(address)) return [400, { success: false, error: `${address} is not a valid address`, statusCode: 400 }]
        const hex = TronWeb.address.toHex(address).toLowerCase()
        const limit = Math.min(Math.max(Number(q.limit ?? 20), 1), 200)
        const offset = q.fingerprint ? Number(Buffer.from(q.fingerprint, 'base64url').toString('utf8')) : 0
        const confirmedOnly = q.only_confirmed === 'true'
        const unconfirmedOnly = q.only_unconfirmed === 'true'
        const minTs = q.min_timestamp ? Number(q.min_timestamp) : 0
        const maxTs = q.max_timestamp ? Number(q.max_timestamp) : Number.MAX_SAFE_INTEGER
        const asc = (q.order_by ?? 'block_timestamp,desc') === 'block_timestamp,asc'
        const keep = (t: Landed) => {
            const block = l.blocks[t.block!]
            if (block.timestamp < minTs || block.timestamp > maxTs) return false
            if (confirmedOnly && block.number > l.solidifiedNumber) return false
            if (unconfirmedOnly && block.number <= l.solidifiedNumber) return false
            return true
        }
        let items: { timestamp: number; json: unknown }[]
        if (match[2]) {
            if (q.contract_address && TronWeb.address.toHex(q.contract_address).toLowerCase() !== l.usdtHex) items = []
            else {
                items = l.history(hex).filter(keep).flatMap((t) => t.tokenTransfers
                    .filter((x) => (q.only_to === 'true' ? x.to === hex : q.only_from === 'true' ? x.from === hex : x.to === hex || x.from === hex))
                    .map((x) => ({
                        timestamp: l.blocks[t.block!].timestamp,
                        json: {
                            transaction_id: t.txid,
                            token_info: { symbol: 'USDT', address: l.usdt, decimals: 6, name: 'Tether USD' },
                            block_timestamp: l.blocks[t.block!].timestamp,
                            from: TronWeb.address.fromHex(x.from),
                            to: TronWeb.address.fromHex(x.to),
                            type: 'Transfer',
                            value: x.value.toString(),
                        },
                    })))
            }
        } else {
            items = l.history(hex).filter(keep)
                .filter((t) => (q.only_to === 'true' ? t.to === hex : q.only_from === 'true' ? t.owner === hex : t.to === hex || t.owner === hex))
                .map((t) => ({
                    timestamp: l.blocks[t.block!].timestamp,
                    json: {
                        ret: [omitZero({ contractRet: t.contractRet, fee: num(t.fee) })],
                        signature: t.tx.signature,
                        txID: t.txid,
                        net_usage: t.netUsage,
                        raw_data_hex: t.tx.raw_data_hex,
                        net_fee: num(t.netFee),
                        energy_usage: 0,
                        blockNumber: t.block,
                        block_timestamp: l.blocks[t.block!].timestamp,
                        energy_fee: num(t.energyFee),
                        energy_usage_total: num(t.energyUsage),
                        raw_data: t.tx.raw_data,
                        internal_transactions: [],
                    },
                }))
        }
        if (!asc) items.reverse()
        const page = items.slice(offset, offset + limit)
        const more = offset + limit < items.length
        const fingerprint = more ? Buffer.from(String(offset + limit)).toString('base64url') : undefined
        const next = new URLSearchParams({ ...q, ...(fingerprint ? { fingerprint } : {}) })
        return [200, {
            data: page.map((i) => i.json),
            success: true,
            meta: { at: Date.now(), ...(fingerprint ? { fingerprint, links: { next: `${this.url}${path}?${next}` } } : {}), page_size: page.length },
        }]
    }
}

export async function startTronNode(options: TronNodeOptions = {}, port = 0): Promise<TronNode> {
    return new TronNode(options).start(port)
}
