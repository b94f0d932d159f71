import { AmountError, formatUnits } from '../../amounts'
import { tokenSpec } from '../../registry'
import { decimalToUnits, providerDecimal, Rounding } from '../decimal'
import { ProviderAmountOutOfRangeError, ProviderError, ProviderRequestError, ProviderUncertainError } from '../errors'
import {
    CreateExchangeRequest, ProviderAsset, ProviderEstimate, ProviderExchange, ProviderPair, ProviderRange, SwapProvider,
} from '../provider'
import { mapProviderStatus } from '../status'
import { DEFAULT_SIMPLESWAP_ASSETS, fromCurrency, SimpleSwapAssetMap, SimpleSwapCurrency, toCurrency } from './assets'
import { EstimateResponse, ExchangeObject, ExchangeResponse, RangesResponse } from './schema'
import { Transport, TransportOptions } from './transport'

/** SimpleSwap v3, as public v3 clients use it, behind the SwapProvider interface. */

export const SIMPLESWAP_DEFAULT_URL = 'https://api.simpleswap.io/v3'

export interface SimpleSwapOptions extends Partial<Omit<TransportOptions, 'apiKey'>> {
    apiKey: string
    assets?: SimpleSwapAssetMap
}

const DEFAULTS = { timeoutMs: 15_000, createTimeoutMs: 30_000, readAttempts: 3, retryDelayMs: 500 }

export class SimpleSwapProvider implements SwapProvider {
    readonly name = 'simpleswap' as const
    private readonly transport: Transport
    private readonly assets: SimpleSwapAssetMap

    constructor(options: SimpleSwapOptions) {
        if (!options.apiKey.trim()) throw new Error('SimpleSwap needs an API key')
        this.transport = new Transport({ ...DEFAULTS, baseUrl: SIMPLESWAP_DEFAULT_URL, ...options, apiKey: options.apiKey.trim() })
        this.assets = options.assets ?? DEFAULT_SIMPLESWAP_ASSETS
    }

    supports(pair: ProviderPair): boolean {
        return !!toCurrency(this.assets, pair.from) && !!toCurrency(this.assets, pair.to) && !!decimalsOf(pair.from) && !!decimalsOf(pair.to)
    }

    async range(pair: ProviderPair): Promise<ProviderRange> {
        const body = await this.transport.read({ method: 'GET', path: '/ranges', query: this.pairQuery(pair) })
        const r = parseOrThrow(RangesResponse, body, 'ranges', false).result
        const decimals = decimalsOf(pair.from)!
        return {
            min: units(r.min, decimals, 'up', 'min', false),
            max: r.max === null || r.max === undefined ? undefined : units(r.max, decimals, 'down', 'max', false),
        }
    }

    async estimate(pair: ProviderPair, amountIn: bigint): Promise<ProviderEstimate> {
        const query = { ...this.pairQuery(pair), amount: this.amountText(pair.from, amountIn), reverse: 'false' }
        let body: unknown
        try {
            body = await this.transport.read({ method: 'GET', path: '/estimates', query })
        } catch (err) {
            throw await this.explainRefusal(err, pair, amountIn)
        }
        const r = parseOrThrow(EstimateResponse, body, 'estimates', false).result
        return {
            amountIn,
            // Down: we promise our user no more than the provider promised us.
            amountOut: units(r.estimatedAmount, decimalsOf(pair.to)!, 'down', 'estimatedAmount', false),
            rateId: r.rateId ?? undefined,
            validUntil: date(r.validUntil),
        }
    }

    async createExchange(request: CreateExchangeRequest): Promise<ProviderExchange> {
        const from = this.currency(request.from)
        const to = this.currency(request.to)
        if (!request.payoutAddress) throw new ProviderRequestError('a payout address is required')
        if (!request.refundAddress) throw new ProviderRequestError('a refund address is required')
        const body = {
            fixed: request.fixed ?? false,
            tickerFrom: from.ticker,
            networkFrom: from.network,
            tickerTo: to.ticker,
            networkTo: to.network,
            amount: this.amountText(request.from, request.amountIn),
            reverse: false,
            addressTo: request.payoutAddress,
            extraIdTo: request.payoutExtraId ?? '',
            userRefundAddress: request.refundAddress,
            userRefundExtraId: request.refundExtraId ?? '',
            rateId: request.rateId ?? null,
            customFee: null,
        }
        let answer: unknown
        try {
            answer = await this.transport.write({ method: 'POST', path: '/exchanges', body })
        } catch (err) {
            throw await this.explainRefusal(err, request, request.amountIn)
        }
        const exchange = this.toExchange(parseOrThrow(ExchangeResponse, answer, 'create exchange', true).result, true)
        // The provider pays wherever its record says; a record that disagrees with what we asked is not one to fund.
        if (!sameAddress(exchange.payoutAddress, request.payoutAddress)) {
            throw new ProviderUncertainError(`SimpleSwap created exchange ${exchange.id} with payout address ${exchange.payoutAddress}, not the one requested`, true)
        }
        return exchange
    }

    async getExchange(id: string): Promise<ProviderExchange> {
        if (!/^[A-Za-z0-9_-]{1,100}$/.test(id)) throw new ProviderRequestError(`"${id}" is not a provider exchange id`)
        const body = await this.transport.read({ method: 'GET', path: `/exchanges/${encodeURIComponent(id)}` })
        return this.toExchange(parseOrThrow(ExchangeResponse, body, 'exchange', false).result, false)
    }

    private toExchange(e: ExchangeObject, created: boolean): ProviderExchange {
        const from = fromCurrency(this.assets, e.tickerFrom, e.networkFrom)
        const to = fromCurrency(this.assets, e.tickerTo, e.networkTo)
        if (!from || !to) throw malformed(`exchange is for ${e.tickerFrom}/${e.networkFrom} → ${e.tickerTo}/${e.networkTo}, which we do not map`, created)
        const paid = e.amountTo ?? e.expectedAmount
        return {
            id: String(e.id ?? e.publicId),
            status: mapProviderStatus(e.status),
            from,
            to,
            fixed: e.fixed ?? e.type === 'fixed',
            depositAddress: e.addressFrom,
            depositExtraId: e.extraIdFrom || undefined,
            // Up: sending what we were told must never leave the provider short.
            amountIn: e.amountFrom === null || e.amountFrom === undefined ? undefined : units(e.amountFrom, decimalsOf(from)!, 'up', 'amountFrom', created),
            amountOut: paid === null || paid === undefined ? undefined : units(paid, decimalsOf(to)!, 'down', 'amountTo', created),
            payoutAddress: e.addressTo,
            refundAddress: e.userRefundAddress || undefined,
            txIn: e.txFrom || undefined,
            txOut: e.txTo || undefined,
            validUntil: date(e.validUntil),
            createdAt: date(e.createdAt),
        }
    }

    /**
     * A 4xx on an estimate or a create says little in words (we know of no documented error
     * codes), so an amount refusal is recognised by asking for the range, a read, and comparing.
     */
    private async explainRefusal(err: unknown, pair: ProviderPair, amountIn: bigint): Promise<unknown> {
        if (!(err instanceof ProviderRequestError) || err instanceof ProviderAmountOutOfRangeError) return err
        let range: ProviderRange
        try {
            range = await this.range(pair)
        } catch {
            return err
        }
        const decimals = decimalsOf(pair.from)!
        if (amountIn < range.min || (range.max !== undefined && amountIn > range.max)) {
            const bounds = `${formatUnits(range.min, decimals)}${range.max === undefined ? ' or more' : ` to ${formatUnits(range.max, decimals)}`}`
            return new ProviderAmountOutOfRangeError(
                `amount ${formatUnits(amountIn, decimals)} ${pair.from.symbol} is outside the provider's range for this pair: ${bounds}`,
                range.min, range.max, err.providerStatus,
            )
        }
        return err
    }

    private pairQuery(pair: ProviderPair): Record<string, string> {
        const from = this.currency(pair.from)
        const to = this.currency(pair.to)
        return { fixed: String(pair.fixed ?? false), tickerFrom: from.ticker, networkFrom: from.network, tickerTo: to.ticker, networkTo: to.network }
    }

    private currency(asset: ProviderAsset): SimpleSwapCurrency {
        const c = toCurrency(this.assets, asset)
        if (!c || !decimalsOf(asset)) throw new ProviderRequestError(`${asset.chain}:${asset.symbol} is not available from the swap provider`)
        return c
    }

    private amountText(asset: ProviderAsset, amount: bigint): string {
        if (amount <= 0n) throw new ProviderRequestError('amount must be positive')
        return formatUnits(amount, decimalsOf(asset)!)
    }
}

/** EVM hex addresses may come back in another letter case (checksum or not); every other form is case-sensitive. */
function sameAddress(a: string, b: string): boolean {
    const hex = /^0x[0-9a-fA-F]{40}$/
    return hex.test(a) && hex.test(b) ? a.toLowerCase() === b.toLowerCase() : a === b
}

function decimalsOf(asset: ProviderAsset): number | undefined {
    return tokenSpec(asset.chain, asset.symbol)?.decimals
}

function malformed(message: string, created: boolean): ProviderError {
    // An unreadable answer to a create may still describe an exchange that now exists.
    return new ProviderUncertainError(`SimpleSwap answered in an unexpected form: ${message}`, created)
}

function parseOrThrow<T>(schema: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } } }, body: unknown, what: string, created: boolean): T {
    const parsed = schema.safeParse(body)
    if (parsed.success) return parsed.data
    const issue = parsed.error.issues[0]
    throw malformed(`${what}: ${issue ? `${issue.path.map(String).join('.')} ${issue.message}` : 'invalid'}`, created)
}

function units(value: string | number, decimals: number, rounding: Rounding, field: string, created: boolean): bigint {
    try {
        return decimalToUnits(providerDecimal(value), decimals, rounding)
    } catch (err) {
        if (err instanceof AmountError) throw malformed(`${field}: ${err.message}`, created)
        throw err
    }
}

function date(value: string | null | undefined): Date | undefined {
    if (!value) return undefined
    const d = new Date(value)
    return Number.isNaN(d.getTime()) ? undefined : d
}
