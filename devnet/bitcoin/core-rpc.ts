import * as bitcoin from 'bitcoinjs-lib'
import * as http from 'http'
import { Ledger, Rejection, StoredTx } from './ledger'
import { listenLoopback, Loopback, serveAsync } from '../loopback'

/**
 * The local Bitcoin network's JSON-RPC: the part of Bitcoin Core's that the bridge's bitcoind
 * backend calls, over the same Ledger as the Esplora API (so both views show one chain). Field names, BTC amounts printed with 8 decimals, error codes and messages
 * follow Core (v25+): RPC errors are HTTP 500 with {result:null, error:{code,message}}; wallet
 * calls go to /wallet/<name> and need that wallet loaded; watch-only descriptor wallets learn
 * addresses through importdescriptors with a BIP-380 checksum. No -txindex: mined transactions
 * outside the wallet are not found by getrawtransaction, as on a default node.
 */

const INPUT_CHARSET = "0123456789()[],'/*abcdefgh@:$%{}IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~ijklmnopqrstuvwxyzABCDEFGH`#\"\\ "
const CHECKSUM_CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l'
const GENERATOR = [0xf5dee51989n, 0xa9fdca3312n, 0x1bab10e32dn, 0x3706b1677an, 0x644d626ffdn]

/** BIP-380 descriptor checksum. */
export function descriptorChecksum(descriptor: string): string {
    const polymod = (chk: bigint, value: number) => {
        const top = chk >> 35n
        chk = ((chk & 0x7ffffffffn) << 5n) ^ BigInt(value)
        for (let i = 0; i < 5; i++) if ((top >> BigInt(i)) & 1n) chk ^= GENERATOR[i]
        return chk
    }
    let chk = 1n
    let cls = 0
    let count = 0
    for (const ch of descriptor) {
        const pos = INPUT_CHARSET.indexOf(ch)
        if (pos < 0) throw new Error(`invalid character ${ch}`)
        chk = polymod(chk, pos & 31)
        cls = cls * 3 + (pos >> 5)
        if (++count === 3) {
            chk = polymod(chk, cls)
            cls = count = 0
        }
    }
    if (count > 0) chk = polymod(chk, cls)
    for (let i = 0; i < 8; i++) chk = polymod(chk, 0)
    chk ^= 1n
    let out = ''
    for (let i = 0; i < 8; i++) out += CHECKSUM_CHARSET[Number((chk >> BigInt(5 * (7 - i))) & 31n)]
    return out
}

class RpcError extends Error {
    constructor(readonly code: number, message: string) {
        super(message)
    }
}

/** A BTC amount as Core prints it: a JSON number with exactly 8 decimals. */
class Btc {
    constructor(readonly sats: bigint) {}
    toJSON(): string {
        const sign = this.sats < 0n ? '-' : ''
        const abs = this.sats < 0n ? -this.sats : this.sats
        return `\u0000${sign}${abs / 100_000_000n}.${(abs % 100_000_000n).toString().padStart(8, '0')}`
    }
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex')
const prevTxid = (input: { hash: Uint8Array }) => Buffer.from(input.hash).reverse().toString('hex')

export class CoreRpcServer {
    private server?: http.Server
    private loopback?: Loopback
    url = ''
    /** Wallets on "disk" (name → watched scripts) and those loaded. */
    private readonly wallets = new Map<string, Set<string>>()
    private readonly loaded = new Set<string>()

    constructor(readonly ledger: Ledger, private readonly auth = { user: 'bridge', password: 'secret' }) {}

    async start(): Promise<this> {
        this.server = serveAsync((req, res) => this.handle(req, res))
        this.loopback = await listenLoopback(this.server)
        this.url = this.loopback.url
        return this
    }

    async close(): Promise<void> {
        await this.loopback?.close()
        this.loopback = undefined
    }

    private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
        const expected = 'Basic ' + Buffer.from(`${this.auth.user}:${this.auth.password}`).toString('base64')
        if (req.headers.authorization !== expected) {
            res.writeHead(401, { 'www-authenticate': 'Basic realm="jsonrpc"' })
            return void res.end()
        }
        const chunks: Buffer[] = []
        for await (const chunk of req) chunks.push(chunk as Buffer)
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: unknown; method: string; params?: unknown[] }
        const path = new URL(req.url ?? '/', 'http://x').pathname
        const wallet = /^\/wallet\/([^/]+)$/.exec(path)?.[1]
        let status = 200
        let answer: unknown
        try {
            answer = { result: this.call(body.method, body.params ?? [], wallet === undefined ? undefined : decodeURIComponent(wallet)), error: null, id: body.id }
        } catch (err) {
            if (!(err instanceof RpcError)) throw err
            status = err.code === -32601 ? 404 : 500
            answer = { result: null, error: { code: err.code, message: err.message }, id: body.id }
        }
        res.writeHead(status, { 'content-type': 'application/json' })
        res.end(JSON.stringify(answer).replace(/"\\u0000(-?\d+\.\d{8})"/g, '$1'))
    }

    private walletScripts(name: string | undefined): Set<string> {
        if (name === undefined) throw new RpcError(-19, 'Wallet file not specified (must request wallet RPC through /wallet/<filename> uri-path).')
        if (!this.loaded.has(name)) throw new RpcError(-18, 'Requested wallet does not exist or is not loaded')
        return this.wallets.get(name)!
    }

    private script(address: string): Uint8Array {
        try {
            return this.ledger.scriptOf(address)
        } catch {
            throw new RpcError(-5, 'Invalid Bitcoin address')
        }
    }

    private scriptJson(script: Uint8Array) {
        const address = this.ledger.addressOf(script)
        return { asm: bitcoin.script.toASM(script), hex: hex(script), ...(address ? { address } : {}) }
    }

    private confirmations(txid: string): number {
        const height = this.ledger.heightOf(txid)
        return height === undefined ? 0 : this.ledger.tipHeight - height + 1
    }

    private decoded(stored: StoredTx, withPrevouts: boolean) {
        const { tx } = stored
        return {
            txid: stored.txid, hash: Buffer.from(tx.getHash(true)).reverse().toString('hex'), version: tx.version, size: tx.byteLength(), vsize: tx.virtualSize(),
            weight: tx.weight(), locktime: tx.locktime,
            vin: tx.ins.map((input, i) => tx.isCoinbase()
                ? { coinbase: hex(input.script), sequence: input.sequence }
                : {
                    txid: prevTxid(input), vout: input.index, scriptSig: { asm: '', hex: hex(input.script) },
                    txinwitness: input.witness.map(hex), sequence: input.sequence,
                    ...(withPrevouts ? { prevout: { value: new Btc(stored.prevouts[i].value), scriptPubKey: this.scriptJson(stored.prevouts[i].script) } } : {}),
                }),
            vout: tx.outs.map((o, n) => ({ value: new Btc(o.value), n, scriptPubKey: this.scriptJson(o.script) })),
            ...(withPrevouts && !tx.isCoinbase() ? { fee: new Btc(stored.fee) } : {}),
        }
    }

    private touches(stored: StoredTx, scripts: Set<string>): boolean {
        return stored.tx.outs.some((o) => scripts.has(hex(o.script))) || stored.prevouts.some((p) => scripts.has(hex(p.script)))
    }

    private call(method: string, params: any[], wallet: string | undefined): unknown {
        const ledger = this.ledger
        switch (method) {
            case 'listwallets':
                return [...this.loaded]
            case 'createwallet': {
                const [name] = params as [string]
                if (this.wallets.has(name)) throw new RpcError(-4, `Wallet file verification failed. Failed to create database path '${name}'. Database already exists.`)
                this.wallets.set(name, new Set())
                this.loaded.add(name)
                return { name }
            }
            case 'loadwallet': {
                const [name] = params as [string]
                if (!this.wallets.has(name)) throw new RpcError(-18, `Wallet file verification failed. Failed to load database path '${name}'. Path does not exist.`)
                if (this.loaded.has(name)) throw new RpcError(-35, `Wallet "${name}" is already loaded.`)
                this.loaded.add(name)
                return { name }
            }
            case 'getdescriptorinfo': {
                const [descriptor] = params as [string]
                const address = /^addr\(([^)]+)\)$/.exec(descriptor)?.[1]
                if (!address) throw new RpcError(-5, `'${descriptor}' is not a valid descriptor function`)
                this.script(address)
                return { descriptor: `${descriptor}#${descriptorChecksum(descriptor)}`, checksum: descriptorChecksum(descriptor), isrange: false, issolvable: false, hasprivatekeys: false }
            }
            case 'importdescriptors': {
                const scripts = this.walletScripts(wallet)
                return (params[0] as { desc: string }[]).map(({ desc }) => {
                    const match = /^(addr\(([^)]+)\))#([a-z0-9]{8})$/.exec(desc)
                    if (!match) return { success: false, error: { code: -5, message: 'Missing checksum' } }
                    if (descriptorChecksum(match[1]) !== match[3]) return { success: false, error: { code: -5, message: `Provided checksum '${match[3]}' does not match computed checksum '${descriptorChecksum(match[1])}'` } }
                    scripts.add(hex(this.script(match[2])))
                    return { success: true }
                })
            }
            case 'getaddressinfo': {
                const scripts = this.walletScripts(wallet)
                const script = this.script(params[0])
                return { address: params[0], scriptPubKey: hex(script), ismine: scripts.has(hex(script)), solvable: false, iswatchonly: false, isscript: false, iswitness: true }
            }
            case 'getbestblockhash':
                return ledger.tip.hash
            case 'getblockhash': {
                const block = ledger.blocks[params[0]]
                if (!block) throw new RpcError(-8, 'Block height out of range')
                return block.hash
            }
            case 'getblockheader': {
                const block = ledger.blockByHash(params[0])
                if (!block) throw new RpcError(-5, 'Block not found')
                return {
                    hash: block.hash, confirmations: ledger.tipHeight - block.height + 1, height: block.height, version: block.header.version,
                    merkleroot: Buffer.from(block.header.merkleRoot!).reverse().toString('hex'), time: block.time, nonce: block.header.nonce,
                    bits: block.header.bits.toString(16), nTx: block.txids.length,
                    ...(block.height > 0 ? { previousblockhash: ledger.blocks[block.height - 1].hash } : {}),
                    ...(ledger.blocks[block.height + 1] ? { nextblockhash: ledger.blocks[block.height + 1].hash } : {}),
                }
            }
            case 'listunspent': {
                const scripts = this.walletScripts(wallet)
                const [minconf = 1, maxconf = 9_999_999, addresses] = params as [number, number, string[] | undefined]
                const wanted = addresses ? addresses.map((a) => hex(this.script(a))) : [...scripts]
                return wanted.filter((s) => scripts.has(s)).flatMap((s) => ledger.unspentOf(Buffer.from(s, 'hex')))
                    .map((o) => ({ txid: o.txid, vout: o.vout, address: ledger.addressOf(o.script), scriptPubKey: hex(o.script), amount: new Btc(o.value), confirmations: this.confirmations(o.txid), spendable: false, solvable: false, safe: true }))
                    .filter((u) => u.confirmations >= minconf && u.confirmations <= maxconf)
            }
            case 'gettransaction': {
                const scripts = this.walletScripts(wallet)
                const stored = ledger.txs.get(params[0])
                if (!stored || !this.touches(stored, scripts)) throw new RpcError(-5, 'Invalid or non-wallet transaction id')
                const height = ledger.heightOf(stored.txid)
                return {
                    confirmations: this.confirmations(stored.txid), txid: stored.txid,
                    ...(height !== undefined ? { blockhash: ledger.blocks[height].hash, blockheight: height, blocktime: ledger.blocks[height].time } : {}),
                    hex: stored.raw, ...(params[2] ? { decoded: this.decoded(stored, false) } : {}),
                }
            }
            case 'getmempoolentry': {
                const stored = ledger.mempool.get(params[0])
                if (!stored) throw new RpcError(-5, 'Transaction not in mempool')
                return { vsize: stored.vsize, weight: stored.tx.weight(), fees: { base: new Btc(stored.fee) } }
            }
            case 'getrawtransaction': {
                const stored = ledger.mempool.get(params[0])
                if (!stored) throw new RpcError(-5, 'No such mempool transaction. Use -txindex or provide a block hash to enable blockchain transaction queries. Use gettransaction for wallet transactions.')
                const verbosity = typeof params[1] === 'boolean' ? (params[1] ? 1 : 0) : (params[1] ?? 0)
                return verbosity === 0 ? stored.raw : { ...this.decoded(stored, verbosity >= 2), hex: stored.raw }
            }
            case 'gettxout': {
                const [txid, n, includeMempool = true] = params as [string, number, boolean]
                const output = ledger.output(txid, n)
                const spender = ledger.spender(txid, n)
                if (!output || (spender && (includeMempool || ledger.heightOf(spender.txid) !== undefined))) return null
                if (!includeMempool && output.height === null) return null
                return { bestblock: ledger.tip.hash, confirmations: this.confirmations(txid), value: new Btc(output.value), scriptPubKey: this.scriptJson(output.script), coinbase: output.coinbase }
            }
            case 'gettxspendingprevout':
                return (params[0] as { txid: string; vout: number }[]).map(({ txid, vout }) => {
                    const spender = ledger.spender(txid, vout)
                    return spender && ledger.mempool.has(spender.txid) ? { txid, vout, spendingtxid: spender.txid } : { txid, vout }
                })
            case 'listtransactions': {
                const scripts = this.walletScripts(wallet)
                const [, count = 10, skip = 0] = params as [string, number, number]
                const entries: unknown[] = []
                for (const stored of ledger.txs.values()) {
                    if (stored.prevouts.some((p) => scripts.has(hex(p.script)))) {
                        entries.push({ category: 'send', amount: new Btc(-stored.tx.outs.reduce((s, o) => s + o.value, 0n)), txid: stored.txid, confirmations: this.confirmations(stored.txid) })
                    }
                    stored.tx.outs.forEach((o, vout) => {
                        if (scripts.has(hex(o.script))) entries.push({ address: ledger.addressOf(o.script), category: 'receive', amount: new Btc(o.value), vout, txid: stored.txid, confirmations: this.confirmations(stored.txid) })
                    })
                }
                return entries.reverse().slice(skip, skip + count).reverse()
            }
            case 'estimatesmartfee': {
                const [target] = params as [number]
                const keys = Object.keys(ledger.feeEstimates).map(Number).sort((a, b) => a - b)
                const at = keys.filter((k) => k <= target).pop() ?? keys[0]
                if (at === undefined) return { errors: ['Insufficient data or no feerate found'], blocks: target }
                // sat/vB → BTC/kvB: ×1000 / 1e8, rounded up to the satoshi like Core's CFeeRate output.
                const satPerKvb = BigInt(Math.ceil(ledger.feeEstimates[String(at)] * 1000))
                return { feerate: new Btc(satPerKvb), blocks: at }
            }
            case 'sendrawtransaction':
                try {
                    return ledger.submit(params[0])
                } catch (err) {
                    if (err instanceof Rejection) throw new RpcError(err.code, err.reason)
                    throw err
                }
            default:
                throw new RpcError(-32601, 'Method not found')
        }
    }
}
