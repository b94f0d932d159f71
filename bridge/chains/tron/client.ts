/** The java-tron and TronGrid HTTP routes the TRON adapter reads, all on one base URL: docs/bridge/networks.md#tron */

const TIMEOUT_MS = 15_000

/** The node could not be asked or did not answer with JSON: nothing can be concluded from it. */
export class TronNodeError extends Error {}

/** The node answered that a contract call failed (no such contract, a revert). */
export class TronCallError extends Error {}

/** JSON.parse, except that integer literals of 16 digits or more become strings, so no digit is lost. */
export function parseJson(text: string): any {
    let out = ''
    let start = 0
    let inString = false
    for (let i = 0; i < text.length; i++) {
        const c = text[i]
        if (inString) {
            if (c === '\\') i++
            else if (c === '"') inString = false
            continue
        }
        if (c === '"') {
            inString = true
            continue
        }
        if ((c >= '0' && c <= '9') || c === '-') {
            let j = i + 1
            while (j < text.length && /[0-9.eE+-]/.test(text[j])) j++
            const literal = text.slice(i, j)
            if (/^-?\d{16,}$/.test(literal)) {
                out += text.slice(start, i) + `"${literal}"`
                start = j
            }
            i = j - 1
        }
    }
    return JSON.parse(out + text.slice(start))
}

/** An int64 field as java-tron writes it (number, or string when long); absent is 0. */
export function int64(value: unknown): bigint {
    if (value === undefined || value === null) return 0n
    if (typeof value === 'string' && /^-?\d+$/.test(value)) return BigInt(value)
    if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value)
    throw new TronNodeError(`not an integer: ${JSON.stringify(value)}`)
}

export interface NodeBlock {
    blockID: string
    block_header: { raw_data: { number?: number | string; timestamp?: number | string; parentHash?: string } }
    transactions?: { txID: string }[]
}

export interface TransactionInfo {
    id?: string
    fee?: number | string
    blockNumber?: number | string
    blockTimeStamp?: number | string
    contract_address?: string
    receipt?: { result?: string; energy_usage_total?: number; energy_fee?: number; net_usage?: number; net_fee?: number }
    log?: { address: string; topics?: string[]; data?: string }[]
    result?: string
    resMessage?: string
}

export interface GridTransaction {
    txID: string
    blockNumber?: number | string
    block_timestamp?: number | string
    ret?: { contractRet?: string }[]
    raw_data?: { contract?: { type?: string; parameter?: { value?: Record<string, unknown> } }[] }
}

export interface GridTrc20Transfer {
    transaction_id: string
    block_timestamp?: number | string
    from?: string
    to?: string
    type?: string
    value?: string
    token_info?: { address?: string; decimals?: number; symbol?: string }
}

interface GridPage<T> {
    data?: T[]
    success?: boolean
    error?: string
    meta?: { fingerprint?: string; page_size?: number }
}

const GRID_PAGE = 200
/** A broken indexer that hands out the same cursor forever must not hold a scan forever. */
const GRID_MAX_PAGES = 500

export class TronHttp {
    private readonly base: string

    constructor(url: string, private readonly apiKey?: string) {
        this.base = url.replace(/\/+$/, '')
    }

    get headers(): Record<string, string> {
        return this.apiKey ? { 'TRON-PRO-API-KEY': this.apiKey } : {}
    }

    /** The raw answer; throws TronNodeError only when there is none (network error, timeout). */
    async send(method: 'GET' | 'POST', path: string, body?: string): Promise<{ status: number; text: string }> {
        let response: Response
        try {
            response = await fetch(this.base + path, {
                method,
                body,
                headers: { ...this.headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
                signal: AbortSignal.timeout(TIMEOUT_MS),
            })
        } catch (err) {
            throw new TronNodeError(`TRON ${path}: ${(err as Error).message}`)
        }
        return { status: response.status, text: await response.text() }
    }

    private async json(method: 'GET' | 'POST', path: string, body?: unknown): Promise<any> {
        const { status, text } = await this.send(method, path, body === undefined ? undefined : JSON.stringify(body))
        if (status < 200 || status >= 300) throw new TronNodeError(`TRON ${path}: HTTP ${status} ${text.slice(0, 200)}`)
        let parsed: any
        try {
            parsed = text.trim() === '' ? {} : parseJson(text)
        } catch {
            throw new TronNodeError(`TRON ${path}: not JSON: ${text.slice(0, 200)}`)
        }
        // java-tron answers a bad request with 200 and {"Error": "…"}.
        if (parsed && typeof parsed === 'object' && typeof parsed.Error === 'string') throw new TronNodeError(`TRON ${path}: ${parsed.Error}`)
        return parsed
    }

    post(path: string, body: unknown = {}): Promise<any> {
        return this.json('POST', path, body)
    }

    async nowBlock(solidified = false): Promise<NodeBlock> {
        const block = await this.post(solidified ? '/walletsolidity/getnowblock' : '/wallet/getnowblock')
        if (!block?.blockID) throw new TronNodeError('TRON: the node has no head block')
        return block
    }

    async blockByNumber(num: bigint): Promise<NodeBlock | undefined> {
        const block = await this.post('/wallet/getblockbynum', { num: Number(num) })
        return block?.blockID ? block : undefined
    }

    /** The account as the best chain shows it now; undefined when it does not exist (never received TRX). */
    async account(address: string): Promise<{ balance?: number | string } | undefined> {
        const account = await this.post('/wallet/getaccount', { address, visible: true })
        return account && Object.keys(account).length > 0 ? account : undefined
    }

    async accountResource(address: string): Promise<Record<string, number | string | undefined>> {
        return (await this.post('/wallet/getaccountresource', { address, visible: true })) ?? {}
    }

    async chainParameters(): Promise<Map<string, bigint>> {
        const { chainParameter = [] } = await this.post('/wallet/getchainparameters')
        return new Map((chainParameter as { key: string; value?: number | string }[]).map((p) => [p.key, int64(p.value)]))
    }

    async transactionInfo(txID: string): Promise<TransactionInfo | undefined> {
        const info: TransactionInfo = await this.post('/wallet/gettransactioninfobyid', { value: txID })
        return info && info.blockNumber !== undefined ? info : undefined
    }

    /** Whether the node holds the transaction in its pending pool; false also when the node lacks the route (older java-tron). */
    async isPending(txID: string): Promise<boolean> {
        try {
            const tx = await this.post('/wallet/gettransactionfrompending', { value: txID })
            return tx?.txID === txID
        } catch {
            return false
        }
    }

    /** A constant (view) call's first 32-byte word. */
    async callConstant(contract: string, owner: string, selector: string, parameter: string): Promise<bigint> {
        const answer = await this.post('/wallet/triggerconstantcontract', {
            owner_address: owner, contract_address: contract, function_selector: selector, parameter, visible: true,
        })
        const word = answer?.constant_result?.[0]
        if (answer?.result?.result !== true || typeof word !== 'string' || !/^[0-9a-f]{64}/i.test(word)) {
            const message = typeof answer?.result?.message === 'string' ? decodeMessage(answer.result.message) : JSON.stringify(answer).slice(0, 200)
            throw new TronCallError(`TRON: ${selector} on ${contract} failed: ${message}`)
        }
        return BigInt('0x' + word.slice(0, 64))
    }

    /** Every page of a TronGrid v1 list. */
    async gridList<T>(path: string, query: Record<string, string>): Promise<T[]> {
        const items: T[] = []
        let fingerprint: string | undefined
        for (let page = 0; page < GRID_MAX_PAGES; page++) {
            const answer = await this.gridPage<T>(path, { ...query, ...(fingerprint ? { fingerprint } : {}) }, GRID_PAGE)
            items.push(...answer.data)
            fingerprint = answer.fingerprint
            if (!fingerprint || answer.data.length === 0) return items
        }
        throw new TronNodeError(`TRON ${path}: more than ${GRID_MAX_PAGES} pages`)
    }

    /** One page of a TronGrid v1 list (at most `limit` items, TronGrid serves up to 200), with the cursor of the next. */
    async gridPage<T>(path: string, query: Record<string, string>, limit: number): Promise<{ data: T[]; fingerprint?: string }> {
        const params = new URLSearchParams({ ...query, limit: String(limit) })
        const answer: GridPage<T> = await this.json('GET', `${path}?${params}`)
        if (answer.success === false) throw new TronNodeError(`TRON ${path}: ${answer.error ?? 'refused'}`)
        return { data: answer.data ?? [], fingerprint: answer.meta?.fingerprint }
    }
}

/** java-tron hex-encodes the UTF-8 of its messages; anything else is shown as it came. */
export function decodeMessage(message: string): string {
    if (/^([0-9a-f]{2})+$/i.test(message)) return Buffer.from(message, 'hex').toString('utf8')
    return message
}
