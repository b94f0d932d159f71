import * as bitcoin from 'bitcoinjs-lib'
import * as http from 'http'
import { LedgerNetwork, Ledger, Rejection, StoredTx } from './ledger'
import { listenLoopback, Loopback, serveAsync } from '../loopback'

/**
 * The local Bitcoin network's Esplora REST API (Blockstream's esplora API.md, as
 * electrs serves it) on 127.0.0.1 over a Ledger. Routes, field names and encodings follow
 * Esplora: plain-text tip height/hash and txids, JSON objects with snake_case fields, amounts in
 * satoshi, 404 "Transaction not found" / "Block not found", 400 for a bad address, and a refused
 * broadcast as HTTP 400 `sendrawtransaction RPC error: {"code":…,"message":"…"}`.
 */

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex')

function scriptType(script: Uint8Array): string {
    if (script.length === 22 && script[0] === 0x00 && script[1] === 0x14) return 'v0_p2wpkh'
    if (script.length === 34 && script[0] === 0x00 && script[1] === 0x20) return 'v0_p2wsh'
    if (script.length === 34 && script[0] === 0x51 && script[1] === 0x20) return 'v1_p2tr'
    if (script.length === 25 && script[0] === 0x76 && script[1] === 0xa9 && script[23] === 0x88 && script[24] === 0xac) return 'p2pkh'
    if (script.length === 23 && script[0] === 0xa9 && script[22] === 0x87) return 'p2sh'
    if (script.length > 0 && script[0] === 0x6a) return 'op_return'
    return 'unknown'
}

/** rust-bitcoin's assembly, as Esplora shows it: OP_0 OP_PUSHBYTES_20 <hex> … */
function asm(script: Uint8Array): string {
    const chunks = bitcoin.script.decompile(script)
    if (!chunks) return ''
    return chunks.map((chunk) => {
        if (typeof chunk === 'number') {
            if (chunk === 0) return 'OP_0'
            const name = Object.entries(bitcoin.opcodes).find(([, code]) => code === chunk)?.[0] ?? `OP_UNKNOWN_${chunk}`
            return name.replace(/^OP_TRUE$/, 'OP_PUSHNUM_1').replace(/^OP_(\d+)$/, 'OP_PUSHNUM_$1')
        }
        const op = chunk.length <= 75 ? `OP_PUSHBYTES_${chunk.length}` : chunk.length <= 0xff ? 'OP_PUSHDATA1' : 'OP_PUSHDATA2'
        return `${op} ${hex(chunk)}`
    }).join(' ')
}

export class EsploraServer {
    readonly ledger: Ledger
    private server?: http.Server
    private loopback?: Loopback
    url = ''
    /**
     * Test hook: while set, POST /tx answers 503 (the Esplora front end up, its bitcoind
     * restarting) and nothing enters the mempool; the refused bodies are kept in `heldBroadcasts`.
     */
    holdBroadcasts = false
    readonly heldBroadcasts: string[] = []
    /**
     * Test hook: while set, POST /tx takes the transaction (into the mempool, or refused as usual)
     * but never answers; the connection hangs until the client goes away: a broadcast that went
     * through without the sender hearing so.
     */
    swallowBroadcasts = false

    /** Called after a broadcast entered the mempool (the devnet saves its chain then). */
    onAccepted?: () => void

    constructor(network: LedgerNetwork | Ledger = 'regtest') {
        this.ledger = network instanceof Ledger ? network : new Ledger(network)
    }

    /** Listens on `port` of 127.0.0.1, or on a free one. */
    async start(port = 0): Promise<this> {
        this.server = serveAsync((req, res) => this.route(req, res))
        this.loopback = await listenLoopback(this.server, port)
        this.url = this.loopback.url
        return this
    }

    async close(): Promise<void> {
        await this.loopback?.close()
        this.loopback = undefined
    }

    private status(txid: string) {
        const height = this.ledger.heightOf(txid)
        if (height === undefined) return { confirmed: false }
        const block = this.ledger.blocks[height]
        return { confirmed: true, block_height: height, block_hash: block.hash, block_time: block.time }
    }

    private output(script: Uint8Array, value: bigint) {
        const address = this.ledger.addressOf(script)
        return {
            scriptpubkey: hex(script), scriptpubkey_asm: asm(script), scriptpubkey_type: scriptType(script),
            ...(address ? { scriptpubkey_address: address } : {}), value: Number(value),
        }
    }

    private txJson(stored: StoredTx) {
        const { tx } = stored
        const coinbase = tx.isCoinbase()
        return {
            txid: stored.txid,
            version: tx.version,
            locktime: tx.locktime,
            vin: tx.ins.map((input, i) => ({
                txid: Buffer.from(input.hash).reverse().toString('hex'),
                vout: input.index,
                prevout: coinbase ? null : this.output(stored.prevouts[i].script, stored.prevouts[i].value),
                scriptsig: hex(input.script),
                scriptsig_asm: coinbase ? '' : asm(input.script),
                ...(input.witness.length ? { witness: input.witness.map(hex) } : {}),
                is_coinbase: coinbase,
                sequence: input.sequence,
            })),
            vout: tx.outs.map((o) => this.output(o.script, o.value)),
            size: tx.byteLength(),
            weight: tx.weight(),
            fee: Number(stored.fee),
            status: this.status(stored.txid),
        }
    }

    private blockJson(height: number) {
        const block = this.ledger.blocks[height]
        return {
            id: block.hash,
            height,
            version: block.header.version,
            timestamp: block.time,
            tx_count: block.txids.length,
            size: block.size,
            weight: block.weight,
            merkle_root: Buffer.from(block.header.merkleRoot!).reverse().toString('hex'),
            previousblockhash: height > 0 ? this.ledger.blocks[height - 1].hash : null,
            mediantime: this.ledger.blocks.slice(Math.max(0, height - 10), height + 1).map((b) => b.time).sort((a, b) => a - b)[Math.floor(Math.min(11, height + 1) / 2)],
            nonce: block.header.nonce,
            bits: block.header.bits,
            difficulty: 0,
        }
    }

    private script(address: string): Uint8Array | undefined {
        try {
            return this.ledger.scriptOf(address)
        } catch {
            return undefined
        }
    }

    private stats(txs: StoredTx[], script: Uint8Array) {
        const target = hex(script)
        let [funded, fundedSum, spent, spentSum] = [0, 0n, 0, 0n]
        for (const s of txs) {
            for (const o of s.tx.outs) if (hex(o.script) === target) [funded, fundedSum] = [funded + 1, fundedSum + o.value]
            for (const p of s.prevouts) if (hex(p.script) === target) [spent, spentSum] = [spent + 1, spentSum + p.value]
        }
        return { funded_txo_count: funded, funded_txo_sum: Number(fundedSum), spent_txo_count: spent, spent_txo_sum: Number(spentSum), tx_count: txs.length }
    }

    private async route(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
        const path = new URL(req.url ?? '/', 'http://x').pathname
        const text = (status: number, body: string) => {
            res.writeHead(status, { 'content-type': 'text/plain' })
            res.end(body)
        }
        const json = (body: unknown) => {
            res.writeHead(200, { 'content-type': 'application/json' })
            res.end(JSON.stringify(body))
        }
        const ledger = this.ledger
        let m: RegExpExecArray | null

        if (req.method === 'POST' && path === '/tx') {
            const chunks: Buffer[] = []
            for await (const chunk of req) chunks.push(chunk as Buffer)
            const body = Buffer.concat(chunks).toString('utf8').trim()
            if (this.holdBroadcasts) {
                this.heldBroadcasts.push(body)
                return text(503, 'Service Unavailable')
            }
            try {
                const txid = ledger.submit(body)
                this.onAccepted?.()
                if (this.swallowBroadcasts) return
                return text(200, txid)
            } catch (err) {
                if (this.swallowBroadcasts) return
                if (err instanceof Rejection) return text(400, `sendrawtransaction RPC error: ${JSON.stringify({ code: err.code, message: err.reason })}`)
                throw err
            }
        }
        if (req.method !== 'GET') return text(405, 'Method not allowed')

        if (path === '/blocks/tip/height') return text(200, String(ledger.tipHeight))
        if (path === '/blocks/tip/hash') return text(200, ledger.tip.hash)
        if ((m = /^\/block-height\/(\d+)$/.exec(path))) {
            const block = ledger.blocks[Number(m[1])]
            return block ? text(200, block.hash) : text(404, 'Block not found')
        }
        if ((m = /^\/block\/([0-9a-f]{64})(\/status|\/header|\/txids)?$/.exec(path))) {
            const block = ledger.blockByHash(m[1])
            if (m[2] === '/status') {
                if (!block) return json({ in_best_chain: false })
                const next = ledger.blocks[block.height + 1]
                return json({ in_best_chain: true, height: block.height, next_best: next ? next.hash : null })
            }
            if (!block) return text(404, 'Block not found')
            if (m[2] === '/header') return text(200, block.header.toHex(true))
            if (m[2] === '/txids') return json(block.txids)
            return json(this.blockJson(block.height))
        }
        if ((m = /^\/address\/([^/]+)(\/utxo|\/txs|\/txs\/mempool|\/txs\/chain(?:\/([0-9a-f]{64}))?)?$/.exec(path))) {
            const script = this.script(decodeURIComponent(m[1]))
            if (!script) return text(400, 'Invalid Bitcoin address')
            if (m[2] === '/utxo') {
                return json(ledger.unspentOf(script).map((o) => ({ txid: o.txid, vout: o.vout, status: this.status(o.txid), value: Number(o.value) })))
            }
            const history = ledger.historyOf(script)
            const mempool = history.filter((s) => ledger.heightOf(s.txid) === undefined)
            const chain = history.filter((s) => ledger.heightOf(s.txid) !== undefined)
            if (m[2] === '/txs') return json([...mempool.slice(0, 50), ...chain.slice(0, 25)].map((s) => this.txJson(s)))
            if (m[2] === '/txs/mempool') return json(mempool.slice(0, 50).map((s) => this.txJson(s)))
            if (m[2]?.startsWith('/txs/chain')) {
                const after = m[3] ? chain.findIndex((s) => s.txid === m![3]) + 1 : 0
                return json(chain.slice(after, after + 25).map((s) => this.txJson(s)))
            }
            return json({ address: decodeURIComponent(m[1]), chain_stats: this.stats(chain, script), mempool_stats: this.stats(mempool, script) })
        }
        if ((m = /^\/tx\/([0-9a-f]{64})(\/status|\/hex|\/raw|\/outspends|\/outspend\/(\d+))?$/.exec(path))) {
            const txid = m[1]
            if (m[2]?.startsWith('/outspend')) {
                const stored = ledger.txs.get(txid)
                const outspend = (vout: number) => {
                    const spender = ledger.spender(txid, vout)
                    return spender ? { spent: true, txid: spender.txid, vin: spender.vin, status: this.status(spender.txid) } : { spent: false }
                }
                if (m[2] === '/outspends') return json(stored ? stored.tx.outs.map((_, vout) => outspend(vout)) : [])
                return json(outspend(Number(m[3])))
            }
            const stored = ledger.txs.get(txid)
            if (!stored) return text(404, 'Transaction not found')
            if (m[2] === '/status') return json(this.status(txid))
            if (m[2] === '/hex') return text(200, stored.raw)
            if (m[2] === '/raw') {
                res.writeHead(200, { 'content-type': 'application/octet-stream' })
                return void res.end(Buffer.from(stored.raw, 'hex'))
            }
            return json(this.txJson(stored))
        }
        if (path === '/fee-estimates') return json(ledger.feeEstimates)
        if (path === '/mempool/txids') return json([...ledger.mempool.keys()])
        if (path === '/mempool') {
            const txs = [...ledger.mempool.values()]
            return json({ count: txs.length, vsize: txs.reduce((s, t) => s + t.vsize, 0), total_fee: Number(txs.reduce((s, t) => s + t.fee, 0n)), fee_histogram: [] })
        }
        return text(404, 'Not found')
    }
}

/** Starts the Esplora API over a new chain of a network on a free port; close() it in an after() hook. */
export async function startEsploraServer(network: LedgerNetwork = 'regtest'): Promise<EsploraServer> {
    return new EsploraServer(network).start()
}
